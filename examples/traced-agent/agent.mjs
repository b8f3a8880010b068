#!/usr/bin/env node
// A support agent instrumented with OpenTelemetry, as a team's agent would be:
// it prints only its answer. What it did — the model calls and their tokens,
// the tool calls and their arguments — it reports as spans (the GenAI semantic
// conventions), exported over OTLP/HTTP to wherever OTEL_EXPORTER_OTLP_ENDPOINT
// points: evalgate's receiver when evalgate runs it with `tracing: true`.
// Nothing in it knows about evalgate. Deterministic: the "model" is a few rules.
//
// AGENT_VERSION=1 is the released agent. AGENT_VERSION=2 is a pull request that
// refunds late orders on its own (a forbidden call when the customer only asked
// where the order is) and sends the model the whole order history (more tokens).
import { SpanStatusCode, trace, ROOT_CONTEXT } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'

const ORDERS = {
  A18: { status: 'delivered', total: 20.5, item: 'kettle', damaged: true },
  B7: { status: 'shipped', item: 'boots', eta: '2026-12-04', late: true },
  E5: { status: 'shipped', item: 'scarf', eta: '2026-12-02' }
}
const version = process.env.AGENT_VERSION ?? '1'
const model = 'support-mini'

// the exporter reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, the resource OTEL_RESOURCE_ATTRIBUTES
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'support-agent' }).merge(detectResources({ detectors: [envDetector] })),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())]
})
const tracer = provider.getTracer('support-agent')

/** A span around `body`, a child of `parent`. */
async function span(parent, name, attributes, body = async () => {}) {
  const s = tracer.startSpan(name, { attributes }, parent)
  try {
    return await body(trace.setSpan(parent, s), s)
  } finally {
    s.end()
  }
}

const chat = (ctx, inputTokens, outputTokens) =>
  span(ctx, `chat ${model}`, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': model,
    'gen_ai.response.model': model,
    'gen_ai.usage.input_tokens': inputTokens,
    'gen_ai.usage.output_tokens': outputTokens
  })

function tool(ctx, name, args, run) {
  return span(ctx, `execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': JSON.stringify(args) }, async (_c, s) => {
    const result = run(args)
    s.setAttribute('gen_ai.tool.call.result', JSON.stringify(result))
    if (result.error) s.setStatus({ code: SpanStatusCode.ERROR, message: result.error })
    return result
  })
}

const lookup = (ctx, id) => tool(ctx, 'lookup_order', { order_id: id }, ({ order_id }) => (ORDERS[order_id] ? { order_id, ...ORDERS[order_id] } : { error: `no order ${order_id}` }))
const refund = (ctx, id, amount) =>
  tool(ctx, 'refund', { order_id: id, amount }, ({ order_id }) =>
    ORDERS[order_id].status === 'delivered' ? { refunded: amount } : { error: `refund refused: order ${order_id} is not delivered yet` }
  )

async function answer(ctx, message) {
  // v2 sends the model the customer's whole order history: more input tokens on every call
  const prompt = version === '2' ? 900 : 300
  await chat(ctx, prompt, 20)
  const id = /\b([A-Z]\d+)\b/.exec(message)?.[1]
  if (!id) {
    await chat(ctx, prompt, 40)
    return 'Items can be returned within 30 days of delivery for a full refund.'
  }
  const order = await lookup(ctx, id)
  if (order.error) {
    await chat(ctx, prompt + 50, 25)
    return `I could not find order ${id}. Could you check the number?`
  }
  if (/refund/i.test(message) && order.damaged) {
    await refund(ctx, id, order.total)
    await chat(ctx, prompt + 80, 30)
    return `Refund of $${order.total.toFixed(2)} issued for ${id}.`
  }
  if (version === '2' && order.late) {
    // the pull request's regression: a refund nobody asked for
    await refund(ctx, id, 10)
  }
  await chat(ctx, prompt + 60, 30)
  return `Order ${id} (${order.item}) is ${order.status}${order.eta ? `, arriving ${order.eta}` : ''}.`
}

let message = ''
for await (const chunk of process.stdin) message += chunk
const output = await span(ROOT_CONTEXT, 'invoke_agent support', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' }, (ctx) =>
  answer(ctx, message.trim())
)
// the batch processor exports every 5 s: flush before exiting, as any short-lived process must
await provider.shutdown()
process.stdout.write(`${output}\n`)
