// node scripts/promptfoo-parity.mjs [--peer-dir DIR] [--write]
//
// Runs each promptfoo example config in __tests__/__fixtures__/promptfoo-examples/
// with promptfoo 0.121.20 (`promptfoo eval`) and with evalgate (`evalgate run -c`,
// dist/cli: run `npm run bundle` first), both on the same deterministic provider,
// and compares the number of results and each result's verdict. --write records
// promptfoo's verdicts and named metrics in verdicts.json there, which the jest suite checks evalgate against.
// promptfoo is installed with npm into a temporary folder, or into --peer-dir (kept, reused).
//
// Then each of promptfoo's example configs in __tests__/__fixtures__/promptfoo-provider-examples/,
// which use the model APIs (Anthropic, Gemini, Bedrock, Azure, Ollama, OpenAI) and python checks,
// runs against a model server on 127.0.0.1 speaking each API (model-server.mjs there), which both
// tools reach through promptfoo's own variables (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, …) and keys
// (a Bedrock `endpoint`): the same per-result verdicts and outputs are expected; --write records promptfoo's
// in verdicts.json there, which the jest suite checks evalgate against. --only NAME[,NAME…] runs those
// folders (of either list; --write then writes nothing).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { promptfooEnv } from '../__tests__/__fixtures__/promptfoo-provider-examples/model-server.mjs'
import { importFixture } from './fixture.mjs'
import { runProcess } from './process.mjs'

const PEER_VERSION = '0.121.20'
const ROOT = path.resolve(import.meta.dirname, '..')
const EXAMPLES = path.join(ROOT, '__tests__/__fixtures__/promptfoo-examples')
const CLI = path.join(ROOT, 'dist/cli/index.js')
const PROVIDER_EXAMPLES = path.join(ROOT, '__tests__/__fixtures__/promptfoo-provider-examples')
/** The model server's port: fixed, since a Bedrock example's `endpoint` names it */
const MODEL_PORT = 48123

const { values } = parseArgs({ options: { 'peer-dir': { type: 'string' }, write: { type: 'boolean', default: false }, only: { type: 'string' } } })
const temps = []
const tempDir = (prefix) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

function installPromptfoo() {
  const dir = values['peer-dir'] ? path.resolve(values['peer-dir']) : tempDir('evalgate-parity-peer-')
  const main = path.join(dir, 'node_modules/promptfoo/dist/src/main.js')
  if (!existsSync(main)) {
    console.log(`npm install --prefix ${dir} promptfoo@${PEER_VERSION} (this takes a while)…`)
    const r = spawnSync('npm', ['install', '--prefix', dir, `promptfoo@${PEER_VERSION}`, '--no-audit', '--no-fund'], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`npm install promptfoo@${PEER_VERSION} failed (${r.status}):\n${r.stderr || r.stdout}`)
  }
  const version = JSON.parse(readFileSync(path.join(dir, 'node_modules/promptfoo/package.json'), 'utf8')).version
  if (version !== PEER_VERSION) throw new Error(`${dir} has promptfoo ${version}, not ${PEER_VERSION}`)
  return main
}

/** promptfoo's verdicts in evalgate's case order: test (each var combination), provider, prompt. */
async function promptfooVerdicts(main, config, extraEnv = {}) {
  const work = tempDir('evalgate-parity-')
  const out = path.join(work, 'out.json')
  const env = {
    ...process.env,
    PROMPTFOO_CONFIG_DIR: path.join(work, '.promptfoo'),
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    NO_COLOR: '1',
    ...extraEnv
  }
  // not spawnSync: this process serves the scripted user both tools ask (simulated-user/)
  const r = await runProcess(process.execPath, [main, 'eval', '-c', config, '--no-cache', '-j', '1', '-o', out, '--no-progress-bar', '--no-table'], {
    cwd: path.dirname(config),
    env
  })
  if (!existsSync(out)) throw new Error(`promptfoo wrote no output for ${config} (exit ${r.status}):\n${(r.stderr || r.stdout).slice(-3000)}`)
  const results = JSON.parse(readFileSync(out, 'utf8')).results.results
  // promptIdx numbers promptfoo's columns, provider by provider, prompt by prompt: evalgate's order within a test
  // (provider ids are not: a suite may name one model several times with other settings)
  const columns = 1 + Math.max(...results.map((x) => x.promptIdx))
  const order = (x) => x.testIdx * columns + x.promptIdx
  return results
    .sort((a, b) => order(a) - order(b))
    .map((x) => ({ test: x.testIdx, prompt: x.promptIdx, passed: x.success, namedScores: x.namedScores ?? {}, output: x.response?.output ?? null }))
}

