/**
 * The trajectory checks against hand-worked expectations: each row is a
 * trajectory, an assertion and what a person working it out on paper gets.
 */

import { describe, expect, it } from '@jest/globals'
import { evaluateAssertion, validateAssertion } from '../../src/assertions/index.js'
import { matchTrajectory, toolCallF1, toolPath } from '../../src/assertions/trajectory.js'
import type { AssertionContext } from '../../src/assertions/types.js'
import type { Assertion, EvalCase, ToolCall, AssertionResult } from '../../src/types.js'
import { makeContext } from './helpers.js'

const L: ToolCall = { name: 'lookup_order', args: { order_id: 'A18' }, result: { status: 'delivered' } }
const L7: ToolCall = { name: 'lookup_order', args: { order_id: 'B7' } }
const R: ToolCall = { name: 'refund', args: { order_id: 'A18', amount: 20.5 } }
const S: ToolCall = { name: 'search_kb', args: { q: 'returns' } }
const T0: ToolCall[] = []
const T1 = [L, R]
const T2 = [L, S, R]
const T3 = [L, L, R]

const ref = (c: ToolCall) => ({ name: c.name, args: c.args })
const R25 = { name: 'refund', args: { order_id: 'A18', amount: 25 } }

const CASE: EvalCase = { id: 'c', name: 'c', input: 'refund A18', tags: [], assert: [], fingerprint: 'f', index: 0 }

async function grade(a: Assertion, calls: ToolCall[] | undefined) {
  const ctx: AssertionContext = { output: 'Refund issued.', input: CASE.input, case: CASE, durationMs: 1, toolCalls: calls }
  return evaluateAssertion(a, ctx)
}

type Row = [label: string, assertion: Assertion, calls: ToolCall[], passes: boolean, reason?: string]

const trajectoryMatchRows: Row[] = [
  // strict: the same calls in the same order
  ['strict, identical', { type: 'trajectory-match', value: [ref(L), ref(R)] }, T1, true],
  ['strict, swapped', { type: 'trajectory-match', value: [ref(R), ref(L)] }, T1, false, 'step 1 is lookup_order {"order_id":"A18"}, the reference has refund'],
  [
    'strict, an extra step between',
    { type: 'trajectory-match', value: [ref(L), ref(R)] },
    T2,
    false,
    'step 2 is search_kb {"q":"returns"}, the reference has refund'
  ],
  ['strict, other args', { type: 'trajectory-match', value: [ref(L), R25] }, T1, false, 'step 2 is refund'],
  ['strict, other args ignored', { type: 'trajectory-match', value: [ref(L), R25], args: 'ignore' }, T1, true],
  ['strict, reference without args', { type: 'trajectory-match', value: ['lookup_order', { name: 'refund' }] }, T1, true],
  ['strict, both empty', { type: 'trajectory-match', value: [] }, T0, true],
  ['strict, nothing called', { type: 'trajectory-match', value: [ref(L)] }, T0, false, 'step 1 is nothing, the reference has lookup_order'],
  ['strict, one call too many', { type: 'trajectory-match', value: [ref(L)] }, T1, false, 'step 2 is refund'],
  // unordered: the same calls in any order
  ['unordered, swapped', { type: 'trajectory-match', mode: 'unordered', value: [ref(R), ref(L)] }, T1, true],
  ['unordered, an extra call', { type: 'trajectory-match', mode: 'unordered', value: [ref(R), ref(L)] }, T2, false, 'not in the reference: search_kb'],
  [
    'unordered, a call missing',
    { type: 'trajectory-match', mode: 'unordered', value: [ref(R), ref(L), ref(S)] },
    T1,
    false,
    'reference steps not made: search_kb'
  ],
  ['unordered, a call twice', { type: 'trajectory-match', mode: 'unordered', value: [ref(L), ref(R)] }, T3, false, 'not in the reference: lookup_order'],
  ['unordered, twice in both', { type: 'trajectory-match', mode: 'unordered', value: [ref(L), ref(R), ref(L)] }, T3, true],
  [
    'unordered, other args',
    { type: 'trajectory-match', mode: 'unordered', value: [R25, ref(L)] },
    T1,
    false,
    'reference steps not made: refund {"order_id":"A18","amount":25}'
  ],
  ['unordered, other args ignored', { type: 'trajectory-match', mode: 'unordered', args: 'ignore', value: [R25, ref(L)] }, T1, true],
  [
    'unordered, a step without args must not take the only call that fits the other',
    { type: 'trajectory-match', mode: 'unordered', value: [{ name: 'lookup_order' }, ref(L)] },
    [L, L7],
    true
  ],
  // subset: every call made is in the reference
  ['subset, fewer calls than the reference', { type: 'trajectory-match', mode: 'subset', value: [ref(L), ref(R), ref(S)] }, T1, true],
  ['subset, a call outside it', { type: 'trajectory-match', mode: 'subset', value: [ref(L), ref(R)] }, T2, false, 'not in the reference: search_kb'],
  ['subset, nothing called', { type: 'trajectory-match', mode: 'subset', value: [ref(L)] }, T0, true],
  [
    'subset, called more often than the reference allows',
    { type: 'trajectory-match', mode: 'subset', value: [ref(L), ref(R)] },
    T3,
    false,
    'not in the reference: lookup_order'
  ],
  [
    'subset, nothing in common',
    { type: 'trajectory-match', mode: 'subset', value: [ref(S)] },
    T1,
    false,
    'not in the reference: lookup_order {"order_id":"A18"}, refund'
  ],
  ['subset, other args', { type: 'trajectory-match', mode: 'subset', value: [R25, ref(L)] }, T1, false, 'not in the reference: refund'],
  ['subset, other args ignored', { type: 'trajectory-match', mode: 'subset', args: 'ignore', value: [R25, ref(L)] }, T1, true],
  // superset: every reference call was made
  ['superset, extra calls allowed', { type: 'trajectory-match', mode: 'superset', value: [ref(L), ref(R)] }, T2, true],
  [
    'superset, a reference call not made',
    { type: 'trajectory-match', mode: 'superset', value: [ref(L), ref(R), ref(S)] },
    T1,
    false,
    'reference steps not made: search_kb'
  ],
  ['superset, empty reference', { type: 'trajectory-match', mode: 'superset', value: [] }, T0, true],
  [
    'superset, a reference call twice, made once',
    { type: 'trajectory-match', mode: 'superset', value: [ref(L), ref(L)] },
    T1,
    false,
    'reference steps not made: lookup_order'
  ],
  ['superset, made twice', { type: 'trajectory-match', mode: 'superset', value: [ref(L), ref(L)] }, T3, true],
  ['superset, order does not matter', { type: 'trajectory-match', mode: 'superset', value: [ref(R), ref(L)] }, T2, true],
  // pairing the first partner that fits would fail these: the step without args must leave its call to the step that needs it
  [
    'superset, a step without args must not take the only call that fits the other',
    { type: 'trajectory-match', mode: 'superset', value: [{ name: 'lookup_order' }, ref(L)] },
    [L, S, L7],
    true
  ],
  [
    'subset, a call must not take the only step that fits the other',
    { type: 'trajectory-match', mode: 'subset', value: [{ name: 'lookup_order' }, ref(L7), ref(R)] },
    [L7, L],
    true
  ],
  [
    'subset, two calls for one step without args',
    { type: 'trajectory-match', mode: 'subset', value: [{ name: 'lookup_order' }, ref(R)] },
    [L7, L],
    false,
    'not in the reference: lookup_order {"order_id":"A18"}'
  ],
  [
    'strict, a reference without args against longer calls',
    { type: 'trajectory-match', value: ['lookup_order'] },
    [L, L7],
    false,
    'step 2 is lookup_order {"order_id":"B7"}, the reference has nothing'
  ],
  // not-
  ['not-, strict match', { type: 'not-trajectory-match', value: [ref(L), ref(R)] }, T1, false, 'expected no strict match of lookup_order → refund'],
  ['not-, strict mismatch', { type: 'not-trajectory-match', value: [ref(R), ref(L)] }, T1, true]
]

