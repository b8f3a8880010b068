import { describe, expect, it } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { judgeSchema, type JudgeConfig } from '../../src/config/schema.js'
import { ConfigError } from '../../src/errors.js'
import { createJudge, verdictKey } from '../../src/judge/judge.js'

const judges = fileURLToPath(new URL('../__fixtures__/judges/', import.meta.url))
const node = process.execPath

function commandConfig(script: string, extra: Partial<JudgeConfig> = {}): JudgeConfig {
  return { ...judgeSchema.parse({ provider: 'command', command: [node, script], timeoutMs: 5000 }), ...extra }
}

const env = { PATH: process.env.PATH, SECRET_THING: 'must-not-leak', TAG_VALUE: 'tag-from-env' }
const request = { input: { question: 'capital of Ireland?' }, output: 'It is Dublin', rubric: 'Names Dublin', threshold: 0.5 }

describe('the command judge', () => {
  it('sends {prompt, output, rubric} on stdin and reads {score, reason} from stdout', async () => {
    const secrets = new Set<string>()
    const config = commandConfig('echo-judge.mjs', { env: { JUDGE_TAG: '${TAG_VALUE}' } })
    const { judge, stats, close } = createJudge(config, { env, secrets, baseDir: judges })
    const verdict = await judge(request)
    await close()
    expect(verdict).toMatchObject({ score: 1, model: `${node} echo-judge.mjs`, key: verdictKey(`${node} echo-judge.mjs`, request), tokens: 0 })
    // a non-string input arrives as its JSON text; only the minimal environment and judge.env reach the command
    expect(JSON.parse(verdict.reason)).toEqual({
      prompt: '{"question":"capital of Ireland?"}',
      output: 'It is Dublin',
      rubric: 'Names Dublin',
      tag: 'tag-from-env',
      home: null
    })
    expect(secrets.has('tag-from-env')).toBe(true)
    expect(stats()).toEqual({ calls: 1, reused: 0, errors: 0, tokens: 0 })
  })

  it('runs the trusted copy of its script when there is one (a pull-request run), named as written', async () => {
    const trusted = mkdtempSync(path.join(tmpdir(), 'evalgate-trusted-'))
    try {
      // the base commit's version answers 0.25 whatever the output; the checkout's echo-judge.mjs would say 1
      writeFileSync(
        path.join(trusted, 'echo-judge.mjs'),
        'process.stdin.resume(); process.stdin.on("end", () => process.stdout.write(JSON.stringify({ score: 0.25, reason: "base" })))\n'
      )
      const { judge, close } = createJudge(commandConfig('echo-judge.mjs'), { env, secrets: new Set(), baseDir: judges, judgeDir: trusted })
      const verdict = await judge(request)
      await close()
      expect(verdict).toMatchObject({ score: 0.25, reason: 'base', model: `${node} echo-judge.mjs` })
    } finally {
      rmSync(trusted, { recursive: true, force: true })
    }
  })

  it('accepts the command as a string', async () => {
    const { judge } = createJudge({ ...commandConfig('x'), command: `"${node}" echo-judge.mjs` }, { env, secrets: new Set(), baseDir: judges })
    expect((await judge({ ...request, output: 'Cork' })).score).toBe(0)
  })

  it('turns garbage on stdout into an error verdict', async () => {
    const { judge, stats } = createJudge(commandConfig('garbage-judge.mjs'), { env, secrets: new Set(), baseDir: judges })
    const verdict = await judge(request)
    expect(verdict).toMatchObject({ score: 0, error: 'judge reply is not JSON: I think it is pretty good overall!' })
    expect(stats().errors).toBe(1)
  })

  it('kills a judge that hangs, and gives an error verdict', async () => {
    const { judge } = createJudge(commandConfig('hang-judge.mjs', { timeoutMs: 300 }), { env, secrets: new Set(), baseDir: judges })
    // the judge never answers: only the timeout can end this, however slow the machine
    const verdict = await judge(request)
    expect(verdict).toMatchObject({ score: 0, error: 'judge request failed: timed out after 300 ms (judge.timeoutMs)' })
  })

  it('reports a crash with its exit code and stderr', async () => {
    const { judge } = createJudge(commandConfig('fail-judge.mjs'), { env, secrets: new Set(), baseDir: judges })
    expect((await judge(request)).error).toBe('judge request failed: exited with code 3: judge crashed: model not found')
  })

  it('names the judge setting when a ${VAR} is not set', () => {
    const create = () => createJudge(commandConfig('echo-judge.mjs', { command: [node, '${NOPE}'] }), { env, secrets: new Set(), baseDir: judges })
    expect(create).toThrow(ConfigError)
    expect(create).toThrow(/judge\.command: environment variable NOPE is not set/)
  })
})
