/**
 * Flake history: each case of a run record carries the pass/fail results of
 * the runs before it (its baseline's history plus the baseline's own result),
 * so that a case known to flip back and forth is not reported as a regression
 * the first time it fails again. The run-level trend (pass rate and mean
 * score of the last runs) is carried the same way.
 */
import type { CaseResult, RunRecord, RunTrendPoint } from '../types.js'

/** Results kept per case: the newest runs, oldest first. */
export const HISTORY_LENGTH = 20

/** Runs looked at to call a case known flaky. */
export const FLAKY_WINDOW = 10

/** Passes and failures each needed within the window to call a case known flaky. */
export const FLAKY_MIN_EACH = 2

/** The history a case carries into the next run: its own, then its own result, bounded. */
export function nextHistory(c: Pick<CaseResult, 'history' | 'passed'>): string {
  return ((c.history ?? '') + (c.passed ? 'P' : 'F')).slice(-HISTORY_LENGTH)
}

/**
 * Carries each case's history forward from the baseline: a case with the same
 * key and fingerprint in the baseline gets its history plus its result; any
 * other case keeps what it has: none for a new or changed case.
 *
 * Sets `history` on the cases given, which must be the record's own (fresh
 * results, or shards being merged): at 100,000 cases a copy of each was the
 * largest single cost of building the record.
 */
export function carryHistory<T extends CaseResult>(cases: T[], baseline: { cases: readonly CaseResult[] } | null | undefined): T[] {
  if (!baseline) return cases
  const before = new Map(baseline.cases.map((b) => [b.id, b]))
  for (const c of cases) {
    const b = before.get(c.id)
    if (b && b.fingerprint === c.fingerprint) c.history = nextHistory(b)
  }
  return cases
}

export interface HistoryCounts {
  passed: number
  total: number
}

/** Passes and runs among the last FLAKY_WINDOW results of a history. */
export function recentCounts(history: string): HistoryCounts {
  const recent = history.slice(-FLAKY_WINDOW)
  return { passed: [...recent].filter((r) => r === 'P').length, total: recent.length }
}

/**
 * Known flaky: within its last 10 recorded runs the case passed at least twice
 * and failed at least twice. One odd result in ten is not enough (a real
 * regression of a steady case must still count); two of each means a single
 * new result is within what the case already does.
 */
export function isKnownFlaky(history: string): boolean {
  const { passed, total } = recentCounts(history)
  return passed >= FLAKY_MIN_EACH && total - passed >= FLAKY_MIN_EACH
}

/** Runs of the baseline branch the trend keeps. */
export const TREND_LENGTH = 20

/** The trend a run carries: its baseline's trend and the baseline itself, the newest TREND_LENGTH. */
export function carryTrend(baseline: RunRecord | null | undefined): RunTrendPoint[] | undefined {
  if (!baseline) return undefined
  const own: RunTrendPoint = {
    sha: baseline.git.sha,
    createdAt: baseline.createdAt,
    passRate: baseline.summary.passRate,
    meanScore: baseline.summary.meanScore
  }
  return [...(baseline.trend ?? []), own].slice(-TREND_LENGTH)
}