const promptfooRows: Row[] = [
  // trajectory:tool-used
  ['tool-used, called', { type: 'trajectory:tool-used', value: 'refund' }, T1, true, 'refund was called 1 time: lookup_order → refund'],
  ['tool-used, not called', { type: 'trajectory:tool-used', value: 'refund' }, [L], false, 'refund was called 0 times, allowed at least 1: lookup_order'],
  [
    'tool-used, forbidden (max 0)',
    { type: 'trajectory:tool-used', value: { name: 'refund', max: 0 } },
    T1,
    false,
    'refund was called 1 time, allowed 0: lookup_order → refund'
  ],
  ['not-tool-used, forbidden', { type: 'not-trajectory:tool-used', value: 'refund' }, T1, false, 'refund was called 1 time, allowed 0: lookup_order → refund'],
  ['not-tool-used, absent', { type: 'not-trajectory:tool-used', value: 'refund' }, [L], true],
  ['tool-used, a list, all called', { type: 'trajectory:tool-used', value: ['lookup_order', 'refund'] }, T2, true],
  [
    'tool-used, a list, one missing',
    { type: 'trajectory:tool-used', value: ['lookup_order', 'refund'] },
    [L],
    false,
    'refund was called 0 times, allowed at least 1: lookup_order'
  ],
  ['tool-used, min 2 met', { type: 'trajectory:tool-used', value: { name: 'lookup_order', min: 2 } }, T3, true],
  [
    'tool-used, min 2 missed',
    { type: 'trajectory:tool-used', value: { name: 'lookup_order', min: 2 } },
    T1,
    false,
    'lookup_order was called 1 time, allowed at least 2'
  ],
  [
    'tool-used, max 1 exceeded',
    { type: 'trajectory:tool-used', value: { name: 'lookup_order', max: 1 } },
    T3,
    false,
    'lookup_order was called 2 times, allowed 1 to 1'.replace('1 to 1', 'exactly 1')
  ],
  // trajectory:tool-sequence
  ['sequence in order, steps between', { type: 'trajectory:tool-sequence', value: ['lookup_order', 'refund'] }, T2, true],
  [
    'sequence exact, steps between',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund'], mode: 'exact' } },
    T2,
    false,
    'step 2 is search_kb instead of refund, expected exactly lookup_order → refund'
  ],
  ['sequence exact, the same', { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund'], mode: 'exact' } }, T1, true],
  [
    'sequence in order, reversed',
    { type: 'trajectory:tool-sequence', value: ['refund', 'lookup_order'] },
    T1,
    false,
    'lookup_order was not called after refund'
  ],
  ['sequence, a step never called', { type: 'trajectory:tool-sequence', value: ['search_kb'] }, T1, false, 'search_kb was never called'],
  [
    'sequence exact, nothing called',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order'], mode: 'exact' } },
    T0,
    false,
    'step 1 is missing instead of lookup_order, expected exactly lookup_order: no tool calls'
  ],
  [
    'sequence exact, one too many',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order'], mode: 'exact' } },
    T1,
    false,
    'step 2 is refund instead of the end'
  ],
  [
    'not-sequence, found',
    { type: 'not-trajectory:tool-sequence', value: ['lookup_order', 'refund'] },
    T2,
    false,
    'expected not to find lookup_order → refund in order'
  ],
  // trajectory:tool-args-match
  [
    'args partial, a subset',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 } } },
    T1,
    true,
    'refund was called with {"order_id":"A18","amount":20.5}'
  ],
  [
    'args exact, only a subset given',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 }, mode: 'exact' } },
    T1,
    false,
    '/order_id is not expected'
  ],
  [
    'args exact, all given',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { order_id: 'A18', amount: 20.5 }, mode: 'exact' } },
    T1,
    true
  ],
  [
    'args, another amount',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 25 } } },
    T1,
    false,
    'refund was called 1 time, never with matching arguments (first call: /amount is 20.5, expected 25)'
  ],
  ['args, tool never called', { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 } } }, [L], false, 'refund was never called'],
  [
    'args, the second call of the tool matches',
    { type: 'trajectory:tool-args-match', value: { name: 'lookup_order', args: { order_id: 'B7' } } },
    [L, L7],
    true
  ],
  [
    'not-args, matching call made',
    { type: 'not-trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 } } },
    T1,
    false,
    'expected no call of refund'
  ],
  // trajectory:step-count
  ['steps, within max', { type: 'trajectory:step-count', value: { max: 2 } }, T1, true],
  [
    'steps, over max',
    { type: 'trajectory:step-count', value: { max: 2 } },
    T2,
    false,
    '3 tool calls, allowed at most 2 tool calls: lookup_order → search_kb → refund'
  ],
  ['steps, under min', { type: 'trajectory:step-count', value: { min: 1 } }, T0, false, '0 tool calls, allowed at least 1 tool calls: no tool calls'],
  [
    'steps of one tool, over max',
    { type: 'trajectory:step-count', value: { name: 'lookup_order', max: 1 } },
    T3,
    false,
    'lookup_order was called 2 times, allowed at most 1 calls of lookup_order'
  ],
  ['steps, in a range', { type: 'trajectory:step-count', value: { min: 2, max: 3 } }, T2, true],
  ['not-steps, in range', { type: 'not-trajectory:step-count', value: { min: 2, max: 3 } }, T2, false, 'allowed fewer than 2 or more than 3 tool calls'],
  // tool-call-f1
  ['f1, the expected names exactly', { type: 'tool-call-f1', value: ['lookup_order', 'refund'] }, T1, true, 'tool-call F1 1.00'],
  ['f1, one extra name (P 0.5, R 1)', { type: 'tool-call-f1', value: ['lookup_order'] }, T1, false, 'tool-call F1 0.67 (precision 0.50, recall 1.00'],
  ['f1, one extra name, threshold 0.6', { type: 'tool-call-f1', value: ['lookup_order'], threshold: 0.6 }, T1, true],
  ['f1, nothing called', { type: 'tool-call-f1', value: ['lookup_order', 'refund'] }, T0, false, 'tool-call F1 0.00'],
  ['f1, comma-separated, half right (P 0.5, R 0.5)', { type: 'tool-call-f1', value: 'lookup_order, search_kb', threshold: 0.5 }, T1, true, 'tool-call F1 0.50'],
  ['f1, repeated calls count once', { type: 'tool-call-f1', value: ['lookup_order', 'refund'] }, T3, true]
]

