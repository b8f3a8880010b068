/**
 * The gate (SPEC §4): every configured limit that the comparison exceeds
 * becomes one sentence naming the limit, the measured value and the cases behind it.
 */
import type { GateConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'
import { formatKeys, formatPercent, formatPoints, formatScore, plural } from './format.js'
import type { Comparison, GateFailure, GateResult } from './types.js'

/**
 * Rates are ratios of counts and deltas are differences of floats
 * (0.92 − 0.84 = 0.08000000000000007): a value exactly at its limit must pass.
 */
const TOLERANCE = 1e-9

type Check = (c: Omit<Comparison, 'gate'>, gate: GateConfig, current: RunRecord) => GateFailure | null

function failure(check: string, limit: number | null, measured: number | null, keys: string[], sentence: string): GateFailure {
  return { check, limit, measured, keys, sentence }
}

export function evaluateGate(c: Omit<Comparison, 'gate'>, gate: GateConfig, current: RunRecord): GateResult {
  // Without a baseline only the absolute floors (and the run's own completeness) can be judged.
  const checks: Check[] = c.baseline
    ? [incomplete, regressions, removed, changed, comparable, passRateDrop, meanScoreDrop, minPassRate, minMeanScore]
    : [incomplete, missingBaseline, minPassRate, minMeanScore]
  const found = checks.map((check) => check(c, gate, current)).filter((f): f is GateFailure => f !== null)
  return { passed: found.length === 0, failures: found.map((f) => f.sentence), checks: found }
}

/** `a` is more than `limit`, beyond rounding noise. */
function exceeds(a: number, limit: number): boolean {
  return a > limit + TOLERANCE
}

const incomplete: Check = (_c, _gate, current) => {
  if (current.complete !== false) return null
  const finished = current.cases.length
  // The record counts only finished cases unless the runner also recorded how many were planned.
  const planned = current.summary.total
  const sentence =
    planned > finished
      ? `the run is incomplete: ${finished} of ${plural(planned, 'case')} finished`
      : `the run is incomplete: it stopped after ${plural(finished, 'case')} finished`
  return failure('incomplete', planned, finished, [], sentence)
}

const missingBaseline: Check = (_c, gate) =>
  gate.failOnMissingBaseline ? failure('failOnMissingBaseline', null, null, [], 'no baseline run to compare against (failOnMissingBaseline is true)') : null

const regressions: Check = (c, gate) => {
  const n = c.regressed.length
  if (n <= gate.maxRegressions) return null
  return failure('maxRegressions', gate.maxRegressions, n, c.regressed, `${plural(n, 'case')} regressed (limit: maxRegressions ${gate.maxRegressions}): ${formatKeys(c.regressed)}`)
}

const removed: Check = (c, gate) => {
  const n = c.removed.length
  if (n <= gate.maxRemoved) return null
  return failure('maxRemoved', gate.maxRemoved, n, c.removed, `${plural(n, 'baseline case')} ${n === 1 ? 'is' : 'are'} missing from this run (limit: maxRemoved ${gate.maxRemoved}): ${formatKeys(c.removed)}`)
}

const changed: Check = (c, gate) => {
  const n = c.changed.length
  if (gate.maxChanged === undefined || n <= gate.maxChanged) return null
  return failure('maxChanged', gate.maxChanged, n, c.changed, `${plural(n, 'case')} changed (input, assertions or judge settings differ from the baseline's; limit: maxChanged ${gate.maxChanged}): ${formatKeys(c.changed)}`)
}

/** Too few cases compared says nothing about the target: renaming or editing the failing cases must not pass the gate. */
const comparable: Check = (c, gate) => {
  const coverage = c.coverage
  if (!coverage || coverage.baseline === 0) return null
  const share = coverage.compared / coverage.baseline
  if (!exceeds(gate.minComparable, share)) return null
  return failure(
    'minComparable',
    gate.minComparable,
    share,
    [],
    `only ${coverage.compared} of ${plural(coverage.baseline, 'baseline case')} could be compared (${formatPercent(share)}; limit: minComparable ${formatPercent(gate.minComparable)}): ` +
      `the others are removed or changed, so the baseline says little about this run`
  )
}

const passRateDrop: Check = (c, gate) => {
  const limit = gate.maxPassRateDrop
  const common = c.common
  if (limit === undefined || !common) return null
  const rates = `${formatPercent(common.baselinePassRate)} → ${formatPercent(common.currentPassRate)}`
  const where = `on the ${plural(common.total, 'case')} in both runs with the same fingerprint`
  const cases = common.newlyFailing.length ? `; passed before, fail now: ${formatKeys(common.newlyFailing)}` : ''
  const limitText = `maxPassRateDrop ${formatPoints(limit)} points`
  if (gate.useConfidenceBound) {
    // The optimistic end of the interval: the smallest drop the data supports. The gate fails only when even
    // that exceeds the limit, so noise alone cannot fail it (the point estimate would at every bad draw).
    const least = c.passRateDeltaCI ? -c.passRateDeltaCI[1] : null
    if (least === null || !exceeds(least, limit)) return null
    return failure(
      'maxPassRateDrop',
      limit,
      least,
      common.newlyFailing,
      `pass rate dropped by at least ${formatPoints(least)} points ${where}, ${rates} ` +
        `(the optimistic end of its 95% confidence interval; limit: ${limitText}, applied to that bound)${cases}`
    )
  }
  const drop = -common.passRateDelta
  if (!exceeds(drop, limit)) return null
  return failure('maxPassRateDrop', limit, drop, common.newlyFailing, `pass rate dropped ${formatPoints(drop)} points ${where}, ${rates} (limit: ${limitText})${cases}`)
}

const meanScoreDrop: Check = (c, gate) => {
  const limit = gate.maxMeanScoreDrop
  const common = c.common
  if (limit === undefined || !common || common.meanScoreDelta === null) return null
  const scores = `${formatScore(common.baselineMeanScore!)} → ${formatScore(common.currentMeanScore!)}`
  const cases = common.scoredLower.length ? `; scored lower: ${formatKeys(common.scoredLower)}` : ''
  const where = 'on the cases scored in both runs with the same fingerprint'
  const limitText = `maxMeanScoreDrop ${formatScore(limit)}`
  // With a single case scored in both runs there is no interval: the limit applies to the drop itself.
  if (gate.useConfidenceBound && c.meanScoreDeltaCI) {
    const least = -c.meanScoreDeltaCI[1]
    if (!exceeds(least, limit)) return null
    return failure(
      'maxMeanScoreDrop',
      limit,
      least,
      common.scoredLower,
      `mean judge score dropped by at least ${formatScore(least)} ${where}, ${scores} ` +
        `(the optimistic end of its 95% confidence interval; limit: ${limitText}, applied to that bound)${cases}`
    )
  }
  const drop = -common.meanScoreDelta
  if (!exceeds(drop, limit)) return null
  return failure('maxMeanScoreDrop', limit, drop, common.scoredLower, `mean judge score dropped ${formatScore(drop)} ${where}, ${scores} (limit: ${limitText})${cases}`)
}

const minPassRate: Check = (c, gate, current) => {
  const rate = c.current.passRate
  if (!exceeds(gate.minPassRate, rate)) return null
  const failing = current.cases.filter((k) => !k.passed).map((k) => k.id)
  return failure(
    'minPassRate',
    gate.minPassRate,
    rate,
    failing,
    `pass rate ${formatPercent(rate)} is below minPassRate ${formatPercent(gate.minPassRate)} ` +
      `(${c.current.passed} of ${plural(c.current.total, 'case')} passed)` +
      (failing.length ? `; failing: ${formatKeys(failing)}` : '')
  )
}

const minMeanScore: Check = (c, gate, current) => {
  const floor = gate.minMeanScore
  const score = c.current.meanScore
  if (floor === 0) return null
  // A floor that nothing can be measured against is a misconfiguration, not a pass.
  if (score === null) {
    return failure('minMeanScore', floor, null, [], `mean judge score is unavailable (no case has an llm-rubric score) but minMeanScore is ${formatScore(floor)}`)
  }
  if (!exceeds(floor, score)) return null
  const below = current.cases
    .filter((k): k is typeof k & { score: number } => k.score !== null && k.score < floor)
    .sort((a, b) => a.score - b.score)
    .map((k) => k.id)
  return failure('minMeanScore', floor, score, below, `mean judge score ${formatScore(score)} is below minMeanScore ${formatScore(floor)}` + (below.length ? `; scored below it: ${formatKeys(below)}` : ''))
}
