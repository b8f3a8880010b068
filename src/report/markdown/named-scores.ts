/**
 * Named metrics (promptfoo's `metric`) in the report: each metric's
 * mean score over the run, beside the baseline's when it has the metric. Pure.
 */
import { formatCount, formatScore } from '../format.js'
import type { RunRecord } from '../../types.js'
import { escapeInline } from '../escape.js'

/** The report's "Named metrics" table (drawn by the report's `table`), or nothing when the run has none. */
export function namedScoresTable(
  baseline: RunRecord | null,
  current: RunRecord,
  table: (header: string[], rows: string[][]) => string
): { text: string; optional: 'tags' }[] {
  const now = current.summary.namedScores
  if (!now || Object.keys(now).length === 0) return []
  const before = baseline?.summary.namedScores
  const header = before ? ['metric', 'baseline', 'current', 'cases'] : ['metric', 'score', 'cases']
  const rows = Object.entries(now).map(([name, m]) => {
    const metric = escapeInline(name, 100)
    if (!before) return [metric, formatScore(m.score), formatCount(m.cases)]
    const was = before[name]
    return [metric, was ? formatScore(was.score) : '—', formatScore(m.score), formatCount(m.cases)]
  })
  return [{ text: `#### Named metrics\n\n${table(header, rows)}`, optional: 'tags' }]
}
