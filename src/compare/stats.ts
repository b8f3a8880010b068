/**
 * The statistics of a comparison: a one-sided Fisher exact test for flips of
 * repeated cases, and a paired confidence interval for the pass-rate delta.
 */

/** The normal quantile of a two-sided 95% interval. */
export const Z_95 = 1.959963984540054

const logFactorials: number[] = [0]

/** ln(n!), memoised: the tests sum many terms over the same small n. */
export function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1]! + Math.log(i)
  return logFactorials[n]!
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k)
}

/**
 * The p-value of the one-sided Fisher exact test that side a passes more often
 * than side b: the probability, with all margins of the 2×2 table
 * [[aPass, aTotal − aPass], [bPass, bTotal − bPass]] fixed, of a table at least
 * as extreme, i.e. of a having aPass or more of the passes (hypergeometric tail).
 * This equals R's `fisher.test(table, alternative = "greater")$p.value`.
 */
export function fisherExactOneSided(aPass: number, aTotal: number, bPass: number, bTotal: number): number {
  const total = aTotal + bTotal
  const passes = aPass + bPass
  const most = Math.min(aTotal, passes)
  // Terms are relative to the observed table's log-probability, so exp() stays well inside range.
  const logDenominator = logChoose(total, aTotal)
  let p = 0
  for (let x = aPass; x <= most; x++) {
    p += Math.exp(logChoose(passes, x) + logChoose(total - passes, aTotal - x) - logDenominator)
  }
  return Math.min(1, p)
}

/** The Wilson score interval of a proportion (successes of n). */
export function wilsonInterval(successes: number, n: number, z = Z_95): [number, number] {
  const p = successes / n
  const z2 = z * z
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n)
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  return [Math.max(0, centre - half), Math.min(1, centre + half)]
}

/** A paired 2×2 table of cases: how each case did in the baseline run and in the current run. */
export interface PairedCounts {
  bothPassed: number
  /** failed in the baseline, passed now */
  onlyCurrentPassed: number
  /** passed in the baseline, fail now */
  onlyBaselinePassed: number
  bothFailed: number
}

/**
 * A confidence interval for currentPassRate − baselinePassRate over the same
 * cases, by Newcombe's hybrid score method for paired proportions (1998,
 * method 10): Wilson intervals of the two marginal pass rates, combined by
 * "square and add" with a correction for their correlation. Unlike the Wald
 * interval it stays inside [−1, 1] and does not collapse to a point when no case
 * flipped. Null when there are no cases.
 */
export function pairedDifferenceCI(counts: PairedCounts, z = Z_95): [number, number] | null {
  const { bothPassed, onlyCurrentPassed, onlyBaselinePassed, bothFailed } = counts
  const n = bothPassed + onlyCurrentPassed + onlyBaselinePassed + bothFailed
  if (n === 0) return null
  const currentPassed = bothPassed + onlyCurrentPassed
  const baselinePassed = bothPassed + onlyBaselinePassed
  const p1 = currentPassed / n
  const p2 = baselinePassed / n
  const delta = p1 - p2
  const [l1, u1] = wilsonInterval(currentPassed, n, z)
  const [l2, u2] = wilsonInterval(baselinePassed, n, z)
  const phi = correlation(counts, n)
  const lower = delta - Math.sqrt(Math.max(0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
  const upper = delta + Math.sqrt(Math.max(0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
  return [Math.max(-1, lower), Math.min(1, upper)]
}

/**
 * The phi coefficient of the paired table with Newcombe's continuity
 * correction: a positive association is shrunk by n/2 (to no less than zero),
 * a negative one is kept; zero when a margin is empty.
 */
function correlation(counts: PairedCounts, n: number): number {
  const { bothPassed, onlyCurrentPassed, onlyBaselinePassed, bothFailed } = counts
  const margins =
    (bothPassed + onlyCurrentPassed) *
    (onlyBaselinePassed + bothFailed) *
    (bothPassed + onlyBaselinePassed) *
    (onlyCurrentPassed + bothFailed)
  if (margins === 0) return 0
  const association = bothPassed * bothFailed - onlyCurrentPassed * onlyBaselinePassed
  const corrected = association > n / 2 ? association - n / 2 : association >= 0 ? 0 : association
  return corrected / Math.sqrt(margins)
}
