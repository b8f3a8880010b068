import { describe, expect, it } from '@jest/globals'
import { fisherExactOneSided, normalQuantile, pairedDifferenceCI, pairedMeanCI, tCritical, wilsonInterval } from '../../src/compare/index.js'

describe('fisherExactOneSided', () => {
  // Hypergeometric upper tails; each is R's fisher.test(matrix(c(aPass, bPass, aFail, bFail), 2), alternative = "greater").
  it.each([
    // Fisher's tea-tasting experiment: 3 of 4 cups right vs 1 of 4, p = 17/70
    { a: [3, 4], b: [1, 4], p: 17 / 70 },
    { a: [5, 5], b: [0, 5], p: 1 / 252 },
    { a: [5, 5], b: [1, 5], p: 6 / 252 },
    { a: [4, 5], b: [1, 5], p: 26 / 252 },
    { a: [3, 3], b: [0, 3], p: 1 / 20 },
    { a: [10, 10], b: [0, 10], p: 1 / 184_756 },
    { a: [2, 4], b: [2, 4], p: 53 / 70 },
    { a: [0, 5], b: [5, 5], p: 1 },
    { a: [0, 0], b: [0, 0], p: 1 }
  ])('$a passed vs $b → p = $p', ({ a, b, p }) => {
    expect(fisherExactOneSided(a[0]!, a[1]!, b[0]!, b[1]!)).toBeCloseTo(p, 10)
  })

  it('matches the published tea-tasting p-value 0.2429', () => {
    expect(fisherExactOneSided(3, 4, 1, 4).toFixed(4)).toBe('0.2429')
  })

  it('stays finite for large trial counts', () => {
    const p = fisherExactOneSided(900, 1000, 700, 1000)
    expect(p).toBeGreaterThan(0)
    expect(p).toBeLessThan(1e-20)
  })
})

describe('wilsonInterval', () => {
  it.each([
    // Newcombe (1998, independent proportions), Table II: 81/263 → 0.2553 to 0.3662
    { x: 81, n: 263, lo: 0.2553, hi: 0.3662 },
    // 15/148 → 0.0624 to 0.1605
    { x: 15, n: 148, lo: 0.0624, hi: 0.1605 },
    { x: 0, n: 20, lo: 0, hi: 0.1611 }
  ])('$x of $n', ({ x, n, lo, hi }) => {
    const [l, u] = wilsonInterval(x, n)
    expect(l).toBeCloseTo(lo, 4)
    expect(u).toBeCloseTo(hi, 4)
  })
})

describe('pairedDifferenceCI (Newcombe hybrid score, paired)', () => {
  it('matches the published interval for Cavo et al. (Fagerland, Lydersen & Laake, ch. 8): −0.1186 to −0.0046', () => {
    // current passed 59+6, baseline passed 59+16 of 161: delta −0.0621
    const ci = pairedDifferenceCI({ bothPassed: 59, onlyCurrentPassed: 6, onlyBaselinePassed: 16, bothFailed: 80 })
    expect(ci![0]).toBeCloseTo(-0.1186, 4)
    expect(ci![1]).toBeCloseTo(-0.0046, 4)
  })

  // Newcombe's correction of phi, on each side of its branches; the figures are from an independent
  // implementation of method 10 (Wilson limits, phi with the n/2 correction), to 1e-10.
  it.each([
    // ad − bc = 2 ≤ n/2 = 3.5: the positive association shrinks to phi = 0 (uncorrected, phi = 1/6)
    { counts: [2, 2, 1, 2], lo: -0.31106327685982843, hi: 0.5251920044551328 },
    // ad − bc = 3 = n/2 exactly: still phi = 0
    { counts: [2, 1, 1, 2], lo: -0.44177725603643586, hi: 0.44177725603643586 },
    // ad − bc = 8 > n/2 = 5: shrunk by n/2 to 3, phi = 3/√(7·3·6·4) ≈ 0.134
    { counts: [5, 2, 1, 2], lo: -0.2562264912538181, hi: 0.4236365661654312 },
    // ad − bc = −5 < 0: a negative association is kept whole, phi = −0.2
    { counts: [2, 3, 3, 2], lo: -0.40806822948832167, hi: 0.40806822948832167 },
    // a fixed case and no regressions: the interval leans positive
    { counts: [3, 1, 0, 2], lo: -0.2219706258653248, hi: 0.48492957148175747 }
  ])('the continuity correction of phi: $counts', ({ counts, lo, hi }) => {
    const [bothPassed, onlyCurrentPassed, onlyBaselinePassed, bothFailed] = counts as [number, number, number, number]
    const [l, u] = pairedDifferenceCI({ bothPassed, onlyCurrentPassed, onlyBaselinePassed, bothFailed })!
    expect(l).toBeCloseTo(lo, 10)
    expect(u).toBeCloseTo(hi, 10)
  })

  it.each([
    { name: 'no flips', counts: [20, 0, 0, 5] },
    { name: 'all passed both times', counts: [25, 0, 0, 0] },
    { name: 'all failed both times', counts: [0, 0, 0, 25] },
    { name: 'every case regressed', counts: [0, 0, 25, 0] },
    { name: 'every case fixed', counts: [0, 25, 0, 0] },
    { name: 'a single case', counts: [0, 0, 1, 0] }
  ])('$name: inside [−1, 1] and around the point estimate', ({ counts }) => {
    const [bothPassed, onlyCurrentPassed, onlyBaselinePassed, bothFailed] = counts as [number, number, number, number]
    const n = bothPassed + onlyCurrentPassed + onlyBaselinePassed + bothFailed
    const delta = (onlyCurrentPassed - onlyBaselinePassed) / n
    const [lo, hi] = pairedDifferenceCI({ bothPassed, onlyCurrentPassed, onlyBaselinePassed, bothFailed })!
    expect(lo).toBeGreaterThanOrEqual(-1)
    expect(hi).toBeLessThanOrEqual(1)
    expect(lo).toBeLessThanOrEqual(delta + 1e-12)
    expect(hi).toBeGreaterThanOrEqual(delta - 1e-12)
  })

  it('does not collapse to a point when nothing flipped', () => {
    const [lo, hi] = pairedDifferenceCI({ bothPassed: 20, onlyCurrentPassed: 0, onlyBaselinePassed: 0, bothFailed: 5 })!
    expect(lo).toBeLessThan(0)
    expect(hi).toBeGreaterThan(0)
  })

  it('is null without cases', () => {
    expect(pairedDifferenceCI({ bothPassed: 0, onlyCurrentPassed: 0, onlyBaselinePassed: 0, bothFailed: 0 })).toBeNull()
  })
})

