/**
 * The gate (SPEC §4): every configured limit that the comparison exceeds
 * becomes one sentence naming the limit, the measured value and the cases behind it.
 */
import type { GateConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'
import { formatCount, formatKeys, formatList, formatMetric, formatPercent, formatPoints, formatScore, formatUsd, plural } from './format.js'
import { roseFromZero } from './metrics.js'
import { pairedDifferenceCI } from './stats.js'
import type { Comparison, GateFailure, GateResult, MetricChange, UnreportedMetric } from './types.js'

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
  // The floors are of the whole run: one shard's pass rate says nothing about them (its slice may hold
  // every hard case); the merged record, which has no shard, is held to them.
  const floors: Check[] = current.config?.shard ? [] : [minPassRate, minMeanScore]
  // Without a baseline only the absolute floors (and the run's own completeness) can be judged.
  const checks: Check[] = c.baseline
    ? [incomplete, regressions, removed, changed, comparable, passRateDrop, meanScoreDrop, costIncrease, tokensIncrease, latencyIncrease, ...floors]
    : [incomplete, missingBaseline, ...floors]
  const found = checks.map((check) => check(c, gate, current)).filter((f): f is GateFailure => f !== null)
  const unchecked = c.baseline ? uncheckedMetricLimits(c, gate) : []
  return { passed: found.length === 0, failures: found.map((f) => f.sentence), checks: found, ...(unchecked.length ? { unchecked } : {}) }
}

/** The relative limits on the compared metrics: the figure each holds, and how its sentences name it. */
const METRIC_LIMITS = {
  maxCostIncrease: {
    metric: 'cost',
    kind: 'cost',
    label: 'total cost',
    what: 'a cost',
    why: 'the target reports no usage, or names a model missing from pricing, or the baseline was made before it did'
  },
  maxTokensIncrease: {
    metric: 'tokens',
    kind: 'tokens',
    label: 'total tokens',
    what: 'a token count',
    why: 'the target reports no usage, or the baseline was made before it did'
  },
  maxLatencyIncrease: {
    metric: 'latencyP95',
    kind: 'latency',
    label: 'p95 latency',
    what: 'a latency',
    why: 'the baseline was made by an evalgate that did not record latency'
  }
} as const
type MetricLimit = keyof typeof METRIC_LIMITS

/**
 * The metric limits set that had nothing to hold: no compared case has the
 * figure in both runs (and none lost it, which fails). Not a failure — the
 * first run that reports usage has a baseline without it — but said, since a
 * limit that silently checks nothing reads as one that passed.
 */
function uncheckedMetricLimits(c: Omit<Comparison, 'gate'>, gate: GateConfig): string[] {
  return (Object.keys(METRIC_LIMITS) as MetricLimit[]).flatMap((key) => {
    const { metric, kind, what, why } = METRIC_LIMITS[key]
    const limit = gate[key]
    if (limit === undefined || c.metrics?.[metric] || c.unreported?.some((u) => u.metric === kind)) return []
    return [`${key} ${formatPercent(limit)} was not checked: no compared case has ${what} in both runs (${why})`]
  })
}

/** `a` is more than `limit`, beyond rounding noise. */
function exceeds(a: number, limit: number): boolean {
  return a > limit + TOLERANCE
}

const incomplete: Check = (_c, _gate, current) => {
  if (current.complete !== false) return null
  const finished = current.cases.length
  // Records before `planned` counted only the finished cases.
  const planned = current.planned ?? current.summary.total
  const reached = planned > finished ? `${finished} of ${plural(planned, 'case')} finished` : `it stopped after ${plural(finished, 'case')} finished`
  const budget = current.stopReason === 'budget' && current.budget
  const sentence = budget
    ? `the run stopped at its budget: ${formatUsd(budget.spentUsd)} spent of budget.maxCostUsd ${formatUsd(budget.maxCostUsd)} (target plus judge); ${reached}, and a run cut short is never a pass`
    : `the run is incomplete: ${reached}`
  return failure('incomplete', planned, finished, [], sentence)
}

