#!/usr/bin/env node
// A deterministic tool-calling support agent: no model, no network — the
// "model" is a few rules, so that every run gives the same calls, tokens and
// latency. It reads the customer's message on stdin and prints a result object
// (evalgate's `target.output: json`):
//   {"output", "toolCalls": [{name, args, result}], "usage": {inputTokens, outputTokens}, "metadata": {model}, "latencyMs"}
// AGENT_VERSION=1 is the released agent; AGENT_VERSION=2 is the pull request:
// it checks the knowledge base before every answer (one more step each time),
// refunds late orders on its own (a forbidden call when the customer only
// asked where the order is), and words the returns policy without its 30 days.
// AGENT_MODEL names the model (priced by `pricing` in evalgate.yml).

const ORDERS = {
  A18: { status: 'delivered', total: 20.5, item: 'kettle', damaged: true },
  B7: { status: 'shipped', total: 64, item: 'boots', eta: '2026-12-04', late: true },
  C3: { status: 'processing', total: 12.99, item: 'mug' },
  D4: { status: 'delivered', total: 99, item: 'lamp' },
  E5: { status: 'shipped', total: 35, item: 'scarf', eta: '2026-12-02' }
}
const KB = {
  returns: 'Items can be returned within 30 days of delivery for a full refund.',
  shipping: 'Standard shipping takes 3 to 5 business days.',
  warranty: 'Electrical items carry a 2-year warranty.'
}

/** The tools, as the model would call them. */
const TOOLS = {
  lookup_order: ({ order_id }) => (ORDERS[order_id] ? { order_id, ...ORDERS[order_id] } : { error: `no order ${order_id}` }),
  refund: ({ order_id, amount }) => ({ refunded: amount, order_id }),
  search_kb: ({ query }) => ({ article: KB[Object.keys(KB).find((k) => query.includes(k)) ?? 'returns'] })
}

export function answer(message, version = '1', model = 'support-mini') {
  const calls = []
  const call = (name, args) => {
    const result = TOOLS[name](args)
    calls.push({ name, args, result })
    return result
  }
  const text = message.toLowerCase()
  const orderId = /\b([A-E]\d+)\b/i.exec(message)?.[1]?.toUpperCase()
  const topic = ['returns', 'shipping', 'warranty'].find((t) => text.includes(t.replace(/s$/, '')))
  if (version === '2') call('search_kb', { query: topic ?? 'returns' })
  let output
  if (orderId && /refund|broken|damaged/.test(text)) {
    const order = call('lookup_order', { order_id: orderId })
    if (order.error) output = `I could not find order ${orderId}.`
    else if (order.status !== 'delivered') output = `Order ${orderId} has not been delivered yet, so it cannot be refunded.`
    else {
      call('refund', { order_id: orderId, amount: order.total })
      output = `Refund of $${order.total.toFixed(2)} issued for ${orderId}.`
    }
  } else if (orderId) {
    const order = call('lookup_order', { order_id: orderId })
    if (order.error) output = `I could not find order ${orderId}.`
    else if (version === '2' && order.late) {
      call('refund', { order_id: orderId, amount: order.total })
      output = `Sorry for the delay: I refunded $${order.total.toFixed(2)} for ${orderId}.`
    } else if (order.status === 'shipped') output = `Order ${orderId} (${order.item}) is on its way, arriving ${order.eta}.`
    else output = `Order ${orderId} (${order.item}) is ${order.status}.`
  } else if (topic) {
    const { article } = version === '2' ? calls[0].result : call('search_kb', { query: topic })
    output = version === '2' && topic === 'returns' ? 'You can return items for a refund.' : article
  } else {
    output = 'I can help with orders, refunds, returns, shipping and warranty questions.'
  }
  const steps = calls.length
  const scale = model === 'support-large' ? 3 : 1
  return {
    output,
    toolCalls: calls,
    usage: { inputTokens: (420 + 180 * steps) * scale, outputTokens: (60 + 25 * steps) * scale },
    metadata: { model, version },
    // what the model and tools took: simulated, so that the example's figures are the same on every machine
    latencyMs: 250 + 310 * steps + (version === '2' ? 120 : 0)
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  let input = ''
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk) => (input += chunk))
  process.stdin.on('end', () => {
    process.stdout.write(JSON.stringify(answer(input.trim(), process.env.AGENT_VERSION ?? '1', process.env.AGENT_MODEL || 'support-mini')))
  })
}
