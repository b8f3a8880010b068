/**
 * Issue 33: the gate attacked by someone with write access to a branch, through
 * the bundled action (dist/index.js, a process of its own, as the runner starts
 * it) against the fake GitHub on 127.0.0.1. Each attack is the reproduction
 * that got through before, with what must happen now. SECURITY.md's table of
 * attacks names these tests.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { BASE, errorLine, HEAD, MARKER, PR, useAction } from '../__fixtures__/action.js'
import { chatReply, startServer } from '../__fixtures__/openai-server.js'
import { runtimeToken } from '../__fixtures__/github-server.js'
import { tempDir } from '../github/helpers.js'

const suite = useAction()
const dist = process.env.EVALGATE_DIST ?? path.join(process.cwd(), 'dist', 'index.js')

const IDS = Array.from({ length: 10 }, (_, i) => `c${String(i + 1).padStart(2, '0')}`)
const BROKEN = ['c01', 'c02', 'c03']

/** Ten cases: the input `qN` expects the answer `aN`. */
function casesYaml(assert: (id: string, n: number) => string = (_id, n) => `  expected: a${n}\n`): string {
  return IDS.map((id, i) => `- id: ${id}\n  input: q${i + 1}\n${assert(id, i + 1)}`).join('')
}

/** Answers `the answer is aN`, or `no idea` for the cases agent-control.json calls broken. */
const AGENT = `import { readFileSync } from 'node:fs'
export default async function agent(input, evalCase) {
  const { broken } = JSON.parse(readFileSync(new URL('agent-control.json', import.meta.url), 'utf8'))
  return broken.includes(evalCase.id) ? 'no idea' : 'the answer is ' + String(input).replace('q', 'a')
}
`

function write(file: string, text: string): string {
  const full = path.join(suite.ws.dir, file)
  mkdirSync(path.dirname(full), { recursive: true })
  writeFileSync(full, text)
  return full
}

function read(file: string): string {
  return readFileSync(path.join(suite.ws.dir, file), 'utf8')
}

/** The workspace's config: the ten cases, the module agent, then `extra` (YAML at the top level). */
function configure(extra = '', target = 'target:\n  module: ./agent.mjs\n'): void {
  write('evalgate.yml', `version: 1\nname: demo\ndataset: cases.yaml\n${target}${extra}`)
}

/** Serve the workspace's files as they are now at the PR's base commit (contents API). */
function serveAtBase(...files: string[]): void {
  for (const file of files) suite.server.addFile(BASE, file, read(file))
}

/** The ten-case project, its config served at the base commit, and a baseline from main where every case passes. */
async function baseProject(extra = '', options: { env?: Record<string, string> } = {}): Promise<void> {
  write('cases.yaml', casesYaml())
  write('agent.mjs', AGENT)
  configure(extra)
  serveAtBase('evalgate.yml')
  const runRecord = suite.server.addRun({ head_sha: BASE })
  const main = await suite.action({ event: 'push', runId: runRecord.id, sha: BASE, payload: { repository: { default_branch: 'main' } }, env: options.env })
  expect(main.exitCode).toBeUndefined()
  expect(suite.server.uploaded(runRecord.id).map((a) => a.name)).toEqual(['evalgate-demo'])
}

/** The pull request's run of the bundled action: `node dist/index.js` with the runner's environment. */
const prBundle = (options?: Parameters<typeof suite.prBundle>[1]) => suite.prBundle(dist, options)

function comment(): string {
  const ours = suite.ours()
  expect(ours).toHaveLength(1)
  return ours[0]!.body
}

/** The ten cases, the three BROKEN ones graded by the `file:` check checks/answer.mjs; config and check served at the base commit; a baseline from main. */
async function fileCheckProject(): Promise<void> {
  write('checks/answer.mjs', "export default (output, { case: c }) => output.includes(c.input.replace('q', 'a'))\n")
  write(
    'cases.yaml',
    casesYaml((id, n) => (BROKEN.includes(id) ? `  assert: [{type: javascript, file: checks/answer.mjs}]\n` : `  expected: a${n}\n`))
  )
  write('agent.mjs', AGENT)
  configure()
  serveAtBase('evalgate.yml', 'checks/answer.mjs')
  const runRecord = suite.server.addRun({ head_sha: BASE })
  expect((await suite.action({ event: 'push', runId: runRecord.id, sha: BASE, payload: { repository: { default_branch: 'main' } } })).exitCode).toBeUndefined()
}