describe.each([
  ['trajectory-match (agentevals modes)', trajectoryMatchRows],
  ['promptfoo trajectory checks and tool-call-f1', promptfooRows]
])('%s', (_family, rows) => {
  // every row the same length: jest would take a missing last argument's place for a `done` callback
  it.each(rows.map(([label, assertion, calls, passes, reason]) => [label, assertion, calls, passes, reason ?? ''] as const))(
    '%s',
    async (_label, assertion, calls, passes, reason) => {
      expect(validateAssertion(assertion)).toBeUndefined()
      const result = await grade(assertion, calls)
      expect(result.passed).toBe(passes)
      if (reason) expect(result.reason).toContain(reason)
      expect(result.error).toBeUndefined()
    }
  )
})

describe('trajectory scores and helpers', () => {
  it('tool-call-f1 scores the F1 itself, and 1 − F1 under not-', async () => {
    expect((await grade({ type: 'tool-call-f1', value: ['lookup_order'] }, T1)).score).toBeCloseTo(2 / 3, 10)
    expect((await grade({ type: 'not-tool-call-f1', value: ['lookup_order'] }, T1)).score).toBeCloseTo(1 / 3, 10)
    expect(toolCallF1([], [])).toEqual({ f1: 1, precision: 1, recall: 1 })
  })

  it('matchTrajectory reports what is unexpected and what is missing', () => {
    expect(matchTrajectory(T2, [ref(L), ref(R)], 'unordered', { mode: 'exact' })).toMatchObject({ holds: false, unexpected: [S], missing: [] })
    expect(matchTrajectory(T1, [ref(R), ref(S)], 'strict', { mode: 'exact' })).toMatchObject({ holds: false, firstDifference: 0 })
  })

  it('toolCalls: [] is an empty trajectory', async () => {
    expect((await grade({ type: 'trajectory:tool-used', value: 'refund' }, [])).reason).toBe('refund was called 0 times, allowed at least 1: no tool calls')
    expect((await grade({ type: 'trajectory:tool-used', value: { name: 'refund', max: 0 } }, [])).passed).toBe(true)
  })

  // A check that a tool was never called must not pass on an agent that stopped reporting its calls
  it.each<Assertion>([
    { type: 'trajectory:tool-used', value: { name: 'refund', max: 0 } },
    { type: 'not-trajectory:tool-used', value: 'refund' },
    { type: 'trajectory:tool-used', value: 'lookup_order' },
    { type: 'trajectory:tool-sequence', value: ['lookup_order'] },
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { order_id: 'A18' } } },
    { type: 'trajectory:step-count', value: { max: 2 } },
    { type: 'not-trajectory:step-count', value: { min: 3 } },
    { type: 'trajectory-match', mode: 'subset', value: ['lookup_order', 'refund'] },
    { type: 'tool-call-f1', value: ['lookup_order'] },
    { type: 'not-tool-call-f1', value: ['refund'], threshold: 0.5 }
  ])('$type $value: no toolCalls reported (a string output) cannot be checked, and fails', async (a) => {
    const result = await grade(a, undefined)
    expect(result).toMatchObject({
      passed: false,
      score: 0,
      error: 'the target reported no toolCalls, so what it called is unknown; an agent that called no tool returns toolCalls: []'
    })
    expect(result.reason).toBe(`${a.type} could not be checked: ${result.error}`)
  })

  it.each([
    [{ type: 'trajectory:tool-used' }, 'trajectory:tool-used needs a `value`'],
    [{ type: 'trajectory:tool-used', value: { name: 'refund', min: 3, max: 1 } }, 'min 3 above max 1'],
    [{ type: 'trajectory:tool-sequence', value: { steps: ['a'], mode: 'sorted' } }, '`mode` is in_order or exact'],
    [{ type: 'trajectory:tool-args-match', value: { name: 'refund' } }, 'needs `args`'],
    [{ type: 'trajectory:step-count', value: {} }, 'with min or max'],
    [{ type: 'trajectory-match', value: [{ args: {} }] }, 'a list of {name, args?}'],
    [{ type: 'trajectory-match', value: [], mode: 'fuzzy' }, '`mode` is one of strict, unordered, subset, superset'],
    [{ type: 'trajectory-match', value: [], args: 'partial' }, '`args` is exact, ignore, subset or superset'],
    [{ type: 'tool-call-f1', value: ['a'], threshold: 2 }, 'at most 1'],
    [{ type: 'cost' }, 'cost needs a `threshold`']
  ])('refuses %j as a config problem', (assertion, problem) => {
    expect(validateAssertion(assertion as Assertion)).toContain(problem)
  })
})

describe('is-valid-openai-tools-call and is-valid-openai-function-call', () => {
  const tools = [
    {
      type: 'function',
      function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }
    },
    {
      type: 'function',
      function: {
        name: 'refund',
        parameters: { type: 'object', properties: { order_id: { type: 'string' }, amount: { type: 'number', maximum: 100 } }, required: ['order_id', 'amount'] }
      }
    }
  ]
  const check = (type: string, calls: ToolCall[] | undefined, output = 'ok', value?: unknown) =>
    evaluateAssertion({ type, ...(value ? { value } : {}) }, { output, input: '', case: CASE, durationMs: 1, toolCalls: calls, tools })

  it.each([
    ['valid calls', T1, true, 'every call is valid'],
    ['an unknown tool', [L, S], false, 'search_kb is not one of the tools (lookup_order, refund)'],
    [
      'args against the schema',
      [{ name: 'refund', args: { order_id: 'A18', amount: 500 } }],
      false,
      'refund {"order_id":"A18","amount":500}: /amount must be <= 100'
    ],
    ['a required arg missing', [{ name: 'lookup_order', args: {} }], false, "must have required property 'order_id'"],
    ['no calls at all', [], false, 'no tool calls, and the output is not JSON']
  ])('tools-call: %s', async (_label, calls, passes, reason) => {
    const result = await check('is-valid-openai-tools-call', calls)
    expect(result.passed).toBe(passes)
    expect(result.reason).toContain(reason)
  })

  it('function-call reads the call from the output, as promptfoo does, against the same schemas', async () => {
    const output = JSON.stringify({ name: 'lookup_order', arguments: '{"order_id":"A18"}' })
    expect((await check('is-valid-openai-function-call', undefined, output)).passed).toBe(true)
    const bad = JSON.stringify({ function_call: { name: 'refund', arguments: '{"order_id":"A18"}' } })
    expect((await check('is-valid-openai-function-call', undefined, bad)).reason).toContain("must have required property 'amount'")
  })

  it('schemas given as the value win; none at all is an error not- cannot pass', async () => {
    const searchKb = { type: 'function', function: { name: 'search_kb', parameters: { type: 'object' } } }
    expect((await check('is-valid-openai-tools-call', [S], 'ok', [searchKb])).passed).toBe(true)
    const none = await evaluateAssertion({ type: 'not-is-valid-openai-tools-call' }, { output: 'x', input: '', case: CASE, durationMs: 1, toolCalls: T1 })
    expect(none).toMatchObject({ passed: false, error: expect.stringContaining('set `target.tools`') })
  })
})

