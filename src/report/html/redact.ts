/**
 * Secrets masked out of the HTML report (the CLI passes the values read
 * through `${VAR}`): the one place it happens. Every string of the records is
 * passed through `redact` before it is shown, cut, diffed or made JSON —
 * the runs' heads at once, the cases one at a time as the page is written.
 */
import type { RunRecord, CaseResult } from '../../types.js'
import { mapStrings } from '../../util/map-strings.js'
import type { Runs } from './view.js'

export type Redact = (text: string) => string

/** A case with every string redacted; itself without a redact function. */
export function redactCase(c: CaseResult, redact: Redact | undefined): CaseResult {
  return redact ? mapStrings(c, redact) : c
}

/**
 * The input with every string outside the cases redacted: what the summary
 * shows (of the cases it reads only counts and flags). The cases are left for
 * redactCase, one at a time.
 */
export function redactHeads(input: Runs, redact: Redact | undefined): Runs {
  if (!redact) return input
  const head = (run: RunRecord): RunRecord => ({ ...mapStrings({ ...run, cases: [] }, redact), cases: run.cases })
  return { ...input, comparison: mapStrings(input.comparison, redact), baseline: input.baseline && head(input.baseline), current: head(input.current) }
}