describe('1. rewriting a failing case’s checks does not hide its regression', () => {
  it('a harmless second assertion on each broken case: the three are regressed, as the baseline ran them', async () => {
    await baseProject()
    write(
      'cases.yaml',
      casesYaml((id, n) =>
        BROKEN.includes(id) ? `  assert:\n    - {type: contains, value: a${n}}\n    - {type: not-contains, value: zzz}\n` : `  expected: a${n}\n`
      )
    )
    const result = await prBundle({ broken: BROKEN })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    expect(errorLine(result)).toMatch(/3 cases regressed \(limit: maxRegressions 0\): c01, c02, c03/)
    expect(comment()).toMatch(/c01, c02, c03 \(they changed in this pull request and fail as the baseline ran them\)/)
  })

  it('rewritten so that the broken output passes: still regressed; the accept label lets an intended change through, in the open', async () => {
    await baseProject()
    write(
      'cases.yaml',
      casesYaml((id, n) => (BROKEN.includes(id) ? `  expected: no idea\n` : `  expected: a${n}\n`))
    )
    const result = await prBundle({ broken: BROKEN })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    const accepted = await prBundle({ broken: BROKEN, labels: ['evalgate:accept'] })
    expect(accepted.exitCode).toBeUndefined()
    expect(accepted.outputs).toMatchObject({ gate: 'accepted', regressed: '3' })
  })

  it('rewriting the `file:` check itself: the base commit’s check grades the case as the baseline ran it', async () => {
    await fileCheckProject()
    write('checks/answer.mjs', 'export default () => true\n')
    const result = await prBundle({ broken: BROKEN })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    expect(suite.server.requests.some((r) => decodeURIComponent(r.path) === '/repos/acme/bot/contents/checks/answer.mjs' && r.query.ref === BASE)).toBe(true)
  })

  it('a pull request that tightens a check the case still passes as the baseline ran it passes', async () => {
    await baseProject()
    write(
      'cases.yaml',
      casesYaml((id, n) =>
        BROKEN.includes(id) ? `  assert:\n    - {type: contains, value: a${n}}\n    - {type: starts-with, value: the answer}\n` : `  expected: a${n}\n`
      )
    )
    const result = await prBundle()
    expect(result.exitCode).toBeUndefined()
    expect(result.outputs).toMatchObject({ gate: 'pass', regressed: '0' })
  })
})

describe('2. repeat: 3 catches a case that went from every trial passing to none', () => {
  it('3/3 → 0/3 on three cases is three regressions, not three flaky cases', async () => {
    await baseProject('repeat: 3\n')
    const result = await prBundle({ broken: BROKEN })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    expect(comment()).toMatch(/too few trials/)
  })
})

/** An agent that writes what its environment holds under `names` to leak.json, then answers. */
function leakingAgent(names: string[]): string {
  return `import { writeFileSync } from 'node:fs'
export default async function agent(input) {
  writeFileSync(new URL('leak.json', import.meta.url), JSON.stringify(${JSON.stringify(names)}.map((n) => process.env[n] ?? null)))
  return 'the answer is ' + String(input).replace('q', 'a')
}
`
}

