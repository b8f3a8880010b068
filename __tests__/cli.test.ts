import { EventEmitter } from 'node:events'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from './__fixtures__/cli.js'

const quickstart = path.resolve('examples/quickstart')

const agentModule = `import { writeFileSync } from 'node:fs'
export default async function (input) {
  const q = String(input)
  // tells a waiting test that this case was called: with two calls at a time, the first one has finished
  if (q === 'slow two') writeFileSync(new URL('./slow-two-called', import.meta.url), '')
  if (q.startsWith('slow')) await new Promise((r) => setTimeout(r, 60000).unref())
  if (q === 'boom') throw new Error('kaboom')
  if (q.includes('capital')) return 'Paris is the capital'
  if (q.includes('2+2')) return 'the answer is 4'
  return 'I do not know'
}
`

function project(config: string, extra: Record<string, string> = {}) {
  return tempProject({ 'agent.mjs': agentModule, 'evalgate.yml': config, ...extra })
}

describe('evalgate run on the quick start', () => {
  it('compares with the committed baseline, prints the report and fails the gate on its regressions', async () => {
    const dir = tempProject({})
    const out = path.join(dir, 'run.json')
    const cmp = path.join(dir, 'cmp.json')
    const res = await runCli([
      'run',
      '-c',
      path.join(quickstart, 'evalgate.yml'),
      '--baseline',
      path.join(quickstart, 'baseline.json'),
      '--out',
      out,
      '--json',
      cmp
    ])
    expect(res.stderr).toContain('gate failed')
    expect(res.code).toBe(1)
    const comparison = JSON.parse(readFileSync(cmp, 'utf8'))
    expect(comparison.regressed.length).toBeGreaterThan(0)
    expect(comparison.fixed.length).toBeGreaterThan(0)
    for (const key of comparison.regressed) expect(res.stdout).toContain(key)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.schemaVersion).toBe(1)
    expect(record.complete).toBe(true)
    expect(record.summary.total).toBe(record.cases.length)
    expect(record.cases.map((c: { id: string }) => c.id).slice(0, 3)).toEqual(['capital-ireland', 'capital-france', 'capital-australia'])
  })

  it('passes the gate against itself', async () => {
    const dir = tempProject({})
    const out = path.join(dir, 'run.json')
    const first = await runCli(['run', '-c', path.join(quickstart, 'evalgate.yml'), '--out', out, '--quiet'])
    expect(first.code).toBe(0)
    const again = await runCli(['run', '-c', path.join(quickstart, 'evalgate.yml'), '--baseline', out, '--quiet'])
    expect(again.code).toBe(0)
  })
})

describe('evalgate run', () => {
  const config = `name: demo
target: { module: ./agent.mjs, timeoutMs: 30000 }
cases:
  - { id: cap, input: "capital of France?", expected: Paris }
  - { id: sum, input: "2+2", assert: [{ type: numeric, value: 4 }] }
  - { id: nope, input: "who?", expected: Rome }
  - { id: err, input: boom, expected: x }
`
  it('records every case with its result; a throwing agent fails only its case', async () => {
    const dir = project(config)
    const out = path.join(dir, 'out.json')
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out])
    expect(res.code).toBe(0)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.summary).toMatchObject({ total: 4, passed: 2, failed: 2, errors: 1, passRate: 0.5, meanScore: null })
    const byId = Object.fromEntries(record.cases.map((c: { id: string }) => [c.id, c]))
    expect(byId.err).toMatchObject({ passed: false, output: null, error: 'kaboom' })
    expect(byId.nope.output).toBe('I do not know')
    expect(byId.nope.assertions[0].reason).toMatch(/Rome/)
  })

  it('an output whose folder cannot be made (under a dangling symlink, or a file) is a usage error before any case runs', async () => {
    const dir = project(config)
    symlinkSync(path.join(dir, 'gone'), path.join(dir, 'dangling'))
    writeFileSync(path.join(dir, 'plain.txt'), 'not a folder\n')
    // Node's recursive mkdir spun for ever under a dangling symlink; this returns, naming the flag and the path
    const dangling = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', path.join(dir, 'dangling', 'run.json'), '--quiet'])
    expect(dangling.code).toBe(2)
    expect(dangling.stderr).toContain(`--out ${path.join(dir, 'dangling', 'run.json')}: cannot make its folder: ENOENT`)
    const underFile = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--report', path.join(dir, 'plain.txt', 'report.md'), '--quiet'])
    expect(underFile.code).toBe(2)
    expect(underFile.stderr).toContain(`--report ${path.join(dir, 'plain.txt', 'report.md')}: cannot make its folder: ENOTDIR`)
    // nothing ran: no agent call left a trace, and no record was written
    expect(dangling.stderr).not.toMatch(/cases? passed/)
  })

  it('an output that cannot be written is a usage error naming the flag and the file, not an internal error', async () => {
    const dir = project(config)
    mkdirSync(path.join(dir, 'taken.json'))
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--json', path.join(dir, 'taken.json'), '--quiet'])
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(new RegExp(`--json ${path.join(dir, 'taken.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot write it: E`))
    expect(res.stderr).not.toContain('internal error')
  })

  it('a --filter that matches no case is a usage error (exit 2) before anything runs', async () => {
    const dir = project(config)
    const out = path.join(dir, 'out.json')
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out, '--filter', 'capitol'])
    expect(res.code).toBe(2)
    expect(res.stderr).toBe('evalgate: --filter "capitol" matches none of the 4 cases (it looks for the text in case ids, names and tags, ignoring case)\n')
    expect(existsSync(out)).toBe(false)
  })

  it('warns when --baseline is a run of another config name', async () => {
    const dir = project(config)
    const first = path.join(dir, 'first.json')
    expect((await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', first, '--quiet'])).code).toBe(0)
    const same = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--baseline', first, '--quiet'])
    expect(same.stderr).not.toContain('warning')
    writeFileSync(first, JSON.stringify({ ...JSON.parse(readFileSync(first, 'utf8')), name: 'other-bot' }))
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--baseline', first, '--quiet'])
    expect(res.stderr).toContain(
      `evalgate: warning: the baseline ${first} is a run of "other-bot", but ${path.join(dir, 'evalgate.yml')} is the config of "demo": is it the right baseline?`
    )
  })

  it('filters cases and overrides repeat', async () => {
    const dir = project(config)
    const out = path.join(dir, 'out.json')
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out, '--filter', 'CAP', '--repeat', '3', '--quiet'])
    expect(res.code).toBe(0)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.cases.map((c: { id: string }) => c.id)).toEqual(['cap'])
    expect(record.cases[0].trials).toHaveLength(3)
    expect(record.cases[0].passFraction).toBe(1)
  })

  it('writes the finished cases with complete: false when interrupted, and fails the gate', async () => {
    const dir = project(`name: cut
concurrency: 2
target: { module: ./agent.mjs, timeoutMs: 60000 }
cases:
  - { id: a, input: "capital? mark", expected: Paris }
  - { id: b, input: "slow one", expected: Paris }
  - { id: c, input: "slow two", expected: Paris }
`)
    const out = path.join(dir, 'out.json')
    const proc = new EventEmitter()
    const pending = runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out], {}, { process: proc as never })
    while (!existsSync(path.join(dir, 'slow-two-called'))) await new Promise((r) => setTimeout(r, 20))
    proc.emit('SIGTERM')
    const res = await pending
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/SIGTERM/)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.complete).toBe(false)
    expect(record.cases.map((c: { id: string }) => c.id)).toEqual(['a'])
  })
})

