/**
 * What the gate could have caught at a run's counts: a
 * green check on 6 cases × 1 trial is not the same promise as on 500 × 5.
 * Pure and exact — binomial sums over the same decisions the comparison makes
 * (flip-test.ts, the runner's fold, rerunFlips, the gate's pass-rate check),
 * solved for the drop that is caught 80% of the time:
 * - `caseDrop`: a case that passed every trial on the baseline now fails each
 *   trial with probability d; the smallest d at which it is counted as
 *   regressed with probability 0.8;
 * - `passRateDrop` (with `gate.maxPassRateDrop`): each compared case that
 *   passed on the baseline breaks with probability q; the smallest drop of the
 *   pass rate (q × the baseline's passing share) that trips the limit with
 *   probability 0.8.
 * The tests check both against seeded simulations of the real comparison.
 */
import type { GateConfig } from '../config/schema.js'
import { flipTest } from './flip-test.js'
import { logFactorial, pairedDifferenceCI } from './stats.js'

/** The probability of catching that the stated drops are solved for. */
export const DETECTION = 0.8

/** Fewer compared cases than this, or a pass-rate drop seen only above COARSE_PASS_RATE_DROP, and the report says the promise is weak. */
export const COARSE_CASES = 20
export const COARSE_PASS_RATE_DROP = 0.2

/** Rates are ratios of counts: a drop exactly at the limit passes (as compare/gate.ts has it). */
const GATE_TOLERANCE = 1e-9

export interface SensitivityInput {
  /** compared cases (same key and fingerprint); without a baseline, the run's cases */
  cases: number
  /** of those, the ones that passed on the baseline (without one: in this run) */
  baselinePassed: number
  /** trials per case on each side (a record's `config.repeat`) */
  trials: { baseline: number; current: number }
  repeatPassThreshold: number
  /** extra trials for a case that flipped (rerunFlips); 0 without */
  rerunFlips: number
  gate: Pick<GateConfig, 'alpha' | 'maxPassRateDrop' | 'useConfidenceBound'>
}

export interface Sensitivity {
  /** the probability of catching the drops are stated at (0.8) */
  detection: number
  cases: number
  trials: { baseline: number; current: number }
  alpha: number
  /** smallest drop in a case's per-trial pass probability (from always passing) counted as a regression 80% of the time; null: not even a case that always fails is */
  caseDrop: number | null
  /** with gate.maxPassRateDrop: the smallest pass-rate drop that trips it 80% of the time (null: none can); absent without the limit */
  passRateDrop?: { limit: number; drop: number | null; useConfidenceBound: boolean }
  /** too few cases, or a pass-rate limit that only a large drop trips: the check promises little */
  coarse: boolean
}

function logBinomialPmf(k: number, n: number, p: number): number {
  if (p <= 0) return k === 0 ? 0 : -Infinity
  if (p >= 1) return k === n ? 0 : -Infinity
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k) + k * Math.log(p) + (n - k) * Math.log(1 - p)
}

/** The pmf of Binomial(n, p) as an array. */
function binomial(n: number, p: number): number[] {
  return Array.from({ length: n + 1 }, (_, k) => Math.exp(logBinomialPmf(k, n, p)))
}

/** The runner's fold: a case of one trial is that trial; else its pass fraction against the threshold. */
function aggregatePasses(passed: number, total: number, threshold: number): boolean {
  return total === 1 ? passed === 1 : passed / total >= threshold
}

/** Is a case that passed all `baselineTrials` trials, and now passed `passed` of `total` (all failing on aggregate), counted as regressed? */
function counted(baselineTrials: number, passed: number, total: number, alpha: number): boolean {
  // with a single trial on either side no test is made: every flip counts (compare.ts assess)
  if (baselineTrials < 2 || total < 2) return true
  return flipTest({ passed: baselineTrials, total: baselineTrials }, { passed, total }, alpha).counts
}

