/** Compared cost, tokens and latency (SPEC §10): figures, intervals, their coverage, and the gate on them. */
import { describe, expect, it } from '@jest/globals'
import { sentences } from '../__fixtures__/report.js'
import { compareRuns } from '../../src/compare/index.js'
import { comparedMetrics, unreportedMetrics } from '../../src/compare/metrics.js'
import { pairedBootstrap, quantileOfSorted, type PairedStatistic } from '../../src/compare/stats.js'
import type { CaseResult } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRun } from '../__fixtures__/records.js'
import { seededRandom } from './random.js'

const agentCase = (id: string, costUsd: number, totalTokens: number, latencyMs: number, passed = true): CaseResult =>
  makeCase(id, passed, { usage: { inputTokens: totalTokens - 10, outputTokens: 10, totalTokens, costUsd }, latencyMs })

describe('comparedMetrics', () => {
  it('totals cost and tokens and takes nearest-rank latency percentiles over the compared cases (worked by hand)', () => {
    const pairs: [CaseResult, CaseResult][] = [
      [agentCase('a', 0.01, 100, 100), agentCase('a', 0.02, 150, 300)],
      [agentCase('b', 0.02, 200, 200), agentCase('b', 0.02, 200, 200)],
      [agentCase('c', 0.01, 100, 400), agentCase('c', 0.02, 250, 500)]
    ]
    const m = comparedMetrics(pairs)!
    // cost 0.04 → 0.06: +50%; tokens 400 → 600: +50%
    expect(m.cost).toMatchObject({ cases: 3, ci: null, rose: ['a', 'c'] })
    expect(m.cost!.baseline).toBeCloseTo(0.04, 12)
    expect(m.cost!.current).toBeCloseTo(0.06, 12)
    expect(m.cost!.change).toBeCloseTo(0.5, 12)
    expect(m.tokens).toMatchObject({ baseline: 400, current: 600, change: 0.5 })
    // latencies sorted: baseline 100, 200, 400; current 200, 300, 500. p50 = 2nd (⌈1.5⌉), p95 = 3rd (⌈2.85⌉)
    expect(m.latencyP50).toMatchObject({ baseline: 200, current: 300, change: 0.5 })
    expect(m.latencyP95).toMatchObject({ baseline: 400, current: 500, change: 0.25 })
  })

  it('is null when the runs carry no usage or latency, and leaves out a metric only one run has', () => {
    expect(comparedMetrics([[makeCase('a'), makeCase('a')]])).toBeNull()
    const m = comparedMetrics([[makeCase('a', true, { latencyMs: 10 }), agentCase('a', 1, 1, 20)]])!
    expect(Object.keys(m)).toEqual(['latencyP50', 'latencyP95'])
  })

  it('gives a seeded interval: the same comparison, the same interval; it holds the point change', () => {
    const random = seededRandom(3)
    const pairs = Array.from({ length: 40 }, (_, i): [CaseResult, CaseResult] => {
      const cost = 0.001 + random() * 0.004
      return [agentCase(`k${i}`, cost, 500, 800 + 400 * random()), agentCase(`k${i}`, cost * (1.1 + 0.3 * random()), 600, 900 + 500 * random())]
    })
    const first = comparedMetrics(pairs)!
    expect(comparedMetrics(pairs)).toEqual(first)
    for (const m of [first.cost!, first.latencyP50!, first.latencyP95!]) {
      expect(m.ci![0]).toBeLessThanOrEqual(m.change!)
      expect(m.ci![1]).toBeGreaterThanOrEqual(m.change!)
    }
    // every case costs 10–40% more: the whole interval is above +10%
    expect(first.cost!.ci![0]).toBeGreaterThan(0.1)
    expect(first.tokens!.change).toBeCloseTo(0.2, 12)
  })

  it('quantileOfSorted by counts agrees with the quantile of the resample written out', () => {
    const values = [5, 1, 4, 2, 3]
    const order = Uint32Array.from([1, 3, 4, 2, 0])
    const counts = Uint32Array.from([2, 0, 1, 0, 2]) // the resample 5, 5, 4, 3, 3
    expect(quantileOfSorted(values, 0.5, counts, order)).toBe(4)
    expect(quantileOfSorted([3, 3, 4, 5, 5], 0.5)).toBe(4)
    expect(quantileOfSorted(values, 0.95, counts, order)).toBe(5)
  })
})