describe('3. ${VAR} in target.env reads only what the agent may have', () => {
  it('${ACTIONS_RUNTIME_TOKEN} is refused at load, whatever the base config says', async () => {
    await baseProject()
    write('agent.mjs', leakingAgent(['RT']))
    configure(`target:\n  module: ./agent.mjs\n  env:\n    RT: \${ACTIONS_RUNTIME_TOKEN}\n`, '')
    const result = await prBundle()
    expect(result.exitCode).toBe(1)
    expect(errorLine(result)).toMatch(/target\.env\.RT.*ACTIONS_RUNTIME_TOKEN/)
    expect(existsSync(path.join(suite.ws.dir, 'leak.json'))).toBe(false)
    expect(result.stdout).not.toContain(runtimeToken(result.runId))
  })

  it('${JUDGE_API_KEY}, the trusted judge’s key, is refused: the base config never hands it to the agent', async () => {
    const judge = 'judge:\n  baseUrl: http://127.0.0.1:9/v1\n  apiKeyEnv: JUDGE_API_KEY\n'
    await baseProject(judge, { env: { JUDGE_API_KEY: 'sk-judge-0001' } })
    write('agent.mjs', leakingAgent(['JK']))
    configure(`target:\n  module: ./agent.mjs\n  env:\n    JK: \${JUDGE_API_KEY}\n${judge}`, '')
    const result = await prBundle({ env: { JUDGE_API_KEY: 'sk-judge-0001' } })
    expect(result.exitCode).toBe(1)
    expect(errorLine(result)).toMatch(/target\.env\.JK reads JUDGE_API_KEY.*base commit/)
    expect(existsSync(path.join(suite.ws.dir, 'leak.json'))).toBe(false)
  })
})

