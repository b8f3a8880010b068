// A refund bot for evalgate's conversation example: a long-lived jsonl worker
// (`target.protocol: jsonl`) that keeps each conversation's state under its
// `conversationId`. Deterministic, no model behind it, so the example runs
// anywhere. BOT_VERSION=1 is the released bot; BOT_VERSION=2 is the pull
// request: it drops the conversation's order number at the third turn (a
// history window cut too short), and asks for it again.
//
//   stdin,  one request per line: {"id", "input", "case", "messages", "conversationId"}
//   stdout, one reply per line:   {"id", "output", "toolCalls"}
import readline from 'node:readline'

const ORDERS = {
  A18: { item: 'wireless mouse', amount: 20.5, status: 'delivered' },
  B7: { item: 'desk lamp', amount: 34, status: 'delivered' },
  C3: { item: 'USB cable', amount: 8.99, status: 'in transit' }
}
const VERSION = process.env.BOT_VERSION ?? '1'
/** conversationId → what the bot remembers of that conversation */
const sessions = new Map()

const money = (n) => `$${n.toFixed(2)}`

function answer(text, state) {
  state.turn++
  // version 2's bug: from the third turn on, the order number is gone from its memory
  if (VERSION === '2' && state.turn === 3) state.order = undefined
  const calls = []
  const said = /\b([A-Z]\d{1,3})\b/.exec(text)?.[1]
  if (said) {
    calls.push({ name: 'lookup_order', args: { order_id: said } })
    const order = ORDERS[said]
    if (!order) return { output: `I can't find an order ${said}. Could you check the order number?`, toolCalls: calls }
    state.order = said
    const line = `Order ${said}: ${order.item}, ${money(order.amount)}, ${order.status}.`
    if (state.wantsRefund) return { output: `${line} Would you like me to refund it?`, toolCalls: calls }
    return { output: `${line} How can I help with it?`, toolCalls: calls }
  }
  const lower = text.toLowerCase()
  if (/order number|which order/.test(lower) && /\?/.test(text)) {
    return { output: state.order ? `Your order number is ${state.order}.` : 'I do not have an order number yet. What is it?', toolCalls: calls }
  }
  if (/refund/.test(lower) && !/yes|please refund|refund it/.test(lower)) {
    state.wantsRefund = true
    if (!state.order) return { output: 'Sure, I can help with a refund. What is your order number?', toolCalls: calls }
  }
  if (/\byes\b|please refund|refund it/.test(lower) || (state.wantsRefund && state.order && /refund/.test(lower))) {
    if (!state.order) return { output: 'Which order should I refund? Please give me the order number.', toolCalls: calls }
    const order = ORDERS[state.order]
    if (state.refunded) return { output: `Order ${state.order} was already refunded (${money(order.amount)}).`, toolCalls: calls }
    state.refunded = true
    calls.push({ name: 'refund', args: { order_id: state.order, amount: order.amount } })
    return { output: `Refund of ${money(order.amount)} issued for ${state.order}.`, toolCalls: calls }
  }
  if (/where|status|arrive/.test(lower)) {
    if (!state.order) return { output: 'I can check that. What is your order number?', toolCalls: calls }
    return { output: `Order ${state.order} is ${ORDERS[state.order].status}.`, toolCalls: calls }
  }
  if (/thank|bye/.test(lower)) return { output: 'You are welcome! Anything else I can do?', toolCalls: calls }
  return { output: 'I can help with refunds and order status. What do you need?', toolCalls: calls }
}

const reply = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
reply({ ready: true })

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  if (!line.trim()) return
  const { id, input, conversationId } = JSON.parse(line)
  let state = sessions.get(conversationId)
  if (!state) sessions.set(conversationId, (state = { turn: 0 }))
  reply({ id, ...answer(String(input), state) })
})
