import type { ConfigChange } from '../config/trusted.js'
import type { StaleBaseline } from './staleness.js'
import type { RunRecord } from '../types.js'
import type { Sensitivity } from './sensitivity.js'

/**
 * The comparison of a current run with its baseline.
 * Case lists hold case keys (CaseResult.id) in dataset order.
 */

/** The headline figures of one run; what it copies from the record is typed by the record. */
export interface RunFigures extends Pick<RunRecord, 'name' | 'createdAt' | 'complete'> {
  sha: RunRecord['git']['sha']
  /** graded cases in the record (for an incomplete run: those that finished; cases not graded are left out) */
  total: number
  passed: number
  /** passed / total, 0 when there are no cases */
  passRate: number
  /** mean of the non-null case scores, null when no case has one */
  meanScore: number | null
}

/**
 * Figures over the cases present in both runs with the same fingerprint: the
 * only cases whose change says something about the target rather than the dataset.
 */
export interface CommonFigures {
  total: number
  baselinePassRate: number
  currentPassRate: number
  passRateDelta: number
  /** means over the common cases scored in both runs; null when there are none */
  baselineMeanScore: number | null
  currentMeanScore: number | null
  meanScoreDelta: number | null
  /**
   * What maxPassRateDrop is applied to: the current pass rate with each flaky
   * case counted as it was in the baseline (a flip within chance is not a drop),
   * and its change. Equal to the plain figures when no case is flaky.
   */
  gatedCurrentPassRate: number
  gatedPassRateDelta: number
  /** flaky cases among them, the flips left out of the gated figures */
  flakyFlips: number
  /** passed in the baseline and fail now, significant or not (regressed and flaky ones) */
  newlyFailing: string[]
  /** scored lower than in the baseline, largest drop first */
  scoredLower: string[]
}

export interface TagFigures {
  tag: string
  /** null without a baseline or when no baseline case has the tag */
  baselinePassRate: number | null
  currentPassRate: number
  /** current cases with the tag */
  total: number
  /** regressed cases with the tag */
  regressed: number
}

export interface TrialCounts {
  passed: number
  total: number
}

/** Why a flip of a case was not counted as a regression (or a fix). */
export interface FlakyCase {
  key: string
  /** this run against the baseline: "failed" (passed there) or "passed" (failed there) */
  flip: 'failed' | 'passed'
  /**
   * reruns: its re-runs (rerunFlips) took the flip back;
   * trials: repeated trials on both sides, the pass fraction did not move significantly;
   * history: known flaky from its recent runs (history.ts)
   */
  because: 'reruns' | 'trials' | 'history'
  /** trials of this run (re-runs included) */
  current: TrialCounts
  /** the baseline's trials; for "history": its last runs (the baseline's own result the newest) */
  baseline: TrialCounts
  /** the re-run trials, when the case was re-run */
  reruns?: TrialCounts
  /** the one-sided Fisher exact p-value, when a test was made */
  p?: number
}

/** A limit on how many cases one of the comparison's lists may hold. */
export interface CountFailure {
  check: 'maxRegressions' | 'maxRemoved' | 'maxChanged'
  limit: number
  /** how many cases the list holds */
  measured: number
  /** the cases, in dataset order */
  keys: string[]
  /** maxRegressions: the regressed cases that changed in this run and fail as the baseline ran them; absent when none */
  changedInPr?: string[]
}

/** Too few of the baseline's cases could be compared. */
export interface ComparableFailure {
  check: 'minComparable'
  limit: number
  /** the share compared */
  measured: number
  keys: string[]
  compared: number
  baseline: number
}

/** The pass rate on the compared cases dropped more than maxPassRateDrop. */
export interface PassRateDropFailure {
  check: 'maxPassRateDrop'
  limit: number
  /** the drop (or, with `bound`, the smallest drop the interval supports), as a rate difference */
  measured: number
  /** passed in the baseline and fail now, flaky ones left out */
  keys: string[]
  /** applied to the optimistic end of the interval (gate.useConfidenceBound) */
  bound: boolean
  /** gate.useConfidenceBound, but too few cases for the interval ever to exceed the limit: applied to the drop itself */
  unbounded?: boolean
  cases: number
  baselineRate: number
  /** the current rate with flaky cases counted as in the baseline */
  currentRate: number
  flakyFlips: number
}

