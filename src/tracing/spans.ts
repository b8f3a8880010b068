/**
 * Spans as evalgate reads them, and what a trial's spans say about the agent
 * — pure functions of the spans, whatever they came in as (OTLP
 * JSON or protobuf: decode.ts).
 *
 * Tool calls: GenAI semantic conventions' `execute_tool` spans and
 * OpenInference `TOOL` spans. Usage and model: LLM spans — GenAI
 * `gen_ai.usage.*` or OpenInference `llm.token_count.*` — counted where they
 * are innermost, so that a framework that also sums its model calls on an
 * enclosing span (an agent or chain span) is not counted twice.
 */
import type { ToolCall, Usage } from '../types.js'

/** An attribute's value: OTLP's AnyValue as plain JSON (int64 beyond 2^53 as its decimal text). */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue }

export interface Span {
  /** lower-case hex, 32 digits */
  traceId: string
  /** lower-case hex, 16 digits */
  spanId: string
  parentSpanId?: string
  name: string
  /** unix time in nanoseconds, as integers (they exceed 2^53) */
  startNs: bigint
  endNs: bigint
  attributes: Record<string, AttributeValue>
  /** 0 unset, 1 ok, 2 error (OTLP's StatusCode) */
  statusCode: number
  statusMessage?: string
  /** the resource's `evalgate.trial`, which ties a process's spans to its trial whatever trace they are in */
  trial?: string
}

/** What the spans of a trial tell of the agent, in the shape of a result object. */
export interface AgentFromSpans {
  toolCalls: ToolCall[]
  usage?: Usage
  /** the model the LLM spans name (the one with the most tokens, when several do) */
  model?: string
}

/**
 * Spans in start-time order; ties in arrival order, which is the order they
 * ended (SDKs queue a span for export when it ends). Not by end time: the JS
 * SDK stamps starts to the millisecond and ends as start plus a precise
 * duration, so two quick tool calls in one millisecond would sort by their
 * durations.
 */
export function inStartOrder(spans: readonly Span[]): Span[] {
  return spans
    .map((span, i) => ({ span, i }))
    .sort((a, b) => compare(a.span.startNs, b.span.startNs) || a.i - b.i)
    .map(({ span }) => span)
}

const compare = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)