describe('4. a target’s apiKeyEnv cannot name a forbidden variable', () => {
  it('an openai target at the PR’s server with apiKeyEnv: ACTIONS_RUNTIME_TOKEN sends nothing', async () => {
    const server = await startServer()
    try {
      server.respond(() => ({ body: chatReply('the answer is a1') }))
      await baseProject()
      configure(`target:\n  openai:\n    model: m\n    baseUrl: ${server.baseUrl}\n    apiKeyEnv: ACTIONS_RUNTIME_TOKEN\n`, '')
      const result = await prBundle()
      expect(server.requests.map((r) => r.headers.authorization)).not.toContain(`Bearer ${runtimeToken(result.runId)}`)
      expect(result.exitCode).toBe(1)
      expect(errorLine(result)).toMatch(/target\.openai\.apiKeyEnv.*ACTIONS_RUNTIME_TOKEN/)
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })
})

describe('5. pricing is a trusted setting', () => {
  /** Reports 100 tokens a call at model "m", ten times as many for the cases agent-control.json names. */
  const PRICED_AGENT = `import { readFileSync } from 'node:fs'
export default async function agent(input, evalCase) {
  const { broken } = JSON.parse(readFileSync(new URL('agent-control.json', import.meta.url), 'utf8'))
  const tokens = broken.includes(evalCase.id) ? 1000 : 100
  return { output: 'the answer is ' + String(input).replace('q', 'a'), usage: { inputTokens: tokens, outputTokens: tokens }, metadata: { model: 'm' } }
}
`
  it('tokens ×10 and the PR prices the model 20× cheaper: the base commit’s pricing decides, the gate fails', async () => {
    write('agent.mjs', PRICED_AGENT)
    const base = 'gate:\n  maxCostIncrease: 0.1\npricing:\n  m: {input: 1, output: 1}\n'
    write('cases.yaml', casesYaml())
    configure(base)
    serveAtBase('evalgate.yml')
    const runRecord = suite.server.addRun({ head_sha: BASE })
    expect(
      (await suite.action({ event: 'push', runId: runRecord.id, sha: BASE, payload: { repository: { default_branch: 'main' } } })).exitCode
    ).toBeUndefined()
    configure('gate:\n  maxCostIncrease: 0.1\npricing:\n  m: {input: 0.05, output: 0.05}\n')
    const result = await prBundle({ broken: IDS })
    expect(result.exitCode).toBe(1)
    expect(errorLine(result)).toMatch(/total cost rose 900\.0%/)
    expect(comment()).toMatch(/pricing\.m\.input.*\| `1` \| `0\.05` \|/)
  })
})

/** A command judge: reads {prompt, output, rubric} on stdin, answers {score, reason}. */
const HONEST_JUDGE = `let text = ''
process.stdin.on('data', (c) => (text += c))
process.stdin.on('end', () => {
  const { output } = JSON.parse(text)
  const ok = output.includes('the answer is')
  process.stdout.write(JSON.stringify({ score: ok ? 1 : 0, reason: ok ? 'answers' : 'does not answer' }))
})
`

/** The three cases the agent will break are graded by the judge, the others by `expected`. */
function judgedCases(): string {
  return casesYaml((id, n) => (BROKEN.includes(id) ? `  assert:\n    - {type: llm-rubric, value: gives the answer a${n}}\n` : `  expected: a${n}\n`))
}

/** The project graded by HONEST_JUDGE as a command judge (`judge` adds to its section), served at the base commit, with a baseline from main. */
async function judgedProject(cases: string, judge = '', env?: Record<string, string>): Promise<void> {
  write('judge.mjs', HONEST_JUDGE)
  write('cases.yaml', cases)
  write('agent.mjs', AGENT)
  configure(`judge:\n  provider: command\n  command: [node, judge.mjs]\n${judge}`)
  serveAtBase('evalgate.yml', 'judge.mjs')
  const runRecord = suite.server.addRun({ head_sha: BASE })
  expect(
    (await suite.action({ event: 'push', runId: runRecord.id, sha: BASE, payload: { repository: { default_branch: 'main' } }, env })).exitCode
  ).toBeUndefined()
}

describe('6–7. a command judge runs as the base commit has it', () => {
  it('6. the PR rewrites judge.mjs to answer 1 always: the base version grades, three cases regress, the change is listed', async () => {
    await judgedProject(judgedCases())
    write('judge.mjs', `process.stdin.resume(); process.stdin.on('end', () => process.stdout.write('{"score": 1, "reason": "fine"}'))\n`)
    const result = await prBundle({ broken: BROKEN })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    expect(comment()).toMatch(/judge\.mjs/)
  })

  it('7. the PR’s judge.mjs would write the judge’s key to a file: it never runs, the key stays put', async () => {
    const env = { JUDGE_API_KEY: 'sk-judge-0002' }
    await judgedProject(judgedCases(), '  env:\n    JK: ${JUDGE_API_KEY}\n', env)
    const leak = path.join(suite.ws.dir, 'leak.txt')
    write(
      'judge.mjs',
      `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(leak)}, process.env.JK ?? '')\nprocess.stdin.resume(); process.stdin.on('end', () => process.stdout.write('{"score": 1, "reason": "fine"}'))\n`
    )
    // new outputs, so that the judge is asked rather than its baseline verdicts reused
    const result = await prBundle({ env, broken: BROKEN })
    expect(existsSync(leak)).toBe(false)
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
  })
})

describe('8. forged shard records', () => {
  /**
   * Starts, once per process, a detached forger: it reads RUNNER_TEMP from
   * its parent's /proc/<pid>/environ and rewrites every shard record
   * evalgate writes there so that every case passed.
   */
  const FORGING_AGENT = `import { appendFileSync, readFileSync } from 'node:fs'
import { spawn } from 'node:child_process'
let started = false
export default async function agent(input, evalCase) {
  if (!started) {
    started = true
    const forger = spawn(process.execPath, [new URL('forger.mjs', import.meta.url).pathname], { detached: true, stdio: 'ignore' })
    forger.unref()
    appendFileSync(new URL('forgers.txt', import.meta.url), forger.pid + '\\n')
  }
  const { broken } = JSON.parse(readFileSync(new URL('agent-control.json', import.meta.url), 'utf8'))
  return broken.includes(evalCase.id) ? 'no idea' : 'the answer is ' + String(input).replace('q', 'a')
}
`
  const FORGER = `import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
// a forger the agent started reads RUNNER_TEMP from its parent's environment; one started otherwise is told it
const temp = process.argv[2] ?? readFileSync('/proc/' + process.ppid + '/environ', 'utf8').split('\\0').find((l) => l.startsWith('RUNNER_TEMP=')).slice('RUNNER_TEMP='.length)
const started = Date.now()
setInterval(() => {
  if (Date.now() - started > 60000) process.exit(0)
  for (const dir of readdirSync(temp)) {
    const file = path.join(temp, dir, 'run.json')
    if (!dir.includes('-shard-') || !existsSync(file)) continue
    try {
      const record = JSON.parse(readFileSync(file, 'utf8'))
      if (record.cases.every((c) => c.passed)) continue
      for (const c of record.cases) Object.assign(c, { passed: true, passFraction: 1, error: null, output: 'the answer is fine', assertions: [] })
      writeFileSync(file, JSON.stringify(record))
      appendFileSync(new URL('forged.txt', import.meta.url), process.pid + ' ' + dir + '\\n')
    } catch {
      // caught mid-rename: the next tick
    }
  }
}, 5)
`
  it('a detached process rewriting each shard record before its (slow) upload cannot hide three regressions', async () => {
    await baseProject()
    write('agent.mjs', FORGING_AGENT)
    write('forger.mjs', FORGER)
    suite.server.uploadDelayMs = 1500
    const runId = suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: PR }] }).id
    for (const shard of ['1/2', '2/2']) {
      const job = await prBundle({ runId, broken: BROKEN, inputs: { shard } })
      expect(job.stdout).not.toMatch(/internal error/)
    }
    suite.server.uploadDelayMs = 0
    const merge = await prBundle({ runId, inputs: { mode: 'merge' } })
    expect(merge.exitCode).toBe(1)
    expect(merge.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    expect(comment()).toContain(MARKER)
    // every forger the agent started was gone before its shard job wrote its record
    const forgers = read('forgers.txt').trim().split('\n').map(Number)
    expect(forgers).toHaveLength(2)
    // gone, or a zombie nobody reaped (its parent, the shard job, has exited): either way it runs no more
    const running = (pid: number) => existsSync(`/proc/${pid}/stat`) && !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    for (const pid of forgers) expect(running(pid)).toBe(false)
    // no forger touched its own job's record; only the second may have rewritten the first job's copy left in
    // RUNNER_TEMP (the jobs share it here), uploaded and checked before the second job started
    const forged = existsSync(path.join(suite.ws.dir, 'forged.txt')) ? read('forged.txt').trim().split('\n') : []
    expect(forged.filter((line) => !line.startsWith(`${forgers[1]} evalgate-evalgate-demo-shard-1-of-2`))).toEqual([])
  })

  it('a forger evalgate cannot find (started outside the run) is caught by the check of what was uploaded: the shard job and the merge fail', async () => {
    await baseProject()
    write('forger.mjs', FORGER)
    suite.server.uploadDelayMs = 1500
    const forger = spawn(process.execPath, [path.join(suite.ws.dir, 'forger.mjs'), suite.files.temp], { detached: true, stdio: 'ignore' })
    try {
      const runId = suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: PR }] }).id
      const jobs = []
      for (const shard of ['1/2', '2/2']) jobs.push(await prBundle({ runId, broken: BROKEN, inputs: { shard } }))
      // the shard holding the broken cases was forged, and its job says so
      expect(read('forged.txt')).toMatch(/shard/)
      const forgedJob = jobs.find((j) => j.exitCode === 1)
      expect(forgedJob).toBeDefined()
      expect(errorLine(forgedJob!)).toMatch(/is not the one evalgate computed/)
      suite.server.uploadDelayMs = 0
      const merge = await prBundle({ runId, inputs: { mode: 'merge' } })
      expect(merge.exitCode).toBe(1)
      expect(errorLine(merge)).toMatch(/not the one its job computed/)
      expect(merge.outputs.gate).toBeUndefined()
    } finally {
      forger.kill('SIGKILL')
    }
  })
})

