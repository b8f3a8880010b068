export { assess, compareRuns, runFigures, type Assessment, type CaseOutcome } from './compare.js'
export { carryHistory, carryTrend, FLAKY_WINDOW, HISTORY_LENGTH, isKnownFlaky, nextHistory, recentCounts } from './history.js'
export { formatCount, formatKeys, formatList, formatMetric, formatPercent, formatPoints, formatScore, formatUsd, plural } from './format.js'
export { baselineCompatibility } from './compatibility.js'
export { evaluateGate } from './gate.js'
export { errorShape, sharedTargetError, type SharedTargetError } from './target-errors.js'
export { fisherExactOneSided, normalQuantile, pairedDifferenceCI, pairedMeanCI, tCritical, wilsonInterval, type PairedCounts } from './stats.js'
export { comparedMetrics } from './metrics.js'
export type {
  BaselineStatus,
  CommonFigures,
  ComparedMetrics,
  Comparison,
  MetricChange,
  ConfigChange,
  FlakyCase,
  GateFailure,
  GateResult,
  Verdict,
  RunFigures,
  TagFigures,
  TrialCounts
} from './types.js'