/** The mean judge score on the compared cases dropped more than maxMeanScoreDrop. */
export interface ScoreDropFailure {
  check: 'maxMeanScoreDrop'
  limit: number
  measured: number
  /** scored lower, largest drop first */
  keys: string[]
  bound: boolean
  baselineScore: number
  currentScore: number
}

/** The metric a relative limit holds, and how it reads. */
export type MetricKind = 'cost' | 'tokens' | 'latency'
export type MetricLimit = 'maxCostIncrease' | 'maxTokensIncrease' | 'maxLatencyIncrease'

/** The cases that moved a metric up the most, for naming them. */
export interface LargestRises {
  keys: string[]
  /** how much each rose, in the metric's unit */
  by: number[]
  /** how many compared cases rose in all */
  total: number
}

/**
 * A relative cost, token or latency limit that failed: the rise was over it
 * (`rise`, or `bound` with useConfidenceBound), the figure rose from zero
 * (`fromZero`), or compared cases stopped reporting it (`unreported`).
 */
export interface MetricFailure {
  check: MetricLimit
  limit: number
  /** the relative rise (or its optimistic bound); null when it rose from zero or cannot be checked */
  measured: number | null
  keys: string[]
  metric: MetricKind
  how: 'rise' | 'bound' | 'fromZero' | 'unreported'
  /** the totals over the compared cases (not for `unreported`) */
  baseline: number | null
  current: number | null
  /** compared cases carrying the figure in both runs; for `unreported`, the cases that lost it */
  cases: number
  /** with useConfidenceBound but no interval to bound (too few cases): applied to the rise itself */
  unbounded: boolean
  rises: LargestRises | null
}

/** This run's pass rate is below minPassRate. */
export interface PassRateFloorFailure {
  check: 'minPassRate'
  limit: number
  measured: number
  /** the failing cases */
  keys: string[]
  passed: number
  total: number
  /** of the failing cases, those that are flaky (they count as failed for a floor) */
  flakyFailing: number
}

/** This run's mean judge score is below minMeanScore, or there is none to hold it to (measured null). */
export interface ScoreFloorFailure {
  check: 'minMeanScore'
  limit: number
  measured: number | null
  /** scored below the floor, lowest first */
  keys: string[]
}

/** No baseline, and failOnMissingBaseline is set. */
export interface MissingBaselineFailure {
  check: 'failOnMissingBaseline'
  limit: null
  measured: null
  keys: string[]
}

/** The run did not finish every case it set out to (cut short, or stopped at its budget). */
export interface IncompleteFailure {
  check: 'incomplete'
  /** the cases the run set out to finish */
  limit: number
  /** the cases that finished */
  measured: number
  keys: string[]
  /** when it stopped at budget.maxCostUsd */
  budget: { spentUsd: number; maxCostUsd: number } | null
}

/**
 * One exceeded limit of the gate, as a value: what was checked, against what,
 * and the cases behind it. The words are report/words.ts's.
 */
export type GateFailure =
  | CountFailure
  | ComparableFailure
  | PassRateDropFailure
  | ScoreDropFailure
  | MetricFailure
  | PassRateFloorFailure
  | ScoreFloorFailure
  | MissingBaselineFailure
  | IncompleteFailure

/** A relative metric limit that had nothing to hold: no compared case has the figure in both runs. */
export interface UncheckedLimit {
  check: MetricLimit
  limit: number
  metric: MetricKind
}

export interface GateResult {
  passed: boolean
  /** every exceeded limit, in the order the gate checks them */
  checks: GateFailure[]
  /** the metric limits set that had no figures to hold; absent when there are none */
  unchecked?: UncheckedLimit[]
}

