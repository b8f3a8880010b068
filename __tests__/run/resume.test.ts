/**
 * `run --resume PARTIAL.json` (SPEC §6): a run cut short goes on from where it
 * stopped — the finished cases are taken over, only the rest run, and the
 * whole run is written — and a record that is not this run's to resume is
 * refused rather than mixed in.
 */
import { EventEmitter } from 'node:events'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it, jest } from '@jest/globals'
import { loadEvalConfig } from '../../src/engine.js'
import { planResume } from '../../src/run/resume.js'
import type { RunRecord } from '../../src/types.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'

/** Answers at once, logging each input; "hang" hangs until the file "release" exists beside it. */
const AGENT = `const fs = require('node:fs')
const path = require('node:path')
let input = ''
process.stdin.on('data', (d) => (input += d))
process.stdin.on('end', () => {
  fs.appendFileSync(path.join(__dirname, 'calls.log'), input + '\\n')
  const answer = () => process.stdout.write('answer to ' + input)
  if (input !== 'hang' || fs.existsSync(path.join(__dirname, 'release'))) return answer()
  setInterval(() => fs.existsSync(path.join(__dirname, 'release')) && answer() && process.exit(0), 20)
})
`

const CASES = ['a', 'b', 'hang', 'c', 'd']

function project(extra = ''): string {
  const cases = CASES.map((id) => `  - {id: ${id}, input: ${id}, expected: answer}`).join('\n')
  return tempProject({
    'agent.cjs': AGENT,
    'evalgate.yml': `version: 1\nname: resumable\nconcurrency: 1\ntarget:\n  command: [node, agent.cjs]\n  timeoutMs: 60000\n${extra}cases:\n${cases}\n`
  })
}

const calls = (dir: string) =>
  readFileSync(path.join(dir, 'calls.log'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** Run until the agent hangs on "hang", then Ctrl-C: the partial record is written to run.json. */
async function interruptedRun(dir: string): Promise<{ code: number; stderr: string; record: RunRecord }> {
  const signals = new EventEmitter()
  const config = path.join(dir, 'evalgate.yml')
  const running = runCli(['run', '-c', config, '--out', path.join(dir, 'run.json'), '--quiet'], {}, { process: signals as unknown as NodeJS.Process })
  await until(() => existsSync(path.join(dir, 'calls.log')) && calls(dir).includes('hang'))
  signals.emit('SIGINT')
  const res = await running
  return { ...res, record: JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunRecord }
}

// each test runs the agent as a process per case, twice over: a guard against a hang on a loaded machine, not a bound on speed
jest.setTimeout(120_000)

describe('run --resume after Ctrl-C', () => {
  it('runs only the cases that did not finish and writes the whole run over the partial record', async () => {
    const dir = project()
    const cut = await interruptedRun(dir)
    expect(cut.code).toBe(1)
    expect(cut.record.complete).toBe(false)
    expect(cut.record.cases.map((c) => c.id)).toEqual(['a', 'b'])
    // the message says how to go on
    expect(cut.stderr).toContain(`to go on from there: evalgate run -c ${path.join(dir, 'evalgate.yml')} --resume ${path.join(dir, 'run.json')}`)

    writeFileSync(path.join(dir, 'release'), '')
    const resumed = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--resume', path.join(dir, 'run.json'), '--quiet'])
    expect(resumed.stderr).toContain(`resuming ${path.join(dir, 'run.json')}: 2 finished cases taken over`)
    expect(resumed.stderr).toContain('gate passed')
    expect(resumed.code).toBe(0)
    // a and b ran once, in the first run; the rest once, now (hang twice: cut, then run again)
    expect(calls(dir)).toEqual(['a', 'b', 'hang', 'hang', 'c', 'd'])
    const whole = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunRecord
    expect(whole.complete).toBe(true)
    expect(whole.stopReason).toBeUndefined()
    expect(whole.planned).toBeUndefined()
    expect(whole.cases.map((c) => [c.id, c.passed])).toEqual(CASES.map((id) => [id, true]))
    expect(whole.summary).toMatchObject({ total: 5, passed: 5, passRate: 1 })
    // the run that began then, two cases of it from there
    expect(whole.createdAt).toBe(cut.record.createdAt)
    expect(whole.resumed).toEqual({ cases: 2, from: cut.record.createdAt })
    expect(whole.cases[0]).toEqual(cut.record.cases[0])
  })

  it('writes to --out when given, leaving the partial record as it was', async () => {
    const dir = project()
    const cut = await interruptedRun(dir)
    writeFileSync(path.join(dir, 'release'), '')
    const out = path.join(dir, 'whole.json')
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--resume', path.join(dir, 'run.json'), '--out', out, '--quiet'])
    expect(res.code).toBe(0)
    expect(JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'))).toEqual(cut.record)
    expect((JSON.parse(readFileSync(out, 'utf8')) as RunRecord).cases).toHaveLength(5)
  })

  it('runs again a finished case whose assertions changed since, and says so', async () => {
    const dir = project()
    await interruptedRun(dir)
    writeFileSync(path.join(dir, 'release'), '')
    const config = path.join(dir, 'evalgate.yml')
    writeFileSync(config, readFileSync(config, 'utf8').replace('{id: a, input: a, expected: answer}', '{id: a, input: a, expected: answer to a}'))
    const res = await runCli(['run', '-c', config, '--resume', path.join(dir, 'run.json'), '--quiet'])
    expect(res.code).toBe(0)
    expect(res.stderr).toContain('1 finished case taken over; 1 finished case changed since and run again (a)')
    expect(calls(dir).slice(3)).toEqual(['a', 'hang', 'c', 'd'])
  })
})

describe('what --resume refuses (exit 2, nothing run)', () => {
  const partial = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunRecord

  it.each([
    { name: 'a complete run', edit: (r: RunRecord) => ({ ...r, complete: true }), args: [], message: 'nothing to resume: it is a complete run' },
    { name: 'a run of another config', edit: (r: RunRecord) => ({ ...r, name: 'other' }), args: [], message: 'it is a run of "other"' },
    { name: 'another --filter', edit: (r: RunRecord) => r, args: ['--filter', 'b'], message: 'it ran without --filter: leave --filter out to resume it' },
    { name: 'another --repeat', edit: (r: RunRecord) => r, args: ['--repeat', '3'], message: 'it ran with --repeat 1, not 3' }
  ])('$name', async ({ edit, args, message }) => {
    const dir = project()
    await interruptedRun(dir)
    // should it run after all, it must not hang
    writeFileSync(path.join(dir, 'release'), '')
    const record = edit(partial(dir))
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify(record))
    const before = calls(dir).length
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--resume', path.join(dir, 'run.json'), ...args])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`--resume ${path.join(dir, 'run.json')}: ${message}`)
    expect(calls(dir)).toHaveLength(before)
  })

  it('a run made at another commit; a commit is compared only when both are known', async () => {
    const dir = project()
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    const cut = await interruptedRun(dir)
    writeFileSync(path.join(dir, 'release'), '')
    const record = { ...cut.record, git: { sha: 'f'.repeat(40), ref: null, runId: null } }
    expect(() => planResume(record, 'run.json', loaded, { sha: 'e'.repeat(40) })).toThrow(/cut short at commit ffffffffffff/)
    expect(planResume(record, 'run.json', loaded, { sha: null }).done.map((c) => c.id)).toEqual(['a', 'b'])
  })
})