describe('comparedMetrics: which cases count, and when there is a change and an interval', () => {
  const withUsage = (id: string, usage: CaseResult['usage'], latencyMs?: number): CaseResult =>
    makeCase(id, true, { usage, ...(latencyMs === undefined ? {} : { latencyMs }) })

  it('counts input plus output tokens when a case gives no total, either one alone when only it is given', () => {
    const m = comparedMetrics([
      [withUsage('a', { inputTokens: 90, outputTokens: 10 }), withUsage('a', { inputTokens: 150, outputTokens: 50 })],
      [withUsage('b', { inputTokens: 40 }), withUsage('b', { inputTokens: 60 })],
      [withUsage('c', { outputTokens: 7 }), withUsage('c', { outputTokens: 3 })]
    ])!
    // baseline 100 + 40 + 7 = 147, current 200 + 60 + 3 = 263
    expect(m.tokens).toMatchObject({ baseline: 147, current: 263, cases: 3, rose: ['a', 'b'], roseBy: [100, 20], rises: 2 })
  })

  it('a usage without tokens has no tokens metric (not zero tokens)', () => {
    const m = comparedMetrics([[withUsage('a', { costUsd: 0.5 }), withUsage('a', { costUsd: 0.75 })]])!
    expect(Object.keys(m)).toEqual(['cost'])
    expect(m.cost).toMatchObject({ baseline: 0.5, current: 0.75, change: 0.5, ci: null, cases: 1 })
  })

  it('compares a metric only on the cases both runs have it for', () => {
    const m = comparedMetrics([
      [makeCase('a', true, { latencyMs: 100 }), makeCase('a', true, { latencyMs: 300 })],
      [makeCase('b', true, { latencyMs: 100 }), makeCase('b')],
      [makeCase('c'), makeCase('c', true, { latencyMs: 900 })]
    ])!
    expect(m.latencyP50).toMatchObject({ baseline: 100, current: 300, change: 2, cases: 1, rose: ['a'] })
  })

  it('has no change, and no interval, over a baseline figure of zero', () => {
    // 9 cases, 5 of them at 0 ms in the baseline: its p50 is 0 ms, its p95 8 ms
    const pairs = [0, 0, 0, 0, 0, 5, 6, 7, 8].map((ms, i): [CaseResult, CaseResult] => [
      withUsage(`k${i}`, { costUsd: 0 }, ms),
      withUsage(`k${i}`, { costUsd: 0.01 * (i + 1) }, ms + 10 * (i + 1))
    ])
    const m = comparedMetrics(pairs)!
    expect(m.cost).toMatchObject({ baseline: 0, change: null, ci: null, cases: 9 })
    expect(m.cost!.current).toBeCloseTo(0.45, 12)
    // current latencies 10, 20, 30, 40, 50, 65, 76, 87, 98: p50 the 5th, p95 the 9th (⌈8.55⌉)
    expect(m.latencyP50).toMatchObject({ baseline: 0, current: 50, change: null, ci: null })
    // p50 has no interval for its zero baseline; p95 has none under 20 cases
    expect(m.latencyP95).toMatchObject({ baseline: 8, current: 98, change: 11.25, ci: null })
  })

  it('gives an interval from five compared cases, none below', () => {
    const pairs = (n: number) =>
      Array.from({ length: n }, (_, i): [CaseResult, CaseResult] => [
        agentCase(`k${i}`, 0.01, 100, 100 + i),
        agentCase(`k${i}`, 0.01 * (1 + i / 10), 100, 100 + 2 * i)
      ])
    expect(comparedMetrics(pairs(4))!.cost!.ci).toBeNull()
    expect(comparedMetrics(pairs(5))!.cost!.ci).toEqual([expect.any(Number), expect.any(Number)])
    expect(comparedMetrics(pairs(5))!.latencyP50!.ci).toEqual([expect.any(Number), expect.any(Number)])
  })

  it('gives p95 latency an interval from twenty compared cases, none below (its bootstrap would be that of a maximum)', () => {
    const pairs = (n: number) =>
      Array.from({ length: n }, (_, i): [CaseResult, CaseResult] => [agentCase(`k${i}`, 0.01, 100, 100 + i), agentCase(`k${i}`, 0.01, 100, 100 + 3 * i)])
    const under = comparedMetrics(pairs(19))!
    expect(under.latencyP95).toMatchObject({ ci: null, cases: 19 })
    // p95 of 19 values is the 19th (⌈18.05⌉), the largest: 100 + 3·18 against 100 + 18
    expect(under.latencyP95!.change).toBeCloseTo(154 / 118 - 1, 12)
    expect(under.latencyP50!.ci).toEqual([expect.any(Number), expect.any(Number)])
    expect(comparedMetrics(pairs(20))!.latencyP95!.ci).toEqual([expect.any(Number), expect.any(Number)])
  })

  it('resamples each metric with its own seed: cost 1, tokens 2, latency 3', () => {
    const random = seededRandom(11)
    const pairs = Array.from({ length: 24 }, (_, i): [CaseResult, CaseResult] => {
      const x = 1 + random()
      const y = x * (0.8 + 0.6 * random())
      return [agentCase(`k${i}`, x, Math.round(1000 * x), 100 * x), agentCase(`k${i}`, y, Math.round(1000 * y), 100 * y)]
    })
    const m = comparedMetrics(pairs)!
    const side = (read: (c: CaseResult) => number, at: 0 | 1) => pairs.map((p) => read(p[at]))
    const sum: PairedStatistic = { point: (v) => v.reduce((a, b) => a + b, 0), weighted: (v, counts) => v.reduce((s, x, i) => s + x * counts[i]!, 0) }
    const p95: PairedStatistic = {
      point: (v) =>
        quantileOfSorted(
          [...v].sort((a, b) => a - b),
          0.95
        ),
      weighted: (v, counts, order) => quantileOfSorted(v, 0.95, counts, order, v.length)
    }
    const cost = (c: CaseResult) => c.usage!.costUsd!
    const tokens = (c: CaseResult) => c.usage!.totalTokens!
    const latency = (c: CaseResult) => c.latencyMs!
    expect(m.cost!.ci).toEqual(pairedBootstrap(side(cost, 0), side(cost, 1), sum, { seed: 1 }))
    expect(m.tokens!.ci).toEqual(pairedBootstrap(side(tokens, 0), side(tokens, 1), sum, { seed: 2 }))
    expect(m.latencyP95!.ci).toEqual(pairedBootstrap(side(latency, 0), side(latency, 1), p95, { seed: 3 }))
    expect(m.tokens!.ci).not.toEqual(pairedBootstrap(side(tokens, 0), side(tokens, 1), sum, { seed: 1 }))
  })
})