describe('tCritical (two-sided 95%: the 0.975 quantile of Student t)', () => {
  // Published t tables (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2), to the digits printed there.
  it.each([
    { df: 1, t: 12.706 },
    { df: 2, t: 4.303 },
    { df: 3, t: 3.182 },
    { df: 4, t: 2.776 },
    { df: 5, t: 2.571 },
    { df: 10, t: 2.228 },
    { df: 20, t: 2.086 },
    { df: 30, t: 2.042 },
    { df: 60, t: 2.0 },
    { df: 100, t: 1.984 },
    { df: 1000, t: 1.962 },
    { df: 100_000, t: 1.96 }
  ])('df $df → $t', ({ df, t }) => {
    expect(tCritical(df)).toBeCloseTo(t, 3)
  })

  it('matches the 99% table values too', () => {
    expect(tCritical(10, 0.99)).toBeCloseTo(3.169, 3)
    expect(tCritical(1, 0.99)).toBeCloseTo(63.657, 3)
  })

  it('is continuous where the series hands over to the expansion', () => {
    expect(Math.abs(tCritical(1000) - tCritical(1001))).toBeLessThan(1e-5)
    expect(tCritical(1000)).toBeGreaterThan(tCritical(1001))
  })

  it('refuses a non-integer or zero df', () => {
    expect(() => tCritical(0)).toThrow(RangeError)
    expect(() => tCritical(2.5)).toThrow(RangeError)
  })
})

describe('normalQuantile', () => {
  it.each([
    { p: 0.975, z: 1.959963985 },
    { p: 0.995, z: 2.575829304 },
    { p: 0.9, z: 1.281551566 },
    { p: 0.5, z: 0 },
    { p: 0.025, z: -1.959963985 }
  ])('Φ⁻¹($p) = $z', ({ p, z }) => {
    expect(normalQuantile(p)).toBeCloseTo(z, 8)
  })
})

describe('pairedMeanCI (paired t interval of score differences)', () => {
  it.each([
    // mean 0.2, sd 0.1, n 3: 0.2 ± 4.303 · 0.1 / √3
    { d: [0.1, 0.2, 0.3], lo: 0.2 - (4.302652729749752 * 0.1) / Math.sqrt(3), hi: 0.2 + (4.302652729749752 * 0.1) / Math.sqrt(3) },
    // a wide interval on few cases is cut to the possible range of a score difference
    // mean 0.325, variance 0.4292, n 4: the upper end 1.367 is cut to 1
    { d: [-0.5, 0.9, 0.1, 0.8], lo: 0.325 - 3.182446305 * Math.sqrt(0.42916666666666664 / 4), hi: 1 },
    // mean −0.1, sd 0.1, n 5: −0.1 ± 2.776 · 0.1 / √5
    {
      d: [-0.2, -0.15, -0.1, -0.05, 0],
      lo: -0.1 - (2.776445105 * Math.sqrt(0.00625)) / Math.sqrt(5),
      hi: -0.1 + (2.776445105 * Math.sqrt(0.00625)) / Math.sqrt(5)
    },
    // no spread: the interval is the point
    { d: [-0.1, -0.1, -0.1], lo: -0.1, hi: -0.1 }
  ])('$d', ({ d, lo, hi }) => {
    const [l, u] = pairedMeanCI(d)!
    expect(l).toBeCloseTo(lo, 9)
    expect(u).toBeCloseTo(hi, 9)
  })

  it.each([{ d: [] }, { d: [0.3] }])('is null for $d (no spread to measure)', ({ d }) => {
    expect(pairedMeanCI(d)).toBeNull()
  })
})