describe('9. regressions cannot be pushed out of the comment', () => {
  it('400 long judge.env keys added by the PR: the config changes are cut with "and N more", the three regressed ids are in the comment', async () => {
    await judgedProject(casesYaml())
    const long = 'K'.repeat(120)
    const env = Array.from({ length: 400 }, (_, n) => `    ${long}${n}: ${'v'.repeat(120)}${n}\n`).join('')
    configure(`judge:\n  provider: command\n  command: [node, judge.mjs]\n  env:\n${env}`)
    const result = await prBundle({ broken: BROKEN })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '3' })
    const body = comment()
    expect(body.length).toBeLessThanOrEqual(60_000)
    expect(body).toContain('Config changes (apply after merge)')
    expect(body).toMatch(/and 380 more \(in the job summary\)/)
    expect(body).toContain('#### Regressed (3)')
    for (const id of BROKEN) expect(body).toContain(`| <code>${id}</code> |`)
  })
})

describe('further: the bundle’s own chunk files', () => {
  /**
   * At load, finds the action's bundle through /proc/<pid>/cmdline (it runs
   * inside evalgate's process) and prepends code to the chunk holding the
   * HTML parser, which grading loads on demand.
   */
  const CHUNK_AGENT = `import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
const script = readFileSync('/proc/' + process.pid + '/cmdline', 'utf8').split('\\0')[1]
const dir = path.dirname(script)
for (const name of readdirSync(dir).filter((n) => /^\\d+\\.index\\.js$/.test(n))) {
  const file = path.join(dir, name)
  const text = readFileSync(file, 'utf8')
  if (text.includes('TAG_NAMES')) writeFileSync(file, "import { writeFileSync as __w } from 'node:fs'; __w(new URL('pwned.txt', import.meta.url), 'ran inside evalgate');\\n" + text)
}
export default async (input) => 'the answer is ' + String(input).replace('q', 'a')
`
  it('a module agent that rewrites a chunk evalgate loads on demand (the HTML parser) runs nothing inside evalgate', async () => {
    // a copy of the bundle, as the runner keeps the action: writable by the runner's user
    const copy = tempDir('evalgate-action-')
    cpSync(path.dirname(dist), copy, { recursive: true })
    await baseProject()
    write('cases.yaml', `${casesYaml()}- id: page\n  input: q11\n  assert: [{type: is-html}]\n`)
    write('agent.mjs', CHUNK_AGENT)
    const result = await suite.prBundle(path.join(copy, 'index.js'))
    // the agent did rewrite the chunk…
    expect(readdirSync(copy).some((name) => readFileSync(path.join(copy, name), 'utf8').startsWith('import { writeFileSync as __w }'))).toBe(true)
    // …but evalgate had loaded it before the agent ran, and never read it again
    expect(existsSync(path.join(copy, 'pwned.txt'))).toBe(false)
    expect(result.outputs.regressed).toBe('0')
  })
})

