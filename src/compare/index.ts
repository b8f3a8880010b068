export { assess, compareRuns, runFigures, type Assessment, type CaseOutcome } from './compare.js'
export { carryHistory, carryTrend, FLAKY_WINDOW, HISTORY_LENGTH, isKnownFlaky, nextHistory, recentCounts } from './history.js'
export { baselineCompatibility } from './compatibility.js'
export { conclude, type ConcludeContext } from './conclude.js'
export { evaluateGate } from './gate.js'
export { isNotGraded, judgeOutage } from './judged.js'
export { errorShape, sharedFailure, sharedTargetError } from './shared-failure.js'
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
  VerdictNotice,
  VerdictReason,
  VerdictStatus,
  RunFigures,
  TagFigures,
  TrialCounts
} from './types.js'