describe('cost', () => {
  const ctx = (costUsd?: number): AssertionContext => ({
    output: 'x',
    input: '',
    case: CASE,
    durationMs: 1,
    ...(costUsd === undefined ? {} : { usage: { costUsd } })
  })
  it.each([
    [{ type: 'cost', threshold: 0.01 }, 0.002, true, 'cost $0.00200, within the $0.0100 limit'],
    [{ type: 'cost', threshold: 0.001 }, 0.002, false, 'expected the trial to cost at most $0.00100, it cost $0.00200'],
    [{ type: 'not-cost', threshold: 0.001 }, 0.002, true, 'cost $0.00200, over the $0.00100 limit'],
    [{ type: 'not-cost', threshold: 0.02 }, 0.01, false, 'expected the trial to cost more than $0.0200, it cost $0.0100'],
    // the limit itself is within it
    [{ type: 'cost', threshold: 0.02 }, 0.02, true, 'cost $0.0200, within the $0.0200 limit'],
    // from a cent up, four decimals
    [{ type: 'cost', threshold: 1 }, 0.5, true, 'cost $0.5000, within the $1.0000 limit']
  ])('%j at %d USD', async (assertion, spent, passes, reason) => {
    const result = await evaluateAssertion(assertion, ctx(spent))
    expect(result.passed).toBe(passes)
    expect(result.reason).toBe(reason)
  })

  it('refuses a negative threshold', () => {
    expect(validateAssertion({ type: 'cost', threshold: -1 })).toBe('cost `threshold` must be at least 0, got -1')
  })

  it('no cost is an error, whichever way the check points', async () => {
    for (const type of ['cost', 'not-cost']) {
      const result = await evaluateAssertion({ type, threshold: 1 }, ctx())
      expect(result).toMatchObject({ passed: false, error: expect.stringContaining('pricing') })
    }
  })
})

/**
 * The trajectory checks' whole sentences (SPEC §10: every reason names the tools
 * and ends with the path taken), the value shapes they refuse, and the helpers
 * behind them, pinned where trajectory.test.ts only checks a part: the cases
 * no other test would notice breaking.
 */

const EXACT = { mode: 'exact' } as const

/** Calls t1 … tn, one per step. */
const numbered = (n: number): ToolCall[] => Array.from({ length: n }, (_, i) => ({ name: `t${i + 1}`, args: {} }))

/** Grades a valid assertion against the calls. */
async function graded(a: Assertion, calls: ToolCall[]): Promise<AssertionResult> {
  expect(validateAssertion(a)).toBeUndefined()
  const result = await evaluateAssertion(a, makeContext('Refund issued.', { toolCalls: calls }))
  expect(result.error).toBeUndefined()
  return result
}

type ReasonRow = [label: string, assertion: Assertion, calls: ToolCall[], passes: boolean, reason: string]

async function expectRow(assertion: Assertion, calls: ToolCall[], passes: boolean, reason: string) {
  const result = await graded(assertion, calls)
  expect(result.reason).toBe(reason)
  expect(result.passed).toBe(passes)
}

describe('the path in a reason', () => {
  it('is every name up to 12 steps, and no tool calls for none', () => {
    expect(toolPath([])).toBe('no tool calls')
    expect(toolPath(numbered(1))).toBe('t1')
    expect(toolPath(numbered(12))).toBe('t1 → t2 → t3 → t4 → t5 → t6 → t7 → t8 → t9 → t10 → t11 → t12')
  })

  it('past 12 steps keeps the first ten and the last, and says how many it left out', () => {
    expect(toolPath(numbered(13))).toBe('t1 → t2 → t3 → t4 → t5 → t6 → t7 → t8 → t9 → t10 → … 2 more … → t13')
    expect(toolPath(numbered(40))).toBe('t1 → t2 → t3 → t4 → t5 → t6 → t7 → t8 → t9 → t10 → … 29 more … → t40')
  })

  it('is cut the same way in a check’s reason', async () => {
    await expectRow(
      { type: 'trajectory:step-count', value: { max: 5 } },
      numbered(13),
      false,
      '13 tool calls, allowed at most 5 tool calls: t1 → t2 → t3 → t4 → t5 → t6 → t7 → t8 → t9 → t10 → … 2 more … → t13'
    )
  })
})

