// npm run bench [-- --only NAME[,NAME]] [--cases N] [--pairs N] [--peer [--peer-dir DIR]]
//
// Scenarios, each run in a fresh Node process that reports its own wall time and
// peak memory (process.resourceUsage().maxRSS), through the built bundles
// (dist/lib, dist/cli, dist/index.js: run `npm run bundle` after changing src/):
//   instant  10,000 cases, an instant in-process `module` target and one `contains`
//            each: the whole pipeline of `evalgate run` (load, run, record, compare, report)
//   latency  1,000 cases, a module target that answers in 50 ms, concurrency 16:
//            wall time against the ideal ⌈1000/16⌉ × 50 ms = 3.15 s
//   command  1,000 cases through a command target: stdio (a process per case) and
//            jsonl (4 long-lived workers)
//   scale    the CLI at 1k, 10k and 100k cases: `run --out`, then `run --baseline
//            --out --report --json --html` against that first record (compare + reports)
//   action   the action bundle at 100k cases against the tests' fake GitHub on 127.0.0.1:
//            a push to main (run, upload), then a pull request (download that baseline,
//            run, compare, comment, upload)
//   cold     the action bundle from process start to its first case; bundle sizes
//   agents   10k and 100k cases, string-only (one contains) against structured results
//            (a module returning {output, toolCalls: 3 calls, usage}, priced by `pricing`)
//            graded by contains + trajectory:tool-used + trajectory-match: wall time, ratio, peak memory;
//            with --pairs N, N rounds of the three runs, interleaved, and their medians
//   conversations  1,000 conversations of 5 scripted turns against 5,000 single-turn cases (the same
//            5,000 target calls), an instant jsonl agent: wall and peak memory of each, in the same run
//            (--cases N: N conversations; --pairs N: N interleaved rounds and their medians)
//   tracing  1,000 trials of a jsonl agent instrumented with the OpenTelemetry SDK (protobuf
//            exporter, batches flushed before each reply), tracing on (evalgate receives its
//            spans and grades tool calls from them) against off (the same agent, its SDK
//            switched off by OTEL_SDK_DISABLED): wall time and peak memory, and their ratios
//   floods   trials whose agent (a stdio process) floods the receiver: 200,000 spans of its
//            trace (20 exports of 10,000), a 64 MB body, a body that is not OTLP; against trials
//            that send one span (--cases N trials, default 4): the run finishes, the trace summaries say what was kept,
//            and evalgate's peak memory (its own process: the agent is another)
// --cases N  sets the number of cases of instant, latency and command, and the one size of scale and action.
// --node PATH  runs every measured process (library runs, the CLI, the action) with that Node.js
//            instead of the one running this script: e.g. Node 24, the action's runtime
//            (npm install --prefix DIR node@24, then DIR/node_modules/.bin/node).
// --peer     installs promptfoo@0.121.20 with npm into a temporary folder (or --peer-dir,
//            kept for next time) and runs instant, latency and command through it too.
// --before DIR  before/after in one run: instant, latency, command, scale and cold (the
//            default set: instant, scale at 100k, cold) run against DIR's built dist/ and
//            this tree's, interleaved (before, after, before, after …, --pairs N, default 3),
//            on the same generated projects; prints each figure's median for both and the
//            ratio after/before. On a loaded machine only these ratios mean anything, and
//            CPU time (user + system, all threads) moves less than wall time.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { importFixture } from './fixture.mjs'
import { runProcess } from './process.mjs'

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    cases: { type: 'string' },
    peer: { type: 'boolean', default: false },
    'peer-dir': { type: 'string' },
    before: { type: 'string' },
    pairs: { type: 'string' },
    child: { type: 'string' },
    dist: { type: 'string' },
    node: { type: 'string' }
  }
})

/** The Node.js every measured process runs with (--node), by default this script's own. */
const NODE = values.node ?? process.execPath

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
/** This tree's bundles; --before measures another tree's too. */
const DIST = path.join(ROOT, 'dist')

/** CPU time the process has used so far, every thread (the sandbox's workers too), in ms. */
function cpuMs() {
  const u = process.resourceUsage()
  return (u.userCPUTime + u.systemCPUTime) / 1000
}
const PEER_VERSION = '0.121.20'
// promptfoo 0.121 on this machine, same work as `instant` (issue 2): about 13 s and 690 MB
const PEER_REFERENCE = { wallMs: 13000, peakRssMb: 690 }

if (values.child) {
  // child mode: run one evaluation through the library bundle and print its figures as JSON
  const started = performance.now()
  // --dist: another tree's bundles (--before); the library API used here is the same since bca2127
  const lib = await import(path.join(values.dist ?? path.join(ROOT, 'dist'), 'lib/index.js'))
  const loadStarted = performance.now()
  const loaded = await lib.loadEvalConfig(values.child)
  const loadMs = performance.now() - loadStarted
  const { record, comparison } = await lib.evaluate(loaded, { env: { PATH: process.env.PATH ?? '' } })
  const report = lib.renderReport({ comparison, baseline: null, current: record })
  const wallMs = performance.now() - started
  process.stdout.write(
    JSON.stringify({
      wallMs,
      loadMs,
      runMs: record.summary.durationMs,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      cpuMs: cpuMs(),
      passed: record.summary.passed,
      total: record.summary.total,
      reportChars: report.length,
      firstOutput: record.cases[0]?.output,
      firstTrace: record.cases[0]?.trace
    })
  )
  process.exit(0)
}

// ---------------------------------------------------------------------------
// helpers

