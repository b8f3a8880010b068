// A fault-injecting agent for the hardening tests: `node faults-agent.mjs <marker> [pidDir]`.
// What it does is chosen by its input (stdin): `ok:<text>` answers <text>, anything else is a fault.
// Every process it starts carries <marker> in its argv, so the test can find leftovers in the process table.
import { spawn } from 'node:child_process'
import { closeSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [marker, pidDir] = process.argv.slice(2)
const MiB = 1024 * 1024

if (marker === 'sleep') {
  // a grandchild: `faults-agent.mjs sleep <marker>`
  setInterval(() => {}, 1000)
} else {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  await fault(Buffer.concat(chunks).toString('utf8'))
}

function sleeper(options) {
  return spawn(process.execPath, [process.argv[1], 'sleep', marker], options)
}

/** Writes `bytes` bytes of `ch` to stdout, respecting back-pressure, then resolves. */
function writeBytes(bytes, ch) {
  const block = Buffer.alloc(64 * 1024, ch)
  return new Promise((resolve) => {
    let left = bytes
    const pump = () => {
      while (left > 0) {
        const piece = left >= block.length ? block : block.subarray(0, left)
        left -= piece.length
        if (!process.stdout.write(piece)) return process.stdout.once('drain', pump)
      }
      process.stdout.end(resolve)
    }
    pump()
  })
}

async function fault(input) {
  if (input.startsWith('ok:')) {
    process.stdout.write(input.slice(3))
    return
  }
  switch (input) {
    case 'crash':
      process.stderr.write('agent crashed on purpose\n')
      process.exit(1)
    case 'sigkill':
      process.kill(process.pid, 'SIGKILL')
      break
    case 'sigsegv':
      process.kill(process.pid, 'SIGSEGV')
      break
    case 'hang':
      // tells a waiting test that it has started
      if (pidDir) writeFileSync(join(pidDir, `hang-${process.pid}`), '')
      setInterval(() => {}, 1000)
      break
    case 'hang-ignoring-sigterm':
      process.on('SIGTERM', () => {})
      setInterval(() => {}, 1000)
      break
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, 800))
      process.stdout.write('slow but in time')
      break
    case 'over-cap':
      // 10 MiB + 1: one byte over the run's maxOutputBytes
      await writeBytes(10 * MiB + 1, 'o')
      break
    case 'under-cap':
      await writeBytes(10 * MiB - 1, 'u')
      break
    case 'flood-forever':
      await writeBytes(Number.MAX_SAFE_INTEGER, 'f')
      break
    case 'stderr-flood':
      process.stderr.write('e'.repeat(8 * MiB) + '\nthe real cause is here\n', () => process.exit(2))
      break
    case 'bad-utf8':
      process.stdout.write(Buffer.from([0x61, 0xff, 0xfe, 0x62, 0xc3]))
      break
    case 'close-stdout':
      closeSync(1)
      process.stderr.write('stdout closed\n')
      setTimeout(() => process.exit(0), 100)
      break
    case 'close-stdout-and-hang':
      closeSync(1)
      setInterval(() => {}, 1000)
      break
    case 'orphan-holding-stdout': {
      // the grandchild inherits stdout and outlives us, in our process group
      const child = sleeper({ stdio: ['ignore', 'inherit', 'inherit'] })
      child.unref()
      process.stdout.write('parent done')
      process.exit(0)
    }
    case 'orphan-daemon': {
      const child = sleeper({ stdio: 'ignore' })
      child.unref()
      process.stdout.write('started helper')
      break
    }
    case 'many-children-then-hang':
      for (let i = 0; i < 10; i++) sleeper({ stdio: 'ignore' })
      setInterval(() => {}, 1000)
      break
    case 'escape-process-group': {
      // setsid: out of reach of a group kill, by design; the test kills it by the pid written here
      const child = spawn(process.execPath, [process.argv[1], 'sleep', `${marker}-escaped`], { stdio: ['ignore', 'inherit', 'inherit'], detached: true })
      child.unref()
      writeFileSync(join(pidDir, `escaped-${child.pid}`), '')
      process.stdout.write('parent done')
      process.exit(0)
    }
    default:
      process.stderr.write(`faults-agent: unknown input ${JSON.stringify(input.slice(0, 50))}\n`)
      process.exit(64)
  }
}
