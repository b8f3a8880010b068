// A fake jsonl worker for the jsonl target tests: `node jsonl-agent.mjs [mode] [pidFile]`.
// Each request's input is a command, "verb" or "verb:argument".
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import readline from 'node:readline'

const [mode = 'serve', pidFile] = process.argv.slice(2)

if (mode === 'exit-at-start') {
  process.stderr.write('cannot load the model\n')
  process.exit(2)
}
if (mode === 'stubborn') {
  // ignores EOF and SIGTERM, and has a grandchild: only a group SIGKILL ends them
  process.on('SIGTERM', () => {})
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  writeFileSync(pidFile, JSON.stringify([process.pid, child.pid]))
  setInterval(() => {}, 1000)
}

if (mode === 'slow-start' || mode === 'slow-start-unannounced') {
  // a start-up of 5 s (imports, a model loading) before the first line is read; replies are immediate after it
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000)
  if (mode === 'slow-start') process.stdout.write('{"ready": true}\n')
}

if (mode === 'silent') {
  // like a Python worker whose stdout is block-buffered into the pipe: replies pile up, unseen until exit
  const unsent = []
  const lines = readline.createInterface({ input: process.stdin })
  lines.on('line', (line) => unsent.push(`${JSON.stringify({ id: JSON.parse(line).id, output: 'late' })}\n`))
  lines.on('close', () => process.stdout.write(unsent.join(''), () => process.exit(0)))
}

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
const held = []

if (mode !== 'silent')
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const request = JSON.parse(line)
    const { id, input } = request
    const [verb, ...rest] = typeof input === 'string' ? input.split(':') : ['json']
    const arg = rest.join(':')
    switch (verb) {
      case 'json':
        return send({ id, output: JSON.stringify(input) })
      case 'upper':
        return send({ id, output: arg.toUpperCase() })
      case 'pid':
        return send({ id, output: String(process.pid) })
      case 'request':
        return send({ id, output: line })
      case 'env':
        return send({ id, output: JSON.stringify(process.env) })
      case 'sleep': {
        const [ms, text] = arg.split(':')
        return setTimeout(() => send({ id, output: `${text}@${process.pid}` }), Number(ms))
      }
      case 'hold':
        return held.push({ id, output: arg })
      case 'release':
        // the held requests, answered last-in first-out, after this one
        send({ id, output: 'released' })
        while (held.length) send(held.pop())
        return
      case 'hang':
        return
      case 'crash':
        process.stderr.write('Traceback: boom\n')
        return process.exit(1)
      case 'noise':
        process.stdout.write('loading weights…\n{"progress": 0.5}\n[1, 2]\n')
        return send({ id, output: 'after noise' })
      case 'noise-crash':
        process.stdout.write('fatal: out of tokens\n')
        return process.exit(3)
      case 'error':
        return send({ id, error: arg })
      case 'numeric-id':
        return send({ id: Number(id), output: 'by number' })
      case 'null-output':
        return send({ id, output: null })
      case 'object-output':
        return send({ id, output: { answer: 42 } })
      case 'neither':
        return send({ id })
      case 'timed':
        return send({ id, output: 'timed', latencyMs: 12.5 })
      case 'usage':
        return send({ id, output: 'counted', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7, other: 'x' } })
      case 'bytes': {
        // a reply line of exactly `arg` UTF-8 bytes (its newline aside), mostly two-byte characters
        const frame = Buffer.byteLength(JSON.stringify({ id, output: '' }))
        const room = Number(arg) - frame
        return process.stdout.write(`${JSON.stringify({ id, output: 'é'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2) })}\n`)
      }
      case 'multibyte-partial': {
        // a line of `arg` two-byte characters, its end held back: a partial line of twice as many bytes as characters
        process.stdout.write(`{"id": "${id}", "output": "${'é'.repeat(Number(arg))}`)
        return setTimeout(() => process.stdout.write('"}\n'), 50)
      }
      case 'long':
        return process.stdout.write(`{"id": "${id}", "output": "${'x'.repeat(Number(arg))}"}\n`)
      case 'split': {
        // the reply in pieces, a multi-byte character cut in two
        const bytes = Buffer.from(`${JSON.stringify({ id, output: 'héllo wörld ✓' })}\n`)
        process.stdout.write(bytes.subarray(0, 18))
        return setTimeout(() => process.stdout.write(bytes.subarray(18)), 20)
      }
      case 'last-without-newline':
        process.stdout.write(JSON.stringify({ id, output: 'no newline' }))
        return process.exit(0)
      default:
        return send({ id, error: `unknown verb ${verb}` })
    }
  })