describe('unreportedMetrics', () => {
  const priced = (id: string) => agentCase(id, 0.001, 1000, 100)
  it.each<{ name: string; baseline: CaseResult; current: CaseResult; lost: string[] }>([
    { name: 'usage gone: cost and tokens lost', baseline: priced('a'), current: makeCase('a', true, { latencyMs: 90 }), lost: ['cost', 'tokens'] },
    {
      name: 'tokens kept, no cost (a model missing from pricing)',
      baseline: priced('a'),
      current: makeCase('a', true, { usage: { inputTokens: 990, outputTokens: 10, totalTokens: 1000 }, latencyMs: 90 }),
      lost: ['cost']
    },
    {
      name: 'the target failed: nothing to report in, not counted',
      baseline: priced('a'),
      current: makeCase('a', false, { output: null, error: 'timed out' }),
      lost: []
    },
    { name: 'the baseline had none: nothing lost', baseline: makeCase('a'), current: makeCase('a'), lost: [] },
    { name: 'both report: nothing lost', baseline: priced('a'), current: priced('a'), lost: [] }
  ])('$name', ({ baseline, current, lost }) => {
    expect(unreportedMetrics([[baseline, current]]).map((u) => u.metric)).toEqual(lost)
  })

  it('counts every case and keeps the first ten keys', () => {
    const pairs = Array.from({ length: 12 }, (_, i): [CaseResult, CaseResult] => [priced(`k${i}`), makeCase(`k${i}`)])
    const [cost] = unreportedMetrics(pairs)
    expect(cost).toEqual({ metric: 'cost', cases: 12, keys: pairs.slice(0, 10).map(([, c]) => c.id) })
  })
})

