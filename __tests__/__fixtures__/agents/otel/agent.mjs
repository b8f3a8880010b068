/**
 * A support agent instrumented with the real OpenTelemetry JS SDK, as a team's
 * agent would be: it reports nothing but its answer, and its tool calls, model
 * and tokens only as spans. OTEL_EXPORTER_OTLP_PROTOCOL picks the exporter
 * (http/json or http/protobuf: the two OTLP/HTTP exporters), AGENT_CONVENTIONS
 * the attributes (genai: OpenTelemetry's GenAI conventions; openinference:
 * Arize's). The exporter finds evalgate's receiver in the OTEL_* variables.
 *
 * "refund A18" → lookup_order {order_id: A18}, then refund {order_id, amount};
 * "status B7"  → lookup_order {order_id: B7};
 * "fail"       → a tool span with status ERROR; anything else: no tool.
 */
import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'

const propagator = new W3CTraceContextPropagator()

/** A provider exporting its spans in batches (the SDK's default; flushed before replying): to `url`, else to the OTLP endpoint in the environment. */
export function makeProvider({ url, protocol = process.env.OTEL_EXPORTER_OTLP_PROTOCOL } = {}) {
  // the SDK switched off (OTEL_SDK_DISABLED, as the SDKs read it): spans are made and go nowhere
  if (process.env.OTEL_SDK_DISABLED === 'true') return new BasicTracerProvider()
  const options = url ? { url } : {}
  const exporter = protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options)
  const resource = resourceFromAttributes({ 'service.name': 'support-agent' }).merge(detectResources({ detectors: [envDetector] }))
  return new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] })
}

/** The context a W3C traceparent continues (none: a trace of the agent's own). */
export function parentContext(traceparent) {
  if (!traceparent) return ROOT_CONTEXT
  return propagator.extract(ROOT_CONTEXT, { traceparent }, { get: (carrier, key) => carrier[key], keys: (carrier) => Object.keys(carrier) })
}

const conventions = () => process.env.AGENT_CONVENTIONS ?? 'genai'

function llmAttributes(input, output, model) {
  if (conventions() === 'openinference')
    return { 'openinference.span.kind': 'LLM', 'llm.model_name': model, 'llm.token_count.prompt': input, 'llm.token_count.completion': output }
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': model,
    'gen_ai.response.model': model,
    'gen_ai.usage.input_tokens': input,
    'gen_ai.usage.output_tokens': output
  }
}

function toolAttributes(name, args, result) {
  if (conventions() === 'openinference')
    return { 'openinference.span.kind': 'TOOL', 'tool.name': name, 'input.value': JSON.stringify(args), 'output.value': JSON.stringify(result) }
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.arguments': JSON.stringify(args),
    'gen_ai.tool.call.result': JSON.stringify(result)
  }
}

/** One span, its children inside it (their start times after its own), ended after them. */
async function inSpan(tracer, parent, name, attributes, body) {
  const span = tracer.startSpan(name, { attributes }, parent)
  try {
    return await body(trace.setSpan(parent, span), span)
  } finally {
    span.end()
  }
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 2))

/** Answers `input` in the trace continued from `parent`; the spans are exported as they end. */
export async function act(tracer, parent, input) {
  const text = String(input)
  const model = process.env.AGENT_MODEL ?? 'support-mini'
  return inSpan(tracer, parent, 'invoke_agent support', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' }, async (root) => {
    await inSpan(tracer, root, `chat ${model}`, llmAttributes(120, 12, model), pause)
    const tool = (name, args, result) => inSpan(tracer, root, `execute_tool ${name}`, toolAttributes(name, args, result), pause)
    let answer = 'I can help with orders.'
    const order = /\b([A-Z]\d+)\b/.exec(text)?.[1]
    if (/refund/i.test(text) && order) {
      await tool('lookup_order', { order_id: order }, { status: 'delivered' })
      await tool('refund', { order_id: order, amount: 20.5 }, { ok: true })
      answer = `Refund of $20.50 issued for ${order}.`
    } else if (/status/i.test(text) && order) {
      await tool('lookup_order', { order_id: order }, { status: 'shipped' })
      answer = `Order ${order} has shipped.`
    } else if (/fail/i.test(text)) {
      await inSpan(tracer, root, 'execute_tool lookup_order', toolAttributes('lookup_order', { order_id: '?' }, null), async (_ctx, span) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'lookup failed: order service timeout' })
      })
      answer = 'Sorry, I could not look that up.'
    }
    await inSpan(tracer, root, `chat ${model}`, llmAttributes(200, 30, model), pause)
    return answer
  })
}

export { context }
