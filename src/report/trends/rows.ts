/**
 * The trend of runs: one row per run record, in
 * the order given — pass rate, mean judge score, cost and p95 latency — and
 * the four series the markdown and the HTML page draw. Pure.
 */
import { runMetrics } from '../../compare/metrics.js'
import type { RunRecord } from '../../types.js'

export interface TrendRow {
  /** the record's file, as given */
  file: string
  name: string
  createdAt: string
  sha: string | null
  /** "a1b2c3d", else the run's date */
  label: string
  total: number
  passed: number
  complete: boolean
  /** 0..1 */
  passRate: number
  /** 0..1; null when the run has no judged case */
  meanScore: number | null
  /** total target cost in USD; null when no case reports one */
  cost: number | null
  /** ms; null when no case has a latency */
  latencyP95: number | null
}

/** The row of one run: its summary's figures, and its cost and latency read off its cases. */
export function trendRow(file: string, record: RunRecord): TrendRow {
  const metrics = runMetrics(record.cases)
  return {
    file,
    name: record.name,
    createdAt: record.createdAt,
    sha: record.git.sha,
    label: record.git.sha ? record.git.sha.slice(0, 7) : record.createdAt.slice(0, 10),
    total: record.summary.total,
    passed: record.summary.passed,
    complete: record.complete,
    passRate: record.summary.passRate,
    meanScore: record.summary.meanScore,
    cost: metrics.cost,
    latencyP95: metrics.latencyP95
  }
}

export type SeriesKey = 'passRate' | 'meanScore' | 'cost' | 'latencyP95'

export interface Series {
  key: SeriesKey
  label: string
  /** one value per row, null where the run has none */
  values: (number | null)[]
  /** a rate or score: drawn on a 0–1 axis; else from 0 to the largest value */
  unit: 'rate' | 'score' | 'usd' | 'ms'
}

const SERIES: readonly { key: SeriesKey; label: string; unit: Series['unit'] }[] = [
  { key: 'passRate', label: 'pass rate', unit: 'rate' },
  { key: 'meanScore', label: 'mean judge score', unit: 'score' },
  { key: 'cost', label: 'cost (target)', unit: 'usd' },
  { key: 'latencyP95', label: 'p95 latency', unit: 'ms' }
]

/** The four series; a series no run has (no judge, no usage) is left out. */
export function trendSeries(rows: readonly TrendRow[]): Series[] {
  return SERIES.map((s) => ({ ...s, values: rows.map((r) => r[s.key]) })).filter((s) => s.values.some((v) => v !== null))
}

/** The config names of the runs, when they are not all one: comparing runs of different configs compares different datasets. */
export function mixedNames(rows: readonly TrendRow[]): string[] {
  const names = [...new Set(rows.map((r) => r.name))]
  return names.length > 1 ? names : []
}