/** What became of the baseline (action output `baseline-status`). */
export type BaselineStatus = 'found' | 'none' | 'error' | 'incompatible'

export type { ConfigChange } from '../config/trusted.js'

/**
 * The verdict (compare/conclude.ts): pass, fail, accepted (a failing verdict
 * the accept label lets through) or could-not-tell (the run cannot support a
 * verdict: the check fails closed).
 */
export type VerdictStatus = 'pass' | 'fail' | 'accepted' | 'could-not-tell'

/** An error shared by most of the cases (or verdicts) that met it: one problem, not many. */
export interface SharedFailure {
  /** cases (or verdicts) that failed */
  failed: number
  /** of how many */
  total: number
  /** the first line of the most common error */
  message: string
}

/**
 * Why a verdict is not a pass — as a value; report/words.ts says it. `gate`
 * carries an exceeded limit; the others are what the run itself could not do.
 */
export type VerdictReason =
  | { code: 'gate'; failure: GateFailure }
  | { code: 'baseline-error'; detail: string }
  | { code: 'baseline-incompatible'; detail: string }
  | { code: 'incomplete'; finished: number; planned: number; budget: { spentUsd: number; maxCostUsd: number } | null }
  | { code: 'target-failed'; shared: SharedFailure }
  | { code: 'judge-failed'; shared: SharedFailure }
  | { code: 'upload-failed'; artifact: string; error: string }
  /**
   * the record uploaded is not the one evalgate wrote: `written` is
   * the SHA-256 of the bytes written, `found` what the artifact holds, or
   * `error` why it could not be read back
   */
  | { code: 'record-mismatch'; artifact: string; written: string; found?: string; error?: string }
  /** the baseline is older than gate.maxBaselineAgeDays and gate.failOnStaleBaseline is set */
  | { code: 'stale-baseline'; stale: StaleBaseline }
  /** files that grade the cases changed while the run was in progress (the record's changedDuringRun) */
  | { code: 'files-changed'; files: string[] }
  | { code: 'problem'; text: string }

/** What the report says beside the verdict, as a value. */
export type VerdictNotice =
  /** said by the entry point (the baseline lookup, the trusted config): already words */
  | { code: 'text'; text: string }
  /** a baseline in error, but on-baseline-error: warn */
  | { code: 'baseline-ignored'; reason: VerdictReason }
  | { code: 'unchecked'; limit: UncheckedLimit }
  | { code: 'budget-uncounted'; maxCostUsd: number; spentUsd: number; trials: number; judgeTokens: number }
  /** the target failed on some cases, not most: the verdict stands, the failures are named */
  | { code: 'not-graded'; keys: string[] }
  /** the baseline is older than gate.maxBaselineAgeDays (a warning: failOnStaleBaseline is not set) */
  | { code: 'stale-baseline'; stale: StaleBaseline }

export interface Verdict {
  status: VerdictStatus
  /**
   * Why the status is not pass: for fail and could-not-tell, what the check
   * fails with; for accepted, what was accepted. Empty for pass.
   */
  reasons: VerdictReason[]
  /** the check's exit: 1 when it fails, 0 otherwise (advisory and accepted verdicts pass it) */
  exitCode: 0 | 1
  /** fail-on-regression: false left a failing gate's check green on purpose (never a run that could not tell) */
  advisory: boolean
  /** the accept label that accepted the verdict */
  acceptedBy: string | null
  notices: VerdictNotice[]
  gate: GateResult
  baselineStatus: BaselineStatus
  configChanges: ConfigChange[]
}

/** One compared metric: over the compared cases where both runs carry it. */
export interface MetricChange {
  baseline: number
  current: number
  /** current / baseline − 1; null when the baseline figure is 0 */
  change: number | null
  /** paired 95% bootstrap interval of `change`; null with too few cases (5; 20 for p95), no change, or a baseline mostly at zero */
  ci: [number, number] | null
  /** compared cases that carry the metric in both runs */
  cases: number
  /** of those, the cases whose value rose most, most first (at most 10) */
  rose: string[]
  /** how much each case of `rose` rose, in the metric's unit (USD, tokens, ms) */
  roseBy: number[]
  /** how many of the compared cases rose in all */
  rises: number
}