const temps = []
function tempDir(prefix = 'evalgate-bench-') {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

function write(dir, files) {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  return dir
}

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`
const mb = (x) => `${x.toFixed(0)} MB`
const thousands = (n) => n.toLocaleString('en-US')
const ratio = (a, b) => `×${(a / b).toFixed(3)}`

/** `count` JSONL cases: input "question i", one contains assertion. */
function dataset(count) {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `c${i}`, input: `question ${i}`, assert: [{ type: 'contains', value: `question ${i}` }] })
  )
  return `${lines.join('\n')}\n`
}

/** Preloaded with --import into processes we do not write (the CLI, the action, promptfoo): reports their peak memory and CPU time. */
function maxRssReporter(dir) {
  const file = path.join(dir, 'maxrss.mjs')
  writeFileSync(
    file,
    "process.on('exit', () => {\n" +
      '  const u = process.resourceUsage()\n' +
      '  process.stderr.write(`\\n@@maxrss ${u.maxRSS / 1024} ${(u.userCPUTime + u.systemCPUTime) / 1000}\\n`)\n' +
      '})\n'
  )
  return file
}

/** Runs a process to its end: wall time from spawn to exit, its peak memory when it reports it. */
async function measure(command, args, options = {}) {
  const r = await runProcess(command, args, options)
  const m = /@@maxrss ([\d.]+) ([\d.]+)/.exec(r.stderr)
  return { ...r, peakRssMb: m ? Number(m[1]) : null, cpuMs: m ? Number(m[2]) : null }
}

/** One library run in a fresh process (the `--child` mode above), through the bundles in `dist`. */
async function libRun(config, dist = DIST) {
  const r = await measure(NODE, [process.argv[1], '--child', config, '--dist', dist])
  if (r.status !== 0) throw new Error(`bench child failed (${r.status}): ${r.stderr}`)
  return { ...JSON.parse(r.stdout), processMs: r.wallMs }
}

function expectAllPassed(r, n, what) {
  if (r.passed !== n) throw new Error(`${what}: expected ${n} passing cases, got ${r.passed} of ${r.total}`)
}

// ---------------------------------------------------------------------------
// scenarios

const AGENTS = {
  instant: 'export default (input) => `echo: ${input}`\n',
  latency: 'export default async (input) => {\n  await new Promise((resolve) => setTimeout(resolve, 50))\n  return `echo: ${input}`\n}\n',
  stdio: "let text = ''\nprocess.stdin.on('data', (d) => (text += d)).on('end', () => process.stdout.write(`echo: ${text}`))\n",
  jsonl:
    "import readline from 'node:readline'\n" +
    "readline.createInterface({ input: process.stdin }).on('line', (line) => {\n" +
    '  const { id, input } = JSON.parse(line)\n' +
    "  process.stdout.write(JSON.stringify({ id, output: `echo: ${input}` }) + '\\n')\n" +
    '})\n'
}

function project(n, agentFile, agent, target, concurrency) {
  return write(tempDir(), {
    [agentFile]: agent,
    'cases.jsonl': dataset(n),
    'evalgate.yml': `name: bench\ndataset: cases.jsonl\nconcurrency: ${concurrency}\ntarget: ${target}\n`
  })
}

const results = {}

async function instant(n = 10000) {
  const dir = project(n, 'agent.mjs', AGENTS.instant, '{ module: ./agent.mjs }', 64)
  const r = await libRun(path.join(dir, 'evalgate.yml'))
  expectAllPassed(r, n, 'instant')
  results.instant = { n, wallMs: r.processMs, peakRssMb: r.peakRssMb }
  console.log(`cases: ${n} (module target, one contains assertion each)`)
  console.log(`wall (process start to exit): ${secs(r.processMs)}  — pipeline ${secs(r.wallMs)}, ${((r.wallMs * 1000) / n).toFixed(1)} µs/case`)
  console.log(`peak memory (maxRSS): ${mb(r.peakRssMb)}`)
  if (n === 10000) {
    console.log(
      `vs promptfoo reference (${PEER_REFERENCE.wallMs / 1000} s, ${PEER_REFERENCE.peakRssMb} MB): time ${ratio(r.processMs, PEER_REFERENCE.wallMs)}, memory ${ratio(r.peakRssMb, PEER_REFERENCE.peakRssMb)}`
    )
  }
}

async function latency(n = 1000) {
  const concurrency = 16
  const idealMs = Math.ceil(n / concurrency) * 50
  const dir = project(n, 'agent.mjs', AGENTS.latency, '{ module: ./agent.mjs }', concurrency)
  const r = await libRun(path.join(dir, 'evalgate.yml'))
  expectAllPassed(r, n, 'latency')
  results.latency = { n, wallMs: r.processMs, peakRssMb: r.peakRssMb, runMs: r.runMs }
  console.log(`\nlatency: ${n} cases, module target answering in 50 ms, concurrency ${concurrency}`)
  console.log(
    `  run ${secs(r.runMs)} vs ideal ${secs(idealMs)} (⌈${n}/${concurrency}⌉ × 50 ms): ${ratio(r.runMs, idealMs)}; wall (process) ${secs(r.processMs)}; peak ${mb(r.peakRssMb)}`
  )
}

async function command(n = 1000) {
  const concurrency = 8
  const workers = 4
  const stdioDir = project(n, 'agent.mjs', AGENTS.stdio, '{ command: ["node", "agent.mjs"] }', concurrency)
  const jsonlDir = project(n, 'agent.mjs', AGENTS.jsonl, `{ command: ["node", "agent.mjs"], protocol: jsonl, workers: ${workers} }`, concurrency)
  const stdio = await libRun(path.join(stdioDir, 'evalgate.yml'))
  expectAllPassed(stdio, n, 'command stdio')
  const jsonl = await libRun(path.join(jsonlDir, 'evalgate.yml'))
  expectAllPassed(jsonl, n, 'command jsonl')
  results.command = { n, stdio: { wallMs: stdio.processMs, peakRssMb: stdio.peakRssMb }, jsonl: { wallMs: jsonl.processMs, peakRssMb: jsonl.peakRssMb } }
  const rate = (r) => `${((n / r.runMs) * 1000).toFixed(0)} cases/s`
  console.log(`\ncommand: ${n} cases, a Node agent, concurrency ${concurrency}`)
  console.log(`  stdio (a process per case): run ${secs(stdio.runMs)} (${rate(stdio)}), wall ${secs(stdio.processMs)}, peak ${mb(stdio.peakRssMb)}`)
  console.log(`  jsonl (${workers} workers):         run ${secs(jsonl.runMs)} (${rate(jsonl)}), wall ${secs(jsonl.processMs)}, peak ${mb(jsonl.peakRssMb)}`)
  console.log(`  jsonl is ${(stdio.runMs / jsonl.runMs).toFixed(1)}× faster than stdio`)
}

/** A `scale` project of `n` cases. */
const scaleProject = (n) => project(n, 'agent.mjs', AGENTS.instant, '{ module: ./agent.mjs }', 64)

/**
 * The CLI of `dist` on a scale project: `run --out`, then `run --baseline --out --report --json --html`
 * against that first record (`tag` keeps the files of two trees apart: each compares with its own baseline).
 */
async function scaleRun(dir, n, dist = DIST, tag = '') {
  const cli = path.join(dist, 'cli/index.js')
  const reporter = maxRssReporter(dir)
  const file = (name) => path.join(dir, `${name}${tag}`)
  const run = (args) => measure(NODE, ['--import', reporter, cli, 'run', '-c', path.join(dir, 'evalgate.yml'), '--quiet', ...args], { cwd: dir })
  const first = await run(['--out', file('base.json')])
  if (first.status !== 0) throw new Error(`scale ${n} (${dist}): run failed (${first.status}): ${first.stderr}`)
  const again = await run([
    '--baseline',
    file('base.json'),
    '--out',
    file('run.json'),
    '--report',
    file('report.md'),
    '--json',
    file('cmp.json'),
    '--html',
    file('report.html')
  ])
  if (again.status !== 0) throw new Error(`scale ${n} (${dist}): run against the baseline failed (${again.status}): ${again.stderr}`)
  return {
    first,
    again,
    reportChars: readFileSync(file('report.md'), 'utf8').length,
    recordMb: statSync(file('run.json')).size / 1048576,
    htmlMb: statSync(file('report.html')).size / 1048576
  }
}

async function scale(sizes = [1000, 10000, 100000]) {
  console.log('\nscale: the CLI bundle, instant module target, one contains each (µs/case over the whole process)')
  let largest = null
  let previous = null
  for (const n of sizes) {
    const { first, again, reportChars, recordMb, htmlMb } = await scaleRun(scaleProject(n), n)
    const per = (r) => `${((r.wallMs * 1000) / n).toFixed(1)} µs/case`
    console.log(`  ${thousands(n).padStart(7)} cases  run --out: ${secs(first.wallMs)}, ${per(first)}, peak ${mb(first.peakRssMb)}`)
    console.log(
      `  ${''.padStart(13)}  run --baseline --out --report --json --html: ${secs(again.wallMs)}, ${per(again)}, peak ${mb(again.peakRssMb)}; record ${recordMb.toFixed(1)} MB, report ${thousands(reportChars)} chars, HTML ${htmlMb.toFixed(1)} MB`
    )
    results[`scale-${n}`] = {
      first: { wallMs: first.wallMs, peakRssMb: first.peakRssMb },
      again: { wallMs: again.wallMs, peakRssMb: again.peakRssMb },
      reportChars
    }
    // the cost of each case added since the smaller size: process start and loading drop out, so flat means linear
    if (previous) {
      const marginal = (now, before) => `${(((now.wallMs - before.wallMs) * 1000) / (n - previous.n)).toFixed(1)} µs`
      console.log(
        `  ${''.padStart(13)}  each case added since ${thousands(previous.n)}: run ${marginal(first, previous.first)}, with baseline ${marginal(again, previous.again)}`
      )
    }
    largest = previous = { n, first, again }
  }
  if (largest && largest.n >= 100000) {
    const met = (r) => (r.peakRssMb < 400 ? 'met' : 'missed')
    console.log(
      `  target < 400 MB at ${thousands(largest.n)}: run ${met(largest.first)} (${mb(largest.first.peakRssMb)}), with baseline ${met(largest.again)} (${mb(largest.again.peakRssMb)})`
    )
  }
}

/** The runner's environment for one run of the bundled action against the fake GitHub. */
function runnerEnv(server, runtimeToken, dir, run, event, payload) {
  const files = tempDir('evalgate-bench-runner-')
  const eventFile = write(files, { 'event.json': JSON.stringify(payload), 'summary.md': '', 'output.txt': '' })
  const ref = event === 'pull_request' ? `refs/pull/${payload.number}/merge` : 'refs/heads/main'
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: server.url,
    ACTIONS_RESULTS_URL: `${server.url}/`,
    ACTIONS_RUNTIME_TOKEN: runtimeToken(run.id),
    GITHUB_REPOSITORY: server.repository,
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: path.join(eventFile, 'event.json'),
    GITHUB_WORKFLOW: 'evals',
    GITHUB_WORKFLOW_REF: `${server.repository}/.github/workflows/evals.yml@${ref}`,
    GITHUB_RUN_ID: String(run.id),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: run.head_sha,
    GITHUB_REF: ref,
    GITHUB_WORKSPACE: dir,
    GITHUB_STEP_SUMMARY: path.join(files, 'summary.md'),
    GITHUB_OUTPUT: path.join(files, 'output.txt'),
    RUNNER_TEMP: files,
    INPUT_CONFIG: path.join(dir, 'evalgate.yml'),
    'INPUT_GITHUB-TOKEN': 'ghs_benchtoken'
  }
}

async function action(size = 100000) {
  // the fake GitHub of the tests (REST and artifact protocols on 127.0.0.1)
  const { GitHubServer, runtimeToken } = await importFixture('__tests__/__fixtures__/github-server.ts')
  const server = await new GitHubServer('octo/bench').start()
  try {
    const dir = project(size, 'agent.mjs', AGENTS.instant, '{ module: ./agent.mjs }', 64)
    const reporter = maxRssReporter(dir)
    const bundle = path.join(ROOT, 'dist/index.js')
    const run = async (what, runRecord, event, payload) => {
      const r = await measure(NODE, ['--import', reporter, bundle], {
        cwd: dir,
        env: runnerEnv(server, runtimeToken, dir, runRecord, event, payload)
      })
      if (r.status !== 0) throw new Error(`action ${what} failed (${r.status}): ${r.stdout.slice(-2000)}${r.stderr}`)
      if (server.uploaded(runRecord.id).length !== 1) throw new Error(`action ${what}: no record uploaded`)
      return r
    }
    const base = '1'.repeat(40)
    const head = '2'.repeat(40)
    const mainRun = server.addRun({ head_sha: base })
    const push = await run('push', mainRun, 'push', { repository: { default_branch: 'main' } })
    const pr = 7
    const prRun = server.addRun({ head_sha: head, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: pr }] })
    const payload = {
      action: 'synchronize',
      number: pr,
      pull_request: { number: pr, head: { sha: head, ref: 'feature' }, base: { sha: base, ref: 'main' } },
      repository: { full_name: server.repository, default_branch: 'main' }
    }
    const pull = await run('pull request', prRun, 'pull_request', payload)
    const comments = server.commentsOn(pr)
    if (comments.length !== 1) throw new Error(`action pull request: expected one comment, found ${comments.length}`)
    if (!server.requests.some((r) => r.method === 'GET' && /\/artifacts\/\d+\/zip$/.test(r.path)))
      throw new Error('action pull request: the baseline was never downloaded')
    const artifactMb = server.uploaded(prRun.id)[0].bytes.length / 1048576
    results.action = { n: size, push: { wallMs: push.wallMs, peakRssMb: push.peakRssMb }, pullRequest: { wallMs: pull.wallMs, peakRssMb: pull.peakRssMb } }
    console.log(`\naction: the bundle (dist/index.js) at ${thousands(size)} cases against a fake GitHub on 127.0.0.1 (REST + artifact protocols)`)
    console.log(`  push to main (run, upload the record):                     ${secs(push.wallMs)}, peak ${mb(push.peakRssMb)}`)
    console.log(
      `  pull request (download the baseline, run, compare, comment, upload): ${secs(pull.wallMs)}, peak ${mb(pull.peakRssMb)}; artifact ${artifactMb.toFixed(1)} MB zipped, comment ${thousands(comments[0].body.length)} chars`
    )
    if (size >= 100000)
      console.log(
        `  target < 400 MB at ${thousands(size)}: push ${push.peakRssMb < 400 ? 'met' : 'missed'}, pull request ${pull.peakRssMb < 400 ? 'met' : 'missed'}`
      )
  } finally {
    await server.close()
  }
}

/**
 * A project whose first case records how long after process start it was
 * reached, and the process's CPU time then (every thread), and ends the run:
 * only the start is measured. Since the sandbox (issue 12) the agent runs in a
 * worker, where process.exit is refused: the run goes on to the second case,
 * so the marker is written only once.
 */
function coldProject() {
  const dir = tempDir()
  const marker = path.join(dir, 'first-case.txt')
  write(dir, {
    'agent.mjs':
      "import { writeFileSync } from 'node:fs'\n" +
      'export default () => {\n' +
      '  const { user, system } = process.cpuUsage()\n' +
      `  try { writeFileSync(${JSON.stringify(marker)}, \`\${performance.now()} \${(user + system) / 1000}\`, { flag: 'wx' }) } catch {}\n` +
      '  process.exit(0)\n' +
      '}\n',
    'evalgate.yml': 'name: cold\ntarget: { module: ./agent.mjs }\ncases:\n  - { id: one, input: hi, expected: hi }\n  - { id: two, input: ho, expected: ho }\n'
  })
  // what a push run on a runner has; no token, so nothing is looked up over the network before the first case
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    INPUT_CONFIG: path.join(dir, 'evalgate.yml'),
    INPUT_MODE: 'run',
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: dir,
    GITHUB_REPOSITORY: 'octo/bench',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_SHA: '0'.repeat(40),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'evals',
    GITHUB_API_URL: 'http://127.0.0.1:9'
  }
  return { dir, marker, env }
}

