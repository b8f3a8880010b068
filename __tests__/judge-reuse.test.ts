import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../src/engine.js'
import { markdownOf } from './__fixtures__/report.js'
import { chatReply, startServer, type FakeServer } from './__fixtures__/openai-server.js'
import { tempProject } from './__fixtures__/cli.js'

const SECRET = 'sk-test-0123456789abcdef'

function project(server: FakeServer) {
  const config = (agent: string) => `name: reuse
target: { module: ./${agent} }
judge: { provider: openai, model: judge-model, baseUrl: "${server.baseUrl}", apiKeyEnv: JUDGE_KEY, concurrency: 2 }
cases:
${['a', 'b', 'c', 'd'].map((id) => `  - { id: ${id}, input: ${id}, assert: [{ type: llm-rubric, value: "Answers ${id} politely" }] }`).join('\n')}
`
  return tempProject({
    'v1.yml': config('v1.mjs'),
    'v2.yml': config('v2.mjs'),
    'v1.mjs': 'export default (q) => `answer to ${q}`',
    // v2 changes exactly one output, and echoes the key it must never see in the record
    'v2.mjs': `export default (q) => q === 'c' ? 'a new answer to c' : \`answer to \${q}\``
  })
}

describe('judge verdict reuse through the engine, against a chat-completions server', () => {
  let server: FakeServer
  beforeEach(async () => {
    server = await startServer()
    server.respond((req) => {
      const user = String(req.body.messages.at(-1).content)
      return {
        body: chatReply(JSON.stringify({ score: user.includes('new answer') ? 0.2 : 0.9, reason: `graded ${SECRET.length} chars` }), {
          prompt_tokens: 100,
          completion_tokens: 20,
          total_tokens: 120
        })
      }
    })
  })
  afterEach(() => server.close())

  it('asks nothing when outputs are unchanged, and re-judges exactly the changed output', async () => {
    const dir = project(server)
    const env = { JUDGE_KEY: SECRET }
    const first = await evaluate(await loadEvalConfig(path.join(dir, 'v1.yml')), { env })
    expect(server.requests).toHaveLength(4)
    expect(first.record.summary.judge).toEqual({ calls: 4, reused: 0, errors: 0, tokens: 480 })
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`)
    expect(server.requests[0]!.body.temperature).toBe(0)

    const second = await evaluate(await loadEvalConfig(path.join(dir, 'v1.yml')), { env, baseline: first.record })
    expect(server.requests).toHaveLength(4)
    expect(second.record.summary.judge).toMatchObject({ calls: 0, reused: 4 })
    expect(second.record.cases.every((c) => c.assertions[0]!.judge?.reused === true)).toBe(true)

    const third = await evaluate(await loadEvalConfig(path.join(dir, 'v2.yml')), { env, baseline: first.record })
    expect(server.requests).toHaveLength(5)
    expect(server.requests[4]!.body.messages.at(-1).content).toContain('a new answer to c')
    expect(third.record.summary.judge).toMatchObject({ calls: 1, reused: 3 })
    expect(third.comparison.regressed).toEqual(['c'])
    expect(third.record.summary.meanScore).toBeCloseTo((0.9 * 3 + 0.2) / 4, 4)

    const text = JSON.stringify(third.record) + markdownOf({ comparison: third.comparison, baseline: first.record, current: third.record })
    expect(text).not.toContain(SECRET)
  })

  it('judge.reuse: false asks again', async () => {
    const dir = project(server)
    const env = { JUDGE_KEY: SECRET }
    const first = await evaluate(await loadEvalConfig(path.join(dir, 'v1.yml')), { env })
    const loaded = await loadEvalConfig(path.join(dir, 'v1.yml'))
    loaded.config.judge!.reuse = false
    const again = await evaluate(loaded, { env, baseline: first.record })
    expect(server.requests).toHaveLength(8)
    expect(again.record.summary.judge).toMatchObject({ calls: 4, reused: 0 })
  })

  it('a judge that answers garbage or fails scores 0 with the error and never stops the run', async () => {
    server.respond(() => ({ status: 200, body: chatReply('I refuse to grade this.') }))
    const dir = project(server)
    const run = await evaluate(await loadEvalConfig(path.join(dir, 'v1.yml')), { env: { JUDGE_KEY: SECRET } })
    expect(run.record.cases).toHaveLength(4)
    for (const c of run.record.cases) {
      expect(c.passed).toBe(false)
      expect(c.score).toBe(0)
      expect(c.assertions[0]!.error).toBeTruthy()
    }
    expect(run.record.summary.judge.errors).toBe(4)
  })
})