/**
 * A metric the baseline had on compared cases that this run does not report
 * on them (an agent that stopped reporting usage, a model missing from
 * `pricing`): those cases drop out of the comparison, so a limit on the
 * metric could not hold on them.
 */
export interface UnreportedMetric {
  metric: 'cost' | 'tokens'
  /** how many compared cases lost it */
  cases: number
  /** the first of them, in dataset order (at most 10) */
  keys: string[]
}

/** `metrics` of `--json`: cost (total USD), tokens (total), latency p50 and p95 (ms). */
export interface ComparedMetrics {
  cost?: MetricChange
  tokens?: MetricChange
  latencyP50?: MetricChange
  latencyP95?: MetricChange
}

export interface Comparison {
  baseline: RunFigures | null
  current: RunFigures
  /** current.passRate − baseline.passRate over all cases; null without a baseline */
  passRateDelta: number | null
  /** current.meanScore − baseline.meanScore over all cases; null when either is null */
  meanScoreDelta: number | null
  /** null without a baseline or without common cases */
  common: CommonFigures | null
  /** 95% paired interval of common.passRateDelta (see stats.ts) */
  passRateDeltaCI: [number, number] | null
  /** 95% paired interval of common.gatedPassRateDelta (flaky flips not counted): what useConfidenceBound applies maxPassRateDrop to */
  gatedPassRateDeltaCI: [number, number] | null
  /** 95% paired t interval of common.meanScoreDelta, over the cases scored in both runs; null with fewer than two */
  meanScoreDeltaCI: [number, number] | null
  /** cost, tokens and latency over the compared cases; null without a baseline or when the runs carry none */
  metrics: ComparedMetrics | null
  /** metrics the baseline reports on compared cases and this run does not; absent when there are none */
  unreported?: UnreportedMetric[]
  regressed: string[]
  fixed: string[]
  /** flipped, but the flip is within chance: see flakyCases for why */
  flaky: string[]
  /**
   * cases whose verdict rests on a judge verdict that failed (compare/judged.ts),
   * in this run or, for a compared case, in the baseline: not compared, and left
   * out of the figures and the floors
   */
  notGraded: string[]
  /**
   * regressed or fixed cases with trials (repeats, re-runs) on this side only:
   * against a single baseline trial no test can tell the flip from chance, so it
   * counts as a flip but is not "confirmed" by its re-runs
   */
  notTestable: string[]
  /**
   * regressed or fixed cases with trials on both sides too few for the test
   * to reach alpha whatever happened (2 or 3 a side at 0.05), that went from
   * every trial passing to none (or the reverse): counted as a single trial's
   * flip would be, not confirmed by a test; absent when there are none
   */
  tooFewTrials?: string[]
  /**
   * regressed cases whose fingerprint differs from the baseline's: they
   * changed in this run and fail when run as the baseline ran them (its input
   * and assertions); absent when there are none
   */
  changedRegressed?: string[]
  /** the flaky cases with the evidence behind each, in the order of `flaky` */
  flakyCases: FlakyCase[]
  added: string[]
  removed: string[]
  changed: string[]
  /** baseline cases an incomplete current run did not reach: neither removed nor compared */
  unfinished: string[]
  /** common cases that did not flip */
  unchanged: number
  /**
   * The baseline's cases this run set out to run (its --filter and shard
   * applied), and how many of them were compared (same key, same fingerprint);
   * null without a baseline.
   */
  coverage: { baseline: number; compared: number } | null
  tags: TagFigures[]
  gate: GateResult
  /**
   * what the gate could have caught at this run's case and trial counts
   *; null without cases. Set by compareRuns.
   */
  sensitivity?: Sensitivity | null
}