/** One cold start of `dist`'s action up to its first case, and one `--version` of its CLI. */
async function coldRun({ dir, marker, env }, dist = DIST) {
  rmSync(marker, { force: true })
  const r = await measure(NODE, [path.join(dist, 'index.js')], { cwd: dir, env })
  if (!existsSync(marker)) throw new Error(`cold (${dist}): the action never reached its first case (exit ${r.status}): ${r.stdout}${r.stderr}`)
  const version = await measure(NODE, [path.join(dist, 'cli/index.js'), '--version'])
  const [firstCaseMs, firstCaseCpuMs] = readFileSync(marker, 'utf8').split(' ').map(Number)
  return { firstCaseMs, firstCaseCpuMs, processMs: r.wallMs, cliVersionMs: version.wallMs }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** The bundles of `dist` and their sizes; the action's chunks (the artifact client, loaded on first use) sit beside dist/index.js. */
function bundleSizes(dist = DIST) {
  const chunks = (sub) =>
    readdirSync(path.join(dist, sub))
      .filter((f) => /^\d+\.index\.js$/.test(f))
      .map((f) => path.join(sub, f))
  const files = ['index.js', ...chunks('.'), 'cli/index.js', ...chunks('cli'), 'lib/index.js', ...chunks('lib')]
  return files.map((f) => ({ file: path.join('dist', f), mb: statSync(path.join(dist, f)).size / 1048576 }))
}

async function cold() {
  const runs = 5
  const project = coldProject()
  const each = []
  for (let i = 0; i < runs; i++) each.push(await coldRun(project))
  const of = (key) => median(each.map((r) => r[key]))
  results.cold = { firstCaseMs: of('firstCaseMs'), firstCaseCpuMs: of('firstCaseCpuMs'), processMs: of('processMs'), cliVersionMs: of('cliVersionMs') }
  console.log(`\ncold start (median of ${runs}):`)
  console.log(
    `  action (dist/index.js): first case ${results.cold.firstCaseMs.toFixed(0)} ms after process start (import, inputs, config, target), CPU ${results.cold.firstCaseCpuMs.toFixed(0)} ms by then; spawn to exit ${results.cold.processMs.toFixed(0)} ms`
  )
  console.log(`  CLI (dist/cli/index.js --version): ${results.cold.cliVersionMs.toFixed(0)} ms spawn to exit`)
  console.log(
    `  bundles: ${bundleSizes()
      .map((b) => `${b.file} ${b.mb.toFixed(2)} MB`)
      .join(', ')}`
  )
}

// ---------------------------------------------------------------------------
// promptfoo, the same datasets

function installPeer() {
  const dir = values['peer-dir'] ? path.resolve(values['peer-dir']) : tempDir('evalgate-bench-peer-')
  const main = path.join(dir, 'node_modules/promptfoo/dist/src/main.js')
  if (!existsSync(main)) {
    mkdirSync(dir, { recursive: true })
    console.log(`\npeer: npm install --prefix ${dir} promptfoo@${PEER_VERSION} (this takes a while)…`)
    const t0 = performance.now()
    const r = spawnSync('npm', ['install', '--prefix', dir, `promptfoo@${PEER_VERSION}`, '--no-audit', '--no-fund'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    })
    if (r.status !== 0) throw new Error(`peer: npm install promptfoo@${PEER_VERSION} failed (${r.status}):\n${r.stderr || r.stdout}`)
    console.log(`peer: installed in ${secs(performance.now() - t0)}`)
  }
  if (!existsSync(main)) throw new Error(`peer: ${main} not found after the install`)
  return main
}

/** Runs one promptfoo eval of `n` tests (vars.question, one contains) through `provider`. */
async function peerRun(main, n, provider, concurrency, extraFiles = {}) {
  const dir = write(tempDir(), extraFiles)
  const tests = Array.from({ length: n }, (_, i) => ({ vars: { question: `question ${i}` }, assert: [{ type: 'contains', value: `question ${i}` }] }))
  writeFileSync(path.join(dir, 'tests.json'), JSON.stringify(tests))
  writeFileSync(
    path.join(dir, 'promptfooconfig.yaml'),
    `description: bench\nprompts: ['{{question}}']\nproviders:\n  - ${JSON.stringify(provider)}\ntests: file://tests.json\n`
  )
  const reporter = maxRssReporter(dir)
  const out = path.join(dir, 'out.json')
  const env = {
    ...process.env,
    PROMPTFOO_CONFIG_DIR: path.join(dir, '.promptfoo'),
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    NO_COLOR: '1'
  }
  const args = [
    '--import',
    reporter,
    main,
    'eval',
    '-c',
    path.join(dir, 'promptfooconfig.yaml'),
    '--no-cache',
    '-j',
    String(concurrency),
    '-o',
    out,
    '--no-progress-bar',
    '--no-table'
  ]
  const r = await measure(NODE, args, { cwd: dir, env })
  if (!existsSync(out)) throw new Error(`peer: promptfoo eval wrote no output (exit ${r.status}):\n${(r.stderr || r.stdout).slice(-3000)}`)
  const stats = JSON.parse(readFileSync(out, 'utf8')).results?.stats ?? {}
  if (stats.successes !== n) throw new Error(`peer: expected ${n} passing tests from promptfoo, got ${JSON.stringify(stats)}:\n${r.stderr.slice(-2000)}`)
  return r
}

async function peer(n) {
  const main = installPeer()
  console.log(`\npromptfoo ${PEER_VERSION}, the same datasets (promptfoo eval --no-cache, output to a JSON file):`)
  const line = (what, ours, theirs) =>
    console.log(
      `  ${what}: promptfoo ${secs(theirs.wallMs)}, ${mb(theirs.peakRssMb)} │ evalgate ${secs(ours.wallMs)}, ${mb(ours.peakRssMb)} │ evalgate/promptfoo: time ${ratio(ours.wallMs, theirs.wallMs)}, memory ${ratio(ours.peakRssMb, theirs.peakRssMb)}`
    )
  if (results.instant) {
    const provider = write(tempDir(), {
      'provider.mjs': 'export default class Bench {\n  id() { return "bench" }\n  async callApi(prompt) { return { output: `echo: ${prompt}` } }\n}\n'
    })
    const r = await peerRun(main, results.instant.n, `file://${path.join(provider, 'provider.mjs')}`, 64)
    line(`instant (${thousands(results.instant.n)} cases, in-process provider)`, results.instant, r)
  }
  if (results.latency) {
    const provider = write(tempDir(), {
      'provider.mjs':
        'export default class Bench {\n  id() { return "bench" }\n  async callApi(prompt) {\n    await new Promise((resolve) => setTimeout(resolve, 50))\n    return { output: `echo: ${prompt}` }\n  }\n}\n'
    })
    const r = await peerRun(main, results.latency.n, `file://${path.join(provider, 'provider.mjs')}`, 16)
    line(`latency (${thousands(results.latency.n)} cases, 50 ms, concurrency 16)`, results.latency, r)
  }
  if (results.command) {
    const agent = write(tempDir(), { 'agent.mjs': 'process.stdout.write(`echo: ${process.argv[2]}`)\n' })
    const r = await peerRun(main, results.command.n, `exec: node ${path.join(agent, 'agent.mjs')}`, 8)
    line(`command (${thousands(results.command.n)} cases, exec: vs stdio)`, results.command.stdio, r)
    line(`command (${thousands(results.command.n)} cases, exec: vs jsonl)`, results.command.jsonl, r)
  }
  if (!results.instant && !results.latency && !results.command)
    console.log('  (nothing to compare: --only selected no scenario among instant, latency, command)')
  void n
}

const AGENT_RESULT =
  'export default (input) => ({\n' +
  '  output: `echo: ${input}`,\n' +
  "  toolCalls: [{ name: 'lookup_order', args: { order_id: input } }, { name: 'search_kb', args: { query: 'returns' } }, { name: 'refund', args: { order_id: input, amount: 20.5 } }],\n" +
  '  usage: { inputTokens: 800, outputTokens: 90 },\n' +
  "  metadata: { model: 'bench-mini' }\n" +
  '})\n'

/** Structured results with two trajectory checks per case against plain strings, in the same run of the bench. */
async function agents(sizes = [10000, 100000], rounds = 1) {
  console.log('\nagents: string-only (contains) vs structured results (+ trajectory:tool-used, trajectory-match), module target')
  results.agents = []
  for (const size of sizes) {
    const plain = project(size, 'agent.mjs', AGENTS.instant, '{ module: ./agent.mjs }', 64)
    const lines = Array.from({ length: size }, (_, i) =>
      JSON.stringify({
        id: `c${i}`,
        input: `question ${i}`,
        assert: [
          { type: 'contains', value: `question ${i}` },
          { type: 'trajectory:tool-used', value: { name: 'refund', max: 1 } },
          { type: 'trajectory-match', mode: 'superset', value: [{ name: 'lookup_order', args: { order_id: `question ${i}` } }, 'refund'] }
        ]
      })
    )
    const structured = write(tempDir(), {
      'agent.mjs': AGENT_RESULT,
      'cases.jsonl': `${lines.join('\n')}\n`,
      'evalgate.yml':
        'name: bench\ndataset: cases.jsonl\nconcurrency: 64\ntarget: { module: ./agent.mjs }\npricing: { bench-mini: { input: 0.6, output: 2.4 } }\n'
    })
    // the same number of checks on plain strings: what the structured results themselves cost
    const textLines = Array.from({ length: size }, (_, i) =>
      JSON.stringify({
        id: `c${i}`,
        input: `question ${i}`,
        assert: [
          { type: 'contains', value: `question ${i}` },
          { type: 'icontains', value: 'ECHO' },
          { type: 'not-contains', value: `refund ${i}` }
        ]
      })
    )
    const threeText = project(size, 'agent.mjs', AGENTS.instant, '{ module: ./agent.mjs }', 64)
    writeFileSync(path.join(threeText, 'cases.jsonl'), `${textLines.join('\n')}\n`)
    // the structured agent's data carried as text (its JSON as the output), as agents did before result objects:
    // what is left between this and `structured` is what reading the data as data costs, not the data's size
    const sameDataText = write(tempDir(), {
      'agent.mjs': `const result = ${AGENT_RESULT.replace('export default ', '')}export default (input) => JSON.stringify(result(input))\n`,
      'cases.jsonl': `${textLines.join('\n')}\n`,
      'evalgate.yml': 'name: bench\ndataset: cases.jsonl\nconcurrency: 64\ntarget: { module: ./agent.mjs }\n'
    })
    // rounds of the three runs, interleaved (the order turning each round), medians: one run each says little on a shared machine
    const runs = { strings: [], threeChecks: [], sameData: [], structured: [] }
    const configs = { strings: plain, threeChecks: threeText, sameData: sameDataText, structured }
    const order = Object.keys(runs)
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < order.length; k++) {
        const which = order[(k + round) % order.length]
        const r = await libRun(path.join(configs[which], 'evalgate.yml'))
        expectAllPassed(r, size, `agents (${which})`)
        runs[which].push(r)
      }
    }
    const mid = (which) => ({
      processMs: median(runs[which].map((r) => r.processMs)),
      loadMs: median(runs[which].map((r) => r.loadMs)),
      runMs: median(runs[which].map((r) => r.runMs)),
      cpuMs: median(runs[which].map((r) => r.cpuMs)),
      peakRssMb: median(runs[which].map((r) => r.peakRssMb))
    })
    const a = mid('strings')
    const t = mid('threeChecks')
    const d = mid('sameData')
    const b = mid('structured')
    results.agents.push({ n: size, rounds, strings: a, threeChecks: t, sameDataText: d, structured: b })
    // CPU time (all threads) as well as wall time: on a shared machine it moves less
    const figures = (r) => `${secs(r.processMs)} (CPU ${secs(r.cpuMs)}), peak ${mb(r.peakRssMb)}`
    const perRound = (x, y) => runs[x].map((r, i) => (r.processMs / runs[y][i].processMs).toFixed(2)).join(' ')
    console.log(`  ${thousands(size).padStart(7)} cases  strings, 1 check: ${figures(a)}  ·  strings, 3 checks: ${figures(t)}`)
    console.log(`  ${''.padStart(13)}  the same data as text (the result's JSON as the output), 3 checks: ${figures(d)}`)
    console.log(
      `  ${''.padStart(13)}  structured + contains + 2 trajectory checks: ${figures(b)}  ·  vs 1 check: time ${ratio(b.processMs, a.processMs)}, CPU ${ratio(b.cpuMs, a.cpuMs)}, memory ${ratio(b.peakRssMb, a.peakRssMb)}  ·  vs 3 checks: time ${ratio(b.processMs, t.processMs)}, CPU ${ratio(b.cpuMs, t.cpuMs)}, memory ${ratio(b.peakRssMb, t.peakRssMb)}  ·  vs the same data as text: time ${ratio(b.processMs, d.processMs)}, CPU ${ratio(b.cpuMs, d.cpuMs)}`
    )
    // where the difference is: loading the dataset (config, parse, fingerprints, expected text) or running it
    const phases = (r) => `loading ${secs(r.loadMs)}, running ${secs(r.runMs)}`
    console.log(`  ${''.padStart(13)}  of which: strings, 3 checks: ${phases(t)}  ·  same data as text: ${phases(d)}  ·  structured: ${phases(b)}`)
    if (rounds > 1)
      console.log(
        `  ${''.padStart(13)}  medians of ${rounds} rounds; time ratios by round, vs 1 check: ${perRound('structured', 'strings')}  ·  vs 3 checks: ${perRound('structured', 'threeChecks')}  ·  vs the same data as text: ${perRound('structured', 'sameData')}`
      )
  }
}