// [assertion, the problem validateAssertion reports, or undefined when it is valid]
const shapes: [assertion: Assertion, problem: string | undefined][] = [
  // trajectory:tool-used
  [{ type: 'trajectory:tool-used', value: [] }, 'trajectory:tool-used needs a `value`: a tool name, a list of names, or {name | pattern, min?, max?}'],
  [{ type: 'trajectory:tool-used', value: [null] }, 'trajectory:tool-used needs tool names, got null'],
  [{ type: 'trajectory:tool-used', value: 7 }, 'trajectory:tool-used needs tool names, got number 7'],
  [{ type: 'trajectory:tool-used', value: '' }, 'trajectory:tool-used needs tool names, got the string ""'],
  [{ type: 'trajectory:tool-used', value: ['refund', '  '] }, 'trajectory:tool-used needs tool names, got the string "  "'],
  [{ type: 'trajectory:tool-used', value: [{ name: 'refund' }, 7] }, 'trajectory:tool-used needs tool names, got number 7'],
  [{ type: 'trajectory:tool-used', value: { min: 1 } }, 'trajectory:tool-used needs a `name` or a `pattern` in {"min":1}'],
  [{ type: 'trajectory:tool-used', value: { name: ' ', max: 1 } }, 'trajectory:tool-used `name` must be a tool name, got " "'],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', min: -1 } }, 'trajectory:tool-used `min` must be a whole number ≥ 0, got -1'],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', max: 1.5 } }, 'trajectory:tool-used `max` must be a whole number ≥ 0, got 1.5'],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', min: '2' } }, 'trajectory:tool-used `min` must be a whole number ≥ 0, got "2"'],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', max: null } }, 'trajectory:tool-used `max` must be a whole number ≥ 0, got null'],
  [
    {
      type: 'trajectory:tool-used',
      value: [
        { name: 'refund', max: 1 },
        { name: 'lookup_order', min: -2 }
      ]
    },
    'trajectory:tool-used `min` must be a whole number ≥ 0, got -2'
  ],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', min: 3, max: 1 } }, 'trajectory:tool-used has min 3 above max 1'],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', min: 2, max: 2 } }, undefined],
  [{ type: 'trajectory:tool-used', value: { name: 'refund', min: 0 } }, undefined],
  [{ type: 'trajectory:tool-used', value: ['lookup_order', { name: 'refund', max: 0 }] }, undefined],
  // trajectory:tool-sequence
  [
    { type: 'trajectory:tool-sequence', value: [] },
    'trajectory:tool-sequence needs a `value`: a list of tool names, or {steps: [...], mode: in_order | exact}'
  ],
  [
    { type: 'trajectory:tool-sequence', value: 'lookup_order' },
    'trajectory:tool-sequence needs a `value`: a list of tool names, or {steps: [...], mode: in_order | exact}'
  ],
  [
    { type: 'trajectory:tool-sequence', value: { steps: 'lookup_order' } },
    'trajectory:tool-sequence needs a `value`: a list of tool names, or {steps: [...], mode: in_order | exact}'
  ],
  [
    { type: 'trajectory:tool-sequence', value: { steps: [] } },
    'trajectory:tool-sequence needs a `value`: a list of tool names, or {steps: [...], mode: in_order | exact}'
  ],
  [
    { type: 'trajectory:tool-sequence', value: ['lookup_order', 3] },
    'trajectory:tool-sequence steps must be tool names or {name | pattern}, got number 3 at step 2'
  ],
  [
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', ''] } },
    'trajectory:tool-sequence steps must be tool names or {name | pattern}, got the string "" at step 2'
  ],
  [
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order'], mode: 'sorted' } },
    'trajectory:tool-sequence `mode` is in_order or exact, got "sorted"'
  ],
  [{ type: 'trajectory:tool-sequence', value: { steps: ['lookup_order'] } }, undefined],
  [{ type: 'trajectory:tool-sequence', value: { steps: ['lookup_order'], mode: 'in_order' } }, undefined],
  [{ type: 'trajectory:tool-sequence', value: { steps: ['lookup_order'], mode: 'exact' } }, undefined],
  // trajectory:tool-args-match
  [
    { type: 'trajectory:tool-args-match', value: 'refund' },
    'trajectory:tool-args-match needs a `value` {name | pattern, args, mode?: partial | exact, defaults?, ignore?}'
  ],
  [{ type: 'trajectory:tool-args-match', value: { args: {} } }, 'trajectory:tool-args-match needs a `name` or a `pattern` in {"args":{}}'],
  [{ type: 'trajectory:tool-args-match', value: { name: '', args: {} } }, 'trajectory:tool-args-match `name` must be a tool name, got ""'],
  [{ type: 'trajectory:tool-args-match', value: { name: 'refund' } }, 'trajectory:tool-args-match needs `args` in its value: the arguments the call must have'],
  [
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: {}, mode: 'fuzzy' } },
    'trajectory:tool-args-match `mode` is partial or exact, got "fuzzy"'
  ],
  [{ type: 'trajectory:tool-args-match', value: { name: 'refund', args: {}, mode: 'partial' } }, undefined],
  [{ type: 'trajectory:tool-args-match', value: { name: 'refund', args: {}, mode: 'exact' } }, undefined],
  // trajectory:step-count
  [{ type: 'trajectory:step-count', value: 3 }, 'trajectory:step-count needs a `value` {min?, max?, name | pattern?} with min or max'],
  [{ type: 'trajectory:step-count', value: { name: 'refund' } }, 'trajectory:step-count needs a `value` {min?, max?, name | pattern?} with min or max'],
  [{ type: 'trajectory:step-count', value: { max: 2, name: '' } }, 'trajectory:step-count `name` must be a tool name, got ""'],
  [{ type: 'trajectory:step-count', value: { max: 2, name: 3 } }, 'trajectory:step-count `name` must be a tool name, got 3'],
  [{ type: 'trajectory:step-count', value: { min: -1 } }, 'trajectory:step-count `min` must be a whole number ≥ 0, got -1'],
  [{ type: 'trajectory:step-count', value: { max: 2.5 } }, 'trajectory:step-count `max` must be a whole number ≥ 0, got 2.5'],
  [{ type: 'trajectory:step-count', value: { min: 3, max: 1 } }, 'trajectory:step-count has min 3 above max 1'],
  [{ type: 'trajectory:step-count', value: { min: 2, max: 2 } }, undefined],
  [{ type: 'trajectory:step-count', value: { max: 2, name: 'refund' } }, undefined],
  // trajectory-match
  [{ type: 'trajectory-match', value: ['lookup_order'], args: 'exact' }, undefined],
  [{ type: 'trajectory-match', value: ['lookup_order'], args: 'ignore', mode: 'superset' }, undefined],
  // tool-call-f1
  [{ type: 'tool-call-f1' }, 'tool-call-f1 needs a `value`: the expected tool names (a list or a comma-separated string)'],
  [{ type: 'tool-call-f1', value: null }, 'tool-call-f1 needs a `value`: the expected tool names (a list or a comma-separated string)'],
  [{ type: 'tool-call-f1', value: [3] }, 'tool-call-f1 needs a `value`: the expected tool names (a list or a comma-separated string)'],
  [{ type: 'tool-call-f1', value: ['lookup_order', 3] }, 'tool-call-f1 needs a `value`: the expected tool names (a list or a comma-separated string)'],
  [{ type: 'tool-call-f1', value: ['lookup_order'], threshold: 2 }, 'tool-call-f1 `threshold` must be at most 1, got 2'],
  [{ type: 'tool-call-f1', value: [] }, 'tool-call-f1 needs at least one tool name in `value` (a list or a comma-separated string)'],
  [{ type: 'tool-call-f1', value: ['lookup_order', ' '] }, 'tool-call-f1 has a blank tool name in `value`; give the names of the tools expected'],
  [{ type: 'tool-call-f1', value: 'lookup_order, refund', threshold: 0.5 }, undefined]
]

describe('value shapes', () => {
  it.each(shapes.map(([assertion, problem]) => [assertion, problem ?? 'valid'] as const))('%j: %s', (assertion, problem) => {
    expect(validateAssertion(assertion) ?? 'valid').toBe(problem)
  })
})

