/**
 * promptfoo's trace assertions on a trial's spans (SPEC §12): value shapes,
 * verdicts and reasons; refused at load with tracing off; failing, never
 * passing, when no span of the trial arrived.
 */
import { describe, expect, it } from '@jest/globals'
import { evaluateAssertion, validateAssertion } from '../../src/assertions/index.js'
import type { Span } from '../../src/tracing/spans.js'
import type { Assertion } from '../../src/types.js'
import { makeContext } from './helpers.js'

const MS = 1_000_000n
let n = 0
const span = (name: string, ms: number, extra: Partial<Span> = {}): Span => {
  const start = 1_700_000_000_000_000_000n + BigInt(++n) * MS
  return {
    traceId: 'b'.repeat(32),
    spanId: n.toString(16).padStart(16, '0'),
    name,
    startNs: start,
    endNs: start + BigInt(ms) * MS,
    attributes: {},
    statusCode: 0,
    ...extra
  }
}

const SPANS = [
  span('invoke_agent support', 900),
  span('chat gpt-4o', 400),
  span('execute_tool lookup_order', 120),
  span('execute_tool refund', 250, { statusCode: 2, statusMessage: 'refund service unavailable' }),
  span('chat gpt-4o', 300)
]

async function grade(a: Assertion, spans: Span[] = SPANS) {
  expect(validateAssertion(a, { tracing: true })).toBeUndefined()
  return evaluateAssertion(a, makeContext('ok', { trace: { traceId: 'b'.repeat(32), spans } }))
}

describe.each<[string, Assertion, boolean, string]>([
  [
    'count in range',
    { type: 'trace-span-count', value: { pattern: 'execute_tool *', min: 2, max: 2 } },
    true,
    '2 spans matching "execute_tool *" of 5, expected 2-2: execute_tool lookup_order, execute_tool refund'
  ],
  [
    'count over max, ignoring case',
    { type: 'trace-span-count', value: { pattern: 'CHAT*', max: 1 } },
    false,
    '2 spans matching "CHAT*" of 5, expected at most 1: chat gpt-4o'
  ],
  ['count under min', { type: 'trace-span-count', value: { pattern: 'retrieve*', min: 1 } }, false, '0 spans matching "retrieve*" of 5, expected at least 1'],
  ['every span within max', { type: 'trace-span-duration', value: { max: 1000 } }, true, 'all 5 spans matching "*" took at most 1000 ms (slowest 900 ms)'],
  [
    'spans over max',
    { type: 'trace-span-duration', value: { pattern: 'chat*', max: 350 } },
    false,
    '1 of 2 spans matching "chat*" took over 350 ms; slowest: chat gpt-4o (400 ms)'
  ],
  [
    'a percentile within max',
    { type: 'trace-span-duration', value: { max: 300, percentile: 50 } },
    true,
    'the 50th percentile of 5 spans matching "*" is 300 ms, within 300 ms'
  ],
  [
    'a percentile over max',
    { type: 'trace-span-duration', value: { max: 300, percentile: 90 } },
    false,
    'the 90th percentile of 5 spans matching "*" is 900 ms, over 300 ms'
  ],
  ['no matching span is nothing too slow', { type: 'trace-span-duration', value: { pattern: 'db.*', max: 1 } }, true, 'no span matching "db.*"'],
  [
    'error spans over 0 (a number)',
    { type: 'trace-error-spans', value: 0 },
    false,
    '1 error span of 5 matching "*", allowed 0: execute_tool refund (refund service unavailable)'
  ],
  ['no value is none allowed', { type: 'trace-error-spans' }, false, 'allowed 0'],
  ['max_count', { type: 'trace-error-spans', value: { max_count: 1 } }, true, '1 error span(s) of 5 matching "*", within the limit'],
  ['max_percentage', { type: 'trace-error-spans', value: { max_percentage: 10 } }, false, 'error spans are 20.0% of 5 matching "*", allowed 10%'],
  ['a pattern without errors', { type: 'trace-error-spans', value: { pattern: 'chat*', max_count: 0 } }, true, 'no error span among 2 matching "chat*"']
])('%s', (_label, assertion, passes, reason) => {
  it('grades as promptfoo', async () => {
    const result = await grade(assertion)
    expect(result.passed).toBe(passes)
    expect(result.reason).toContain(reason)
  })
})

describe('without spans, or without tracing', () => {
  it.each<Assertion>([
    { type: 'trace-error-spans', value: 0 },
    { type: 'trace-span-count', value: { pattern: '*', max: 0 } },
    { type: 'trace-span-duration', value: { max: 100 } }
  ])('$type fails on a trial none of whose spans arrived, saying so (promptfoo would pass max 0)', async (a) => {
    const result = await grade(a, [])
    expect(result.passed).toBe(false)
    expect(result.error).toMatch(/^no span of this trial's trace arrived \(trace b{32}\): is the agent instrumented/)
  })

  it.each(['trace-span-count', 'trace-span-duration', 'trace-error-spans'])('%s is refused at load with tracing off, and under not-', (type) => {
    const value = type === 'trace-span-count' ? { pattern: '*', max: 1 } : type === 'trace-span-duration' ? { max: 1 } : 0
    expect(validateAssertion({ type, value }, { tracing: false })).toContain('and tracing is off: set `tracing: true`')
    expect(validateAssertion({ type: `not-${type}`, value }, { tracing: true })).toContain('cannot take the prefix')
  })

  it.each<[Assertion, string]>([
    [{ type: 'trace-span-count', value: { pattern: '*' } }, 'needs `min` or `max`'],
    [{ type: 'trace-span-count', value: { min: 1 } }, 'needs a `value` {pattern, min?, max?}'],
    [{ type: 'trace-span-count', value: { pattern: '*', min: 3, max: 1 } }, 'min 3 above max 1'],
    [{ type: 'trace-span-count', value: { pattern: '*', max: 1, maximum: 2 } }, 'unknown key `maximum`'],
    [{ type: 'trace-span-duration', value: { pattern: '*' } }, 'with max a number'],
    [{ type: 'trace-span-duration', value: { max: 5, percentile: 0 } }, '`percentile` must be in (0, 100]'],
    [{ type: 'trace-error-spans', value: 'none' }, 'a whole number'],
    [{ type: 'trace-error-spans', value: { max_percentage: 120 } }, '`max_percentage` must be in [0, 100]']
  ])('refuses %j', (a, problem) => {
    expect(validateAssertion(a, { tracing: true })).toContain(problem)
  })
})