async function evalgateVerdicts(config, extraEnv = {}) {
  const out = path.join(tempDir('evalgate-parity-'), 'run.json')
  const r = await runProcess(process.execPath, [CLI, 'run', '-c', config, '--out', out, '--quiet'], {
    cwd: path.dirname(config),
    env: { ...process.env, NO_COLOR: '1', ...extraEnv }
  })
  if (!existsSync(out)) throw new Error(`evalgate wrote no record for ${config} (exit ${r.status}):\n${r.stderr || r.stdout}`)
  return JSON.parse(readFileSync(out, 'utf8')).cases.map((c) => ({ id: c.id, passed: c.passed, namedScores: c.namedScores ?? {}, output: c.output }))
}

/** The model server of one example, in a process of its own. */
async function modelServer(dir) {
  const child = spawn(process.execPath, [path.join(PROVIDER_EXAMPLES, 'model-server.mjs'), path.join(dir, 'replies.json'), String(MODEL_PORT)], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening (\S+)/.exec(String(d))
      if (m) resolve(m[1])
    })
    child.on('exit', (code) => reject(new Error(`the model server of ${dir} ended (${code})`)))
  })
  return { url, stop: () => child.kill() }
}

/** Every provider example, both tools pointed at the model server by promptfoo's own variables; true when all agree. */
async function providerParity(main) {
  const examples = readdirSync(PROVIDER_EXAMPLES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && (!values.only || values.only.split(',').includes(d.name)))
    .map((d) => d.name)
    .sort()
  if (examples.length === 0) return true
  console.log(`\nmodel APIs on 127.0.0.1, ${examples.length} example configs:\n`)
  console.log('example                     results (promptfoo / evalgate)   verdicts agreeing   outputs equal')
  let all = true
  const totals = { results: 0, agreeing: 0, outputs: 0 }
  const recorded = {}
  for (const name of examples) {
    const dir = path.join(PROVIDER_EXAMPLES, name)
    const server = await modelServer(dir)
    const env = promptfooEnv(server.url)
    try {
      const config = path.join(dir, 'promptfooconfig.yaml')
      const theirs = await promptfooVerdicts(main, config, env)
      recorded[name] = { passed: theirs.map((t) => t.passed), outputs: theirs.map((t) => outputText(t.output)) }
      let ours
      try {
        ours = await evalgateVerdicts(config, env)
      } catch (err) {
        all = false
        console.log(`${name.padEnd(28)}${`${theirs.length} / -`.padEnd(33)}evalgate refused it: ${err.message.split('\n').slice(1).join(' ').trim()}`)
        continue
      }
      const agreeing = theirs.filter((t, i) => ours[i]?.passed === t.passed).length
      // the provider read the same reply as promptfoo: the outputs the checks graded are the same text
      const sameOutputs = theirs.filter((t, i) => ours[i] && outputText(t.output) === ours[i].output).length
      if (agreeing !== theirs.length || theirs.length !== ours.length || sameOutputs !== theirs.length) all = false
      totals.results += theirs.length
      totals.agreeing += agreeing
      totals.outputs += sameOutputs
      const passed = theirs.filter((t) => t.passed).length
      console.log(
        `${name.padEnd(28)}${`${theirs.length} / ${ours.length}`.padEnd(33)}${`${agreeing}/${theirs.length} (${passed} pass)`.padEnd(20)}${sameOutputs}/${theirs.length}`
      )
      for (const [i, t] of theirs.entries()) {
        if (ours[i]?.passed !== t.passed)
          console.log(`  differs: ${ours[i]?.id ?? `(no case ${i})`}: promptfoo ${t.passed ? 'pass' : 'fail'}, evalgate ${ours[i]?.passed ? 'pass' : 'fail'}`)
        else if (ours[i] && outputText(t.output) !== ours[i].output)
          console.log(`  output differs: ${ours[i].id}: promptfoo ${JSON.stringify(outputText(t.output))}, evalgate ${JSON.stringify(ours[i].output)}`)
      }
    } finally {
      server.stop()
    }
  }
  console.log(`\n${examples.length} examples: ${totals.agreeing}/${totals.results} verdicts agreeing, ${totals.outputs}/${totals.results} outputs equal`)
  if (values.write && !values.only) {
    writeFileSync(path.join(PROVIDER_EXAMPLES, 'verdicts.json'), `${JSON.stringify({ promptfoo: PEER_VERSION, examples: recorded }, null, 1)}\n`)
    console.log(`wrote ${path.relative(ROOT, path.join(PROVIDER_EXAMPLES, 'verdicts.json'))}`)
  }
  return all
}