// ---------------------------------------------------------------------------
// --before DIR: two trees' bundles, interleaved

/**
 * Each scenario's projects are made once; `run(dist, tree)` measures one tree
 * once and returns its figures, by name (ms, or MB for memory).
 */
const BEFORE_AFTER = {
  instant(n = 10000) {
    const dir = project(n, 'agent.mjs', AGENTS.instant, '{ module: ./agent.mjs }', 64)
    return {
      title: `instant: ${thousands(n)} cases, library (load, run, record, compare, report)`,
      async run(dist) {
        const r = await libRun(path.join(dir, 'evalgate.yml'), dist)
        expectAllPassed(r, n, 'instant')
        return { wall: r.processMs, cpu: r.cpuMs, 'peak memory': r.peakRssMb }
      }
    }
  },
  latency(n = 1000) {
    const dir = project(n, 'agent.mjs', AGENTS.latency, '{ module: ./agent.mjs }', 16)
    return {
      title: `latency: ${thousands(n)} cases answering in 50 ms, concurrency 16`,
      async run(dist) {
        const r = await libRun(path.join(dir, 'evalgate.yml'), dist)
        expectAllPassed(r, n, 'latency')
        return { run: r.runMs, wall: r.processMs, cpu: r.cpuMs }
      }
    }
  },
  command(n = 1000) {
    const stdio = project(n, 'agent.mjs', AGENTS.stdio, '{ command: ["node", "agent.mjs"] }', 8)
    const jsonl = project(n, 'agent.mjs', AGENTS.jsonl, '{ command: ["node", "agent.mjs"], protocol: jsonl, workers: 4 }', 8)
    return {
      title: `command: ${thousands(n)} cases, stdio and jsonl (4 workers), concurrency 8`,
      async run(dist) {
        const a = await libRun(path.join(stdio, 'evalgate.yml'), dist)
        const b = await libRun(path.join(jsonl, 'evalgate.yml'), dist)
        expectAllPassed(a, n, 'command stdio')
        expectAllPassed(b, n, 'command jsonl')
        return { 'stdio run': a.runMs, 'jsonl run': b.runMs, 'jsonl cpu': b.cpuMs }
      }
    }
  },
  scale(n = 100000) {
    const dir = scaleProject(n)
    return {
      title: `scale: the CLI at ${thousands(n)} cases`,
      async run(dist, tree) {
        const { first, again } = await scaleRun(dir, n, dist, `-${tree}`)
        return {
          'run --out wall': first.wallMs,
          'run --out cpu': first.cpuMs,
          'run --out peak memory': first.peakRssMb,
          'with reports wall': again.wallMs,
          'with reports cpu': again.cpuMs,
          'with reports peak memory': again.peakRssMb
        }
      }
    }
  },
  cold() {
    const project = coldProject()
    return {
      title: 'cold: the action from process start to its first case; the CLI --version',
      short: true,
      async run(dist) {
        const r = await coldRun(project, dist)
        // not the action's spawn to exit: since the sandbox, process.exit in the agent no longer ends the run
        return { 'first case': r.firstCaseMs, 'first case cpu': r.firstCaseCpuMs, 'CLI --version': r.cliVersionMs }
      }
    }
  }
}

