/**
 * The statistics to the last digits, against figures computed another way:
 * Student's t by numerical integration of its density (composite Simpson,
 * 20,000 panels, log-gamma constants; Python), the normal quantile by
 * Python's statistics.NormalDist (Wichura's AS 241), Fisher's test in exact
 * fractions, and the bootstrap by a plain implementation written out here.
 * Loose tolerances let a loop bound or a series term be changed unnoticed;
 * these do not.
 */
import { describe, expect, it } from '@jest/globals'
import {
  ascendingOrder,
  bootstrapResamples,
  fisherExactOneSided,
  normalQuantile,
  pairedBootstrap,
  pairedMeanCI,
  quantileOfSorted,
  seededUniform,
  tCentralProbability,
  tCritical,
  wilsonInterval,
  type PairedStatistic
} from '../../src/compare/stats.js'

/** |actual − expected| ≤ tolerance · max(1, |expected|) */
function near(actual: number, expected: number, tolerance: number): void {
  const gap = Math.abs(actual - expected)
  if (gap > tolerance * Math.max(1, Math.abs(expected))) throw new Error(`${actual} is ${gap} away from ${expected} (allowed ${tolerance})`)
}

describe('tCentralProbability: P(|T| ≤ t) against the integrated density', () => {
  // [df, t, P] — odd and even df, the first terms of each series and longer ones
  const rows: [number, number, number][] = [
    [1, 0.5, 0.295167235300865],
    [1, 2, 0.7048327646991378],
    [2, 1, 0.5773502691896245],
    [2, 5, 0.9622504486493756],
    [3, 0.5, 0.34855203515184857],
    [3, 2, 0.8606740314411577],
    [4, 1, 0.6260990336999437],
    [4, 2, 0.8838834764831832],
    [5, 1, 0.6367825323508719],
    [5, 5, 0.9958952840199462],
    [6, 0.5, 0.36511999999999883],
    [6, 2, 0.9075736884683309],
    [7, 1, 0.6493833371797988],
    [7, 5, 0.9984347220468308],
    [12, 0.5, 0.3738825237746715],
    [12, 2, 0.9313449859619114],
    [31, 1, 0.6749472672764725],
    [31, 5, 0.9999785221653327],
    [32, 0.5, 0.379503825043106],
    [32, 2, 0.9459518145456149]
  ]
  it.each(rows)('df %i, t %f → %f', (df, t, p) => {
    near(tCentralProbability(t, df), p, 1e-12)
    // symmetric in t
    near(tCentralProbability(-t, df), p, 1e-12)
  })

  it('is 0 at t = 0 and tends to 1', () => {
    expect(tCentralProbability(0, 5)).toBe(0)
    expect(tCentralProbability(0, 6)).toBe(0)
    near(tCentralProbability(1e6, 9), 1, 1e-12)
    expect(tCentralProbability(1e6, 9)).toBeLessThanOrEqual(1)
  })
})

