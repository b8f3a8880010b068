import { describe, expect, it } from '@jest/globals'
import { fisherExactOneSided, pairedDifferenceCI, wilsonInterval } from '../../src/compare/index.js'

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
