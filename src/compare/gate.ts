/**
 * The gate: every configured limit that the comparison exceeds becomes one
 * value naming the limit, the measured figure and the cases behind it
 * (report/words.ts says them).
 */
import type { GateConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'
import { roseFromZero } from './metrics.js'
import { pairedDifferenceCI } from './stats.js'
import type { Comparison, GateFailure, GateResult, LargestRises, MetricChange, MetricFailure, MetricKind, MetricLimit, UncheckedLimit } from './types.js'

/**
 * Rates are ratios of counts and deltas are differences of floats
 * (0.92 − 0.84 = 0.08000000000000007): a value exactly at its limit must pass.
 */
const TOLERANCE = 1e-9

type Check = (c: Omit<Comparison, 'gate'>, gate: GateConfig, current: RunRecord) => GateFailure | null

export function evaluateGate(c: Omit<Comparison, 'gate'>, gate: GateConfig, current: RunRecord): GateResult {
  // The floors are of the whole run: one shard's pass rate says nothing about them (its slice may hold
  // every hard case); the merged record, which has no shard, is held to them.
  const floors: Check[] = current.config?.shard ? [] : [minPassRate, minMeanScore]
  // Without a baseline only the absolute floors (and the run's own completeness) can be judged.
  // A run cut short lacks cases because it stopped: minComparable is not also blamed for them.
  const coverage: Check[] = current.complete === false ? [removed, changed] : [removed, changed, comparable]
  const checks: Check[] = c.baseline
    ? [incomplete, regressions, ...coverage, passRateDrop, meanScoreDrop, costIncrease, tokensIncrease, latencyIncrease, ...floors]
    : [incomplete, missingBaseline, ...floors]
  const found = checks.map((check) => check(c, gate, current)).filter((f): f is GateFailure => f !== null)
  const unchecked = c.baseline ? uncheckedMetricLimits(c, gate) : []
  return { passed: found.length === 0, checks: found, ...(unchecked.length ? { unchecked } : {}) }
}

/** The relative limits on the compared metrics: the figure each holds, and its kind. */
const METRIC_LIMITS = {
  maxCostIncrease: { metric: 'cost', kind: 'cost' },
  maxTokensIncrease: { metric: 'tokens', kind: 'tokens' },
  maxLatencyIncrease: { metric: 'latencyP95', kind: 'latency' }
} as const satisfies Record<MetricLimit, { metric: 'cost' | 'tokens' | 'latencyP95'; kind: MetricKind }>

/**
 * The metric limits set that had nothing to hold: no compared case has the
 * figure in both runs (and none lost it, which fails). Not a failure — the
 * first run that reports usage has a baseline without it — but said, since a
 * limit that silently checks nothing reads as one that passed.
 */
function uncheckedMetricLimits(c: Omit<Comparison, 'gate'>, gate: GateConfig): UncheckedLimit[] {
  return (Object.keys(METRIC_LIMITS) as MetricLimit[]).flatMap((check) => {
    const { metric, kind } = METRIC_LIMITS[check]
    const limit = gate[check]
    if (limit === undefined || c.metrics?.[metric] || c.unreported?.some((u) => u.metric === kind)) return []
    return [{ check, limit, metric: kind }]
  })
}

/** `a` is more than `limit`, beyond rounding noise. */
function exceeds(a: number, limit: number): boolean {
  return a > limit + TOLERANCE
}

const incomplete: Check = (_c, _gate, current) => {
  if (current.complete !== false) return null
  // Records before `planned` counted only the finished cases.
  const planned = current.planned ?? current.summary.total
  const budget = current.stopReason === 'budget' && current.budget ? { spentUsd: current.budget.spentUsd, maxCostUsd: current.budget.maxCostUsd } : null
  return { check: 'incomplete', limit: planned, measured: current.cases.length, keys: [], budget }
}

/** Cases named with their rise: the few that explain it, not a list to read through. */
const RISES_NAMED = 3

function largestRises(m: MetricChange): LargestRises | null {
  const keys = m.rose.slice(0, RISES_NAMED)
  return keys.length ? { keys, by: m.roseBy.slice(0, RISES_NAMED), total: m.rises } : null
}

/**
 * A relative increase limit (maxCostIncrease, maxTokensIncrease,
 * maxLatencyIncrease on p95). With useConfidenceBound, applied to the
 * optimistic end of the interval: the smallest increase the data supports.
 */
function increaseCheck(check: MetricLimit): Check {
  const { metric, kind } = METRIC_LIMITS[check]
  return (c, gate) => {
    const limit = gate[check]
    if (limit === undefined) return null
    const lost = c.unreported?.find((u) => u.metric === kind)
    const base = { check, limit, metric: kind, unbounded: false } as const
    // compared cases that stopped reporting the figure would leave the comparison unseen (all of them: the limit with them)
    if (lost)
      return {
        ...base,
        how: 'unreported',
        measured: null,
        keys: lost.keys,
        baseline: null,
        current: null,
        cases: lost.cases,
        rises: null
      } satisfies MetricFailure
    const m: MetricChange | undefined = c.metrics?.[metric]
    if (!m) return null
    const rises = largestRises(m)
    const figures = { baseline: m.baseline, current: m.current, cases: m.cases, rises, keys: rises?.keys ?? [] }
    if (m.change === null) {
      // no relative change from a baseline of zero (a free model, an agent reporting 0); a rise from it is above
      // any relative limit, and passing it would let a pull request go from free to paid unseen
      return roseFromZero(m) ? { ...base, ...figures, how: 'fromZero', measured: null } : null
    }
    // with too few cases for an interval the limit applies to the change itself, as for the mean score:
    // a bound that is not there must not let every rise through
    if (gate.useConfidenceBound && m.ci) {
      const least = m.ci[0]
      return exceeds(least, limit) ? { ...base, ...figures, how: 'bound', measured: least } : null
    }
    if (!exceeds(m.change, limit)) return null
    return { ...base, ...figures, how: 'rise', measured: m.change, unbounded: gate.useConfidenceBound }
  }
}

const costIncrease = increaseCheck('maxCostIncrease')
const tokensIncrease = increaseCheck('maxTokensIncrease')
const latencyIncrease = increaseCheck('maxLatencyIncrease')

const missingBaseline: Check = (_c, gate) => (gate.failOnMissingBaseline ? { check: 'failOnMissingBaseline', limit: null, measured: null, keys: [] } : null)

/** A limit on how many cases one of the comparison's lists may hold; an unset limit is no limit. */
function countCheck(check: 'maxRegressions' | 'maxRemoved' | 'maxChanged', list: 'regressed' | 'removed' | 'changed'): Check {
  return (c, gate) => {
    const limit = gate[check]
    const keys = c[list]
    if (limit === undefined || keys.length <= limit) return null
    // a regression found by running a changed case as the baseline ran it says so
    const changed = check === 'maxRegressions' ? (c.changedRegressed ?? []) : []
    return { check, limit, measured: keys.length, keys, ...(changed.length ? { changedInPr: changed } : {}) }
  }
}

const regressions = countCheck('maxRegressions', 'regressed')
const removed = countCheck('maxRemoved', 'removed')
const changed = countCheck('maxChanged', 'changed')

/** Too few cases compared says nothing about the target: renaming or editing the failing cases must not pass the gate. */
const comparable: Check = (c, gate) => {
  const coverage = c.coverage
  if (!coverage || coverage.baseline === 0) return null
  const share = coverage.compared / coverage.baseline
  if (!exceeds(gate.minComparable, share)) return null
  return { check: 'minComparable', limit: gate.minComparable, measured: share, keys: [], compared: coverage.compared, baseline: coverage.baseline }
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
  const flaky = new Set(c.flaky)
  const figures = {
    check: 'maxPassRateDrop',
    limit,
    keys: common.newlyFailing.filter((key) => !flaky.has(key)),
    cases: common.total,
    baselineRate: common.baselinePassRate,
    currentRate: common.gatedCurrentPassRate,
    flakyFlips: common.flakyFlips
  } as const
  // with so few cases that even every passing case failing would leave the bound within the limit, a bound
  // could never fail the gate: the limit applies to the drop itself, as a test too small to decide does
  const boundCanFail = gate.useConfidenceBound && boundCanExceed(common, limit)
  if (boundCanFail) {
    // The optimistic end of the interval: the smallest drop the data supports. The gate fails only when even
    // that exceeds the limit, so noise alone cannot fail it (the point estimate would at every bad draw).
    const least = c.gatedPassRateDeltaCI ? -c.gatedPassRateDeltaCI[1] : null
    return least !== null && exceeds(least, limit) ? { ...figures, measured: least, bound: true } : null
  }
  const drop = -common.gatedPassRateDelta
  if (!exceeds(drop, limit)) return null
  return { ...figures, measured: drop, bound: false, ...(gate.useConfidenceBound ? { unbounded: true } : {}) }
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
  const figures = {
    check: 'maxMeanScoreDrop',
    limit,
    keys: common.scoredLower,
    baselineScore: common.baselineMeanScore!,
    currentScore: common.currentMeanScore!
  } as const
  // With a single case scored in both runs there is no interval: the limit applies to the drop itself.
  if (gate.useConfidenceBound && c.meanScoreDeltaCI) {
    const least = -c.meanScoreDeltaCI[1]
    return exceeds(least, limit) ? { ...figures, measured: least, bound: true } : null
  }
  const drop = -common.meanScoreDelta
  return exceeds(drop, limit) ? { ...figures, measured: drop, bound: false } : null
}

const minPassRate: Check = (c, gate, current) => {
  const rate = c.current.passRate
  if (!exceeds(gate.minPassRate, rate)) return null
  const notGraded = new Set(c.notGraded)
  const failing = current.cases.filter((k) => !k.passed && !notGraded.has(k.id)).map((k) => k.id)
  const flaky = new Set(c.flaky)
  return {
    check: 'minPassRate',
    limit: gate.minPassRate,
    measured: rate,
    keys: failing,
    passed: c.current.passed,
    total: c.current.total,
    // a floor of this run: a flaky case that failed is a failed case here (it only does not count as a drop)
    flakyFailing: failing.filter((key) => flaky.has(key)).length
  }
}

const minMeanScore: Check = (c, gate, current) => {
  const floor = gate.minMeanScore
  const score = c.current.meanScore
  if (floor === 0) return null
  // A floor that nothing can be measured against is a misconfiguration, not a pass.
  if (score === null) return { check: 'minMeanScore', limit: floor, measured: null, keys: [] }
  if (!exceeds(floor, score)) return null
  const below = current.cases
    .filter((k): k is typeof k & { score: number } => k.score !== null && k.score < floor)
    .sort((a, b) => a.score - b.score)
    .map((k) => k.id)
  return { check: 'minMeanScore', limit: floor, measured: score, keys: below }
}
