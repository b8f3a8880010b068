/**
 * The statistics of a comparison: a one-sided Fisher exact test for flips of
 * repeated cases, and paired confidence intervals for the pass-rate delta
 * (Newcombe) and the mean-score delta (Student's t).
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
  const margins = (bothPassed + onlyCurrentPassed) * (onlyBaselinePassed + bothFailed) * (bothPassed + onlyBaselinePassed) * (onlyCurrentPassed + bothFailed)
  if (margins === 0) return 0
  const association = bothPassed * bothFailed - onlyCurrentPassed * onlyBaselinePassed
  const corrected = association > n / 2 ? association - n / 2 : association >= 0 ? 0 : association
  return corrected / Math.sqrt(margins)
}

/** Above this many degrees of freedom the t quantile comes from its expansion around the normal one. */
const T_SERIES_MAX_DF = 1_000

/**
 * P(|T| ≤ t) for Student's t with an integer number of degrees of freedom: the
 * finite trigonometric series of Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4
 * (even df), with θ = atan(t / √df). Exact up to rounding.
 */
export function tCentralProbability(t: number, df: number): number {
  const theta = Math.atan(Math.abs(t) / Math.sqrt(df))
  const cos2 = Math.cos(theta) ** 2
  let term = 1
  let sum = 1
  if (df % 2 === 1) {
    if (df === 1) return (2 / Math.PI) * theta
    // θ + sinθ·cosθ·(1 + (2/3)cos²θ + (2·4)/(3·5)cos⁴θ + …), up to cos^(df−2)θ in all
    for (let k = 1; k <= (df - 3) / 2; k++) {
      term *= ((2 * k) / (2 * k + 1)) * cos2
      sum += term
    }
    return Math.min(1, (2 / Math.PI) * (theta + Math.sin(theta) * Math.cos(theta) * sum))
  }
  // sinθ·(1 + (1/2)cos²θ + (1·3)/(2·4)cos⁴θ + …), up to cos^(df−2)θ
  for (let k = 1; k <= (df - 2) / 2; k++) {
    term *= ((2 * k - 1) / (2 * k)) * cos2
    sum += term
  }
  return Math.min(1, Math.sin(theta) * sum)
}

/**
 * The two-sided critical value of Student's t: the t with P(|T| ≤ t) = level
 * (level 0.95 gives the 0.975 quantile, 12.706 for 1 degree of freedom).
 * Bisection on the exact series; beyond 1,000 degrees of freedom the
 * Cornish–Fisher expansion around the normal quantile, whose error there is
 * below 1e-9.
 */
export function tCritical(df: number, level = 0.95): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`degrees of freedom must be a positive integer, got ${df}`)
  if (df > T_SERIES_MAX_DF) {
    const z = normalQuantile(0.5 + level / 2)
    const z3 = z ** 3
    const z5 = z ** 5
    const z7 = z ** 7
    return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
  }
  let low = 0
  let high = 2
  while (tCentralProbability(high, df) < level) high *= 2
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2
    if (tCentralProbability(mid, df) < level) low = mid
    else high = mid
  }
  return (low + high) / 2
}

/**
 * The standard normal quantile, by bisection on Φ: only called once per
 * comparison, for the t expansion at many degrees of freedom.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a probability strictly between 0 and 1 is needed, got ${p}`)
  let low = -40
  let high = 40
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2
    if (normalCdf(mid) < p) low = mid
    else high = mid
  }
  return (low + high) / 2
}

/** Φ(x), the standard normal distribution function. */
function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2)
}

/**
 * erfc(x) by its continued fraction for large |x| and its Taylor series for
 * small |x|: both converge fast in their range and need no tables.
 */
function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x)
  if (x < 2.5) {
    // erf(x) = 2/√π · Σ (−1)ⁿ x^(2n+1) / (n! (2n+1))
    let sum = 0
    let power = x
    for (let n = 0; n < 100; n++) {
      const term = power / (factorial(n) * (2 * n + 1))
      sum += n % 2 === 0 ? term : -term
      if (Math.abs(term) < 1e-17) break
      power *= x * x
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum
  }
  // erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), evaluated from the tail
  let fraction = x
  for (let n = 60; n >= 1; n--) fraction = x + n / 2 / fraction
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / fraction
}

function factorial(n: number): number {
  return Math.exp(logFactorial(n))
}

/**
 * A confidence interval for the mean of paired differences (current − baseline
 * score of each case scored in both runs): the t interval
 * mean ± t(n−1) · sd / √n, cut to [−1, 1] since scores lie in [0, 1]. Null
 * with fewer than two differences, where no spread can be measured.
 */
export function pairedMeanCI(differences: readonly number[], level = 0.95): [number, number] | null {
  const n = differences.length
  if (n < 2) return null
  const mean = differences.reduce((a, b) => a + b, 0) / n
  const variance = differences.reduce((a, d) => a + (d - mean) ** 2, 0) / (n - 1)
  const half = tCritical(n - 1, level) * Math.sqrt(variance / n)
  return [Math.max(-1, mean - half), Math.min(1, mean + half)]
}

/**
 * A statistic of one run's values over the compared cases, as-is (`point`) and
 * over a bootstrap resample given as counts per case (`weighted`; `order`
 * lists the cases by ascending value, for order statistics: `ordered`).
 */
export interface PairedStatistic {
  /** `order` when the caller has it already (ordered statistics) */
  point(values: readonly number[], order?: Uint32Array): number
  weighted(values: readonly number[], counts: Uint32Array, order: Uint32Array): number
  /** whether `weighted` reads `order`; when false the cases are not sorted for it */
  ordered?: boolean
}

