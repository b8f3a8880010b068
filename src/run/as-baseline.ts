/**
 * Changed cases run as the baseline ran them: a case whose
 * fingerprint differs from the baseline's, and that passed there, is also run
 * with the baseline's input and assertions (the record keeps them: `ran`)
 * against this run's target. Failing that, the comparison counts it as
 * regressed — so rewriting a failing case's checks cannot hide it, while a
 * pull request that tightens a check the case still passes goes through.
 */
import { isConversation, resolveRan } from '../config/ran.js'
import type { Target } from '../targets/types.js'
import type { CaseResult, EvalCase, RunRecord } from '../types.js'
import { runCases, type RunnerOptions, type RunOutcome } from './runner.js'

/** What a changed case did when run as the baseline ran it (the record's `asBaseline`). */
export type AsBaseline = NonNullable<CaseResult['asBaseline']>

/**
 * The cases (or their results) that changed against a baseline case that
 * passed and recorded how it ran: they are run again as the baseline ran them.
 */
export function changedAgainst<T extends Pick<CaseResult, 'id' | 'fingerprint'>>(cases: readonly T[], baseline: RunRecord): T[] {
  const before = new Map(baseline.cases.map((b) => [b.id, b]))
  return cases.filter((c) => {
    const b = before.get(c.id)
    return b !== undefined && b.fingerprint !== c.fingerprint && b.passed && b.ran !== undefined
  })
}

/**
 * The relative file names the baseline's assertions of these cases use
 * (`file:` checks, `file://` values): in a pull-request run they are read at
 * the base commit (github/trusted-files.ts) before the cases run.
 */
export function filesNamed(cases: readonly Pick<CaseResult, 'id'>[], baseline: RunRecord): string[] {
  const keys = new Set(cases.map((c) => c.id))
  const files = new Set<string>()
  for (const b of baseline.cases) {
    if (!keys.has(b.id) || !b.ran) continue
    for (const a of b.ran.assert) {
      if (typeof a.file === 'string') files.add(a.file)
      for (const v of [a.value, a.transform])
        if (typeof v === 'string' && v.startsWith('file://')) files.add(v.slice('file://'.length).replace(/:[A-Za-z_$][\w$]*$/, ''))
    }
  }
  return [...files].sort()
}

/** The baseline's case as this run runs it: its input and assertions, this run's key, name and place. */
function caseAsBaseline(current: EvalCase, b: CaseResult, filesDir: string): EvalCase {
  const ran = resolveRan(b.ran!, filesDir)
  const c: EvalCase = { ...current, input: b.input, assert: ran.assert, fingerprint: b.fingerprint, expected: b.expected }
  if (ran.vars) c.vars = ran.vars
  else delete c.vars
  if (ran.metadata) c.metadata = ran.metadata
  else delete c.metadata
  if (ran.promptfoo) c.promptfoo = ran.promptfoo
  else delete c.promptfoo
  return c
}

export interface AsBaselineOutcome extends Pick<RunOutcome, 'complete' | 'durationMs' | 'targetCostUsd' | 'stopReason'> {
  /** every result, the changed ones with `asBaseline` */
  cases: CaseResult[]
  /** how many cases were run again */
  run: number
}

/**
 * Runs every changed case that passed on the baseline as the baseline ran it
 * (the run's trials, never from a cache), and attaches the result. `filesDir`
 * holds the files its assertions name: the base commit's copies in a
 * pull-request run, else the config's folder.
 */
export async function runAsBaseline(
  cases: readonly EvalCase[],
  results: readonly CaseResult[],
  baseline: RunRecord,
  target: Target,
  options: RunnerOptions,
  filesDir: string
): Promise<AsBaselineOutcome> {
  const byKey = new Map(cases.map((c) => [c.id, c]))
  // a case that is now a conversation has no one input to give the baseline's checks
  const changed = options.signal?.aborted ? [] : changedAgainst(results, baseline).filter((r) => !isConversation(byKey.get(r.id) ?? {}))
  if (changed.length === 0) return { cases: [...results], run: 0, complete: true, durationMs: 0, targetCostUsd: 0 }
  const before = new Map(baseline.cases.map((b) => [b.id, b]))
  const again = changed.map((r) => caseAsBaseline(byKey.get(r.id)!, before.get(r.id)!, filesDir))
  // progress counts the main pass only; the assertions come from a record, so they are checked as they are graded
  const outcome = await runCases(again, target, { ...options, onCase: undefined, validated: false })
  const ran = new Map(outcome.cases.map((r) => [r.id, r]))
  const merged = results.map((r) => {
    const as = ran.get(r.id)
    if (!as) return r
    const asBaseline: AsBaseline = {
      passed: as.passed,
      passFraction: as.passFraction,
      output: as.output,
      error: as.error,
      score: as.score,
      assertions: as.assertions
    }
    if (as.trials) asBaseline.trials = as.trials
    return { ...r, asBaseline }
  })
  return {
    cases: merged,
    run: again.length,
    complete: outcome.complete,
    durationMs: outcome.durationMs,
    targetCostUsd: outcome.targetCostUsd,
    ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {})
  }
}
