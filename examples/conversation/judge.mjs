#!/usr/bin/env node
// A deterministic stand-in for an LLM, so the example needs no network or API
// key. As the judge it reads {"prompt", "output", "rubric", "conversation"} on
// stdin and prints {"score", "reason"}; as the simulated user (the judge plays
// it unless a case names another provider) it reads {"instructions",
// "messages", "stop"} and prints the user's next message. A real setup points
// `judge:` at a model instead (provider: openai).
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (text += chunk))
process.stdin.on('end', () => {
  const request = JSON.parse(text)
  process.stdout.write(request.instructions === undefined ? JSON.stringify(verdict(request)) : nextUserMessage(request))
})

/** "Never asks again for what the user already gave": did the bot ask for the order number after it was given? */
function verdict({ conversation = [] }) {
  let given = false
  for (const m of conversation) {
    if (m.role === 'user' && /\b[A-Z]\d{1,3}\b/.test(m.content)) given = true
    if (m.role === 'assistant' && given && /order number\?|which order/i.test(m.content)) {
      return { score: 0, reason: `asked for the order number again after the user gave it: "${m.content}"` }
    }
  }
  return { score: 1, reason: 'never asked again for what the user had given' }
}

/** The user the instructions describe: wants a refund (or the status) of the order they name. */
function nextUserMessage({ instructions, messages, stop }) {
  const order = /\border(?:ed)? ([A-Z]\d{1,3})/.exec(instructions)?.[1] ?? "A18"
  const wantsRefund = /refund/i.test(instructions)
  const last = messages.at(-1)
  if (!last) return wantsRefund ? `Hi, I'd like a refund. The item arrived broken.` : 'Hi, where is my order?'
  const said = last.content
  if (/refund of .* issued|already refunded/i.test(said)) return `Thank you! ${stop}`
  if (!wantsRefund && /in transit|delivered/.test(said)) return `Great, thanks. ${stop}`
  if (/order number|which order/i.test(said)) return `It's ${order}.`
  if (/would you like me to refund/i.test(said)) return 'Yes, please.'
  return wantsRefund ? `Can you refund order ${order}?` : `Where is order ${order}?`
}
