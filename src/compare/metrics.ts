/**
 * Compared agent metrics: total cost, total tokens and latency
 * p50/p95 over the compared cases (same key, same fingerprint), each with its
 * relative change and a paired 95% bootstrap interval of that change.
 * Pure: case pairs in, figures out.
 */
import type { CaseResult } from '../types.js'
import { ascendingOrder, pairedBootstraps, quantileOfSorted, type PairedStatistic } from './stats.js'
import type { ComparedMetrics, MetricChange, UnreportedMetric } from './types.js'

/** Fewer compared cases than this get no interval: it would say nothing. */
export const MIN_CASES_FOR_INTERVAL = 5

/**
 * The fewest compared cases that give a metric an interval. The p95 needs 20,
 * the fewest at which its nearest rank is not the largest value: the bootstrap
 * of a maximum cannot reach above it, and on simulated runs (interval-coverage
 * tests) its interval covered the true change in 79% of datasets at 10 cases,
 * against 94% at 20.
 */
export const INTERVAL_MIN_CASES = {
  cost: MIN_CASES_FOR_INTERVAL,
  tokens: MIN_CASES_FOR_INTERVAL,
  latencyP50: MIN_CASES_FOR_INTERVAL,
  latencyP95: Math.max(MIN_CASES_FOR_INTERVAL, Math.ceil(1 / (1 - 0.95)))
} as const satisfies Record<keyof ComparedMetrics, number>

/** Cases kept per metric, largest rise first: the gate names three; a list of every case would grow `--json` with the dataset. */
const RISES_KEPT = 10

type Read = (c: CaseResult) => number | undefined

/** One metric's values on the pairs where both runs have it. */
interface Paired {
  keys: string[]
  baseline: number[]
  current: number[]
}

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
function paired(pairs: readonly [CaseResult, CaseResult][], read: Read): Paired {
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
  ordered: false,
  point: (values) => values.reduce((a, b) => a + b, 0),
  weighted: (values, counts) => {
    let sum = 0
    for (let i = 0; i < values.length; i++) sum += values[i]! * counts[i]!
    return sum
  }
}

/** The p-quantile by nearest rank; `point` is given the values' ascending order when it is known. */
function quantile(p: number): PairedStatistic {
  return {
    ordered: true,
    point: (values, order = ascendingOrder(values)) => values[order[Math.max(0, Math.ceil(p * values.length) - 1)]!]!,
    // a bootstrap resample draws as many cases as there are
    weighted: (values, counts, order) => quantileOfSorted(values, p, counts, order, values.length)
  }
}

/** The cases that rose most (at most RISES_KEPT, ties in case order, as a stable sort gives them) and how many rose. */
function largestRises(values: Paired): { rose: string[]; roseBy: number[]; rises: number } {
  const top: { key: string; by: number }[] = []
  let rises = 0
  for (let i = 0; i < values.keys.length; i++) {
    const by = values.current[i]! - values.baseline[i]!
    if (!(by > 0)) continue
    rises++
    // a rise not above the smallest kept one would go in last and out again at once: skip its copy
    if (top.length === RISES_KEPT && by <= top[top.length - 1]!.by) continue
    let at = top.length
    while (at > 0 && top[at - 1]!.by < by) at--
    top.splice(at, 0, { key: values.keys[i]!, by })
    if (top.length > RISES_KEPT) top.pop()
  }
  return { rose: top.map((r) => r.key), roseBy: top.map((r) => r.by), rises }
}

/**
 * The change of each statistic of one metric's values; the statistics with an
 * interval share its resamples (p50 and p95 of latency: one set of draws).
 */
