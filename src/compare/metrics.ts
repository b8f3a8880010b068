/**
 * Compared agent metrics (SPEC §10): total cost, total tokens and latency
 * p50/p95 over the compared cases (same key, same fingerprint), each with its
 * relative change and a paired 95% bootstrap interval of that change.
 * Pure: case pairs in, figures out.
 */
import type { CaseResult } from '../types.js'
import { pairedBootstrap, quantileOfSorted, type PairedStatistic } from './stats.js'
import type { ComparedMetrics, MetricChange } from './types.js'

/** Fewer compared cases than this get no interval: it would say nothing. */
export const MIN_CASES_FOR_INTERVAL = 5

type Read = (c: CaseResult) => number | undefined

const readers: Record<'cost' | 'tokens' | 'latency', Read> = {
  cost: (c) => c.usage?.costUsd,
  tokens: (c) =>
    c.usage?.totalTokens ??
    (c.usage && (c.usage.inputTokens !== undefined || c.usage.outputTokens !== undefined)
      ? (c.usage.inputTokens ?? 0) + (c.usage.outputTokens ?? 0)
      : undefined),
  latency: (c) => c.latencyMs
}

/** The values of one metric on the pairs where both runs have it. */
function paired(pairs: readonly [CaseResult, CaseResult][], read: Read): { keys: string[]; baseline: number[]; current: number[] } {
  const keys: string[] = []
  const baseline: number[] = []
  const current: number[] = []
  for (const [b, c] of pairs) {
    const x = read(b)
    const y = read(c)
    if (x === undefined || y === undefined) continue
    keys.push(c.id)
    baseline.push(x)
    current.push(y)
  }
  return { keys, baseline, current }
}

const total: PairedStatistic = {
  point: (values) => values.reduce((a, b) => a + b, 0),
  weighted: (values, counts) => {
    let sum = 0
    for (let i = 0; i < values.length; i++) sum += values[i]! * counts[i]!
    return sum
  }
}

function quantile(p: number): PairedStatistic {
  return {
    point: (values) =>
      quantileOfSorted(
        [...values].sort((a, b) => a - b),
        p
      ),
    weighted: (values, counts, order) => quantileOfSorted(values, p, counts, order)
  }
}

function change(values: { keys: string[]; baseline: number[]; current: number[] }, statistic: PairedStatistic, seed: number): MetricChange | undefined {
  const n = values.keys.length
  if (n === 0) return undefined
  const baseline = statistic.point(values.baseline)
  const current = statistic.point(values.current)
  const relative = baseline > 0 ? current / baseline - 1 : null
  const ci = relative !== null && n >= MIN_CASES_FOR_INTERVAL ? pairedBootstrap(values.baseline, values.current, statistic, { seed }) : null
  // the cases that moved the figure up the most, for the gate's sentence
  const rises = values.keys
    .map((key, i) => ({ key, by: values.current[i]! - values.baseline[i]! }))
    .filter((r) => r.by > 0)
    .sort((a, b) => b.by - a.by)
  return { baseline, current, change: relative, ci, cases: n, rose: rises.map((r) => r.key), roseBy: rises.map((r) => r.by) }
}

/** The compared metrics the two runs both carry; null when they carry none. */
export function comparedMetrics(pairs: readonly [CaseResult, CaseResult][]): ComparedMetrics | null {
  const cost = change(paired(pairs, readers.cost), total, 1)
  const tokens = change(paired(pairs, readers.tokens), total, 2)
  const latency = paired(pairs, readers.latency)
  const latencyP50 = change(latency, quantile(0.5), 3)
  const latencyP95 = change(latency, quantile(0.95), 4)
  const metrics: ComparedMetrics = {}
  if (cost) metrics.cost = cost
  if (tokens) metrics.tokens = tokens
  if (latencyP50) metrics.latencyP50 = latencyP50
  if (latencyP95) metrics.latencyP95 = latencyP95
  return Object.keys(metrics).length ? metrics : null
}
