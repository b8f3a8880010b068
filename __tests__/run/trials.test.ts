import { describe, expect, it } from '@jest/globals'
import { aggregateCase, runCases } from '../../src/run/runner.js'
import type { Target } from '../../src/targets/types.js'
import type { EvalCase, TrialResult } from '../../src/types.js'

function evalCase(id: string, index = 0): EvalCase {
  return { id, name: id, input: id, tags: [], assert: [{ type: 'contains', value: 'ok' }], fingerprint: `fp-${id}`, index }
}

/** A target that answers each call with its call number for that case: "ok 1", "ok 2", … (or "no" on the calls listed). */
function countingTarget(failing: Record<string, number[]> = {}): Target & { calls: Map<string, number> } {
  const calls = new Map<string, number>()
  return {
    calls,
    async call({ case: c }) {
      const n = (calls.get(c.id) ?? 0) + 1
      calls.set(c.id, n)
      return { output: failing[c.id]?.includes(n) ? `no ${n}` : `ok ${n}` }
    },
    async close() {}
  }
}

const options = { concurrency: 4, repeatPassThreshold: 0.5, timeoutMs: 5_000 }

describe('repeat: k independent trials per case', () => {
  it.each([1, 2, 5])('repeat %i calls the target %i times per case, never from a cache', async (k) => {
    const target = countingTarget()
    const outcome = await runCases([evalCase('a'), evalCase('b', 1)], target, { ...options, repeat: k })
    expect([...target.calls.values()]).toEqual([k, k])
    for (const c of outcome.cases) {
      const outputs = (c.trials ?? []).map((t) => t.output)
      if (k > 1) expect(new Set(outputs).size).toBe(k)
      else expect(c.trials).toBeUndefined()
    }
  })

  it('records each trial: output, assertions, score and duration; the case verdict over all of them', async () => {
    const target = countingTarget({ a: [2, 3] })
    let clock = 0
    const outcome = await runCases([evalCase('a')], target, { ...options, concurrency: 1, repeat: 4, now: () => (clock += 10) })
    const [a] = outcome.cases
    expect(a!.trials).toHaveLength(4)
    const byOutput = [...a!.trials!].sort((x, y) => x.output!.localeCompare(y.output!))
    expect(byOutput.map((t) => [t.output, t.passed])).toEqual([
      ['no 2', false],
      ['no 3', false],
      ['ok 1', true],
      ['ok 4', true]
    ])
    for (const t of a!.trials!) {
      expect(t.assertions).toHaveLength(1)
      expect(t.assertions[0]!.type).toBe('contains')
      expect(t.score).toBeNull()
      expect(t.durationMs).toBeGreaterThan(0)
    }
    expect(a!.passFraction).toBe(0.5)
    expect(a!.passed).toBe(true)
  })
})

describe('aggregateCase', () => {
  const trial = (passed: boolean, score: number | null = null): TrialResult => ({
    passed,
    output: passed ? 'ok' : 'no',
    error: null,
    score,
    durationMs: 10,
    assertions: []
  })

  it.each([
    { name: 'one passing trial', trials: [true], threshold: 0.5, passed: true, fraction: 1 },
    { name: 'one failing trial', trials: [false], threshold: 0.5, passed: false, fraction: 0 },
    { name: 'half at threshold 0.5', trials: [true, false], threshold: 0.5, passed: true, fraction: 0.5 },
    { name: 'half at threshold 0.6', trials: [true, false], threshold: 0.6, passed: false, fraction: 0.5 },
    { name: '1 of 6 (a failure re-run five times)', trials: [false, true, false, false, false, false], threshold: 0.5, passed: false, fraction: 1 / 6 }
  ])('$name', ({ trials, threshold, passed, fraction }) => {
    const result = aggregateCase(
      evalCase('a'),
      trials.map((p) => trial(p)),
      threshold
    )
    expect(result.passed).toBe(passed)
    expect(result.passFraction).toBeCloseTo(fraction, 12)
    // the trial shown agrees with the verdict
    expect(result.output).toBe(passed ? 'ok' : 'no')
  })

  it('scores the case with the mean of its trial scores', () => {
    expect(aggregateCase(evalCase('a'), [trial(true, 0.9), trial(false, 0.3), trial(true, null)], 0.5).score).toBeCloseTo(0.6, 12)
  })
})
