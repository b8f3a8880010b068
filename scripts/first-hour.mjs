/**
 * The first hour, as a transcript (issue 38): a fresh clone of this checkout's
 * last commit, README's quick start, then a project of a new user — evalgate
 * installed from the clone's packed package (what npm does with
 * github:evalgate/evalgate), docs/getting-started.md's blocks in order (init,
 * a Python stdio agent with a result object, the broken pull request), the
 * stumbles (a result object without `output: json`, a dataset with three
 * broken lines, Ctrl-C and --resume) and `baseline pull` against the fake
 * GitHub of the tests on 127.0.0.1 (REST and artifact download). Every
 * command is printed as typed, with what it printed.
 *
 *   node scripts/first-hour.mjs [--out transcript.md]
 *
 * Needs the network for the clone's `npm ci` (the npm registry), as a user's would.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { importFixture } from './fixture.mjs'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const { values } = parseArgs({ options: { out: { type: 'string' } } })
const work = mkdtempSync(path.join(os.tmpdir(), 'evalgate-first-hour-'))
const clone = path.join(work, 'evalgate')
const project = path.join(work, 'shop-bot')
const env = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', NO_COLOR: '1' }
const lines = []
const say = (text = '') => {
  lines.push(text)
  process.stderr.write(`${text}\n`)
}

/** Long outputs keep their head and tail, saying how much is left out. */
function trimmed(output, head = 30, tail = 12) {
  const all = output.replace(/\s+$/, '').split('\n')
  if (all.length <= head + tail + 1) return all.join('\n')
  return [...all.slice(0, head), `… (${all.length - head - tail} lines left out of this transcript) …`, ...all.slice(-tail)].join('\n')
}

/** The text as typed: each command line after "$ ", a heredoc's body as it is. */
function typed(script) {
  const out = []
  let heredoc = null
  for (const line of script.replace(/\s+$/, '').split('\n')) {
    if (heredoc) {
      out.push(line)
      if (line.trim() === heredoc) heredoc = null
      continue
    }
    out.push(`$ ${line}`)
    heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(line)?.[1] ?? null
  }
  return out.join('\n')
}