/**
 * Runs the chosen scenarios against `beforeRoot`'s dist/ and this tree's in
 * pairs, alternating which goes first (before, after, after, before, …) so that
 * neither always meets the warmer cache; prints the medians and the median of
 * the pairs' ratios after/before.
 */
async function beforeAfter(beforeRoot, chosen, pairs, n) {
  const trees = { before: path.join(path.resolve(beforeRoot), 'dist'), after: DIST }
  for (const bundle of ['lib/index.js', 'cli/index.js', 'index.js']) {
    if (!existsSync(path.join(trees.before, bundle))) throw new Error(`--before ${beforeRoot}: dist/${bundle} is missing: build that tree first`)
  }
  console.log(`before: ${trees.before}\nafter:  ${trees.after}`)
  const LIMIT = 1.15
  const over = []
  for (const name of chosen) {
    const scenario = BEFORE_AFTER[name](name === 'cold' ? undefined : n)
    const count = scenario.short ? Math.max(pairs, 5) : pairs
    const figures = new Map()
    for (let i = 0; i < count; i++) {
      const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before']
      const got = {}
      for (const tree of order) got[tree] = await scenario.run(trees[tree], tree)
      for (const [key, value] of Object.entries(got.after)) {
        const f = figures.get(key) ?? { before: [], after: [], ratios: [] }
        f.before.push(got.before[key])
        f.after.push(value)
        f.ratios.push(value / got.before[key])
        figures.set(key, f)
      }
    }
    console.log(`\n${scenario.title} — ${count} pairs, medians`)
    console.log(`  ${'figure'.padEnd(26)} ${'before'.padStart(10)} ${'after'.padStart(10)}   after/before`)
    for (const [key, f] of figures) {
      const show = (x) => (key.includes('memory') ? mb(x) : x >= 10000 ? secs(x) : `${x.toFixed(0)} ms`)
      const r = median(f.ratios)
      if (r > LIMIT && !key.includes('memory')) over.push(`${name} ${key} ×${r.toFixed(2)}`)
      console.log(
        `  ${key.padEnd(26)} ${show(median(f.before)).padStart(10)} ${show(median(f.after)).padStart(10)}   ×${r.toFixed(3)}  (pairs: ${f.ratios.map((x) => x.toFixed(2)).join(' ')})`
      )
    }
  }
  console.log('\nbundles (MB)')
  const sizes = { before: bundleSizes(trees.before), after: bundleSizes(trees.after) }
  for (const tree of ['before', 'after'])
    console.log(`  ${tree.padEnd(6)} ${sizes[tree].map((b) => `${b.file.slice('dist/'.length)} ${b.mb.toFixed(2)}`).join(', ')}`)
  console.log(over.length ? `\nover ×${LIMIT}: ${over.join('; ')}` : `\nno time figure over ×${LIMIT}`)
}

