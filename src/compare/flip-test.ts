/**
 * Whether a flip of a case with repeated trials counts: the
 * one-sided Fisher exact test at alpha — except where the two trial counts are
 * too few for any result to reach alpha (2 or 3 trials a side at 0.05: even
 * every trial passing on one side and none on the other gives p ≥ 0.05). There
 * a case that went from all to none counts as it would with one trial, so that
 * `repeat: 3` cannot hide a case that broke outright. One decision, used by the
 * comparison and by the sensitivity it reports.
 */
import { fisherExactOneSided } from './stats.js'
import type { TrialCounts } from './types.js'

/**
 * p-values summed from log-factorials carry a relative error near 1e-15; a p
 * exactly at alpha (4 of 4 trials → 0 of 4 gives 1/70 < 0.05, 3 of 3 → 0 of 3
 * gives exactly 0.05) is not below it.
 */
const P_TOLERANCE = 1e-9

export interface FlipTest {
  /** the flip counts (regressed or fixed) */
  counts: boolean
  /** the one-sided p-value that `more` passes more often than `less` */
  p: number
  /** counted without the test: every trial passed on one side and none on the other, and no result at these counts could reach alpha */
  tooFewTrials: boolean
}

function below(p: number, alpha: number): boolean {
  return p < alpha * (1 - P_TOLERANCE)
}

/** Can any result at these trial counts be significant: is even all-pass against all-fail below alpha? (p = 1/C(a+b, a)) */
export function canBeSignificant(aTotal: number, bTotal: number, alpha: number): boolean {
  return below(fisherExactOneSided(aTotal, aTotal, 0, bTotal), alpha)
}

/** Does `more` (the side that should pass more often: the baseline of a regression, this run of a fix) pass significantly more often than `less`? */
export function flipTest(more: TrialCounts, less: TrialCounts, alpha: number): FlipTest {
  const p = fisherExactOneSided(more.passed, more.total, less.passed, less.total)
  if (below(p, alpha)) return { counts: true, p, tooFewTrials: false }
  const allOrNothing = more.passed === more.total && less.passed === 0
  const tooFewTrials = allOrNothing && !canBeSignificant(more.total, less.total, alpha)
  return { counts: tooFewTrials, p, tooFewTrials }
}