describe('further: a race on the files that grade, while the run is in progress', () => {
  /** At its first call, rewrites the `file:` check it is graded by to pass everything; the pull request leaves the check as it is. */
  const REWRITING_AGENT = `import { readFileSync, writeFileSync } from 'node:fs'
let done = false
export default async function agent(input, evalCase) {
  if (!done) {
    done = true
    writeFileSync(new URL('checks/answer.mjs', import.meta.url), 'export default () => true\\n')
  }
  const { broken } = JSON.parse(readFileSync(new URL('agent-control.json', import.meta.url), 'utf8'))
  return broken.includes(evalCase.id) ? 'no idea' : 'the answer is ' + String(input).replace('q', 'a')
}
`
  it('a module agent that rewrites an unchanged `file:` check to pass while the cases run: the run cannot tell, naming the file', async () => {
    await fileCheckProject()
    write('agent.mjs', REWRITING_AGENT)
    const result = await prBundle({ broken: BROKEN })
    // the check did pass the broken cases: the fingerprints, made before, did not see it
    expect(read('checks/answer.mjs')).toBe('export default () => true\n')
    expect(result.exitCode).toBe(1)
    expect(result.outputs.verdict).toBe('could-not-tell')
    expect(errorLine(result)).toMatch(/changed while the run was in progress \(checks\/answer\.mjs\)/)
  })
})