const toolUsedRows: ReasonRow[] = [
  ['a name, called', { type: 'trajectory:tool-used', value: 'refund' }, T1, true, 'refund was called 1 time: lookup_order → refund'],
  [
    '{name} alone means at least once: called',
    { type: 'trajectory:tool-used', value: { name: 'refund' } },
    T1,
    true,
    'refund was called 1 time: lookup_order → refund'
  ],
  [
    '{name} alone means at least once: not called',
    { type: 'trajectory:tool-used', value: { name: 'refund' } },
    [L],
    false,
    'refund was called 0 times, allowed at least 1: lookup_order'
  ],
  [
    'a max alone keeps min 1',
    { type: 'trajectory:tool-used', value: { name: 'lookup_order', max: 3 } },
    [L, L, L, L],
    false,
    'lookup_order was called 4 times, allowed 1 to 3: lookup_order → lookup_order → lookup_order → lookup_order'
  ],
  [
    'min 0 and a max',
    { type: 'trajectory:tool-used', value: { name: 'lookup_order', min: 0, max: 3 } },
    [L, L, L, L],
    false,
    'lookup_order was called 4 times, allowed at most 3: lookup_order → lookup_order → lookup_order → lookup_order'
  ],
  [
    'min equal to max',
    { type: 'trajectory:tool-used', value: { name: 'lookup_order', min: 2, max: 2 } },
    T1,
    false,
    'lookup_order was called 1 time, allowed exactly 2: lookup_order → refund'
  ],
  [
    'a list, all called: every tool named',
    { type: 'trajectory:tool-used', value: ['lookup_order', 'refund'] },
    T2,
    true,
    'lookup_order was called 1 time, refund was called 1 time: lookup_order → search_kb → refund'
  ],
  [
    'a list, one missing: only that tool',
    { type: 'trajectory:tool-used', value: ['lookup_order', 'search_kb'] },
    T1,
    false,
    'search_kb was called 0 times, allowed at least 1: lookup_order → refund'
  ],
  [
    'a list, two missing: each range says whose it is',
    { type: 'trajectory:tool-used', value: ['search_kb', { name: 'lookup_order', min: 2, max: 3 }] },
    T1,
    false,
    'search_kb was called 0 times, lookup_order was called 1 time, allowed at least 1 (search_kb), allowed 2 to 3 (lookup_order): lookup_order → refund'
  ],
  [
    'not-, a list all in range',
    { type: 'not-trajectory:tool-used', value: ['lookup_order', 'refund'] },
    T1,
    false,
    'lookup_order was called 1 time, refund was called 1 time, allowed 0 (lookup_order), allowed 0 (refund): lookup_order → refund'
  ],
  [
    // promptfoo's reading: none of the listed tools may be used
    'not-, a list with one in range and one out',
    { type: 'not-trajectory:tool-used', value: ['lookup_order', 'search_kb'] },
    T1,
    false,
    'lookup_order was called 1 time, allowed 0: lookup_order → refund'
  ],
  [
    'not-, a list with none in range',
    { type: 'not-trajectory:tool-used', value: ['search_kb', { name: 'lookup_order', min: 2 }] },
    T1,
    true,
    'search_kb was called 0 times, lookup_order was called 1 time: lookup_order → refund'
  ],
  ['not-, a name not called', { type: 'not-trajectory:tool-used', value: 'search_kb' }, T1, true, 'search_kb was called 0 times: lookup_order → refund'],
  [
    'not-, min 2 met',
    { type: 'not-trajectory:tool-used', value: { name: 'lookup_order', min: 2 } },
    T3,
    false,
    'lookup_order was called 2 times, allowed fewer than 2: lookup_order → lookup_order → refund'
  ],
  [
    'not-, max 0 kept',
    { type: 'not-trajectory:tool-used', value: { name: 'refund', max: 0 } },
    [L],
    false,
    'refund was called 0 times, allowed more than 0: lookup_order'
  ],
  [
    'not-, a range',
    { type: 'not-trajectory:tool-used', value: { name: 'lookup_order', min: 1, max: 2 } },
    T3,
    false,
    'lookup_order was called 2 times, allowed fewer than 1 or more than 2: lookup_order → lookup_order → refund'
  ]
]

const sequenceRows: ReasonRow[] = [
  [
    'in order, found',
    { type: 'trajectory:tool-sequence', value: ['lookup_order', 'refund'] },
    T2,
    true,
    'the calls contain lookup_order → refund in order: lookup_order → search_kb → refund'
  ],
  [
    '{steps} without a mode is in order',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund'] } },
    T2,
    true,
    'the calls contain lookup_order → refund in order: lookup_order → search_kb → refund'
  ],
  [
    'in order, named as such',
    { type: 'trajectory:tool-sequence', value: { steps: ['refund', 'lookup_order'], mode: 'in_order' } },
    T1,
    false,
    'lookup_order was not called after refund, expected refund → lookup_order in order: lookup_order → refund'
  ],
  [
    'in order, the second of three missing',
    { type: 'trajectory:tool-sequence', value: ['lookup_order', 'search_kb', 'refund'] },
    T1,
    false,
    'search_kb was not called after lookup_order, expected lookup_order → search_kb → refund in order: lookup_order → refund'
  ],
  [
    'in order, the third of three missing',
    { type: 'trajectory:tool-sequence', value: ['lookup_order', 'refund', 'search_kb'] },
    T1,
    false,
    'search_kb was not called after lookup_order → refund, expected lookup_order → refund → search_kb in order: lookup_order → refund'
  ],
  [
    'in order, the first missing',
    { type: 'trajectory:tool-sequence', value: ['search_kb', 'refund'] },
    T1,
    false,
    'search_kb was never called, expected search_kb → refund in order: lookup_order → refund'
  ],
  [
    'not-, found in order',
    { type: 'not-trajectory:tool-sequence', value: ['lookup_order', 'refund'] },
    T2,
    false,
    'the calls contain lookup_order → refund in order, expected not to find lookup_order → refund in order: lookup_order → search_kb → refund'
  ],
  [
    'not-, not in order',
    { type: 'not-trajectory:tool-sequence', value: ['refund', 'lookup_order'] },
    T1,
    true,
    'lookup_order was not called after refund: lookup_order → refund'
  ],
  [
    'exact, the same',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund'], mode: 'exact' } },
    T1,
    true,
    'the calls are exactly lookup_order → refund: lookup_order → refund'
  ],
  [
    'exact, a step between',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund'], mode: 'exact' } },
    T2,
    false,
    'step 2 is search_kb instead of refund, expected exactly lookup_order → refund: lookup_order → search_kb → refund'
  ],
  [
    'exact, a step short',
    { type: 'trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund', 'search_kb'], mode: 'exact' } },
    T1,
    false,
    'step 3 is missing instead of search_kb, expected exactly lookup_order → refund → search_kb: lookup_order → refund'
  ],
  [
    'not-, exactly the same',
    { type: 'not-trajectory:tool-sequence', value: { steps: ['lookup_order', 'refund'], mode: 'exact' } },
    T1,
    false,
    'the calls are exactly lookup_order → refund, expected anything but exactly lookup_order → refund: lookup_order → refund'
  ]
]

