/**
 * The pipeline's tail, one for the action and the CLI: the run's record is
 * kept (the action uploads it: on the default branch it is the next
 * baseline), then the verdict is concluded with everything that failed, then
 * the one report model is built and published, then the entry point exits
 * with the verdict's code. Nothing is rendered before the verdict is final.
 */
import { conclude, type ConcludeContext } from './compare/conclude.js'
import type { Comparison, VerdictReason } from './compare/types.js'
import { buildReport, type ReportInput, type ReportModel } from './report/index.js'
import type { RunRecord } from './types.js'

/** A run (or a merged one, or a downloaded one) and what its verdict depends on besides it. */
export interface Finishing {
  record: RunRecord
  comparison: Comparison
  baseline: RunRecord | null
  /** the verdict's context, but for what the tail itself finds out (the upload) */
  context: Omit<ConcludeContext, 'problems'>
  /** the gate, the links and the title the report shows */
  report: Omit<ReportInput, 'comparison' | 'baseline' | 'current' | 'verdict'>
}

/** Where a run ends up: the entry point's half of the tail. */
export interface TailHost {
  /** keeps the record where the next run finds it (the action's artifact); why it could not, else null */
  keep(record: RunRecord): Promise<VerdictReason | null>
  /** shows the final report: comment, summary, files, outputs, the terminal */
  publish(model: ReportModel): Promise<void>
}

/** Keep, conclude, build the model, publish: the model carries the verdict and its exit code. */
export async function finishRun(run: Finishing, host: TailHost): Promise<ReportModel> {
  const kept = await host.keep(run.record)
  const verdict = conclude(run.comparison, run.record, { ...run.context, problems: kept ? [kept] : [] })
  const model = buildReport({ ...run.report, comparison: run.comparison, baseline: run.baseline, current: run.record, verdict })
  await host.publish(model)
  return model
}
