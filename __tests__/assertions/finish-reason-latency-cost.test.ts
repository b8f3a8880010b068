/**
 * finish-reason (SPEC §11), latency and cost (SPEC §10): the whole reasons
 * each way, what they compare, what they do without a measurement, and the
 * values they refuse.
 */
import { describe, expect, it } from '@jest/globals'
import { costAssertions } from '../../src/assertions/cost.js'
import { finishReasonAssertions } from '../../src/assertions/finish-reason.js'
import { validateAssertion } from '../../src/assertions/index.js'
import { grade, makeContext } from './helpers.js'

describe('finish-reason', () => {
  const missing = (expected: string) =>
    `the target did not supply a finish reason (the openai target does; a command or module target can return \`finishReason\`), so it cannot be compared with "${expected}"`

  it('passes on the same reason, naming it as reported', async () => {
    expect(await grade({ type: 'finish-reason', value: 'stop' }, 'x', { finishReason: 'stop' })).toMatchObject({
      passed: true,
      score: 1,
      reason: 'finish reason "stop"'
    })
  })

  it('compares trimmed and lower-cased, and shows the reason as reported', async () => {
    expect(await grade({ type: 'finish-reason', value: 'Tool_Calls' }, 'x', { finishReason: ' TOOL_CALLS\n' })).toMatchObject({
      passed: true,
      reason: 'finish reason " TOOL_CALLS\n"'
    })
    expect((await grade({ type: 'finish-reason', value: ' length ' }, 'x', { finishReason: 'length' })).passed).toBe(true)
  })

  it('lower-cases rather than upper-cases: ß is not ss', async () => {
    expect((await grade({ type: 'finish-reason', value: 'ss' }, 'x', { finishReason: 'ß' })).passed).toBe(false)
  })

  it('fails on another reason, naming both', async () => {
    expect(await grade({ type: 'finish-reason', value: 'stop' }, 'x', { finishReason: 'length' })).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected finish reason "stop", got "length"'
    })
  })

  it('not- passes on another reason and fails on the same one', async () => {
    expect(await grade({ type: 'not-finish-reason', value: 'length' }, 'x', { finishReason: 'stop' })).toMatchObject({
      passed: true,
      score: 1,
      reason: 'finish reason "stop"'
    })
    expect(await grade({ type: 'not-finish-reason', value: 'stop' }, 'x', { finishReason: 'STOP' })).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected finish reason other than "stop", got "STOP"'
    })
  })

  it('a value written as a number is read as text', async () => {
    expect((await grade({ type: 'finish-reason', value: 7 }, 'x', { finishReason: '7' })).passed).toBe(true)
  })

  it('without a reported reason it is an error either way', async () => {
    expect(await grade({ type: 'finish-reason', value: 'stop' }, 'x')).toMatchObject({
      passed: false,
      score: 0,
      reason: missing('stop'),
      error: missing('stop')
    })
    expect(await grade({ type: 'not-finish-reason', value: 'stop' }, 'x')).toMatchObject({ passed: false, score: 0, error: missing('stop') })
  })

  // the dispatcher fails any outcome with an error; this pins the handler's own finding too
  it('the handler’s own outcome without a reported reason is a failure with the error', () => {
    const outcome = finishReasonAssertions['finish-reason']!.run({ type: 'finish-reason', value: 'stop' }, makeContext('x'), true)
    expect(outcome).toStrictEqual({ pass: false, score: 0, reason: missing('stop'), error: missing('stop') })
  })

  it('refuses no value, an empty one, or one that is not text', () => {
    expect(validateAssertion({ type: 'finish-reason' })).toBe('finish-reason needs a `value`')
    expect(validateAssertion({ type: 'finish-reason', value: '' })).toBe('finish-reason has an empty `value`, which every output would satisfy')
    expect(validateAssertion({ type: 'finish-reason', value: ['stop'] })).toBe('finish-reason needs a string `value`, got a list')
    expect(validateAssertion({ type: 'finish-reason', value: 'stop' })).toBeUndefined()
  })
})

