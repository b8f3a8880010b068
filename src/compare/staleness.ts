/**
 * Stale baselines: a baseline made `gate.maxBaselineAgeDays` or
 * more days before the pull request's base commit compares this change with
 * an old state of the branch — everything merged since then is counted as
 * this change's doing. A baseline at the base commit is never stale. Pure:
 * the entry point finds the base commit's date (the platform's commits API);
 * without it, the age is measured against this run.
 */
import type { GateConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'

const DAY_MS = 86_400_000

/** What the baseline's age is measured against. */
export interface AgeReference {
  /** the pull request's base commit; null outside a pull request */
  sha: string | null
  /** when the base commit was committed (ISO 8601); null when it could not be read */
  date: string | null
}

export interface StaleBaseline {
  /** whole days between the baseline's run and the reference */
  ageDays: number
  /** gate.maxBaselineAgeDays */
  limitDays: number
  /** gate.failOnStaleBaseline: a failure of the gate, not a notice */
  fail: boolean
  /** what the age was measured against: the base commit, or (its date unknown) this run */
  against: 'base-commit' | 'run'
  /** the baseline's commit, for the words */
  baselineSha: string | null
}

function timeOf(iso: string | null | undefined): number | null {
  if (!iso) return null
  const t = Date.parse(iso)
  return Number.isFinite(t) ? t : null
}

/** The baseline's staleness, or null when it is fresh enough (or its age cannot be told). */
export function staleBaseline(
  baseline: Pick<RunRecord, 'createdAt' | 'git'> | null,
  current: Pick<RunRecord, 'createdAt'>,
  reference: AgeReference,
  gate: Pick<GateConfig, 'maxBaselineAgeDays' | 'failOnStaleBaseline'>
): StaleBaseline | null {
  if (!baseline) return null
  // the baseline ran at the pull request's base commit: it is the branch as this change found it
  if (reference.sha !== null && baseline.git.sha === reference.sha) return null
  const made = timeOf(baseline.createdAt)
  const base = timeOf(reference.date)
  const against = base !== null ? 'base-commit' : 'run'
  const until = base ?? timeOf(current.createdAt)
  if (made === null || until === null) return null
  const ageMs = until - made
  if (ageMs < gate.maxBaselineAgeDays * DAY_MS) return null
  return { ageDays: Math.floor(ageMs / DAY_MS), limitDays: gate.maxBaselineAgeDays, fail: gate.failOnStaleBaseline, against, baselineSha: baseline.git.sha }
}
