/**
 * SPEC §9 "Isolation", issue 12 rows 6–8, each attack reproduced: untrusted
 * code (a module agent, javascript checks, regular expressions, JSON Schema
 * patterns) can neither hang the run, nor read the runner's secrets, nor turn
 * a failing gate green through the exit code.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { sourceCli, type SourceCli } from '../__fixtures__/src-cli.js'

interface RecordCase {
  id: string
  passed: boolean
  output: string | null
  error: string | null
  assertions: { type: string; passed: boolean; reason: string }[]
}

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function project(files: Record<string, string>): string {
  const dir = tempProject(files)
  dirs.push(dir)
  return dir
}

function readCases(file: string): Map<string, RecordCase> {
  const record = JSON.parse(readFileSync(file, 'utf8')) as { cases: RecordCase[] }
  return new Map(record.cases.map((c) => [c.id, c]))
}

/** The cases of those ids that failed, with why: empty when all passed. */
function failures(cases: Map<string, RecordCase>, prefix: string): unknown[] {
  return [...cases.values()].filter((c) => c.id.startsWith(prefix) && !c.passed).map((c) => [c.id, c.error, c.assertions.map((a) => a.reason)])
}

/** Long outputs for the backtracking cases; everything else echoes its input. */
const AGENT =
  "export default (input) => input.startsWith('long:') ? 'a'.repeat(Number(input.slice(5))) + '!'\n" +
  "  : input.startsWith('json:') ? JSON.stringify({ name: 'a'.repeat(Number(input.slice(5))) + '!' }) : 'echo ' + input\n"

describe('a check or pattern that never ends', () => {
  it('fails its own case at checkTimeoutMs while 100 other cases finish', async () => {
    const ordinary = Array.from({ length: 100 }, (_, i) => ({
      id: `ok-${i}`,
      input: `q${i}`,
      assert: [
        { type: 'contains', value: `q${i}` },
        { type: 'javascript', value: `const n = output.length; n > 2 && output.endsWith('q${i}')` },
        { type: 'regex', value: '^echo (q\\d+)+$' }
      ]
    }))
    const attacks = [
      { id: 'loop', input: 'x', assert: [{ type: 'javascript', value: 'while (true) {}' }] },
      { id: 'regex', input: 'long:40000', assert: [{ type: 'regex', value: '^(a+)+$' }] },
      {
        id: 'schema',
        input: 'json:40000',
        assert: [{ type: 'contains-json', value: { type: 'object', properties: { name: { type: 'string', pattern: '^(a|aa)+$' } } } }]
      },
      { id: 'schema-is-json', input: 'x', assert: [{ type: 'javascript', value: 'true' }] }
    ]
    const dir = project({
      'agent.mjs': AGENT,
      'evalgate.json': JSON.stringify({
        name: 'isolation',
        target: { module: './agent.mjs' },
        concurrency: 8,
        checkTimeoutMs: 3000,
        cases: [...attacks, ...ordinary]
      })
    })
    const out = path.join(dir, 'run.json')
    const started = performance.now()
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.json'), '--out', out, '--quiet'])
    const wallMs = performance.now() - started
    // the figure the issue asks for; no bound on it here (it depends on the machine)
    process.stderr.write(`isolation run: ${attacks.length + ordinary.length} cases in ${Math.round(wallMs)} ms wall\n`)
    expect(res.stderr).not.toContain('internal error')
    const cases = readCases(out)
    expect(cases.size).toBe(attacks.length + ordinary.length)
    expect(failures(cases, 'ok-')).toEqual([])
    expect([...cases.keys()].filter((id) => id.startsWith('ok-'))).toHaveLength(100)
    expect(cases.get('loop')).toMatchObject({ passed: false })
    expect(cases.get('loop')!.assertions[0]!.reason).toBe('check `while (true) {}` did not finish within checkTimeoutMs (3000 ms)')
    expect(cases.get('regex')).toMatchObject({ passed: false })
    expect(cases.get('regex')!.assertions[0]!.reason).toBe('pattern /^(a+)+$/ did not finish within checkTimeoutMs (3000 ms)')
    expect(cases.get('schema')).toMatchObject({ passed: false })
    expect(cases.get('schema')!.assertions[0]!.reason).toContain('pattern /^(a|aa)+$/ did not finish within checkTimeoutMs (3000 ms)')
    expect(cases.get('schema-is-json')).toMatchObject({ passed: true })
  })

  it('fails an is-json schema whose pattern backtracks, and passes one whose pattern matches', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } }
    const dir = project({
      'agent.mjs': `export default (input) => JSON.stringify({ name: input === 'bad' ? 'a'.repeat(40000) + '!' : 'aaaa' })\n`,
      'evalgate.json': JSON.stringify({
        name: 'schema',
        target: { module: './agent.mjs' },
        checkTimeoutMs: 3000,
        cases: [
          { id: 'bad', input: 'bad', assert: [{ type: 'is-json', value: schema }] },
          { id: 'good', input: 'good', assert: [{ type: 'is-json', value: schema }] }
        ]
      })
    })
    const out = path.join(dir, 'run.json')
    await runCli(['run', '-c', path.join(dir, 'evalgate.json'), '--out', out, '--quiet'])
    const cases = readCases(out)
    expect(cases.get('bad')).toMatchObject({ passed: false })
    expect(cases.get('bad')!.assertions[0]!.reason).toContain('did not finish within checkTimeoutMs (3000 ms)')
    expect(cases.get('good')).toMatchObject({ passed: true })
  })

  it('fails a module agent that loops forever at target.timeoutMs, and runs the other cases', async () => {
    const dir = project({
      'agent.mjs': `export default (input) => { if (input === 'loop') for (;;); return input }\n`,
      'evalgate.json': JSON.stringify({
        name: 'agent-loop',
        target: { module: './agent.mjs', timeoutMs: 3000 },
        cases: [
          { id: 'loop', input: 'loop', expected: 'loop' },
          ...Array.from({ length: 20 }, (_, i) => ({ id: `ok-${i}`, input: `in-${i}`, expected: `in-${i}` }))
        ]
      })
    })
    const out = path.join(dir, 'run.json')
    await runCli(['run', '-c', path.join(dir, 'evalgate.json'), '--out', out, '--quiet'])
    const cases = readCases(out)
    expect(cases.get('loop')).toMatchObject({ passed: false, error: 'timed out after 3000 ms' })
    expect(failures(cases, 'ok-')).toEqual([])
    expect([...cases.keys()].filter((id) => id.startsWith('ok-'))).toHaveLength(20)
  })
})