describe('latency', () => {
  it('the target’s latency wins over the trial’s duration', async () => {
    expect(await grade({ type: 'latency', threshold: 100 }, 'x', { durationMs: 900, latencyMs: 80 })).toMatchObject({
      passed: true,
      reason: 'trial took 80 ms, within the 100 ms limit'
    })
    expect(await grade({ type: 'latency', threshold: 100 }, 'x', { durationMs: 50, latencyMs: 120 })).toMatchObject({
      passed: false,
      reason: 'expected the trial to take at most 100 ms, it took 120 ms'
    })
  })

  it('a latency of 0 is a measurement, not a missing one', async () => {
    expect(await grade({ type: 'latency', threshold: 100 }, 'x', { durationMs: 900, latencyMs: 0 })).toMatchObject({
      passed: true,
      reason: 'trial took 0 ms, within the 100 ms limit'
    })
  })

  it('the duration when no latency was measured', async () => {
    expect(await grade({ type: 'latency', threshold: 10 }, 'x', { durationMs: 11 })).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected the trial to take at most 10 ms, it took 11 ms'
    })
  })

  it('refuses no threshold, or one that is not a number', () => {
    expect(validateAssertion({ type: 'latency' })).toBe('latency needs a `threshold`: the most milliseconds the trial may take')
    expect(validateAssertion({ type: 'latency', threshold: 'fast' as unknown as number })).toBe('latency `threshold` must be a number, got the string "fast"')
    expect(validateAssertion({ type: 'latency', threshold: 0 })).toBeUndefined()
  })
})

describe('cost', () => {
  const NO_COST =
    'no cost for this trial: the target reported no usage.costUsd, and no `pricing` entry prices its tokens (pricing: {<model>: {input, output}} in USD per million tokens)'

  it('under a cent in three significant figures, from a cent in four decimals', async () => {
    expect((await grade({ type: 'cost', threshold: 0.5 }, 'x', { usage: { costUsd: 0.00999 } })).reason).toBe('cost $0.00999, within the $0.5000 limit')
    expect((await grade({ type: 'cost', threshold: 0.5 }, 'x', { usage: { costUsd: 0.0123456 } })).reason).toBe('cost $0.0123, within the $0.5000 limit')
    expect((await grade({ type: 'cost', threshold: 0.001234 }, 'x', { usage: { costUsd: 0.0005 } })).reason).toBe('cost $0.000500, within the $0.00123 limit')
  })

  it('a free trial costs $0.00', async () => {
    expect(await grade({ type: 'cost', threshold: 0 }, 'x', { usage: { costUsd: 0 } })).toMatchObject({
      passed: true,
      score: 1,
      reason: 'cost $0.00, within the $0.00 limit'
    })
  })

  it('over the limit fails, score 0', async () => {
    expect(await grade({ type: 'cost', threshold: 0.05 }, 'x', { usage: { costUsd: 0.0501 } })).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected the trial to cost at most $0.0500, it cost $0.0501'
    })
  })

  it('no cost is an error, which not-cost cannot pass on either', async () => {
    expect(await grade({ type: 'cost', threshold: 1 }, 'x', { usage: { inputTokens: 10, outputTokens: 5 } })).toMatchObject({
      passed: false,
      score: 0,
      reason: NO_COST,
      error: NO_COST
    })
    expect(await grade({ type: 'not-cost', threshold: 1 }, 'x')).toMatchObject({ passed: false, score: 0, reason: NO_COST, error: NO_COST })
  })

  // the dispatcher fails any outcome with an error; this pins the handler's own finding too
  it('the handler’s own outcome without a cost is a failure with the error', () => {
    const outcome = costAssertions.cost!.run({ type: 'cost', threshold: 1 }, makeContext('x'), true)
    expect(outcome).toStrictEqual({ pass: false, score: 0, reason: NO_COST, error: NO_COST })
  })

  it('refuses no threshold, or one that is not a number', () => {
    expect(validateAssertion({ type: 'cost' })).toBe('cost needs a `threshold`: the most USD the trial may cost')
    expect(validateAssertion({ type: 'cost', threshold: null as unknown as number })).toBe('cost `threshold` must be a number, got null')
    expect(validateAssertion({ type: 'cost', threshold: 0 })).toBeUndefined()
  })
})
