/**
 * The trajectory checks against hand-worked expectations: each row is a
 * trajectory, an assertion and what a person working it out on paper gets.
 */
import { describe, expect, it } from '@jest/globals'
import { evaluateAssertion, validateAssertion } from '../../src/assertions/index.js'
import { matchTrajectory, toolCallF1 } from '../../src/assertions/trajectory.js'
import type { AssertionContext } from '../../src/assertions/types.js'
import type { Assertion, EvalCase, ToolCall } from '../../src/types.js'

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