/** promptfoo's output as the text evalgate records: an object (a tool call) as its JSON. */
function outputText(output) {
  return typeof output === 'string' ? output : output === null || output === undefined ? null : JSON.stringify(output)
}

// simulated-user/: promptfoo asks its remote task to play the user, evalgate its judge; both are pointed at one scripted user
const user = await (await importFixture('__tests__/__fixtures__/simulated-user-server.ts')).startUserServer()
process.env.PROMPTFOO_REMOTE_GENERATION_URL = user.taskUrl
process.env.EVALGATE_USER_BASE_URL = user.baseUrl
try {
  if (!existsSync(CLI)) throw new Error(`${CLI} not found: run npm run bundle first`)
  const main = installPromptfoo()
  const examples = readdirSync(EXAMPLES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && (!values.only || values.only.split(',').includes(d.name)))
    .map((d) => d.name)
    .sort()
  const recorded = {}
  const totals = { examples: 0, results: 0, agreeing: 0, countsEqual: 0, metricsAgreeing: 0 }
  // named metrics to four places: evalgate records them rounded so
  const sameScores = (a, b) =>
    JSON.stringify(
      Object.entries(a)
        .sort()
        .map(([k, v]) => [k, Math.round(v * 1e4) / 1e4])
    ) === JSON.stringify(Object.entries(b).sort())
  console.log(`promptfoo ${PEER_VERSION} vs evalgate, ${examples.length} example configs:\n`)
  console.log('example                     results (promptfoo / evalgate)   verdicts agreeing')
  for (const name of examples) {
    const config = path.join(EXAMPLES, name, 'promptfooconfig.yaml')
    const theirs = await promptfooVerdicts(main, config)
    const ours = await evalgateVerdicts(config)
    const agreeing = theirs.filter((t, i) => ours[i]?.passed === t.passed).length
    totals.examples++
    totals.results += theirs.length
    totals.agreeing += agreeing
    totals.metricsAgreeing += theirs.filter((t, i) => ours[i] && sameScores(t.namedScores, ours[i].namedScores)).length
    if (theirs.length === ours.length) totals.countsEqual++
    console.log(`${name.padEnd(28)}${`${theirs.length} / ${ours.length}`.padEnd(33)}${agreeing}/${theirs.length}`)
    for (const [i, t] of theirs.entries()) {
      if (ours[i]?.passed !== t.passed)
        console.log(`  differs: ${ours[i]?.id ?? `(no case ${i})`}: promptfoo ${t.passed ? 'pass' : 'fail'}, evalgate ${ours[i]?.passed ? 'pass' : 'fail'}`)
      else if (!sameScores(t.namedScores, ours[i].namedScores))
        console.log(`  named metrics differ: ${ours[i].id}: promptfoo ${JSON.stringify(t.namedScores)}, evalgate ${JSON.stringify(ours[i].namedScores)}`)
    }
    recorded[name] = {
      results: theirs.length,
      passed: theirs.map((t) => t.passed),
      namedScores: theirs.map((t) => Object.fromEntries(Object.entries(t.namedScores).map(([k, v]) => [k, Math.round(v * 1e4) / 1e4])))
    }
  }
  console.log(
    `\n${totals.examples} examples, ${totals.countsEqual} with the same number of results, ${totals.agreeing}/${totals.results} verdicts agreeing, ${totals.metricsAgreeing}/${totals.results} with the same named metrics`
  )
  const providers = await providerParity(main)
  if (!providers) process.exitCode = 1
  if (values.write && !values.only) {
    writeFileSync(path.join(EXAMPLES, 'verdicts.json'), `${JSON.stringify({ promptfoo: PEER_VERSION, examples: recorded }, null, 2)}\n`)
    console.log(`wrote ${path.relative(ROOT, path.join(EXAMPLES, 'verdicts.json'))}`)
  }
  if (totals.agreeing !== totals.results || totals.metricsAgreeing !== totals.results || totals.countsEqual !== totals.examples) process.exitCode = 1
} finally {
  await user.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
}