describe('tCritical to twelve digits', () => {
  it.each([
    [3, 0.95, 3.1824463052838103],
    [7, 0.95, 2.3646242515926934],
    [12, 0.99, 3.0545395893930367],
    [999, 0.95, 1.9623414611320347],
    // the last df on the series, and the first on the Cornish–Fisher expansion
    [1000, 0.95, 1.962339080825767],
    [1001, 0.95, 1.96233670528221]
  ])('df %i at %f → %f', (df, level, t) => {
    near(tCritical(df, level), t, 1e-11)
  })

  // the integrated reference loses digits to log-gamma at large df; the expansion itself is exact to 1e-12 there
  it.each([
    [2000, 0.95, 1.9611508260935269],
    [5000, 0.99, 2.576812966507723],
    [100_000, 0.95, 1.9599877077017975]
  ])('df %i at %f → %f (expansion)', (df, level, t) => {
    near(tCritical(df, level), t, 1e-9)
  })

  it('has the closed forms of 1 and 2 degrees of freedom', () => {
    for (const level of [0.5, 0.8, 0.95, 0.99, 0.999]) {
      near(tCritical(1, level), Math.tan((Math.PI * level) / 2), 1e-11)
      const p = 0.5 + level / 2
      near(tCritical(2, level), (2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 1e-11)
    }
  })

  it('is the t whose central probability is the level, for every df up to 60', () => {
    for (let df = 1; df <= 60; df++) {
      for (const level of [0.9, 0.95, 0.99]) near(tCentralProbability(tCritical(df, level), df), level, 1e-12)
    }
  })
})

describe('normalQuantile against AS 241', () => {
  it.each([
    [1e-10, -6.361340902404056, 1e-13],
    [1e-6, -4.753424308822899, 1e-13],
    [0.001, -3.090232306167813, 1e-12],
    [0.2, -0.8416212335729142, 1e-14],
    [0.6, 0.2533471031357998, 1e-14],
    [0.9999, 3.7190164854557084, 1e-12],
    // near 1, Φ is 1 − a small erfc: digits are lost there (only 0.5 + level/2 is ever asked for)
    [0.999999, 4.753424308817089, 1e-10]
  ])('Φ⁻¹(%f) = %f', (p, z, tolerance) => {
    near(normalQuantile(p), z, tolerance)
  })

  it.each([0, 1, -0.5, 2, NaN])('refuses %f', (p) => {
    expect(() => normalQuantile(p)).toThrow(`a probability strictly between 0 and 1 is needed, got ${p}`)
  })
})

describe('fisherExactOneSided in exact fractions', () => {
  it.each([
    [7, 12, 2, 9, 0.11290783519885687],
    [30, 40, 18, 40, 0.005753106008280237],
    [1, 6, 0, 6, 0.5],
    [13, 20, 13, 20, 0.6294731884275822]
  ])('%i/%i vs %i/%i → %f', (a, at, b, bt, p) => {
    expect(Math.abs(fisherExactOneSided(a, at, b, bt) / p - 1)).toBeLessThan(1e-13)
  })

  it('is never above 1, where the whole distribution is summed', () => {
    for (let n = 1; n <= 60; n++) {
      for (let passes = 0; passes <= 2 * n; passes += 3) {
        const bPass = Math.min(n, passes)
        const p = fisherExactOneSided(passes - bPass, n, bPass, n)
        expect(p).toBeLessThanOrEqual(1)
        near(p, 1, 1e-12)
      }
    }
  })
})

describe('wilsonInterval to the last digits', () => {
  it.each([
    [81, 263, 1.959963984540054, 0.2552885198782742, 0.36620957698280004],
    [1, 7, 1.959963984540054, 0.02567962434474355, 0.5131278292743189],
    [6, 7, 1.959963984540054, 0.4868721707256811, 0.9743203756552565],
    [3, 10, 2.5758293035489004, 0.07956631652306573, 0.6799753207988974]
  ])('%i of %i, z %f', (x, n, z, lo, hi) => {
    const [l, u] = wilsonInterval(x, n, z)
    near(l, lo, 1e-14)
    near(u, hi, 1e-14)
  })

  it('stays inside [0, 1] at its ends', () => {
    // the limit at 0 of n is 0 up to rounding, a hair either side: never below
    for (let n = 1; n <= 200; n++) {
      const lower = wilsonInterval(0, n)[0]
      const upper = wilsonInterval(n, n)[1]
      expect(lower).toBeGreaterThanOrEqual(0)
      expect(lower).toBeLessThan(1e-15)
      expect(upper).toBeLessThanOrEqual(1)
      expect(upper).toBeGreaterThan(1 - 1e-15)
    }
  })
})

describe('pairedMeanCI at another level', () => {
  it('uses the t of that level', () => {
    // mean 0.2, sd 0.1, n 3 at 99%: t(2) = 9.924843200918282
    const [l, u] = pairedMeanCI([0.1, 0.2, 0.3], 0.99)!
    near(l, 0.2 - (9.924843200918282 * 0.1) / Math.sqrt(3), 1e-11)
    near(u, 0.2 + (9.924843200918282 * 0.1) / Math.sqrt(3), 1e-11)
  })

  it('cuts the lower end at −1', () => {
    // mean −0.85, variance 0.05/3, n 4: −0.85 ± 3.182 · 0.129 / 2 = −1.055 (cut) to −0.645
    const [l, u] = pairedMeanCI([-0.9, -0.8, -1, -0.7])!
    expect(l).toBe(-1)
    near(u, -0.85 + 3.1824463052837086 * Math.sqrt(0.05 / 3 / 4), 1e-11)
  })
})

/** The cases each resample picks, in draw order: seededUniform's draws, the seed mixed with n as pairedBootstraps documents. */
function resampledCases(n: number, seed: number, resamples: number): number[][] {
  const draw = seededUniform((seed * 0x9e3779b1 + n) >>> 0)
  return Array.from({ length: resamples }, () => Array.from({ length: n }, () => Math.floor(draw() * n)))
}

/**
 * The bootstrap written out: resample the cases with seededUniform's draws
 * (the seed mixed with n as pairedBootstraps documents), take the statistic of
 * each resampled run from the values listed in full, and read the percentiles.
 */
function plainBootstrap(
  baseline: number[],
  current: number[],
  statistic: (values: number[]) => number,
  seed: number,
  resamples: number,
  level: number
): [number, number] | null {
  const changes: number[] = []
  let undefinedRatios = 0
  for (const picked of resampledCases(baseline.length, seed, resamples)) {
    const before = statistic(picked.map((i) => baseline[i]!))
    if (before <= 0) undefinedRatios++
    else changes.push(statistic(picked.map((i) => current[i]!)) / before - 1)
  }
  const tail = (1 - level) / 2
  if (undefinedRatios > tail * resamples) return null
  changes.sort((a, b) => a - b)
  const at = (q: number) => changes[Math.min(changes.length - 1, Math.max(0, Math.floor(q * resamples)))]!
  return [at(tail), at(1 - tail)]
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
const nearestRank = (p: number) => (values: number[]) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * values.length) - 1)]!
const totalStatistic: PairedStatistic = {
  ordered: false,
  point: (values) => sum([...values]),
  weighted: (values, counts) => values.reduce((s, v, i) => s + v * counts[i]!, 0)
}
const quantileStatistic = (p: number): PairedStatistic => ({
  point: (values) => nearestRank(p)([...values]),
  weighted: (values, counts, order) => quantileOfSorted(values, p, counts, order)
})