/**
 * Conversations (SPEC §13): `n` conversations of `turns` scripted turns against the same number of
 * single-turn cases (n × turns), an instant jsonl agent that reads each request's messages, a check per
 * turn (or case): the CLI's `run --out`, wall and peak memory, `rounds` interleaved runs and their medians.
 */
async function conversations(n = 1000, turns = 5, rounds = 1) {
  const agent =
    "import readline from 'node:readline'\n" +
    "readline.createInterface({ input: process.stdin }).on('line', (line) => {\n" +
    '  const { id, input, messages } = JSON.parse(line)\n' +
    "  process.stdout.write(JSON.stringify({ id, output: `echo: ${input} (${messages ? messages.length : 1} messages)` }) + '\\n')\n" +
    '})\n'
  const target = '{ command: ["node", "agent.mjs"], protocol: jsonl, workers: 4 }'
  const conversationCases = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `c${i}`,
      turns: Array.from({ length: turns }, (_, k) => ({ user: `question ${i} turn ${k + 1}`, assert: [{ type: 'contains', value: `turn ${k + 1}` }] })),
      assert: [{ type: 'contains', value: `${2 * turns - 1} messages` }]
    })
  )
  const single = dataset(n * turns)
  const make = (cases) =>
    write(tempDir(), { 'agent.mjs': agent, 'cases.jsonl': cases, 'evalgate.yml': `name: bench\ndataset: cases.jsonl\nconcurrency: 8\ntarget: ${target}\n` })
  const dirs = { conversations: make(`${conversationCases.join('\n')}\n`), single: make(single) }
  const runs = { conversations: [], single: [] }
  for (let round = 0; round < rounds; round++) {
    for (const kind of ['conversations', 'single']) {
      const dir = dirs[kind]
      const reporter = maxRssReporter(dir)
      const out = path.join(dir, 'run.json')
      const r = await measure(
        NODE,
        ['--import', reporter, path.join(DIST, 'cli/index.js'), 'run', '-c', path.join(dir, 'evalgate.yml'), '--out', out, '--quiet'],
        {
          cwd: dir
        }
      )
      if (r.status !== 0) throw new Error(`conversations (${kind}): run failed (${r.status}): ${r.stderr}`)
      const record = JSON.parse(readFileSync(out, 'utf8'))
      const expected = kind === 'conversations' ? n : n * turns
      if (record.summary.passed !== expected) throw new Error(`conversations (${kind}): ${record.summary.passed} of ${expected} cases passed`)
      runs[kind].push({ wallMs: r.wallMs, peakRssMb: r.peakRssMb, recordMb: statSync(out).size / 1048576 })
    }
  }
  const of = (kind, key) => median(runs[kind].map((r) => r[key]))
  const calls = n * turns
  results.conversations = Object.fromEntries(['conversations', 'single'].map((k) => [k, { wallMs: of(k, 'wallMs'), peakRssMb: of(k, 'peakRssMb') }]))
  console.log(
    `\nconversations: ${thousands(n)} conversations of ${turns} turns vs ${thousands(calls)} single-turn cases (${thousands(calls)} target calls each),`
  )
  console.log(
    `  an instant jsonl agent (4 workers), concurrency 8, one contains per turn or case; the CLI's run --out${rounds > 1 ? `, median of ${rounds}` : ''}`
  )
  for (const kind of ['conversations', 'single']) {
    const label = kind === 'conversations' ? `${thousands(n)} × ${turns} turns` : `${thousands(calls)} single`
    console.log(
      `  ${label.padEnd(16)} wall ${secs(of(kind, 'wallMs'))} (${((of(kind, 'wallMs') * 1000) / calls).toFixed(0)} µs/call), peak ${mb(of(kind, 'peakRssMb'))}, record ${of(kind, 'recordMb').toFixed(1)} MB`
    )
  }
  console.log(
    `  conversations / single: wall ${ratio(of('conversations', 'wallMs'), of('single', 'wallMs'))}, peak memory ${ratio(of('conversations', 'peakRssMb'), of('single', 'peakRssMb'))}`
  )
}