function changes(values: Paired, measured: readonly { statistic: PairedStatistic; minCases: number }[], seed: number): (MetricChange | undefined)[] {
  const n = values.keys.length
  if (n === 0) return measured.map(() => undefined)
  // sorted once for all the order statistics (p50 and p95 of latency)
  const orders = measured.some((m) => m.statistic.ordered) ? { baseline: ascendingOrder(values.baseline), current: ascendingOrder(values.current) } : undefined
  const figures = measured.map(({ statistic, minCases }) => {
    const baseline = statistic.point(values.baseline, orders?.baseline)
    const current = statistic.point(values.current, orders?.current)
    return { statistic, minCases, baseline, current, relative: baseline > 0 ? current / baseline - 1 : null }
  })
  const intervalled = figures.filter((f) => f.relative !== null && n >= f.minCases)
  const intervals = pairedBootstraps(
    values.baseline,
    values.current,
    intervalled.map((f) => f.statistic),
    { seed, orders }
  )
  // the cases that moved the figure up the most, for the gate's sentence
  const rises = largestRises(values)
  return figures.map((f) => {
    const at = intervalled.indexOf(f)
    return { baseline: f.baseline, current: f.current, change: f.relative, ci: at >= 0 ? intervals[at]! : null, cases: n, ...rises }
  })
}

/** A figure that went up from a baseline of zero: it has no relative change, and any relative limit is under it. */
export function roseFromZero(m: MetricChange): boolean {
  return m.change === null && m.baseline === 0 && m.current > 0
}

/** The compared metrics the two runs both carry; null when they carry none. */
export function comparedMetrics(pairs: readonly [CaseResult, CaseResult][]): ComparedMetrics | null {
  const [cost] = changes(paired(pairs, readers.cost), [{ statistic: total, minCases: INTERVAL_MIN_CASES.cost }], 1)
  const [tokens] = changes(paired(pairs, readers.tokens), [{ statistic: total, minCases: INTERVAL_MIN_CASES.tokens }], 2)
  const [latencyP50, latencyP95] = changes(
    paired(pairs, readers.latency),
    [
      { statistic: quantile(0.5), minCases: INTERVAL_MIN_CASES.latencyP50 },
      { statistic: quantile(0.95), minCases: INTERVAL_MIN_CASES.latencyP95 }
    ],
    3
  )
  const metrics: ComparedMetrics = {}
  if (cost) metrics.cost = cost
  if (tokens) metrics.tokens = tokens
  if (latencyP50) metrics.latencyP50 = latencyP50
  if (latencyP95) metrics.latencyP95 = latencyP95
  return Object.keys(metrics).length ? metrics : null
}

/** Keys of unreported cases kept: the gate names three, as for rises. */
const UNREPORTED_KEPT = 10

/**
 * Cost and tokens the baseline reports on compared cases and this run does
 * not, though the target answered: such cases would silently leave the
 * comparison (and with all of them, the metric), so the gate's limit on it
 * fails instead (gate.ts). Latency is measured by evalgate on every trial and
 * cannot go missing.
 */
export function unreportedMetrics(pairs: readonly [CaseResult, CaseResult][]): UnreportedMetric[] {
  const found: UnreportedMetric[] = []
  for (const metric of ['cost', 'tokens'] as const) {
    const read = readers[metric]
    let cases = 0
    const keys: string[] = []
    for (const [b, c] of pairs) {
      // a case whose target failed has no reply to report anything in: it fails on its own
      if (c.error !== null || read(b) === undefined || read(c) !== undefined) continue
      cases++
      if (keys.length < UNREPORTED_KEPT) keys.push(c.id)
    }
    if (cases > 0) found.push({ metric, cases, keys })
  }
  return found
}

/** A run's own cost, token and latency figures, over every case that reports them (the trend of runs). */
export interface RunMetrics {
  /** total target cost (USD); null when no case reports one */
  cost: number | null
  /** total target tokens; null when no case reports any */
  tokens: number | null
  /** p95 of the cases' latency (ms), nearest rank; null when no case has one */
  latencyP95: number | null
}

export function runMetrics(cases: readonly CaseResult[]): RunMetrics {
  const values = (read: Read) => cases.map(read).filter((v): v is number => v !== undefined && Number.isFinite(v))
  const sum = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) : null)
  const latencies = values(readers.latency)
  return {
    cost: sum(values(readers.cost)),
    tokens: sum(values(readers.tokens)),
    latencyP95: latencies.length ? quantile(0.95).point(latencies) : null
  }
}
