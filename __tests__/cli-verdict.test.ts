/**
 * The command line shows the one verdict on every file it writes (--report,
 * --html, --json) and in its exit code; a judge outage is a run that could not
 * tell, not regressions; inside a workflow it records and links its run.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from './__fixtures__/cli.js'
import { chatReply, startServer, type FakeServer } from './__fixtures__/openai-server.js'
import { makeBaseline, makeCases, makeRun } from './__fixtures__/records.js'

const read = (file: string) => readFileSync(file, 'utf8')

/** The verdict as each file says it: report.md's bold line, the HTML's title, --json's status. */
function surfaces(dir: string): { markdown: string; html: string; json: { status: string; reasons: { code: string; message: string }[] } } {
  const markdown = /^> \*\*evalgate · [^:]*: (.*)\*\*$/m.exec(read(path.join(dir, 'r.md')))![1]!
  const html = /<title>evalgate · [^<]* — ([^<]*)<\/title>/.exec(read(path.join(dir, 'r.html')))![1]!
  const json = (JSON.parse(read(path.join(dir, 'r.json'))) as { verdict: { status: string; reasons: { code: string; message: string }[] } }).verdict
  return { markdown, html, json }
}

describe('compare: a baseline made with another fingerprint version', () => {
  it('could not tell, on every file and in the exit code (the HTML said "gate passed")', async () => {
    const dir = tempProject({
      'base.json': JSON.stringify(makeBaseline(makeCases('a', 'b'), { fingerprintVersion: 1 })),
      'cur.json': JSON.stringify(makeRun(makeCases('a', 'b')))
    })
    const f = (name: string) => path.join(dir, name)
    const run = await runCli(['compare', f('base.json'), f('cur.json'), '--report', f('r.md'), '--html', f('r.html'), '--json', f('r.json'), '--quiet'])
    expect(run.code).toBe(1)
    const shown = surfaces(dir)
    expect(shown.markdown).toBe('evalgate could not tell')
    expect(shown.html).toBe('evalgate could not tell')
    expect(shown.json.status).toBe('could-not-tell')
    expect(shown.json.reasons[0]).toMatchObject({
      code: 'baseline-incompatible',
      message: expect.stringMatching(/^the baseline cannot be compared with this run/)
    })
    expect(run.stderr).toMatch(/^evalgate: evalgate could not tell: the baseline cannot be compared with this run/)
  })
})

describe('a CLI run inside a workflow step', () => {
  it('records its run id and links both runs, as the action does', async () => {
    const dir = tempProject({
      'evalgate.yml': 'version: 1\nname: demo\ncases:\n  - { id: a, input: x, expected: x }\ntarget:\n  module: ./agent.mjs\n',
      'agent.mjs': 'export default (input) => String(input)\n'
    })
    const f = (name: string) => path.join(dir, name)
    // the baseline: the same run made by workflow run 41
    expect((await runCli(['run', '-c', f('evalgate.yml'), '--out', f('base.json'), '--quiet'])).code).toBe(0)
    const base = JSON.parse(read(f('base.json')))
    writeFileSync(f('base.json'), JSON.stringify({ ...base, git: { ...base.git, runId: '41' } }))
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_REPOSITORY: 'acme/bot',
      GITHUB_RUN_ID: '4242',
      GITHUB_SHA: 'c0ffee0000000000000000000000000000000000',
      GITHUB_REF: 'refs/pull/5/merge'
    }
    const run = await runCli(['run', '-c', f('evalgate.yml'), '--baseline', f('base.json'), '--out', f('run.json'), '--report', f('r.md'), '--quiet'], env)
    expect(run.code).toBe(0)
    expect(JSON.parse(read(f('run.json'))).git).toEqual({ sha: env.GITHUB_SHA, ref: env.GITHUB_REF, runId: '4242' })
    expect(read(f('r.md'))).toContain(
      '[workflow run 41](https://github.example/acme/bot/actions/runs/41). This run: commit `c0ffee0`, [workflow run 4242](https://github.example/acme/bot/actions/runs/4242).'
    )
  })
})

describe('the judge', () => {
  let judge: FakeServer
  beforeAll(async () => {
    judge = await startServer()
  })
  afterAll(() => judge.close())

  const project = (extra = '') =>
    tempProject({
      'evalgate.yml':
        'version: 1\nname: judged\ntarget:\n  module: ./agent.mjs\n' +
        `judge:\n  provider: openai\n  model: judge-mini\n  baseUrl: \${JUDGE_URL}\n  apiKeyEnv: JUDGE_KEY\n  retries: 1\n${extra}` +
        'cases:\n' +
        '  - { id: a, input: one, assert: [{ type: llm-rubric, value: Says one }] }\n' +
        '  - { id: b, input: two, assert: [{ type: llm-rubric, value: Says two }] }\n' +
        '  - { id: c, input: three, expected: three }\n',
      'agent.mjs': 'export default (input) => String(input)\n'
    })

  it('down on every verdict (429 after its retries): the run could not tell, naming it once; no regression', async () => {
    judge.respond(() => ({ status: 200, body: chatReply('{"score": 1, "reason": "fine"}') }))
    const dir = project()
    const f = (name: string) => path.join(dir, name)
    const env = { JUDGE_URL: judge.baseUrl, JUDGE_KEY: 'judge-key-1234' }
    const base = await runCli(['run', '-c', f('evalgate.yml'), '--out', f('base.json'), '--quiet'], env)
    expect(base.code).toBe(0)
    // new outputs: the baseline's verdicts cannot be reused, and the judge answers 429 to every request
    writeFileSync(f('agent.mjs'), 'export default (input) => `it says ${input}`\n')
    judge.respond(() => ({ status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached' } } }))
    const run = await runCli(
      ['run', '-c', f('evalgate.yml'), '--baseline', f('base.json'), '--report', f('r.md'), '--html', f('r.html'), '--json', f('r.json'), '--quiet'],
      env
    )
    expect(run.code).toBe(1)
    const shown = surfaces(dir)
    expect([shown.markdown, shown.html, shown.json.status]).toEqual(['evalgate could not tell', 'evalgate could not tell', 'could-not-tell'])
    expect(shown.json.reasons.map((r) => r.code)).toEqual(['judge-failed'])
    expect(shown.json.reasons[0]!.message).toMatch(/^the judge failed on 2 of 2 verdicts: .*HTTP 429/)
    const json = JSON.parse(read(f('r.json'))) as { regressed: string[]; notGraded: string[] }
    expect(json.regressed).toEqual([])
    expect(json.notGraded).toEqual(['a', 'b'])
    expect(run.stderr.match(/HTTP 429/g)).toHaveLength(1)
  })

  it('without its key, when a case needs it: refused before the run (exit 2), said once', async () => {
    const dir = project()
    const run = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--quiet'], { JUDGE_URL: 'https://judge.example.invalid/v1' })
    expect(run.code).toBe(2)
    expect(run.stderr.match(/JUDGE_KEY is not set/g)).toHaveLength(1)
    expect(run.stderr).toMatch(/judge: environment variable JUDGE_KEY is not set \(judge\.apiKeyEnv\), and some cases need the judge/)
  })
})
