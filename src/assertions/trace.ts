/**
 * promptfoo's trace assertions, on the spans of the trial's trace:
 * `trace-span-count` {pattern, min?, max?}, `trace-span-duration` {pattern?,
 * max (ms), percentile?}, `trace-error-spans` (a number, or {max_count?,
 * max_percentage?, pattern?}). Patterns are promptfoo's globs of span names.
 * With tracing off they are refused at load; a trial none of whose spans
 * arrived fails them, saying so — never a vacuous pass (promptfoo passes
 * `max_count: 0` on an empty trace).
 */
import { durationMs, isErrorSpan, type Span } from '../tracing/spans.js'
import { matchesGlob } from '../util/glob.js'
import { shown } from './outcome.js'
import type { AssertionScope } from '../config/case.js'
import type { AssertionContext, AssertionHandler, CheckOutcome } from './types.js'
import { kindOf } from './values.js'

type Value = Record<string, unknown>

const isRecord = (v: unknown): v is Value => typeof v === 'object' && v !== null && !Array.isArray(v)
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0

/** The trial's spans; none (tracing on, nothing arrived) is a failure not- could not turn into a pass. */
function spansOf(type: string, ctx: AssertionContext): readonly Span[] {
  if (!ctx.trace) throw new Error(`${type} needs tracing: set \`tracing: true\` in the config`)
  if (ctx.trace.spans.length === 0)
    throw new Error(
      `no span of this trial's trace arrived (trace ${ctx.trace.traceId}): is the agent instrumented and exporting to evalgate's receiver, and does it flush before replying?`
    )
  return ctx.trace.spans
}

function keysProblem(type: string, v: Value, known: readonly string[]): string | undefined {
  const unknown = Object.keys(v).find((k) => !known.includes(k))
  return unknown === undefined ? undefined : `${type} \`value\` has an unknown key \`${unknown}\`; it takes ${known.join(', ')}`
}

function tracingProblem(type: string, scope: AssertionScope | undefined): string | undefined {
  if (scope?.turn)
    return `${type} grades a trace, and a conversation is one trace: put it in the case's \`assert\`, which sees the spans of every turn (a turn's checks grade its reply)`
  return scope?.tracing === false
    ? `${type} grades the trial's trace, and tracing is off: set \`tracing: true\` in evalgate.yml (or promptfoo's tracing: {enabled: true, otlp: {http: {enabled: true}}})`
    : undefined
}

const patternProblem = (type: string, p: unknown) =>
  p === undefined || (typeof p === 'string' && p !== '') ? undefined : `${type} \`pattern\` must be a span-name glob such as "tool.*", got ${shown(p)}`

const passing = (holds: boolean, reason: string): CheckOutcome => ({ pass: holds, score: holds ? 1 : 0, reason })

const distinctNames = (spans: readonly Span[], max = 10) => {
  const names = [...new Set(spans.map((s) => s.name))]
  return names.length > max ? `${names.slice(0, max).join(', ')} and ${names.length - max} more` : names.join(', ')
}

const spanCount: AssertionHandler = {
  negatable: false,
  validate(a, scope) {
    const v = a.value
    if (!isRecord(v) || typeof v.pattern !== 'string' || v.pattern === '') return `${a.type} needs a \`value\` {pattern, min?, max?}`
    const problem = keysProblem(a.type, v, ['pattern', 'min', 'max'])
    if (problem) return problem
    for (const key of ['min', 'max'] as const)
      if (v[key] !== undefined && !isCount(v[key])) return `${a.type} \`${key}\` must be a whole number ≥ 0, got ${shown(v[key])}`
    if (v.min === undefined && v.max === undefined) return `${a.type} needs \`min\` or \`max\`: without them every count passes`
    if (isCount(v.min) && isCount(v.max) && v.min > v.max) return `${a.type} has min ${v.min} above max ${v.max}`
    return tracingProblem(a.type, scope)
  },
  run(a, ctx) {
    const spans = spansOf(a.type, ctx)
    const { pattern, min, max } = a.value as { pattern: string; min?: number; max?: number }
    const matching = spans.filter((s) => matchesGlob(s.name, pattern))
    const n = matching.length
    const holds = (min === undefined || n >= min) && (max === undefined || n <= max)
    const range = min !== undefined && max !== undefined ? `${min}-${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`
    const names = n ? `: ${distinctNames(matching)}` : ''
    return passing(holds, `${n} span${n === 1 ? '' : 's'} matching "${pattern}" of ${spans.length}, expected ${range}${names}`)
  }
}

/** promptfoo's percentile: the nearest-rank value (the ⌈p/100·n⌉-th smallest). */
function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!
}

const ms = (n: number) => `${Number(n.toFixed(3))} ms`