describe('pairedBootstrap against the bootstrap written out', () => {
  const random = seededUniform(5)
  const baseline = Array.from({ length: 37 }, () => Math.round(50 + 500 * random()))
  const current = baseline.map((b) => Math.round(b * (0.7 + 0.8 * random())))

  it.each([
    { seed: 1, resamples: 1000, level: 0.95 },
    { seed: 7, resamples: 300, level: 0.9 }
  ])('a total, seed $seed, $resamples resamples, level $level', ({ seed, resamples, level }) => {
    const mine = pairedBootstrap(baseline, current, totalStatistic, { seed, resamples, level })
    expect(mine).toEqual(plainBootstrap(baseline, current, sum, seed, resamples, level))
  })

  it.each([0.5, 0.95])('the %f quantile', (p) => {
    const mine = pairedBootstrap(baseline, current, quantileStatistic(p), { seed: 2, resamples: 500 })
    expect(mine).toEqual(plainBootstrap(baseline, current, nearestRank(p), 2, 500, 0.95))
  })

  it('takes 1,000 resamples and seed 1 by default on a small run', () => {
    expect(pairedBootstrap(baseline, current, totalStatistic)).toEqual(plainBootstrap(baseline, current, sum, 1, 1000, 0.95))
  })

  it('is the same when given the orders it would compute', () => {
    const orders = { baseline: ascendingOrder(baseline), current: ascendingOrder(current) }
    const q = quantileStatistic(0.5)
    expect(pairedBootstrap(baseline, current, q, { seed: 4, resamples: 200, orders })).toEqual(
      pairedBootstrap(baseline, current, q, { seed: 4, resamples: 200 })
    )
  })

  it('gives no interval when more than 2.5% of resampled baselines are zero, and one at fewer', () => {
    // one case of 40 carries the whole baseline: a resample misses it with probability (39/40)^40 ≈ 36%
    const sparse = Array.from({ length: 40 }, (_, i) => (i === 0 ? 10 : 0))
    const sparseNow = sparse.map((v) => v + 1)
    expect(pairedBootstrap(sparse, sparseNow, totalStatistic, { resamples: 400 })).toBeNull()
    expect(plainBootstrap(sparse, sparseNow, sum, 1, 400, 0.95)).toBeNull()
    // four cases of 40 carry it: missed by ~1.5% of resamples, and those are left out of the percentiles
    const fewer = Array.from({ length: 40 }, (_, i) => (i < 4 ? 10 : 0))
    const fewerNow = fewer.map((v) => 2 * v)
    const ci = pairedBootstrap(fewer, fewerNow, totalStatistic, { resamples: 400 })
    expect(ci).toEqual(plainBootstrap(fewer, fewerNow, sum, 1, 400, 0.95))
    expect(ci).toEqual([1, 1])
  })
})

