/**
 * The agent parts of the report, pure and shared by the comment,
 * the job summary and `--report`: the figures-table rows of cost, tokens and
 * latency, and a regressed case's two trajectories side by side.
 */
import { formatMetric, plural, signedPercent } from './format.js'
import { INTERVAL_MIN_CASES, roseFromZero } from '../compare/metrics.js'
import type { Comparison, MetricChange, MetricLimit } from '../compare/types.js'
import type { GateConfig } from '../config/schema.js'
import type { CaseResult, ToolCall } from '../types.js'
import { escapeInline } from './escape.js'

/** Steps of a trajectory shown; the record has them all. */
const STEPS_SHOWN = 20
const ARGS_CHARS = 80

/**
 * The figures-table rows and the limit that gates each. Latency is shown only
 * where a limit gates it: on a deterministic agent it moves with the machine's
 * load, and an ungated "+46%" reads as a finding.
 */
const ROWS: {
  key: keyof NonNullable<Comparison['metrics']>
  label: string
  kind: 'cost' | 'tokens' | 'latency'
  limit: MetricLimit
  /** shown only when the limit is set */
  gatedOnly: boolean
  /** the limit holds this very figure (maxLatencyIncrease holds the p95, not the p50): only it gets an interval */
  held: boolean
}[] = [
  { key: 'cost', label: 'cost (total)', kind: 'cost', limit: 'maxCostIncrease', gatedOnly: false, held: true },
  { key: 'tokens', label: 'tokens (total)', kind: 'tokens', limit: 'maxTokensIncrease', gatedOnly: false, held: true },
  { key: 'latencyP50', label: 'latency p50', kind: 'latency', limit: 'maxLatencyIncrease', gatedOnly: true, held: false },
  { key: 'latencyP95', label: 'latency p95', kind: 'latency', limit: 'maxLatencyIncrease', gatedOnly: true, held: true }
]

/** The change, with its interval where a limit gates the figure (and why there is none, when there is not). */
function changeCell(m: MetricChange, key: keyof typeof INTERVAL_MIN_CASES, gated: boolean): string {
  if (m.change === null) return roseFromZero(m) ? 'rose from zero' : '—'
  if (!gated) return signedPercent(m.change)
  const fewest = INTERVAL_MIN_CASES[key]
  if (m.ci) return `${signedPercent(m.change)} (95% CI ${signedPercent(m.ci[0])} to ${signedPercent(m.ci[1])})`
  // say why there is none: a bare figure would read as certain
  return m.cases < fewest ? `${signedPercent(m.change)} (no interval under ${plural(fewest, 'case')})` : signedPercent(m.change)
}

/**
 * Rows [label, baseline, current, change] of the figures table for the
 * metrics both runs carry, over the compared cases; none without them.
 */
export function metricRows(c: Pick<Comparison, 'metrics'>, gate: Pick<GateConfig, MetricLimit>): string[][] {
  const metrics = c.metrics
  if (!metrics) return []
  return ROWS.flatMap(({ key, label, kind, limit, gatedOnly, held }) => {
    const m = metrics[key]
    const gated = gate[limit] !== undefined
    if (!m || (gatedOnly && !gated)) return []
    return [[`${label}, ${plural(m.cases, 'case')}`, formatMetric(kind, m.baseline), formatMetric(kind, m.current), changeCell(m, key, gated && held)]]
  })
}

function stepText(call: ToolCall | undefined): string {
  if (!call) return '—'
  const args = JSON.stringify(call.args ?? {}) ?? ''
  return `${call.name} ${args.length > ARGS_CHARS ? `${args.slice(0, ARGS_CHARS)}…` : args}`
}

function sameStep(a: ToolCall | undefined, b: ToolCall | undefined): boolean {
  return a !== undefined && b !== undefined && a.name === b.name && JSON.stringify(a.args) === JSON.stringify(b.args)
}

/** The first step at which two trajectories differ (by tool or arguments), or -1. */
export function firstDifferingStep(before: readonly ToolCall[], now: readonly ToolCall[]): number {
  const n = Math.max(before.length, now.length)
  for (let i = 0; i < n; i++) if (!sameStep(before[i], now[i])) return i
  return -1
}

/**
 * The run whose target reported no tool calls at all for a case the other run
 * has tool calls for; undefined when both did, or the baseline lacks the case.
 * Not reported is not "called none" (assertions/trajectory.ts): no step is
 * marked as differing from it.
 */
export function unreportedSide(before: CaseResult | undefined, now: CaseResult): 'baseline' | 'current' | undefined {
  if (!now.toolCalls) return 'current'
  return before && !before.toolCalls ? 'baseline' : undefined
}

/**
 * Both runs' tool calls of a case as a markdown table, the first differing
 * step marked; null when neither run recorded tool calls.
 */
export function trajectoryDiff(before: CaseResult | undefined, now: CaseResult): string | null {
  if (!before?.toolCalls && !now.toolCalls) return null
  const a = before?.toolCalls ?? []
  const b = now.toolCalls ?? []
  const side = unreportedSide(before, now)
  const unreported = side === 'current' ? 'not reported in this run' : side === 'baseline' ? 'not reported in the baseline' : null
  const first = unreported ? -1 : firstDifferingStep(a, b)
  const steps = Math.max(a.length, b.length)
  const rows = Array.from({ length: Math.min(steps, STEPS_SHOWN) }, (_, i) => {
    const mark = i === first ? ' ⬅ first difference' : ''
    const cell = (call: ToolCall | undefined) => (i === first ? `**${escapeInline(stepText(call), 200)}**` : escapeInline(stepText(call), 200))
    return `| ${i + 1}${mark} | ${cell(a[i])} | ${cell(b[i])} |`
  })
  if (steps > STEPS_SHOWN) rows.push(`| … | ${steps - STEPS_SHOWN} more steps in the record | |`)
  const heading = unreported
    ? `**Tool calls** (${unreported})`
    : first === -1
      ? '**Tool calls** (the same in both runs)'
      : `**Tool calls** (first difference at step ${first + 1})`
  if (steps === 0) return `${heading}: none in either run`
  return [heading, '', '| step | baseline | current |', '|:--|:--|:--|', ...rows].join('\n')
}