describe('usage and config errors exit 2 with a message and no stack', () => {
  it.each([
    ['an unknown command', ['frobnicate'], /unknown command "frobnicate"/],
    ['no command at all', [], /no command given\n\nUsage: evalgate <command>/],
    ['an unknown flag', ['run', '--nope'], /Unknown option '--nope'/],
    ['a bad shard', ['run', '--shard', '5/4'], /--shard "5\/4"/],
    ['a missing config', ['validate', '-c', '/nonexistent/evalgate.yml'], /\/nonexistent\/evalgate.yml: cannot read: no such file/],
    ['compare without two records', ['compare', 'only-one.json'], /two run records/]
  ])('%s', async (_label, argv, message) => {
    const res = await runCli(argv)
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(message)
    expect(res.stderr).not.toMatch(/\n\s+at /)
  })

  it('names the file, the line and the path of a config error', async () => {
    const dir = project(`name: demo
target:
  module: ./agent.mjs
  timeoutMs: -5
cases:
  - { input: x, expected: y }
`)
    const res = await runCli(['validate', '-c', path.join(dir, 'evalgate.yml')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`${path.join(dir, 'evalgate.yml')}:4 at target.timeoutMs`)
  })

  it('names the dataset file and line of a bad case', async () => {
    const dir = project(`target: { module: ./agent.mjs }\ndataset: cases.yaml\n`, {
      'cases.yaml': `- input: a\n  expected: b\n- input: c\n  assert:\n    - type: regex\n      value: "("\n`
    })
    const res = await runCli(['validate', '-c', path.join(dir, 'evalgate.yml')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`${path.join(dir, 'cases.yaml')}:3`)
    expect(res.stderr).toMatch(/assert\[0\]/)
  })

  it('a module agent that cannot load is a config error before any case runs', async () => {
    const dir = tempProject({
      'evalgate.yml': 'target: { module: ./agent.mjs }\ncases: [{ input: a, expected: b }]\n',
      'agent.mjs': 'export default (q) => q +\n'
    })
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`cannot load ${path.join(dir, 'agent.mjs')}`)
  })

  it('refuses a record of another schema version', async () => {
    const dir = tempProject({ 'old.json': JSON.stringify({ schemaVersion: 7, cases: [] }), 'new.json': JSON.stringify({ schemaVersion: 1 }) })
    const res = await runCli(['compare', path.join(dir, 'old.json'), path.join(dir, 'new.json')])
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(/old\.json: has schemaVersion 7; this evalgate reads run records of schemaVersion 1/)
  })
})

describe('evalgate compare', () => {
  it('gates two records and writes the report and the comparison', async () => {
    const quick = path.join(quickstart, 'evalgate.yml')
    const dir = tempProject({})
    const current = path.join(dir, 'current.json')
    await runCli(['run', '-c', quick, '--out', current, '--quiet'])
    const report = path.join(dir, 'report.md')
    const res = await runCli(['compare', path.join(quickstart, 'baseline.json'), current, '-c', quick, '--report', report])
    expect(res.code).toBe(1)
    expect(readFileSync(report, 'utf8')).toBe(res.stdout)
    const back = await runCli(['compare', current, current, '--quiet'])
    expect(back.code).toBe(0)
  })
})

describe('evalgate validate', () => {
  it('reports the number of cases', async () => {
    const res = await runCli(['validate', '-c', path.join(quickstart, 'evalgate.yml')])
    expect(res.code).toBe(0)
    expect(res.stdout).toMatch(/valid: 25 cases \(4 use the LLM judge\)/)
  })
})