describe('the gate on cost, tokens and latency', () => {
  const runs = (factor: number, n = 10) => {
    const baseline = makeBaseline(Array.from({ length: n }, (_, i) => agentCase(`c${i}`, 0.001, 1000, 1000 + 10 * i)))
    const current = makeRun(
      Array.from({ length: n }, (_, i) => agentCase(`c${i}`, 0.001 * factor * (i === 3 ? 1.2 : 1), 1000 * factor, (1000 + 10 * i) * factor))
    )
    return { baseline, current }
  }

  it('fails on each increase beyond its limit, naming the figures and the cases that rose most', () => {
    const { baseline, current } = runs(1.5)
    const c = compareRuns(baseline, current, makeGate({ maxCostIncrease: 0.1, maxTokensIncrease: 0.1, maxLatencyIncrease: 0.2 }))
    expect(c.gate.checks.map((f) => f.check)).toEqual(['maxCostIncrease', 'maxTokensIncrease', 'maxLatencyIncrease'])
    expect(sentences(c.gate)[0]).toBe(
      'total cost rose 53.0% on the 10 cases compared, $0.0100 → $0.0153 (limit: maxCostIncrease 10.0%); largest rises: c3 (+$0.0008), c0 (+$0.0005) and c1 (+$0.0005), of 10 cases that rose'
    )
    expect(sentences(c.gate)[2]).toMatch(/^p95 latency rose 50\.0% on the 10 cases compared, 1\.09 s → 1\.64 s \(limit: maxLatencyIncrease 20\.0%\)/)
    expect(c.metrics!.cost).toMatchObject({ ci: expect.any(Array) })
  })

  it('passes at or under the limits, and without the keys', () => {
    const { baseline, current } = runs(1.1)
    expect(compareRuns(baseline, current, makeGate({ maxTokensIncrease: 0.1, maxLatencyIncrease: 0.1 })).gate.passed).toBe(true)
    expect(compareRuns(baseline, runs(3).current, makeGate()).gate.passed).toBe(true)
  })

  it("useConfidenceBound applies the limit to the interval's optimistic end", () => {
    // 6 of 10 cases cost 2.5× (+90% in total), 4 the same: the interval's low end is well under the point change
    const baseline = makeBaseline(Array.from({ length: 10 }, (_, i) => agentCase(`c${i}`, 0.001, 100, 100)))
    const current = makeRun(Array.from({ length: 10 }, (_, i) => agentCase(`c${i}`, i < 6 ? 0.0025 : 0.001, 100, 100)))
    const point = compareRuns(baseline, current, makeGate({ maxCostIncrease: 0.5 }))
    expect(point.gate.checks.map((f) => f.check)).toEqual(['maxCostIncrease'])
    const lo = point.metrics!.cost!.ci![0]
    expect(lo).toBeLessThan(0.9)
    const bound = compareRuns(baseline, current, makeGate({ maxCostIncrease: lo + 0.01, useConfidenceBound: true }))
    expect(bound.gate.passed).toBe(true)
    const strict = compareRuns(baseline, current, makeGate({ maxCostIncrease: lo - 0.01, useConfidenceBound: true }))
    expect(sentences(strict.gate)[0]).toContain('total cost rose by at least')
  })

  it('useConfidenceBound without an interval applies the limit to the rise itself, and says so', () => {
    // 10 cases: p95 latency has no interval (it needs 20), cost has one
    const { baseline, current } = runs(1.5)
    const c = compareRuns(baseline, current, makeGate({ maxLatencyIncrease: 0.2, useConfidenceBound: true }))
    expect(c.metrics!.latencyP95!.ci).toBeNull()
    expect(c.gate.checks.map((f) => f.check)).toEqual(['maxLatencyIncrease'])
    expect(sentences(c.gate)[0]).toMatch(
      /^p95 latency rose 50\.0% on the 10 cases compared, 1\.09 s → 1\.64 s \(limit: maxLatencyIncrease 20\.0%; no confidence interval \(too few cases, or a baseline mostly at zero\), so applied to the rise itself\)/
    )
    expect(compareRuns(baseline, runs(1.1).current, makeGate({ maxLatencyIncrease: 0.2, useConfidenceBound: true })).gate.passed).toBe(true)
  })

  it('fails a cost limit when compared cases stopped reporting cost (no usage, or a model not in pricing), naming them', () => {
    const baseline = makeBaseline(Array.from({ length: 5 }, (_, i) => agentCase(`c${i}`, 0.001, 1000, 100)))
    // the new version answers without usage on every case: no pair would carry cost or tokens any more
    const silent = makeRun(Array.from({ length: 5 }, (_, i) => makeCase(`c${i}`, true, { latencyMs: 100 })))
    const c = compareRuns(baseline, silent, makeGate({ maxCostIncrease: 0.1, maxTokensIncrease: 0.1 }))
    expect(c.metrics!.cost).toBeUndefined()
    expect(c.unreported).toEqual([
      { metric: 'cost', cases: 5, keys: ['c0', 'c1', 'c2', 'c3', 'c4'] },
      { metric: 'tokens', cases: 5, keys: ['c0', 'c1', 'c2', 'c3', 'c4'] }
    ])
    expect(sentences(c.gate)).toEqual([
      'maxCostIncrease 10.0% cannot be checked: 5 compared cases had a cost in the baseline and have none in this run (c0, c1, c2 and 2 more); does the target still report usage, and is every model it names in pricing?',
      'maxTokensIncrease 10.0% cannot be checked: 5 compared cases had a token count in the baseline and have none in this run (c0, c1, c2 and 2 more); does the target still report usage?'
    ])
    expect(c.gate.checks[0]).toMatchObject({ check: 'maxCostIncrease', limit: 0.1, measured: null, keys: ['c0', 'c1', 'c2', 'c3', 'c4'] })
    // without the limits nothing fails on it; the comparison still says what went missing
    const unlimited = compareRuns(baseline, silent, makeGate())
    expect(unlimited.gate.passed).toBe(true)
    expect(unlimited.unreported).toHaveLength(2)
    // a complete run reports nothing missing, and the key is left out
    expect(compareRuns(baseline, makeRun(Array.from({ length: 5 }, (_, i) => agentCase(`c${i}`, 0.001, 1000, 100))), makeGate())).not.toHaveProperty(
      'unreported'
    )
  })

  it('a run stopped at its budget fails, saying budget', () => {
    const current = makeRun([agentCase('a', 0.6, 1, 1)], { complete: false, stopReason: 'budget', planned: 10, budget: { maxCostUsd: 0.5, spentUsd: 0.6 } })
    const c = compareRuns(null, current, makeGate())
    expect(sentences(c.gate)).toEqual([
      'the run stopped at its budget: $0.6000 spent of budget.maxCostUsd $0.5000 (target plus judge); 1 of 10 cases finished, and a run cut short is never a pass'
    ])
  })
})
