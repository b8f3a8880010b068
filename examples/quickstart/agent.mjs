#!/usr/bin/env node
// A tiny, deterministic "support bot" for the quick start: it reads the question
// on stdin and answers on stdout, with no network and no model. AGENT_VERSION
// switches between the release that recorded baseline.json (1) and today's (2).
const version = process.env.AGENT_VERSION ?? '2'

const answers = [
  [/capital of ireland/i, () => 'The capital of Ireland is Dublin.'],
  [/capital of france/i, () => 'Paris.'],
  [/capital of australia/i, () => (version === '1' ? 'Sydney' : 'Canberra')],
  [/what is (\d+) ?([+*/-]) ?(\d+)/i, (m) => arithmetic(Number(m[1]), m[2], Number(m[3]))],
  [/^(hi|hello|hey)\b/i, () => 'Hello! How can I help you today?'],
  [/order (\d+) (\w+) as json/i, (m) => JSON.stringify({ item: m[2].replace(/s$/, ''), qty: Number(m[1]) })],
  [/status check/i, () => (version === '1' ? 'All good' : '{"status": "ok", "uptime": 99.9}')],
  [/refund/i, () => (version === '1' ? 'You can request a refund within 30 days of delivery.' : 'Refunds are possible within a month.')],
  [/shipping options/i, () => (version === '1' ? 'We offer standard and express shipping.' : 'We ship worldwide.')],
  [/support phone/i, () => '+353 1 555 0100'],
  [/say ok/i, () => 'OK'],
  [/colour of the sky/i, () => '  blue  '],
  [/spell .*necessary/i, () => (version === '1' ? 'neccessary' : 'necessary')],
  [/summari[sz]e/i, () => 'evalgate runs your dataset, compares with the baseline and gates the PR.'],
  [/give me the config/i, () => 'Here it is:\n```json\n{"retries": 3, "timeoutMs": 500}\n```'],
  [/speak to a human/i, () => 'I will connect you with a human agent.'],
  [/meaning of life/i, () => '42'],
  [/opening hours/i, () => (version === '1' ? 'As an AI language model I cannot know that.' : 'We are open 9:00 to 17:00, Monday to Friday.')],
  [/translate "thank you" into irish/i, () => 'Go raibh maith agat']
]

function arithmetic(a, op, b) {
  const value = op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b
  if (op === '/' && version === '1') return `About ${Math.round(value)}`
  return `The answer is ${Number.isInteger(value) ? value : value.toFixed(3)}`
}

let question = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (question += chunk))
process.stdin.on('end', () => {
  for (const [pattern, answer] of answers) {
    const m = question.match(pattern)
    if (m) {
      process.stdout.write(answer(m))
      return
    }
  }
  process.stdout.write("Sorry, I don't know.")
})