/**
 * A relative increase limit (maxCostIncrease, maxTokensIncrease,
 * maxLatencyIncrease on p95). With useConfidenceBound, applied to the
 * optimistic end of the interval: the smallest increase the data supports.
 */
function increaseCheck(key: MetricLimit): Check {
  const { metric, kind, label, what } = METRIC_LIMITS[key]
  return (c, gate) => {
    const limit = gate[key]
    if (limit === undefined) return null
    const lost = c.unreported?.find((u) => u.metric === kind)
    if (lost) return unreported(key, limit, what, lost)
    const m: MetricChange | undefined = c.metrics?.[metric]
    if (!m) return null
    const figures = `${formatMetric(kind, m.baseline)} → ${formatMetric(kind, m.current)}`
    const where = `on the ${plural(m.cases, 'case')} compared`
    const { sentence: cases, keys } = largestRises(m, kind)
    const limitText = `${key} ${formatPercent(limit)}`
    if (m.change === null) {
      // no relative change from a baseline of zero (a free model, an agent reporting 0); a rise from it is above
      // any relative limit, and passing it would let a pull request go from free to paid unseen
      if (!roseFromZero(m)) return null
      return failure(
        key,
        limit,
        null,
        keys,
        `${label} rose from ${formatMetric(kind, m.baseline)} to ${formatMetric(kind, m.current)} ${where}: a rise from zero is over any relative limit (limit: ${limitText})${cases}`
      )
    }
    // with too few cases for an interval the limit applies to the change itself, as for the mean score:
    // a bound that is not there must not let every rise through
    if (gate.useConfidenceBound && m.ci) {
      const least = m.ci[0]
      if (!exceeds(least, limit)) return null
      return failure(
        key,
        limit,
        least,
        keys,
        `${label} rose by at least ${formatPercent(least)} ${where}, ${figures} (the optimistic end of its 95% confidence interval; limit: ${limitText}, applied to that bound)${cases}`
      )
    }
    if (!exceeds(m.change, limit)) return null
    const unbounded = gate.useConfidenceBound ? `; no confidence interval (too few cases, or a baseline mostly at zero), so applied to the rise itself` : ''
    return failure(key, limit, m.change, keys, `${label} rose ${formatPercent(m.change)} ${where}, ${figures} (limit: ${limitText}${unbounded})${cases}`)
  }
}

/**
 * A limit on a metric that compared cases stopped reporting: those cases would leave the comparison
 * unseen (all of them: the limit with them), so it fails, saying what to look at.
 */
function unreported(key: string, limit: number, what: string, lost: UnreportedMetric): GateFailure {
  const where = `${plural(lost.cases, 'compared case')} had ${what} in the baseline and ${lost.cases === 1 ? 'has' : 'have'} none in this run (${formatKeys(lost.keys, RISES_NAMED, lost.cases)})`
  const hint = lost.metric === 'cost' ? 'does the target still report usage, and is every model it names in pricing?' : 'does the target still report usage?'
  return failure(key, limit, null, lost.keys, `${key} ${formatPercent(limit)} cannot be checked: ${where}; ${hint}`)
}

/** Cases named with their rise in a metric sentence: the few that explain it, not a list to read through. */
const RISES_NAMED = 3

/**
 * "; largest rises: greeting (+$0.0004), refund-late (+$0.0002) and kettle
 * (+$0.0001), of 7 cases that rose" — and the cases it names, the failure's keys.
 */
function largestRises(m: MetricChange, kind: 'cost' | 'tokens' | 'latency'): { sentence: string; keys: string[] } {
  const keys = m.rose.slice(0, RISES_NAMED)
  if (!keys.length) return { sentence: '', keys }
  const named = keys.map((key, i) => `${key} (+${formatMetric(kind, m.roseBy[i]!)})`)
  const of = m.rises > keys.length ? `, of ${formatCount(m.rises)} cases that rose` : ''
  return { sentence: `; largest ${keys.length === 1 ? 'rise' : 'rises'}: ${formatList(named)}${of}`, keys }
}