/** The probability that a case that always passed on the baseline, now failing each trial with probability `drop`, is counted as regressed. */
export function caseDetection(drop: number, input: SensitivityInput): number {
  const { trials, repeatPassThreshold: threshold, rerunFlips: reruns, gate } = input
  const pass = 1 - drop
  const first = binomial(trials.current, pass)
  const extra = reruns > 0 ? binomial(reruns, pass) : [1]
  let caught = 0
  first.forEach((px, x) => {
    if (px === 0 || aggregatePasses(x, trials.current, threshold)) return
    extra.forEach((py, y) => {
      const passed = x + y
      const total = trials.current + reruns
      // re-runs that take the flip back leave it flaky; else the verdict is taken over every trial
      if (reruns > 0 && aggregatePasses(passed, total, threshold)) return
      if (counted(trials.baseline, passed, total, gate.alpha)) caught += px * py
    })
  })
  return caught
}

/** The smallest x in [lo, hi] at which `f` (increasing) reaches `target`, by bisection; null when even `f(hi)` does not. */
function solve(f: (x: number) => number, target: number, lo = 0, hi = 1): number | null {
  if (f(hi) < target) return null
  if (f(lo) >= target) return lo
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2
    if (f(mid) >= target) hi = mid
    else lo = mid
  }
  return hi
}

/** Does a run where `broken` of the baseline's passing cases now fail trip maxPassRateDrop (as compare/gate.ts applies it)? */
function tripsPassRate(broken: number, input: SensitivityInput, limit: number): boolean {
  const { cases: n, baselinePassed: passed, gate } = input
  if (gate.useConfidenceBound) {
    const ci = pairedDifferenceCI({ bothPassed: passed - broken, onlyCurrentPassed: 0, onlyBaselinePassed: broken, bothFailed: n - passed })
    return ci !== null && -ci[1] > limit + GATE_TOLERANCE
  }
  return broken / n > limit + GATE_TOLERANCE
}

/** P(Binomial(n, q) ≥ k); past the mode the terms only fall, and once they stop counting the sum stops (100,000 cases). */
function upperTail(k: number, n: number, q: number): number {
  let sum = 0
  for (let x = k; x <= n; x++) {
    const term = Math.exp(logBinomialPmf(x, n, q))
    sum += term
    if (x > n * q && term < sum * 1e-15) break
  }
  return Math.min(1, sum)
}

/** The smallest pass-rate drop that trips `limit` with probability DETECTION, or null when even every passing case breaking does not. */
export function passRateSensitivity(input: SensitivityInput, limit: number): number | null {
  const { cases: n, baselinePassed: passed } = input
  if (n === 0 || passed === 0) return null
  // tripping is monotone in the number broken: the least that trips, by binary search
  if (!tripsPassRate(passed, input, limit)) return null
  let lo = 0
  let hi = passed
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2)
    if (tripsPassRate(mid, input, limit)) hi = mid
    else lo = mid + 1
  }
  const q = solve((q) => upperTail(lo, passed, q), DETECTION)
  return q === null ? null : (q * passed) / n
}

export function sensitivity(input: SensitivityInput): Sensitivity | null {
  if (input.cases === 0) return null
  const caseDrop = solve((d) => caseDetection(d, input), DETECTION)
  const limit = input.gate.maxPassRateDrop
  const passRate = limit === undefined ? undefined : { limit, drop: passRateSensitivity(input, limit), useConfidenceBound: input.gate.useConfidenceBound }
  const coarse =
    input.cases < COARSE_CASES || caseDrop === null || (passRate !== undefined && (passRate.drop === null || passRate.drop > COARSE_PASS_RATE_DROP))
  return {
    detection: DETECTION,
    cases: input.cases,
    trials: input.trials,
    alpha: input.gate.alpha,
    caseDrop,
    ...(passRate ? { passRateDrop: passRate } : {}),
    coarse
  }
}