/** Run a script with bash -e in a folder; print it as typed, what it printed and its exit code. */
async function run(script, cwd, { expect = 0, extraEnv = {}, shown } = {}) {
  const started = Date.now()
  // not spawnSync: the fake GitHub answers from this process's event loop
  const child = spawn('bash', ['-e', '-c', script], { cwd, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const res = { status: await new Promise((resolve) => child.on('close', resolve)) }
  const seconds = (Date.now() - started) / 1000
  say('```console')
  say(typed(shown ?? script))
  if (output.trim()) say(trimmed(output))
  say('```')
  say(`<sub>exit ${res.status} · ${seconds.toFixed(1)} s</sub>`)
  say()
  if (expect !== null && res.status !== expect) throw new Error(`expected exit ${expect}, got ${res.status}:\n${output.slice(-3000)}`)
  return { output, seconds }
}

/** The shell blocks of a markdown page marked `run, … session NAME`, in order, with their expected exit code. */
function sessionBlocks(file, session) {
  const text = readFileSync(file, 'utf8')
  const blocks = []
  const re = /<!--\s*docs-test:\s*(run[^>]*?)\s*-->\s*\n```sh\n([\s\S]*?)```/g
  for (const m of text.matchAll(re)) {
    if (!new RegExp(`session ${session}\\b`).test(m[1])) continue
    blocks.push({ script: m[2], exit: Number(/exit (\d+)/.exec(m[1])?.[1] ?? 0) })
  }
  return blocks
}

try {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()
  say(`# The first hour with evalgate, as typed`)
  say()
  say(`${new Date().toISOString()} · Node.js ${process.version} · ${os.cpus().length} cores · commit ${head} of this checkout`)
  say()
  say("## A fresh clone, and README's quick start")
  say()
  await run(`git clone --quiet ${ROOT} evalgate`, work, {
    shown: 'git clone --quiet https://github.com/evalgate/evalgate evalgate   # here: a clone of this checkout'
  })
  const quick = await run(
    'npm ci --no-audit --no-fund && npx evalgate run -c examples/quickstart/evalgate.yml --baseline examples/quickstart/baseline.json',
    clone,
    { expect: 1, shown: 'cd evalgate\nnpm ci && npx evalgate run -c examples/quickstart/evalgate.yml --baseline examples/quickstart/baseline.json' }
  )
  say(
    `The quick start's first command took ${quick.seconds.toFixed(0)} s (npm ci included). Its second, \`npm test\`, is the whole suite: CI runs it; it is not repeated here.`
  )
  say()

  say('## A new project: install, init, a Python agent, a broken pull request')
  say()
  const tarball = spawnSync('npm', ['pack', '--silent'], { cwd: clone, env, encoding: 'utf8' }).stdout.trim().split('\n').pop()
  await run(
    `mkdir shop-bot && cd shop-bot && git init -q && git remote add origin https://github.com/acme/shop-bot.git && npm init -y > /dev/null\nnpm install --save-dev ../evalgate/${tarball}`,
    work,
    {
      shown:
        'mkdir shop-bot && cd shop-bot && git init -q && git remote add origin https://github.com/acme/shop-bot.git && npm init -y > /dev/null\nnpm install --save-dev github:evalgate/evalgate   # here: the clone, packed as npm packs a git dependency'
    }
  )
  const [, ...blocks] = sessionBlocks(path.join(clone, 'docs', 'getting-started.md'), 'first-hour')
  for (const block of blocks) await run(block.script, project, { expect: block.exit })

  say('## Stumbles')
  say()
  say('A result object printed without `output: json` under `target:`:')
  say()
  await run("sed '/output: json/d' evalgate.yml > no-json.yml\nnpx evalgate run -c no-json.yml", project, { expect: null })
  say('Three broken dataset lines, found in one pass:')
  say()
  await run(
    `cat > broken.yml <<'EOF'
version: 1
dataset: evals/more.jsonl
target:
  command: [python3, evals/agent.py]
  output: json
EOF
cat > evals/more.jsonl <<'EOF'
{"id": "a", "input": "hi", "expected": "Hello"}
{"id": "b", "input": "hi", expected: "Hello"}
{"id": "c", "inptu": "hi"}
{"id": "a", "input": "hello", "expected": "Hello"}
EOF
npx evalgate validate -c broken.yml`,
    project,
    { expect: 2 }
  )

  say('Ctrl-C in the middle of a run (each case takes a second here), then `--resume`:')
  say()
  writeFileSync(
    path.join(project, 'slow.yml'),
    'version: 1\nname: evals\ndataset: evals/cases.yaml\nconcurrency: 1\ntarget:\n  command: [sh, -c, "echo . >> started.txt; sleep 1; exec python3 evals/agent.py"]\n  output: json\n'
  )
  say('```console')
  say(typed('cat slow.yml   # the agent, a second slower per case\n'))
  say(readFileSync(path.join(project, 'slow.yml'), 'utf8').trimEnd())
  const child = spawn('npx', ['evalgate', 'run', '-c', 'slow.yml', '--out', 'run.json'], {
    cwd: project,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const closed = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? 128 + os.constants.signals[signal])))
  // Ctrl-C once the third case has started: the whole process group, as a terminal sends it
  const started = () => (existsSync(path.join(project, 'started.txt')) ? readFileSync(path.join(project, 'started.txt'), 'utf8').length / 2 : 0)
  while (started() < 3) await new Promise((resolve) => setTimeout(resolve, 50))
  process.kill(-child.pid, 'SIGINT')
  const code = await closed
  say('$ npx evalgate run -c slow.yml --out run.json')
  say('^C')
  say(trimmed(output))
  say('```')
  say(`<sub>exit ${code}</sub>`)
  say()
  await run('npx evalgate run -c slow.yml --resume run.json', project, { expect: null })

  say('## The baseline CI would use, on the laptop')
  say()
  const { GitHubServer, zipOf } = await importFixture('__tests__/__fixtures__/github-server.ts')
  const server = await new GitHubServer('acme/shop-bot').start()
  try {
    server.workflows = [{ id: 7, path: '.github/workflows/evalgate.yml' }]
    const ci = server.addRun({ head_sha: 'c0ffee'.padEnd(40, '0'), event: 'push' })
    server.addArtifact(ci.id, 'evalgate-evals', await zipOf({ 'run.json': readFileSync(path.join(project, 'baseline.json'), 'utf8') }))
    say(
      `A fake GitHub on ${server.url} (the tests' \`__tests__/__fixtures__/github-server.ts\`: REST and the artifact download) holds a push run of \`evalgate.yml\` on \`main\` with the artifact \`evalgate-evals\`; \`GITHUB_API_URL\` points the CLI at it.`
    )
    say()
    await run('npx evalgate baseline pull --out ci-baseline.json\nnpx evalgate run --baseline ci-baseline.json', project, {
      expect: 1,
      extraEnv: { GITHUB_API_URL: server.url, GITHUB_TOKEN: 'ghp_example' },
      shown: 'export GITHUB_TOKEN=$(gh auth token)\nnpx evalgate baseline pull --out ci-baseline.json\nnpx evalgate run --baseline ci-baseline.json'
    })
  } finally {
    await server.close()
  }
  if (values.out) writeFileSync(values.out, `${lines.join('\n')}\n`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