// ---------------------------------------------------------------------------

const OTEL_AGENT = path.join(ROOT, '__tests__/__fixtures__/agents/otel')

async function tracing(n = 1000) {
  const cases = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `r${i}`, input: `refund A${i}`, assert: [{ type: 'contains', value: `A${i}` }] })
  ).join('\n')
  const config = (tracing) =>
    `name: bench\ndataset: cases.jsonl\nconcurrency: 8\n${tracing ? `tracing: ${tracing}\n` : ''}target:\n  command: [node, ${path.join(OTEL_AGENT, 'jsonl.mjs')}]\n  protocol: jsonl\n  workers: 4\n${tracing ? '' : '  env: { OTEL_SDK_DISABLED: "true" }\n'}`
  const on = write(tempDir(), { 'cases.jsonl': `${cases}\n`, 'evalgate.yml': config('true') })
  // the same without the quiet period after each reply: what receiving, decoding and mapping the spans cost
  const noWait = write(tempDir(), { 'cases.jsonl': `${cases}\n`, 'evalgate.yml': config('{ waitMs: 0 }') })
  const off = write(tempDir(), { 'cases.jsonl': `${cases}\n`, 'evalgate.yml': config(false) })
  console.log(`\ntracing: ${n} trials of a traced jsonl agent (4 workers, concurrency 8), tracing on vs off, interleaved`)
  const runs = { on: [], off: [], noWait: [] }
  for (let round = 0; round < 2; round++) {
    for (const [name, dir] of [
      ['off', off],
      ['on', on],
      ['noWait', noWait]
    ]) {
      const r = await libRun(path.join(dir, 'evalgate.yml'))
      expectAllPassed(r, n, `tracing ${name}`)
      runs[name].push(r)
    }
  }
  const pick = (list, key) => median(list.map((r) => r[key]))
  const [onWall, offWall, onRss, offRss] = [pick(runs.on, 'processMs'), pick(runs.off, 'processMs'), pick(runs.on, 'peakRssMb'), pick(runs.off, 'peakRssMb')]
  results.tracing = { n, on: { wallMs: onWall, peakRssMb: onRss }, off: { wallMs: offWall, peakRssMb: offRss } }
  const [noWaitWall, noWaitRss] = [pick(runs.noWait, 'processMs'), pick(runs.noWait, 'peakRssMb')]
  results.tracing.noWait = { wallMs: noWaitWall, peakRssMb: noWaitRss }
  console.log(`  off: wall ${secs(offWall)}, peak ${mb(offRss)}`)
  console.log(`  on:  wall ${secs(onWall)}, peak ${mb(onRss)}`)
  console.log(`  on/off: wall ${ratio(onWall, offWall)}, peak memory ${ratio(onRss, offRss)} (medians of 2 rounds)`)
  console.log(
    `  on, waitMs 0 (no quiet period): wall ${secs(noWaitWall)}, peak ${mb(noWaitRss)}; /off: wall ${ratio(noWaitWall, offWall)}, peak ${ratio(noWaitRss, offRss)}`
  )
}