describe('the CLI as a process', () => {
  let cli: SourceCli
  beforeAll(() => {
    cli = sourceCli()
  })
  afterAll(() => cli.remove())

  function run(dir: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli.bin, 'run', '-c', path.join(dir, 'evalgate.json'), '--out', path.join(dir, 'run.json'), '--quiet'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => (stdout += d))
      child.stderr.on('data', (d: Buffer) => (stderr += d))
      child.on('error', reject)
      child.on('close', (code) => resolve({ code, stdout, stderr }))
    })
  }

  it.each([
    ['sets process.exitCode = 0', 'process.exitCode = 0; true'],
    ['calls process.exit(0)', 'process.exit(0)'],
    ['registers an exit handler', 'process.on("exit", () => { process.exitCode = 0 }); true'],
    ['leaves a timer behind', 'setTimeout(() => { process.exitCode = 0; process.exit(0) }, 0); true'],
    ['patches globals', 'Object.defineProperty(process, "exitCode", { get: () => 0, set() {} }); true']
  ])('a check that %s cannot turn a failing gate green', async (_name, attack) => {
    const dir = project({
      'agent.mjs': 'export default (input) => input\n',
      'evalgate.json': JSON.stringify({
        name: 'exit-code',
        target: { module: './agent.mjs' },
        gate: { minPassRate: 1 },
        cases: [
          { id: 'failing', input: 'Cork', expected: 'Dublin' },
          { id: 'attack', input: 'x', assert: [{ type: 'javascript', value: attack }] }
        ]
      })
    })
    const res = await run(dir)
    expect(res.code).toBe(1)
    expect(readCases(path.join(dir, 'run.json')).get('failing')).toMatchObject({ passed: false })
  })

  it('keeps the runner’s secrets from a module agent, a check and a timer a check left behind', async () => {
    const names = ['OPENAI_API_KEY', 'INPUT_GITHUB-TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'GITHUB_TOKEN']
    const seen = `JSON.stringify(${JSON.stringify(names)}.filter((n) => process.env[n] !== undefined))`
    const dir = project({
      'agent.mjs': `export default () => ${seen}\n`,
      'timer-check.mjs':
        `import { writeFileSync } from 'node:fs'\n` +
        `export default (output, context, file) => { setTimeout(() => writeFileSync(file, ${seen}), 50); return true }\n`,
      'evalgate.json': JSON.stringify({
        name: 'secrets',
        target: { module: './agent.mjs' },
        judge: { apiKeyEnv: 'OPENAI_API_KEY', model: 'm', baseUrl: 'http://127.0.0.1:9' },
        cases: [
          {
            id: 'reads',
            input: 'x',
            assert: [
              { type: 'javascript', value: `({ pass: true, reason: ${seen} })` },
              { type: 'javascript', file: 'timer-check.mjs', value: '' }
            ]
          }
        ]
      })
    })
    const timerFile = path.join(dir, 'timer-saw.json')
    const config = JSON.parse(readFileSync(path.join(dir, 'evalgate.json'), 'utf8'))
    config.cases[0].assert[1].value = timerFile
    writeFileSync(path.join(dir, 'evalgate.json'), JSON.stringify(config))
    const secrets = Object.fromEntries(names.map((n) => [n, `secret-${n.toLowerCase()}`]))
    const res = await run(dir, secrets)
    expect(res.stderr).not.toContain('internal error')
    const reads = readCases(path.join(dir, 'run.json')).get('reads')!
    expect(reads.output).toBe('[]')
    expect(reads.assertions[0]!.reason).toContain('passed ([])')
    // the timer fired in its worker before the process exited, or the worker went with it: either way it saw nothing
    if (existsSync(timerFile)) expect(readFileSync(timerFile, 'utf8')).toBe('[]')
  })
})