/** The cases' indexes by ascending value. */
export function ascendingOrder(values: readonly number[]): Uint32Array {
  // an Array's sort, then copied: a typed array's sort with a comparator took 2–3 times as long on runs of equal values
  return Uint32Array.from(Array.from(values.keys()).sort((i, j) => values[i]! - values[j]!))
}

/**
 * The p-quantile by nearest rank: the smallest value whose cumulative count
 * reaches ⌈p·n⌉. With `counts` and `order`, of the resample those counts
 * describe (`total`: their sum, when the caller knows it); without, of
 * `sorted` itself (already in ascending order).
 */
export function quantileOfSorted(values: readonly number[], p: number, counts?: Uint32Array, order?: Uint32Array, total?: number): number {
  if (!counts || !order) return values[Math.max(0, Math.ceil(p * values.length) - 1)]!
  let n = total ?? 0
  if (total === undefined) for (let i = 0; i < counts.length; i++) n += counts[i]!
  const rank = Math.max(1, Math.ceil(p * n))
  if (rank <= n / 2) {
    let seen = 0
    for (let k = 0; k < order.length; k++) {
      seen += counts[order[k]!]!
      if (seen >= rank) return values[order[k]!]!
    }
    return values[order[order.length - 1]!]!
  }
  // a high quantile is found from the top, the shorter walk: the same case, where the cumulative count
  // below it is short of the rank and with it reaches the rank
  let above = 0
  for (let k = order.length - 1; k > 0; k--) {
    const count = counts[order[k]!]!
    if (n - above - count < rank) return values[order[k]!]!
    above += count
  }
  return values[order[0]!]!
}

/** A small seeded generator (mulberry32): the same comparison gives the same interval on every machine. */
export function seededUniform(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Resamples × cases drawn at most: at 100,000 cases the interval costs ~200 resamples, not 1,000. */
const BOOTSTRAP_DRAWS = 20_000_000
const BOOTSTRAP_RESAMPLES = 1_000
const MIN_BOOTSTRAP_RESAMPLES = 200

/** How many resamples the bootstrap takes of n cases by default: 1,000, fewer over many cases (20 million draws at most), never under 200. */
export function bootstrapResamples(n: number): number {
  return Math.max(MIN_BOOTSTRAP_RESAMPLES, Math.min(BOOTSTRAP_RESAMPLES, Math.floor(BOOTSTRAP_DRAWS / n)))
}

/**
 * A paired percentile-bootstrap 95% interval of statistic(current) /
 * statistic(baseline) − 1: cases are resampled with replacement, each
 * resample taking a case's values from both runs together, so what the runs
 * share (hard cases are slow and dear in both) cancels out. Seeded: the same
 * inputs always give the same interval. Null when a resampled baseline
 * statistic is 0 too often to say anything (more than 2.5% of resamples).
 */
export function pairedBootstrap(
  baseline: readonly number[],
  current: readonly number[],
  statistic: PairedStatistic,
  options: BootstrapOptions = {}
): [number, number] | null {
  return pairedBootstraps(baseline, current, [statistic], options)[0]!
}

export interface BootstrapOptions {
  seed?: number
  resamples?: number
  level?: number
  /** each run's ascending order, when the caller has it */
  orders?: { baseline: Uint32Array; current: Uint32Array }
}

/** pairedBootstrap of several statistics of the same values over the same resamples (p50 and p95 latency): the draws are made once. */
export function pairedBootstraps(
  baseline: readonly number[],
  current: readonly number[],
  statistics: readonly PairedStatistic[],
  options: BootstrapOptions = {}
): ([number, number] | null)[] {
  const n = baseline.length
  const resamples = options.resamples ?? bootstrapResamples(n)
  const level = options.level ?? 0.95
  const seed = (options.seed ?? 1) * 0x9e3779b1 + n
  const needsOrder = statistics.some((s) => s.ordered ?? true)
  const none = new Uint32Array(0)
  const baselineOrder = options.orders?.baseline ?? (needsOrder ? ascendingOrder(baseline) : none)
  const currentOrder = options.orders?.current ?? (needsOrder ? ascendingOrder(current) : none)
  const counts = new Uint32Array(n)
  const changes: number[][] = statistics.map(() => [])
  const undefinedRatios = statistics.map(() => 0)
  // seededUniform's sequence, written out here: at 100,000 cases these are 20 million draws, and a
  // closure call per draw took twice as long as the arithmetic
  let a = seed >>> 0
  for (let r = 0; r < resamples; r++) {
    counts.fill(0)
    for (let k = 0; k < n; k++) {
      a = (a + 0x6d2b79f5) >>> 0
      let t = a
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      counts[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)]!++
    }
    statistics.forEach((statistic, s) => {
      const before = statistic.weighted(baseline, counts, baselineOrder)
      if (before <= 0) undefinedRatios[s]!++
      else changes[s]!.push(statistic.weighted(current, counts, currentOrder) / before - 1)
    })
  }
  const tail = (1 - level) / 2
  return changes.map((found, s) => {
    if (undefinedRatios[s]! > tail * resamples) return null
    found.sort((a, b) => a - b)
    // the excluded resamples sit beyond the top: a ratio over a zero baseline is unboundedly large
    const at = (q: number) => found[Math.min(found.length - 1, Math.max(0, Math.floor(q * resamples)))]!
    return [at(tail), at(1 - tail)]
  })
}
