import type { ConfigChange } from '../config/trusted.js'
import type { RunRecord } from '../types.js'

/**
 * The comparison of a current run with its baseline (SPEC §4, §5 `--json`).
 * Case lists hold case keys (CaseResult.id) in dataset order.
 */

/** The headline figures of one run; what it copies from the record is typed by the record. */
export interface RunFigures extends Pick<RunRecord, 'name' | 'createdAt' | 'complete'> {
  sha: RunRecord['git']['sha']
  /** cases in the record (for an incomplete run: the cases that finished) */
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

/** One exceeded limit of the gate, as a value: what was checked, against what, and the cases behind it. */
export interface GateFailure {
  /** the gate key or condition checked: "maxRegressions", "minPassRate", "incomplete", … */
  check: string
  /** the configured limit, when the check has one */
  limit: number | null
  /** the measured value the limit was exceeded by */
  measured: number | null
  /** the case keys behind the failure, in dataset order */
  keys: string[]
  /** the full sentence shown to people */
  sentence: string
}

export interface GateResult {
  passed: boolean
  /** one full sentence per exceeded limit (the `sentence` of each of `checks`) */
  failures: string[]
  /** the same failures as values */
  checks: GateFailure[]
  /** the metric limits set that had no figures to hold (a sentence each); absent when there are none */
  unchecked?: string[]
}

/** What became of the baseline (action output `baseline-status`, SPEC §9). */
export type BaselineStatus = 'found' | 'none' | 'error' | 'incompatible'

export type { ConfigChange } from '../config/trusted.js'

/**
 * The verdict of a run (compare/conclude.ts): one value, computed by one pure
 * function, that the action and the CLI only carry out.
 */
export interface Verdict {
  /** pass: the check passes; fail: it fails; accepted: the gate failed but the accept label lets it pass; error: evalgate could not tell (fails closed) */
  outcome: 'pass' | 'fail' | 'accepted' | 'error'
  /** one sentence saying what the outcome is and why, for the first line of the comment and the log */
  headline: string
  /** everything the check fails with (empty when it passes); gate failures are in `gate` too */
  reasons: string[]
  gate: GateResult
  baselineStatus: BaselineStatus
  /** why the baseline is missing, unusable or in error; notices the report shows */
  notices: string[]
  configChanges: ConfigChange[]
}

/** One compared metric (SPEC §10): over the compared cases where both runs carry it. */
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
   * regressed or fixed cases with trials (repeats, re-runs) on this side only:
   * against a single baseline trial no test can tell the flip from chance, so it
   * counts as a flip (SPEC §4) but is not "confirmed" by its re-runs
   */
  notTestable: string[]
  /**
   * regressed or fixed cases with trials on both sides too few for the test
   * to reach alpha whatever happened (2 or 3 a side at 0.05), that went from
   * every trial passing to none (or the reverse): counted as a single trial's
   * flip would be (SPEC §4), not confirmed by a test; absent when there are none
   */
  tooFewTrials?: string[]
  /**
   * regressed cases whose fingerprint differs from the baseline's: they
   * changed in this run and fail when run as the baseline ran them (its input
   * and assertions, SPEC §9); absent when there are none
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
}