const costIncrease = increaseCheck('maxCostIncrease')
const tokensIncrease = increaseCheck('maxTokensIncrease')
const latencyIncrease = increaseCheck('maxLatencyIncrease')

const missingBaseline: Check = (_c, gate) =>
  gate.failOnMissingBaseline ? failure('failOnMissingBaseline', null, null, [], 'no baseline run to compare against (failOnMissingBaseline is true)') : null

/**
 * A limit on how many cases one of the comparison's lists may hold
 * (maxRegressions, maxRemoved, maxChanged); an unset limit is no limit. The
 * sentence: what happened, the limit (after `aside`, when given), the cases.
 */
function countCheck(
  key: 'maxRegressions' | 'maxRemoved' | 'maxChanged',
  list: 'regressed' | 'removed' | 'changed',
  what: (n: number) => string,
  aside?: string,
  tail: (c: Omit<Comparison, 'gate'>) => string = () => ''
): Check {
  return (c, gate) => {
    const limit = gate[key]
    const keys = c[list]
    if (limit === undefined || keys.length <= limit) return null
    const note = aside ? `${aside}; ` : ''
    return failure(key, limit, keys.length, keys, `${what(keys.length)} (${note}limit: ${key} ${limit}): ${formatKeys(keys)}${tail(c)}`)
  }
}

/** " (they changed in this pull request and fail as the baseline ran them)" (SPEC §9 Coverage) */
function asBaselineNote(c: Omit<Comparison, 'gate'>): string {
  const keys = c.changedRegressed ?? []
  if (!keys.length) return ''
  const one = keys.length === 1
  const who = keys.length === c.regressed.length ? (one ? 'it' : 'they') : formatKeys(keys)
  return ` (${who} changed in this pull request and ${one ? 'fails' : 'fail'} as the baseline ran ${one ? 'it' : 'them'})`
}

const regressions = countCheck('maxRegressions', 'regressed', (n) => `${plural(n, 'case')} regressed`, undefined, asBaselineNote)
const removed = countCheck('maxRemoved', 'removed', (n) => `${plural(n, 'baseline case')} ${n === 1 ? 'is' : 'are'} missing from this run`)
const changed = countCheck('maxChanged', 'changed', (n) => `${plural(n, 'case')} changed`, "input, assertions or judge settings differ from the baseline's")

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

/**
 * The drop of the pass rate on the common cases, flaky flips not counted: a
 * flip the trials, re-runs or history show to be within chance is not a drop
 * (it is listed as flaky). minPassRate, by contrast, is a floor of this run's
 * own pass rate, where a case that failed failed, flaky or not.
 */