const spanDuration: AssertionHandler = {
  negatable: false,
  validate(a, scope) {
    const v = a.value
    if (!isRecord(v) || typeof v.max !== 'number' || !Number.isFinite(v.max) || v.max < 0)
      return `${a.type} needs a \`value\` {max (ms), pattern?, percentile?}, with max a number ≥ 0`
    const problem = keysProblem(a.type, v, ['pattern', 'max', 'percentile']) ?? patternProblem(a.type, v.pattern)
    if (problem) return problem
    if (v.percentile !== undefined && (typeof v.percentile !== 'number' || !(v.percentile > 0 && v.percentile <= 100)))
      return `${a.type} \`percentile\` must be in (0, 100], got ${shown(v.percentile)}`
    return tracingProblem(a.type, scope)
  },
  run(a, ctx) {
    const spans = spansOf(a.type, ctx)
    const { pattern = '*', max, percentile } = a.value as { pattern?: string; max: number; percentile?: number }
    const timed = spans.filter((s) => matchesGlob(s.name, pattern) && s.endNs > 0n && s.startNs > 0n).map((s) => ({ name: s.name, ms: durationMs(s) }))
    // promptfoo: nothing of that name in the trace is nothing too slow
    if (timed.length === 0) return passing(true, `no span matching "${pattern}" (with its start and end) among the trace's ${spans.length}`)
    const slowest = [...timed].sort((x, y) => y.ms - x.ms)
    const top = (list: typeof timed) => list.map((s) => `${s.name} (${ms(s.ms)})`).join(', ')
    if (percentile === undefined) {
      const slow = slowest.filter((s) => s.ms > max)
      return slow.length
        ? passing(false, `${slow.length} of ${timed.length} spans matching "${pattern}" took over ${ms(max)}; slowest: ${top(slow.slice(0, 3))}`)
        : passing(true, `all ${timed.length} spans matching "${pattern}" took at most ${ms(max)} (slowest ${ms(slowest[0]!.ms)})`)
    }
    const value = percentileOf(
      timed.map((s) => s.ms).sort((x, y) => x - y),
      percentile
    )
    return value > max
      ? passing(
          false,
          `the ${percentile}th percentile of ${timed.length} spans matching "${pattern}" is ${ms(value)}, over ${ms(max)}; slowest: ${top(slowest.slice(0, 3))}`
        )
      : passing(true, `the ${percentile}th percentile of ${timed.length} spans matching "${pattern}" is ${ms(value)}, within ${ms(max)}`)
  }
}

const errorSpans: AssertionHandler = {
  negatable: false,
  validate(a, scope) {
    const v = a.value
    if (v !== undefined && !isCount(v) && !isRecord(v))
      return `${a.type} \`value\` is the most error spans allowed (a whole number) or {max_count?, max_percentage?, pattern?}, got ${kindOf(v)}`
    if (isRecord(v)) {
      const problem = keysProblem(a.type, v, ['max_count', 'max_percentage', 'pattern']) ?? patternProblem(a.type, v.pattern)
      if (problem) return problem
      if (v.max_count !== undefined && !isCount(v.max_count)) return `${a.type} \`max_count\` must be a whole number ≥ 0, got ${shown(v.max_count)}`
      if (v.max_percentage !== undefined && (typeof v.max_percentage !== 'number' || v.max_percentage < 0 || v.max_percentage > 100))
        return `${a.type} \`max_percentage\` must be in [0, 100], got ${shown(v.max_percentage)}`
    }
    return tracingProblem(a.type, scope)
  },
  run(a, ctx) {
    const spans = spansOf(a.type, ctx)
    const v = a.value
    const o = isRecord(v) ? (v as { max_count?: number; max_percentage?: number; pattern?: string }) : {}
    const pattern = o.pattern ?? '*'
    // promptfoo: no limit given is none allowed
    const maxCount = typeof v === 'number' ? v : o.max_count === undefined && o.max_percentage === undefined ? 0 : o.max_count
    const matching = spans.filter((s) => matchesGlob(s.name, pattern))
    if (matching.length === 0) return passing(true, `no span matching "${pattern}" among the trace's ${spans.length}`)
    const errors = matching.filter(isErrorSpan)
    const share = (errors.length / matching.length) * 100
    const detail = () =>
      errors
        .slice(0, 3)
        .map((s) => `${s.name}${s.statusMessage ? ` (${s.statusMessage})` : ''}`)
        .join(', ') + (errors.length > 3 ? ` and ${errors.length - 3} more` : '')
    if (maxCount !== undefined && errors.length > maxCount)
      return passing(
        false,
        `${errors.length} error span${errors.length === 1 ? '' : 's'} of ${matching.length} matching "${pattern}", allowed ${maxCount}: ${detail()}`
      )
    if (o.max_percentage !== undefined && share > o.max_percentage)
      return passing(false, `error spans are ${share.toFixed(1)}% of ${matching.length} matching "${pattern}", allowed ${o.max_percentage}%: ${detail()}`)
    return passing(
      true,
      errors.length
        ? `${errors.length} error span(s) of ${matching.length} matching "${pattern}", within the limit: ${detail()}`
        : `no error span among ${matching.length} matching "${pattern}"`
    )
  }
}

export const traceAssertions: Record<string, AssertionHandler> = {
  'trace-span-count': spanCount,
  'trace-span-duration': spanDuration,
  'trace-error-spans': errorSpans
}
