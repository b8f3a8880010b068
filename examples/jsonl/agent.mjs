// A jsonl worker for evalgate (`target.protocol: jsonl`). evalgate starts it once
// (or `target.workers` times) and keeps it running for the whole dataset:
//
//   stdin,  one request per line: {"id": "7", "input": "What is 6 * 7?", "case": {"id": "math-mul", "name": "…", "tags": ["math"]}}
//   stdout, one reply per line:   {"id": "7", "output": "42"}   or   {"id": "7", "error": "why it failed"}
//
// Load models and clients once, at the top, then write {"ready": true}: no case's
// latency then includes the start-up. Stdout is for replies only: log to
// stderr (console.error). Several requests may be in flight at once; reply in any
// order, with the request's id. Exit when stdin ends.
import readline from 'node:readline'

const CAPITALS = { ireland: 'Dublin', france: 'Paris', australia: 'Canberra', japan: 'Tokyo' }

// stands in for the model call: anything async goes here
async function answer(input) {
  // an input is any JSON value: a string, or whatever structure the dataset gives
  const question = (typeof input === 'string' ? input : JSON.stringify(input)).toLowerCase()
  const country = Object.keys(CAPITALS).find((name) => question.includes(name))
  if (question.includes('capital') && country) return CAPITALS[country]
  const sum = /(-?\d+)\s*([+*-])\s*(-?\d+)/.exec(question)
  if (sum) {
    const [a, op, b] = [Number(sum[1]), sum[2], Number(sum[3])]
    return String(op === '+' ? a + b : op === '-' ? a - b : a * b)
  }
  if (question.includes('json')) return JSON.stringify({ status: 'ok', items: [1, 2, 3] })
  throw new Error(`no answer for ${JSON.stringify(input)}`)
}

const reply = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)

// started (models loaded, clients made): the requests waiting are timed from here
reply({ ready: true })

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  if (!line.trim()) return
  const { id, input } = JSON.parse(line)
  // not awaited: the next request is read while this one is being answered
  answer(input).then(
    (output) => reply({ id, output }),
    (err) => reply({ id, error: err instanceof Error ? err.message : String(err) })
  )
})