/** A stdio agent that sends its trial's trace a flood (FLOOD=1) or one span, then answers. */
const FLOOD_AGENT = `
const url = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
const traceId = process.env.TRACEPARENT.split('-')[1]
let n = 0
const span = (name) => ({ traceId, spanId: (++n).toString(16).padStart(16, '0'), name, startTimeUnixNano: String(1700000000000000000n + BigInt(n)), endTimeUnixNano: String(1700000000000001000n + BigInt(n)), attributes: [{ key: 'i', value: { intValue: n } }] })
const body = (spans) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })
const post = async (data, type = 'application/json') => (await fetch(url, { method: 'POST', headers: { 'content-type': type }, body: data })).status
const statuses = {}
const count = (s) => (statuses[s] = (statuses[s] ?? 0) + 1)
if (process.env.FLOOD) {
  for (let batch = 0; batch < 20; batch++) count(await post(body(Array.from({ length: 10000 }, () => span('flood')))))
  count(await post(Buffer.alloc(64 * 1024 * 1024, 0x20)).catch(() => 'reset'))
  count(await post('this is not OTLP'))
} else count(await post(body([span('one')])))
process.stdout.write(JSON.stringify(statuses))
`

async function floods(n = 4) {
  const cases = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `f${i}`, input: 'go', assert: [{ type: 'trace-span-count', value: { pattern: '*', min: 1 } }] })
  ).join('\n')
  const config = (flood) =>
    `name: bench\ndataset: cases.jsonl\nconcurrency: 2\ntracing: true\ntarget:\n  command: [node, agent.mjs]\n  timeoutMs: 300000\n${flood ? '  env: { FLOOD: "1" }\n' : ''}`
  const quiet = write(tempDir(), { 'agent.mjs': FLOOD_AGENT, 'cases.jsonl': `${cases}\n`, 'evalgate.yml': config(false) })
  const flood = write(tempDir(), { 'agent.mjs': FLOOD_AGENT, 'cases.jsonl': `${cases}\n`, 'evalgate.yml': config(true) })
  console.log(`\nfloods: ${n} trials (concurrency 2), each sending 200,000 spans of its trace, a 64 MB body and a non-OTLP body, vs one span`)
  const q = await libRun(path.join(quiet, 'evalgate.yml'))
  expectAllPassed(q, n, 'floods (quiet)')
  const f = await libRun(path.join(flood, 'evalgate.yml'))
  expectAllPassed(f, n, 'floods')
  results.floods = { n, quiet: { wallMs: q.processMs, peakRssMb: q.peakRssMb }, flood: { wallMs: f.processMs, peakRssMb: f.peakRssMb }, agentSaw: f.agentSaw }
  console.log(`  one span each: wall ${secs(q.processMs)}, peak ${mb(q.peakRssMb)}`)
  console.log(
    `  floods:        wall ${secs(f.processMs)}, peak ${mb(f.peakRssMb)} (${ratio(f.peakRssMb, q.peakRssMb)}); answers the agent got: ${f.firstOutput}`
  )
  console.log(`  a flooded trial's trace summary: ${JSON.stringify(f.firstTrace)}`)
}

const SCENARIOS = ['instant', 'latency', 'command', 'scale', 'action', 'cold', 'agents', 'conversations', 'tracing', 'floods']
const only = values.only ? values.only.split(',').map((s) => s.trim()) : SCENARIOS
for (const name of only) if (!SCENARIOS.includes(name)) throw new Error(`--only ${name}: choose among ${SCENARIOS.join(', ')}`)
const n = values.cases === undefined ? undefined : Number(values.cases)
if (n !== undefined && !(Number.isInteger(n) && n > 0)) throw new Error(`--cases ${values.cases}: give a whole number > 0`)
const pairs = values.pairs === undefined ? undefined : Number(values.pairs)
if (pairs !== undefined && !(Number.isInteger(pairs) && pairs > 0)) throw new Error(`--pairs ${values.pairs}: give a whole number > 0`)
for (const bundle of ['dist/lib/index.js', 'dist/cli/index.js', 'dist/index.js']) {
  if (!existsSync(path.join(ROOT, bundle))) throw new Error(`${bundle} is missing: run npm run bundle first`)
}

// which Node.js the figures are of: they move between major versions (V8's JSON and GC)
console.log(`node ${spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()} (${NODE})`)
try {
  if (values.before !== undefined) {
    const chosen = values.only ? only : ['instant', 'scale', 'cold']
    for (const name of chosen) if (!(name in BEFORE_AFTER)) throw new Error(`--before: --only ${name}: choose among ${Object.keys(BEFORE_AFTER).join(', ')}`)
    await beforeAfter(values.before, chosen, pairs ?? 3, n)
  } else {
    if (only.includes('instant')) await instant(n)
    if (only.includes('latency')) await latency(n)
    if (only.includes('command')) await command(n)
    if (only.includes('scale')) await scale(n === undefined ? undefined : [n])
    if (only.includes('action')) await action(n)
    if (only.includes('cold')) await cold()
    if (only.includes('agents')) await agents(n === undefined ? undefined : [n], pairs ?? 1)
    if (only.includes('conversations')) await conversations(n, 5, pairs ?? 1)
    if (only.includes('tracing')) await tracing(n)
    if (only.includes('floods')) await floods(n)
    if (values.peer) await peer(n)
  }
} finally {
  for (const dir of temps) {
    if (values['peer-dir'] && path.resolve(dir) === path.resolve(values['peer-dir'])) continue
    rmSync(dir, { recursive: true, force: true })
  }
}
