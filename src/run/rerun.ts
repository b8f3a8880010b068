/**
 * rerunFlips: after the main pass, the cases that flipped against the baseline
 * get more trials, and their verdict is taken over all of them. One failure of
 * a case that usually passes then reads as what it is.
 */
import type { Target } from '../targets/types.js'
import type { CaseResult, EvalCase, RunRecord, TrialResult } from '../types.js'
import { aggregateCase, runCases, type RunnerOptions } from './runner.js'

export interface RerunOutcome {
  /** all cases, in the order given, the re-run ones with their extra trials merged in */
  cases: CaseResult[]
  /** trials spent on re-runs */
  trials: number
  /** false when the re-runs were cut short (their cases keep their first result) */
  complete: boolean
  durationMs: number
  /** what the re-run trials cost the target (USD) */
  targetCostUsd: number
}

/**
 * Keys of the results that flipped against the baseline: passed there and fail
 * now, or the reverse, with the same fingerprint (a changed case is not a flip).
 */
export function flippedKeys(results: readonly CaseResult[], baseline: RunRecord): string[] {
  const before = new Map(baseline.cases.map((b) => [b.id, b]))
  return results.flatMap((c) => {
    const b = before.get(c.id)
    return b && b.fingerprint === c.fingerprint && b.passed !== c.passed ? [c.id] : []
  })
}

/** The trials of a result: its recorded ones, or the single trial a result of one trial stands for. */
export function trialsOf(c: CaseResult): TrialResult[] {
  if (c.trials?.length) return c.trials
  const trial: TrialResult = { passed: c.passed, output: c.output, error: c.error, score: c.score, durationMs: c.durationMs, assertions: c.assertions }
  if (c.toolCalls) trial.toolCalls = c.toolCalls
  if (c.usage) trial.usage = c.usage
  if (c.latencyMs !== undefined) trial.latencyMs = c.latencyMs
  if (c.metadata) trial.metadata = c.metadata
  if (c.finishReason !== undefined) trial.finishReason = c.finishReason
  if (c.turns) trial.turns = c.turns
  return [trial]
}

/** A result with extra trials appended and its verdict taken again over all of them. */
export function mergeReruns(c: EvalCase, first: CaseResult, extra: CaseResult, repeatPassThreshold: number): CaseResult {
  const added = trialsOf(extra)
  const merged = aggregateCase(c, [...trialsOf(first), ...added], repeatPassThreshold)
  return { ...merged, reruns: (first.reruns ?? 0) + added.length }
}

/**
 * Runs `times` more trials of every flipped case (never from a cache: the
 * runner calls the target for each) and merges them into its result. Nothing
 * is re-run without flips, with `times` 0, or after the run was interrupted.
 */
export async function rerunFlips(
  cases: readonly EvalCase[],
  results: readonly CaseResult[],
  baseline: RunRecord,
  target: Target,
  times: number,
  options: RunnerOptions
): Promise<RerunOutcome> {
  const flipped = new Set(times > 0 && !options.signal?.aborted ? flippedKeys(results, baseline) : [])
  if (flipped.size === 0) return { cases: [...results], trials: 0, complete: true, durationMs: 0, targetCostUsd: 0 }
  const subset = cases.filter((c) => flipped.has(c.id))
  // progress counts the main pass only: a re-run is not another case
  const outcome = await runCases(subset, target, { ...options, repeat: times, onCase: undefined })
  const extra = new Map(outcome.cases.map((r) => [r.id, r]))
  const byKey = new Map(subset.map((c) => [c.id, c]))
  let trials = 0
  const merged = results.map((first) => {
    const more = extra.get(first.id)
    if (!more) return first
    trials += times
    return mergeReruns(byKey.get(first.id)!, first, more, options.repeatPassThreshold)
  })
  return { cases: merged, trials, complete: outcome.complete, durationMs: outcome.durationMs, targetCostUsd: outcome.targetCostUsd }
}
