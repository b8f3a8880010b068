/**
 * The trend of the last runs as a Mermaid `xychart-beta` (GitHub renders
 * ```mermaid blocks in comments and job summaries): pass rate as bars, mean
 * judge score as a line on the same 0–100 scale, the axis from 0 (bars read by
 * their length would exaggerate a change on an axis starting higher). Pure: the points come from
 * the trend a run record carries forward from its baselines.
 */
import type { RunRecord } from '../types.js'

export interface TrendPoint {
  /** the x-axis label of the run: a short SHA, a run number, a date */
  label: string
  /** 0..1 */
  passRate: number
  /** 0..1, null when the run has no judged case */
  meanScore: number | null
}

export interface TrendOptions {
  /** the newest points kept; default 20 */
  maxPoints?: number
  title?: string
}

export const DEFAULT_TREND_POINTS = 20
const LABEL_CHARS = 20

/**
 * A label inside Mermaid's double quotes, in a markdown code fence: only
 * characters that can close neither (no quotes, brackets or backticks), on one line.
 */
function chartText(text: string, max = LABEL_CHARS): string {
  const clean = text
    .replace(/[^\p{L}\p{N} ._:/#+%()-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return [...clean].slice(0, max).join('') || '?'
}

function percent(rate: number): number {
  return Math.round(Math.min(1, Math.max(0, rate)) * 1000) / 10
}

/**
 * The chart's markdown (a ```mermaid block), or '' for fewer than two points:
 * one run is no trend. The mean-score line is drawn only when every point shown
 * has a score, since the chart cannot leave gaps.
 */
export function renderTrend(points: readonly TrendPoint[], options: TrendOptions = {}): string {
  const shown = points.filter((p) => Number.isFinite(p.passRate)).slice(-(options.maxPoints ?? DEFAULT_TREND_POINTS))
  if (shown.length < 2) return ''
  const passRates = shown.map((p) => percent(p.passRate))
  const withScores = shown.every((p) => p.meanScore !== null && Number.isFinite(p.meanScore))
  const scores = withScores ? shown.map((p) => percent(p.meanScore!)) : []
  const series = withScores ? 'pass rate % (bars) and mean score % (line)' : 'pass rate %'
  const title = chartText(options.title ?? `Last ${shown.length} runs: ${series}`, 120)
  const lines = [
    '```mermaid',
    'xychart-beta',
    `  title "${title}"`,
    `  x-axis [${shown.map((p) => `"${chartText(p.label)}"`).join(', ')}]`,
    // bars are read by their length: an axis starting above 0 would make a small change look large
    `  y-axis "%" 0 --> 100`,
    `  bar [${passRates.join(', ')}]`,
    ...(withScores ? [`  line [${scores.join(', ')}]`] : []),
    '```'
  ]
  return lines.join('\n')
}

/** A short label for a run: its commit, else its date. */
function runLabel(sha: string | null, createdAt: string): string {
  return sha ? sha.slice(0, 7) : createdAt.slice(0, 10)
}

/** The record's carried trend followed by the run itself, oldest first. */
export function trendOf(record: Pick<RunRecord, 'trend' | 'git' | 'createdAt' | 'summary'>): TrendPoint[] {
  const earlier = (record.trend ?? []).map((p) => ({ label: runLabel(p.sha, p.createdAt), passRate: p.passRate, meanScore: p.meanScore }))
  return [...earlier, { label: runLabel(record.git.sha, record.createdAt), passRate: record.summary.passRate, meanScore: record.summary.meanScore }]
}
