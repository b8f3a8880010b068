/**
 * What the grader could not grade. A judge verdict that failed after its
 * retries (a 429 that never cleared, a missing key, a server down) says
 * nothing about the agent: a case whose failure rests on such a verdict is
 * not graded — listed, and left out of the comparison, the figures and the
 * floors — and a judge that failed on most of its verdicts leaves the run
 * unable to tell. Pure: records in.
 */
import type { AssertionResult, CaseResult, RunRecord } from '../types.js'
import { sharedFailure } from './shared-failure.js'
import type { SharedFailure } from './types.js'

/** The assertion results of each trial of a case (one trial: the case's own). */
function trialsOf(c: CaseResult): { passed: boolean; error: string | null; assertions: AssertionResult[] }[] {
  return c.trials && c.trials.length > 0 ? c.trials : [c]
}

/** A trial that failed only because the judge could not give verdicts: no target error, every failed check a failed verdict. */
function failedOnlyByJudge(trial: { passed: boolean; error: string | null; assertions: AssertionResult[] }): boolean {
  if (trial.passed || trial.error !== null) return false
  const failed = trial.assertions.filter((a) => !a.passed)
  return failed.length > 0 && failed.every((a) => a.judge?.unavailable === true)
}

/**
 * A failing case some of whose failed trials failed only for want of a
 * verdict: had the judge answered, it might have passed. A case that passed,
 * or that fails some other check anyway, is graded.
 */
export function isNotGraded(c: CaseResult): boolean {
  return !c.passed && trialsOf(c).some(failedOnlyByJudge)
}

/** The keys of a run's cases that are not graded, in dataset order. */
export function notGradedKeys(run: Pick<RunRecord, 'cases'>): string[] {
  return run.cases.filter(isNotGraded).map((c) => c.id)
}

/**
 * The judge's failure when it failed on most of its verdicts (more than half,
 * at least two), with the error most of them share; null otherwise. Reused
 * verdicts count as given.
 */
export function judgeOutage(run: Pick<RunRecord, 'cases'>): SharedFailure | null {
  let total = 0
  const errors: string[] = []
  for (const c of run.cases) {
    for (const trial of trialsOf(c)) {
      for (const a of trial.assertions) {
        if (!a.judge) continue
        total++
        if (a.judge.error !== undefined) errors.push(a.judge.error)
      }
    }
  }
  return sharedFailure(errors, total)
}