const argsRows: ReasonRow[] = [
  [
    'partial, matched',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 }, mode: 'partial' } },
    T1,
    true,
    'refund was called with {"order_id":"A18","amount":20.5}: lookup_order → refund'
  ],
  [
    'the matching call is the one shown',
    { type: 'trajectory:tool-args-match', value: { name: 'lookup_order', args: { order_id: 'B7' } } },
    [L, L7],
    true,
    'lookup_order was called with {"order_id":"B7"}: lookup_order → lookup_order'
  ],
  [
    'partial, another amount',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 25 } } },
    T1,
    false,
    'refund was called 1 time, never with matching arguments (first call: /amount is 20.5, expected 25), expected refund with arguments including {"amount":25}: lookup_order → refund'
  ],
  [
    'exact, a subset given',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 }, mode: 'exact' } },
    T1,
    false,
    'refund was called 1 time, never with matching arguments (first call: /order_id is not expected), expected refund with exactly the arguments {"amount":20.5}: lookup_order → refund'
  ],
  [
    'two calls, neither matching: the first one’s difference',
    { type: 'trajectory:tool-args-match', value: { name: 'lookup_order', args: { order_id: 'C3' } } },
    [L, L7],
    false,
    'lookup_order was called 2 times, never with matching arguments (first call: /order_id is "A18", expected "C3"), expected lookup_order with arguments including {"order_id":"C3"}: lookup_order → lookup_order'
  ],
  [
    'never called',
    { type: 'trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 } } },
    [L],
    false,
    'refund was never called, expected refund with arguments including {"amount":20.5}: lookup_order'
  ],
  [
    'not-, a matching call made',
    { type: 'not-trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 } } },
    T1,
    false,
    'refund was called with {"order_id":"A18","amount":20.5}, expected no call of refund with arguments including {"amount":20.5}: lookup_order → refund'
  ],
  [
    'not-, exact, no exact match',
    { type: 'not-trajectory:tool-args-match', value: { name: 'refund', args: { amount: 20.5 }, mode: 'exact' } },
    T1,
    true,
    'refund was called 1 time, never with matching arguments (first call: /order_id is not expected): lookup_order → refund'
  ]
]

const stepRows: ReasonRow[] = [
  ['one call is one call', { type: 'trajectory:step-count', value: { min: 1 } }, [L], true, '1 tool call: lookup_order'],
  ['none allowed', { type: 'trajectory:step-count', value: { max: 0 } }, [L], false, '1 tool call, allowed 0 tool calls: lookup_order'],
  ['a range', { type: 'trajectory:step-count', value: { min: 2, max: 3 } }, [L], false, '1 tool call, allowed 2 to 3 tool calls: lookup_order'],
  [
    'exactly',
    { type: 'trajectory:step-count', value: { min: 2, max: 2 } },
    T2,
    false,
    '3 tool calls, allowed exactly 2 tool calls: lookup_order → search_kb → refund'
  ],
  [
    'of one tool, under min',
    { type: 'trajectory:step-count', value: { name: 'lookup_order', min: 2 } },
    T1,
    false,
    'lookup_order was called 1 time, allowed at least 2 calls of lookup_order: lookup_order → refund'
  ],
  [
    'not-, within max',
    { type: 'not-trajectory:step-count', value: { max: 2 } },
    T1,
    false,
    '2 tool calls, allowed more than 2 tool calls: lookup_order → refund'
  ],
  ['not-, min 1 met', { type: 'not-trajectory:step-count', value: { min: 1 } }, T1, false, '2 tool calls, allowed 0 tool calls: lookup_order → refund'],
  [
    'not-, min 3 met',
    { type: 'not-trajectory:step-count', value: { min: 3 } },
    T2,
    false,
    '3 tool calls, allowed fewer than 3 tool calls: lookup_order → search_kb → refund'
  ],
  [
    'not-, a range of one tool',
    { type: 'not-trajectory:step-count', value: { name: 'lookup_order', min: 1, max: 2 } },
    T3,
    false,
    'lookup_order was called 2 times, allowed fewer than 1 or more than 2 calls of lookup_order: lookup_order → lookup_order → refund'
  ],
  ['not-, under min', { type: 'not-trajectory:step-count', value: { min: 3 } }, T1, true, '2 tool calls: lookup_order → refund']
]

const matchRows: ReasonRow[] = [
  [
    'an empty reference, nothing called',
    { type: 'trajectory-match', value: [] },
    [],
    true,
    'the calls match the reference no tool calls (strict): no tool calls'
  ],
  [
    'an empty reference, a call made',
    { type: 'trajectory-match', value: [] },
    [L],
    false,
    'step 1 is lookup_order {"order_id":"A18"}, the reference has nothing, expected a strict match of no tool calls: lookup_order'
  ],
  [
    'strict, the same',
    { type: 'trajectory-match', value: [ref(L), ref(R)] },
    T1,
    true,
    'the calls match the reference lookup_order → refund (strict): lookup_order → refund'
  ],
  [
    'strict, a step without args still names its tool',
    { type: 'trajectory-match', value: ['refund'] },
    [L],
    false,
    'step 1 is lookup_order {"order_id":"A18"}, the reference has refund, expected a strict match of refund: lookup_order'
  ],
  [
    'strict, args ignored: the names must still match, and only names are shown',
    { type: 'trajectory-match', value: [ref(R)], args: 'ignore' },
    [L],
    false,
    'step 1 is lookup_order, the reference has refund, expected a strict match of refund: lookup_order'
  ],
  [
    'strict, args exact: a subset of the arguments is not a match',
    { type: 'trajectory-match', value: [{ name: 'refund', args: { amount: 20.5 } }], args: 'exact' },
    [R],
    false,
    'step 1 is refund {"order_id":"A18","amount":20.5}, the reference has refund {"amount":20.5}, expected a strict match of refund: refund'
  ],
  [
    'unordered, an extra call and a missing step',
    { type: 'trajectory-match', mode: 'unordered', value: [ref(L), ref(S)] },
    T1,
    false,
    'not in the reference: refund {"order_id":"A18","amount":20.5}; reference steps not made: search_kb {"q":"returns"}, expected an unordered match of lookup_order → search_kb: lookup_order → refund'
  ],
  [
    'unordered, only a missing step',
    { type: 'trajectory-match', mode: 'unordered', value: [ref(L), ref(R), ref(S)] },
    T1,
    false,
    'reference steps not made: search_kb {"q":"returns"}, expected an unordered match of lookup_order → refund → search_kb: lookup_order → refund'
  ],
  [
    'unordered, only an extra call',
    { type: 'trajectory-match', mode: 'unordered', value: [ref(L), ref(R)] },
    T2,
    false,
    'not in the reference: search_kb {"q":"returns"}, expected an unordered match of lookup_order → refund: lookup_order → search_kb → refund'
  ],
  [
    'unordered, the call left over is the one no step can take',
    { type: 'trajectory-match', mode: 'unordered', value: [{ name: 'lookup_order' }] },
    [L, L7],
    false,
    'not in the reference: lookup_order {"order_id":"B7"}, expected an unordered match of lookup_order: lookup_order → lookup_order'
  ],
  [
    'superset: extra calls are not named',
    { type: 'trajectory-match', mode: 'superset', value: [ref(L), ref(S)] },
    T1,
    false,
    'reference steps not made: search_kb {"q":"returns"}, expected a superset match of lookup_order → search_kb: lookup_order → refund'
  ],
  [
    'subset: missing steps are not named',
    { type: 'trajectory-match', mode: 'subset', value: [ref(L), ref(S)] },
    T1,
    false,
    'not in the reference: refund {"order_id":"A18","amount":20.5}, expected a subset match of lookup_order → search_kb: lookup_order → refund'
  ],
  [
    'not-, an unordered match',
    { type: 'not-trajectory-match', mode: 'unordered', value: [ref(R), ref(L)] },
    T1,
    false,
    'the calls match the reference refund → lookup_order (unordered), expected no unordered match of refund → lookup_order: lookup_order → refund'
  ]
]

const f1Rows: ReasonRow[] = [
  [
    'the expected names',
    { type: 'tool-call-f1', value: ['lookup_order', 'refund'] },
    T1,
    true,
    'tool-call F1 1.00 (precision 1.00, recall 1.00 against lookup_order, refund): lookup_order → refund'
  ],
  [
    'one extra name',
    { type: 'tool-call-f1', value: ['lookup_order'] },
    T1,
    false,
    'tool-call F1 0.67 (precision 0.50, recall 1.00 against lookup_order), needs at least 1: lookup_order → refund'
  ],
  [
    'not-, the expected names',
    { type: 'not-tool-call-f1', value: 'lookup_order, refund', threshold: 0.5 },
    T1,
    false,
    'tool-call F1 1.00 (precision 1.00, recall 1.00 against lookup_order, refund), needs below 0.5: lookup_order → refund'
  ],
  [
    'nothing called',
    { type: 'tool-call-f1', value: ['refund'] },
    [],
    false,
    'tool-call F1 0.00 (precision 0.00, recall 0.00 against refund), needs at least 1: no tool calls'
  ]
]

describe.each([
  ['trajectory:tool-used', toolUsedRows],
  ['trajectory:tool-sequence', sequenceRows],
  ['trajectory:tool-args-match', argsRows],
  ['trajectory:step-count', stepRows],
  ['trajectory-match', matchRows],
  ['tool-call-f1', f1Rows]
])('%s reasons', (_family, rows) => {
  it.each(rows)('%s', async (_label, assertion, calls, passes, reason) => {
    await expectRow(assertion, calls, passes, reason)
  })
})

describe('matchTrajectory', () => {
  it('strict: what is unexpected and missing runs from the first difference on', () => {
    expect(matchTrajectory(T2, [ref(L), ref(R)], 'strict', EXACT)).toEqual({ holds: false, unexpected: [S, R], missing: [ref(R)], firstDifference: 1 })
    expect(matchTrajectory(T1, [ref(L), ref(R)], 'strict', EXACT)).toEqual({ holds: true, unexpected: [], missing: [], firstDifference: -1 })
  })

  it('the other modes have no first difference', () => {
    expect(matchTrajectory(T2, [ref(L), ref(R)], 'unordered', EXACT)).toEqual({ holds: false, unexpected: [S], missing: [], firstDifference: -1 })
    expect(matchTrajectory(T1, [ref(L), ref(R), ref(S)], 'subset', EXACT)).toEqual({ holds: true, unexpected: [], missing: [ref(S)], firstDifference: -1 })
  })
})

describe('toolCallF1', () => {
  it('is 0 when only one side is empty', () => {
    expect(toolCallF1(['refund'], [])).toEqual({ f1: 0, precision: 0, recall: 0 })
    expect(toolCallF1([], ['refund'])).toEqual({ f1: 0, precision: 0, recall: 0 })
  })
})

describe('a negated check that could never pass', () => {
  it('is refused: a range of min 0 and no max holds for every count', () => {
    const why = (type: string) =>
      `${type} can never pass: every count is at least 0, so the range {min: 0} with no max always holds; give a max, or a min above 0`
    expect(validateAssertion({ type: 'not-trajectory:tool-used', value: { name: 'refund', min: 0 } })).toBe(why('not-trajectory:tool-used'))
    expect(
      validateAssertion({
        type: 'not-trajectory:tool-used',
        value: [
          { name: 'refund', min: 0 },
          { name: 'lookup_order', min: 0 }
        ]
      })
    ).toBe(why('not-trajectory:tool-used'))
    // under not- a list passes only when no entry is in its range: one that always is makes it fail always
    expect(validateAssertion({ type: 'not-trajectory:tool-used', value: [{ name: 'refund', min: 0 }, 'lookup_order'] })).toBe(why('not-trajectory:tool-used'))
    expect(validateAssertion({ type: 'not-trajectory:step-count', value: { min: 0 } })).toBe(why('not-trajectory:step-count'))
    expect(validateAssertion({ type: 'not-trajectory:step-count', value: { min: 0, name: 'refund' } })).toBe(why('not-trajectory:step-count'))
  })

  it('is not refused when it can pass: unnegated, with a max, or a min above 0', () => {
    expect(validateAssertion({ type: 'trajectory:tool-used', value: { name: 'refund', min: 0 } })).toBeUndefined()
    expect(validateAssertion({ type: 'trajectory:step-count', value: { min: 0 } })).toBeUndefined()
    expect(validateAssertion({ type: 'not-trajectory:tool-used', value: { name: 'refund', max: 0 } })).toBeUndefined()
    expect(validateAssertion({ type: 'not-trajectory:tool-used', value: { name: 'refund', min: 0, max: 2 } })).toBeUndefined()
    expect(validateAssertion({ type: 'not-trajectory:tool-used', value: [{ name: 'refund', max: 0 }, 'lookup_order'] })).toBeUndefined()
    expect(validateAssertion({ type: 'not-trajectory:tool-used', value: 'refund' })).toBeUndefined()
    expect(validateAssertion({ type: 'not-trajectory:step-count', value: { min: 0, max: 3 } })).toBeUndefined()
    expect(validateAssertion({ type: 'not-trajectory:step-count', value: { min: 1 } })).toBeUndefined()
  })
})
