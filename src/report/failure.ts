/**
 * What went wrong with a failing case, as values: the target's error, else
 * its first failed check. The comment's rows and JUnit's messages both say
 * it, each in its own escaping. Pure.
 */
import type { AssertionResult, CaseResult } from '../types.js'

export type CaseFailure = { kind: 'error'; error: string } | { kind: 'assertion'; assertion: AssertionResult } | { kind: 'unknown' }

/** The first thing that went wrong: the target's error (of the case or a failing trial), else the first failed assertion. */
export function caseFailure(k: CaseResult): CaseFailure {
  const trial = k.trials?.find((t) => !t.passed)
  const error = k.error ?? trial?.error ?? null
  if (error !== null) return { kind: 'error', error }
  const failed = k.assertions.find((a) => !a.passed) ?? trial?.assertions.find((a) => !a.passed)
  return failed ? { kind: 'assertion', assertion: failed } : { kind: 'unknown' }
}

/** Every failed assertion of a case, else those of its first failing trial. */
export function failedAssertions(k: CaseResult): AssertionResult[] {
  const failed = k.assertions.filter((a) => !a.passed)
  if (failed.length) return failed
  return k.trials?.find((t) => !t.passed)?.assertions.filter((a) => !a.passed) ?? []
}

/** The target's error of a case, or of its first failing trial. */
export function caseError(k: CaseResult): string | null {
  return k.error ?? k.trials?.find((t) => !t.passed)?.error ?? null
}
