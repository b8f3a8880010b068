/**
 * The trajectory checks' whole sentences (SPEC §10: every reason names the tools
 * and ends with the path taken), the value shapes they refuse, and the helpers
 * behind them, pinned where trajectory.test.ts only checks a part: the cases
 * mutation testing showed no test would notice breaking.
 */
import { describe, expect, it } from '@jest/globals'
import { evaluateAssertion, validateAssertion } from '../../src/assertions/index.js'
import { matchTrajectory, toolCallF1, toolPath } from '../../src/assertions/trajectory.js'
import type { Assertion, AssertionResult, ToolCall } from '../../src/types.js'
import { makeContext } from './helpers.js'

const L: ToolCall = { name: 'lookup_order', args: { order_id: 'A18' }, result: { status: 'delivered' } }
const L7: ToolCall = { name: 'lookup_order', args: { order_id: 'B7' } }
const R: ToolCall = { name: 'refund', args: { order_id: 'A18', amount: 20.5 } }
const S: ToolCall = { name: 'search_kb', args: { q: 'returns' } }
const T1 = [L, R]
const T2 = [L, S, R]
const T3 = [L, L, R]

const ref = (c: ToolCall) => ({ name: c.name, args: c.args })
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

type Row = [label: string, assertion: Assertion, calls: ToolCall[], passes: boolean, reason: string]

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

const toolUsedRows: Row[] = [
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

const sequenceRows: Row[] = [
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

const argsRows: Row[] = [
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

const stepRows: Row[] = [
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

const matchRows: Row[] = [
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

const f1Rows: Row[] = [
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
