/**
 * Several statistics over one set of resamples (p50 and p95 latency share
 * their draws): each interval is the one its statistic gets alone from the
 * same seed, and a quantile found from the top is the one found from the bottom.
 */
import { describe, expect, it } from '@jest/globals'
import { ascendingOrder, pairedBootstrap, pairedBootstraps, quantileOfSorted, seededUniform, type PairedStatistic } from '../../src/compare/stats.js'

const quantile = (p: number): PairedStatistic => ({
  ordered: true,
  point: (values) =>
    quantileOfSorted(
      [...values].sort((a, b) => a - b),
      p
    ),
  weighted: (values, counts, order) => quantileOfSorted(values, p, counts, order)
})
const total: PairedStatistic = {
  ordered: false,
  point: (values) => values.reduce((a, b) => a + b, 0),
  weighted: (values, counts) => values.reduce((sum, v, i) => sum + v * counts[i]!, 0)
}

function latencies(n: number, seed: number): { baseline: number[]; current: number[] } {
  const random = seededUniform(seed)
  const baseline = Array.from({ length: n }, () => Math.round(100 + 900 * random()))
  return { baseline, current: baseline.map((b) => Math.round(b * (0.8 + 0.6 * random()))) }
}

describe('pairedBootstraps', () => {
  it.each([5, 40, 333])('gives each statistic the interval it gets alone from the same seed (%i cases)', (n) => {
    const { baseline, current } = latencies(n, n)
    const statistics = [quantile(0.5), quantile(0.95), total]
    const together = pairedBootstraps(baseline, current, statistics, { seed: 3 })
    const alone = statistics.map((s) => pairedBootstrap(baseline, current, s, { seed: 3 }))
    expect(together).toEqual(alone)
    // and the intervals differ from one another: the test compares something
    expect(new Set(together.map((ci) => JSON.stringify(ci))).size).toBe(3)
  })

  it('answers no statistic with no intervals', () => {
    expect(pairedBootstraps([1, 2, 3, 4, 5], [2, 3, 4, 5, 6], [])).toEqual([])
  })
})

describe('quantileOfSorted over counts', () => {
  it('finds every quantile of a resample written out, from either end', () => {
    const random = seededUniform(11)
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(random() * 30)
      const values = Array.from({ length: n }, () => Math.floor(random() * 10))
      const counts = new Uint32Array(n)
      for (let k = 0; k < n; k++) counts[Math.floor(random() * n)]!++
      const written = values.flatMap((v, i) => Array.from({ length: counts[i]! }, () => v)).sort((a, b) => a - b)
      for (const p of [0.01, 0.25, 0.5, 0.51, 0.75, 0.95, 0.99, 1]) {
        expect(quantileOfSorted(values, p, counts, ascendingOrder(values))).toBe(written[Math.max(0, Math.ceil(p * written.length) - 1)])
      }
    }
  })
})
