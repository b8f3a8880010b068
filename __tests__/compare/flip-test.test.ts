import { describe, expect, it } from '@jest/globals'
import { canBeSignificant, flipTest } from '../../src/compare/flip-test.js'

const counts = (passed: number, total: number) => ({ passed, total })

describe('flipTest: the one-sided Fisher test, and all → none where the counts are too few for any test (SPEC §4)', () => {
  it.each([
    // more (the side that should pass more), less, alpha → counts, tooFewTrials, p
    [counts(3, 3), counts(0, 3), 0.05, true, true, 0.05],
    [counts(2, 2), counts(0, 2), 0.05, true, true, 1 / 6],
    [counts(2, 2), counts(0, 3), 0.05, true, true, 0.1],
    [counts(3, 3), counts(1, 3), 0.05, false, false, 0.2],
    [counts(2, 3), counts(0, 3), 0.05, false, false, 0.2],
    [counts(4, 4), counts(0, 4), 0.05, true, false, 1 / 70],
    [counts(4, 4), counts(1, 4), 0.05, false, false, 5 / 70],
    [counts(3, 3), counts(0, 3), 0.1, true, false, 0.05],
    [counts(5, 5), counts(1, 5), 0.05, true, false, 6 / 252]
  ])('%o → %o at alpha %d: counts %s, too few %s', (more, less, alpha, expected, tooFew, p) => {
    const t = flipTest(more, less, alpha)
    expect(t.counts).toBe(expected)
    expect(t.tooFewTrials).toBe(tooFew)
    expect(t.p).toBeCloseTo(p, 12)
  })

  it.each([
    [1, 1, 0.05, false],
    [2, 2, 0.05, false], // 1/6
    [3, 3, 0.05, false], // exactly 0.05 is not below it
    [3, 4, 0.05, true], // 1/35
    [4, 4, 0.05, true],
    [2, 3, 0.2, true], // 1/10
    [5, 5, 0.001, false] // 1/252
  ])('canBeSignificant(%d, %d, %d) = %s', (a, b, alpha, expected) => {
    expect(canBeSignificant(a, b, alpha)).toBe(expected)
  })
})
