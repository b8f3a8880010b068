// A fake agent for the command target tests: `node agent.mjs <mode> [pidFile]`.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'

const [mode, pidFile] = process.argv.slice(2)

async function readStdin() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}

// records the pids the test must later find gone, then keeps the process alive
function hangWith(pids) {
  writeFileSync(pidFile, JSON.stringify(pids))
  setInterval(() => {}, 1000)
}

function spawnSleeper(stdio) {
  return spawn(process.execPath, [process.argv[1], 'sleep'], { stdio })
}

switch (mode) {
  case 'upper':
    process.stdout.write((await readStdin()).toUpperCase() + '\n')
    break
  case 'argv':
    process.stdout.write(JSON.stringify(process.argv.slice(3)))
    break
  case 'env':
    process.stdout.write(JSON.stringify({ env: process.env, cwd: process.cwd() }))
    break
  case 'fail':
    process.stderr.write('lots of noise\n'.repeat(500) + 'model not found: gpt-9\n')
    process.exit(3)
    break
  case 'signal':
    process.kill(process.pid, 'SIGSEGV')
    break
  case 'silent':
    break
  case 'crlf':
    process.stdout.write('line one\r\nline two\r\n')
    break
  case 'blank-lines':
    process.stdout.write('answer\n\n')
    break
  case 'bytes': {
    // exactly N UTF-8 bytes on stdout, N from stdin: two-byte characters, one ASCII letter when N is odd
    const n = Number(await readStdin())
    process.stdout.write('é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2))
    break
  }
  case 'bad-utf8':
    process.stdout.write(Buffer.from([0x61, 0xff, 0x62]))
    break
  case 'no-read':
    // exits at once without touching stdin, while the test writes a large input
    process.stdout.write('ok')
    break
  case 'flood': {
    const chunk = 'x'.repeat(64 * 1024)
    const pump = () => {
      while (process.stdout.write(chunk));
      process.stdout.once('drain', pump)
    }
    pump()
    break
  }
  case 'sleep':
    setInterval(() => {}, 1000)
    break
  case 'hang':
    hangWith([process.pid])
    break
  case 'ignore-term':
    process.on('SIGTERM', () => {})
    hangWith([process.pid])
    break
  case 'tree-hang': {
    const child = spawnSleeper('ignore')
    hangWith([process.pid, child.pid])
    break
  }
  case 'linger': {
    // the grandchild inherits stdout and outlives us: the pipe stays open
    const child = spawnSleeper(['ignore', 'inherit', 'inherit'])
    writeFileSync(pidFile, JSON.stringify([child.pid]))
    process.stdout.write('parent done\n')
    child.unref()
    process.exit(0)
    break
  }
  case 'escape': {
    // like linger, but the grandchild leaves our process group, out of reach of a group kill
    const child = spawn(process.execPath, [process.argv[1], 'sleep'], { stdio: ['ignore', 'inherit', 'inherit'], detached: true })
    writeFileSync(pidFile, JSON.stringify([child.pid]))
    process.stdout.write('parent done\n')
    child.unref()
    process.exit(0)
    break
  }
  case 'daemon': {
    // a background helper with its own stdio: nothing keeps the pipes open, it would just live on
    const child = spawnSleeper('ignore')
    writeFileSync(pidFile, JSON.stringify([child.pid]))
    child.unref()
    process.stdout.write('started helper')
    break
  }
  default:
    process.stderr.write(`unknown mode ${mode}\n`)
    process.exit(64)
}