const passRateDrop: Check = (c, gate) => {
  const limit = gate.maxPassRateDrop
  const common = c.common
  if (limit === undefined || !common) return null
  const rates = `${formatPercent(common.baselinePassRate)} → ${formatPercent(common.gatedCurrentPassRate)}`
  const flakyAside = common.flakyFlips ? `, ${plural(common.flakyFlips, 'flaky case')} counted as in the baseline` : ''
  const where = `on the ${plural(common.total, 'case')} in both runs with the same fingerprint${flakyAside}`
  const flaky = new Set(c.flaky)
  const failing = common.newlyFailing.filter((key) => !flaky.has(key))
  const cases = failing.length ? `; passed before, fail now: ${formatKeys(failing)}` : ''
  const limitText = `maxPassRateDrop ${formatPoints(limit)} points`
  // with so few cases that even every passing case failing would leave the bound within the limit, a bound
  // could never fail the gate: the limit applies to the drop itself, as a test too small to decide does (SPEC §4)
  const boundCanFail = gate.useConfidenceBound && boundCanExceed(common, limit)
  if (boundCanFail) {
    // The optimistic end of the interval: the smallest drop the data supports. The gate fails only when even
    // that exceeds the limit, so noise alone cannot fail it (the point estimate would at every bad draw).
    const least = c.gatedPassRateDeltaCI ? -c.gatedPassRateDeltaCI[1] : null
    if (least === null || !exceeds(least, limit)) return null
    return failure(
      'maxPassRateDrop',
      limit,
      least,
      failing,
      `pass rate dropped by at least ${formatPoints(least)} points ${where}, ${rates} ` +
        `(the optimistic end of its 95% confidence interval; limit: ${limitText}, applied to that bound)${cases}`
    )
  }
  const drop = -common.gatedPassRateDelta
  if (!exceeds(drop, limit)) return null
  const unbounded = gate.useConfidenceBound
    ? `; with ${plural(common.total, 'case')} no 95% confidence interval could exceed the limit, so applied to the drop itself`
    : ''
  return failure(
    'maxPassRateDrop',
    limit,
    drop,
    failing,
    `pass rate dropped ${formatPoints(drop)} points ${where}, ${rates} (limit: ${limitText}${unbounded})${cases}`
  )
}

/** Could the interval's optimistic end exceed `limit` at all: would it if every case that passed on the baseline failed now? */
function boundCanExceed(common: NonNullable<Comparison['common']>, limit: number): boolean {
  const passed = Math.round(common.baselinePassRate * common.total)
  const worst = pairedDifferenceCI({ bothPassed: 0, onlyCurrentPassed: 0, onlyBaselinePassed: passed, bothFailed: common.total - passed })
  return worst !== null && exceeds(-worst[1], limit)
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
  return failure(
    'maxMeanScoreDrop',
    limit,
    drop,
    common.scoredLower,
    `mean judge score dropped ${formatScore(drop)} ${where}, ${scores} (limit: ${limitText})${cases}`
  )
}

const minPassRate: Check = (c, gate, current) => {
  const rate = c.current.passRate
  if (!exceeds(gate.minPassRate, rate)) return null
  const failing = current.cases.filter((k) => !k.passed).map((k) => k.id)
  const flaky = new Set(c.flaky)
  const flakyFailing = failing.filter((key) => flaky.has(key)).length
  // a floor of this run: a flaky case that failed is a failed case here (it only does not count as a drop)
  const flakyNote = flakyFailing
    ? `; ${flakyFailing} of the failing cases ${flakyFailing === 1 ? 'is' : 'are'} flaky and count${flakyFailing === 1 ? 's' : ''} as failed: minPassRate is a floor of this run`
    : ''
  return failure(
    'minPassRate',
    gate.minPassRate,
    rate,
    failing,
    `pass rate ${formatPercent(rate)} is below minPassRate ${formatPercent(gate.minPassRate)} ` +
      `(${c.current.passed} of ${plural(c.current.total, 'case')} passed)` +
      (failing.length ? `; failing: ${formatKeys(failing)}` : '') +
      flakyNote
  )
}

const minMeanScore: Check = (c, gate, current) => {
  const floor = gate.minMeanScore
  const score = c.current.meanScore
  if (floor === 0) return null
  // A floor that nothing can be measured against is a misconfiguration, not a pass.
  if (score === null) {
    return failure(
      'minMeanScore',
      floor,
      null,
      [],
      `mean judge score is unavailable (no case has an llm-rubric score) but minMeanScore is ${formatScore(floor)}`
    )
  }
  if (!exceeds(floor, score)) return null
  const below = current.cases
    .filter((k): k is typeof k & { score: number } => k.score !== null && k.score < floor)
    .sort((a, b) => a.score - b.score)
    .map((k) => k.id)
  return failure(
    'minMeanScore',
    floor,
    score,
    below,
    `mean judge score ${formatScore(score)} is below minMeanScore ${formatScore(floor)}` + (below.length ? `; scored below it: ${formatKeys(below)}` : '')
  )
}