/** JSON text as its value; anything else (already structured, or text that is no JSON) as it is. */
function structured(value: AttributeValue | undefined): unknown {
  if (typeof value !== 'string') return value
  const text = value.trim()
  if (text === '' || !/^[[{"]/.test(text)) return value
  try {
    return JSON.parse(text) as unknown
  } catch {
    return value
  }
}

const text = (value: AttributeValue | undefined): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined)

/** A tool call, when the span is one: GenAI `execute_tool`, or OpenInference `TOOL`. */
export function toolCallOf(span: Span): ToolCall | undefined {
  const a = span.attributes
  let name: string | undefined
  let args: unknown
  let result: unknown
  if (a['gen_ai.operation.name'] === 'execute_tool') {
    // the conventions name the span "execute_tool {gen_ai.tool.name}"
    name = text(a['gen_ai.tool.name']) ?? text(span.name.replace(/^execute_tool\s*/, ''))
    args = structured(a['gen_ai.tool.call.arguments'])
    result = structured(a['gen_ai.tool.call.result'])
  } else if (a['openinference.span.kind'] === 'TOOL') {
    name = text(a['tool.name']) ?? text(span.name)
    args = structured(a['input.value'] ?? a['tool.parameters'])
    result = structured(a['output.value'])
  } else return undefined
  if (name === undefined) return undefined
  const call: ToolCall = { name, args: args ?? {} }
  if (result !== undefined) call.result = result
  return call
}

interface LlmUsage {
  input?: number
  output?: number
  model?: string
}

const count = (value: AttributeValue | undefined): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined
}

/** The tokens an LLM span reports (GenAI or OpenInference), or undefined for any other span. */
export function llmUsageOf(span: Span): LlmUsage | undefined {
  const a = span.attributes
  const operation = a['gen_ai.operation.name']
  // an agent's or a tool's span may sum what ran inside it: only model calls are read
  if (operation !== 'execute_tool' && operation !== 'invoke_agent' && operation !== 'create_agent') {
    const input = count(a['gen_ai.usage.input_tokens'])
    const output = count(a['gen_ai.usage.output_tokens'])
    if (input !== undefined || output !== undefined) return { input, output, model: text(a['gen_ai.response.model']) ?? text(a['gen_ai.request.model']) }
  }
  if (a['openinference.span.kind'] === 'LLM') {
    const input = count(a['llm.token_count.prompt'])
    const output = count(a['llm.token_count.completion'])
    if (input !== undefined || output !== undefined) return { input, output, model: text(a['llm.model_name']) }
  }
  return undefined
}

/**
 * Tool calls and usage from a trial's spans. Usage sums the innermost LLM
 * spans: a span that reports tokens and encloses another that does is a sum
 * the framework made, already counted below it.
 */
export function agentFromSpans(spans: readonly Span[]): AgentFromSpans {
  const ordered = inStartOrder(spans)
  const toolCalls: ToolCall[] = []
  const usages = new Map<string, LlmUsage>()
  for (const span of ordered) {
    const call = toolCallOf(span)
    if (call) toolCalls.push(call)
    const usage = llmUsageOf(span)
    if (usage) usages.set(span.spanId, usage)
  }
  const out: AgentFromSpans = { toolCalls }
  if (usages.size === 0) return out
  const parents = new Map(spans.map((s) => [s.spanId, s.parentSpanId]))
  const enclosing = new Set<string>()
  for (const id of usages.keys()) {
    // walk up once per usage span; a cycle (a malformed trace) stops at a span seen before
    const seen = new Set<string>([id])
    for (let up = parents.get(id); up !== undefined && !seen.has(up); up = parents.get(up)) {
      seen.add(up)
      if (usages.has(up)) enclosing.add(up)
    }
  }
  let input = 0
  let output = 0
  let reported = false
  const byModel = new Map<string, number>()
  for (const [id, u] of usages) {
    if (enclosing.has(id)) continue
    reported = true
    input += u.input ?? 0
    output += u.output ?? 0
    if (u.model) byModel.set(u.model, (byModel.get(u.model) ?? 0) + (u.input ?? 0) + (u.output ?? 0))
  }
  if (reported) out.usage = { inputTokens: input, outputTokens: output, totalTokens: input + output }
  let most = -1
  for (const [model, tokens] of byModel) {
    if (tokens > most) {
      out.model = model
      most = tokens
    }
  }
  return out
}

const ERROR_WORDS = /error|failed|failure|exception|timeout|abort/i

/**
 * promptfoo's reading of an error span: status ERROR (or a status code ≥ 400),
 * `error`/`exception`/`failed`/`failure` set true (or to an object),
 * `http.status_code` ≥ 400, `otel.status_code`/`status.code` ERROR, or a
 * status message that speaks of an error, a failure, an exception, a timeout
 * or an abort.
 */
export function isErrorSpan(span: Span): boolean {
  if (span.statusCode === 2 || span.statusCode >= 400) return true
  const a = span.attributes
  for (const key of ['error', 'exception', 'failed', 'failure']) {
    const v = a[key]
    if (v === true || v === 'true' || (typeof v === 'object' && v !== null)) return true
  }
  const http = a['http.status_code']
  if (http !== undefined && http !== null && Number(http) >= 400) return true
  if (a['otel.status_code'] === 'ERROR' || a['status.code'] === 'ERROR') return true
  return span.statusMessage !== undefined && ERROR_WORDS.test(span.statusMessage)
}

/** A span's duration in milliseconds, from its integer nanoseconds (an end before its start is 0). */
export function durationMs(span: Span): number {
  const ns = span.endNs - span.startNs
  return ns > 0n ? Number(ns) / 1e6 : 0
}