describe('quantileOfSorted', () => {
  it('reads sorted values by nearest rank when no counts are given', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    expect([0, 0.05, 0.1, 0.11, 0.5, 0.95, 1].map((p) => quantileOfSorted(sorted, p))).toEqual([1, 1, 1, 2, 5, 10, 10])
  })

  it('gives the same quantile when told the total of the counts', () => {
    const values = [5, 1, 4, 2, 3]
    const counts = Uint32Array.from([2, 0, 3, 1, 4])
    const order = ascendingOrder(values)
    for (const p of [0.1, 0.3, 0.5, 0.7, 0.9, 1]) expect(quantileOfSorted(values, p, counts, order, 10)).toBe(quantileOfSorted(values, p, counts, order))
    // written out (5 twice, 4 three times, 2 once, 3 four times): 2 3 3 3 3 4 4 4 5 5
    expect([0.1, 0.2, 0.5, 0.6, 0.8, 0.9, 1].map((p) => quantileOfSorted(values, p, counts, order))).toEqual([2, 3, 3, 4, 4, 5, 5])
  })
})

describe('the edges the figures above do not reach', () => {
  it('names the df it refuses', () => {
    expect(() => tCritical(0)).toThrow('degrees of freedom must be a positive integer, got 0')
    expect(() => tCritical(2.5)).toThrow('degrees of freedom must be a positive integer, got 2.5')
  })

  it('measures a spread from two differences', () => {
    // mean 0.11, sd √0.0002, n 2: 0.11 ± 12.706 · 0.01
    const [l, u] = pairedMeanCI([0.1, 0.12])!
    near(l, 0.11 - 12.706204736174698 * 0.01, 1e-11)
    near(u, 0.11 + 12.706204736174698 * 0.01, 1e-11)
  })

  it('reads values as sorted when counts come without an order', () => {
    expect(quantileOfSorted([1, 2, 3, 4], 0.5, Uint32Array.from([0, 0, 0, 9]))).toBe(2)
  })

  it('takes fewer resamples over many cases: 20 million draws at most, never under 200', () => {
    expect([1, 37, 20_000, 20_001, 25_000, 40_000, 100_000, 1_000_000].map(bootstrapResamples)).toEqual([1000, 1000, 1000, 999, 800, 500, 200, 200])
  })

  it('still gives an interval when exactly 2.5% of resampled baselines are zero, leaving them out', () => {
    // 40 resamples, so 2.5% is one; found by trying seeds with the plain bootstrap's own count
    const baseline = Array.from({ length: 12 }, (_, i) => (i < 3 ? 5 : 0))
    const current = baseline.map((v, i) => v * (1 + i / 10))
    const zeroBaselines = (seed: number) => resampledCases(baseline.length, seed, 40).filter((picked) => sum(picked.map((i) => baseline[i]!)) === 0).length
    const seed = Array.from({ length: 500 }, (_, s) => s + 1).find((s) => zeroBaselines(s) === 1)!
    expect(seed).toBeDefined()
    const ci = pairedBootstrap(baseline, current, totalStatistic, { seed, resamples: 40 })
    expect(ci).not.toBeNull()
    expect(ci).toEqual(plainBootstrap(baseline, current, sum, seed, 40, 0.95))
    expect(ci!.every(Number.isFinite)).toBe(true)
    // one more zero and there is none
    const seed2 = Array.from({ length: 500 }, (_, s) => s + 1).find((s) => zeroBaselines(s) === 2)!
    expect(pairedBootstrap(baseline, current, totalStatistic, { seed: seed2, resamples: 40 })).toBeNull()
  })
})
