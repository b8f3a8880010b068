import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import type { Judge } from '../../src/assertions/types.js'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { markdownOf } from '../__fixtures__/report.js'
import { samplesDisagree, watchJudgeSpread, withSpread } from '../../src/run/judge-spread.js'
import type { JudgeVerdict } from '../../src/types.js'
import { tempProject } from '../__fixtures__/cli.js'
import { chatReply, startServer, type FakeServer } from '../__fixtures__/openai-server.js'

describe('samplesDisagree: samples on both sides of the threshold', () => {
  it.each([
    { samples: [0.2, 0.8, 0.9], threshold: 0.5, disagree: true },
    { samples: [0.6, 0.8, 0.9], threshold: 0.5, disagree: false },
    { samples: [0.1, 0.2, 0.3], threshold: 0.5, disagree: false },
    // at the threshold is a pass, as in llm-rubric
    { samples: [0.5, 0.49], threshold: 0.5, disagree: true },
    { samples: [0.5, 0.5], threshold: 0.5, disagree: false },
    { samples: [0.4], threshold: 0.5, disagree: false }
  ])('$samples at $threshold → $disagree', ({ samples, threshold, disagree }) => {
    expect(samplesDisagree(samples, threshold)).toBe(disagree)
  })
})

describe('watchJudgeSpread', () => {
  const verdict = (v: Partial<JudgeVerdict>): JudgeVerdict => ({ model: 'm', score: 0.5, reason: 'r', key: 'k', ...v })

  it('counts fresh sampled verdicts and their disagreements, not reused or single ones', async () => {
    const replies = [
      verdict({ samples: [0.2, 0.6, 0.7] }),
      verdict({ samples: [0.8, 0.9, 0.7] }),
      verdict({ samples: [0.2, 0.6, 0.7], reused: true }),
      verdict({})
    ]
    const inner: Judge = async () => replies.shift()!
    const { judge, spread } = watchJudgeSpread(inner)
    for (let i = 0; i < 4; i++) await judge({ input: 'i', output: 'o', rubric: 'r', threshold: 0.5 })
    expect(spread()).toEqual({ sampled: 2, disagreements: 1 })
  })

  it.each([
    { name: 'no verdict sampled', spread: { sampled: 0, disagreements: 0 }, extra: {} },
    { name: 'some sampled', spread: { sampled: 4, disagreements: 1 }, extra: { sampled: 4, disagreements: 1 } }
  ])('withSpread: $name', ({ spread, extra }) => {
    const summary = { calls: 4, reused: 0, errors: 0, tokens: 0 }
    expect(withSpread(summary, spread)).toEqual({ ...summary, ...extra })
  })
})

describe('judge noise through the engine (judge.samples 3, a chat-completions server)', () => {
  let server: FakeServer
  const asked = new Map<string, number>()
  beforeEach(async () => {
    asked.clear()
    server = await startServer()
    // "steady" outputs always score 0.9; "shaky" ones score 0.2, 0.8, 0.9 on successive samples
    server.respond((req) => {
      const user = String(req.body.messages.at(-1).content)
      const shaky = user.includes('shaky')
      // the prompt carries a random nonce: count by kind of output
      const kind = shaky ? 'shaky' : 'steady'
      const n = (asked.get(kind) ?? 0) + 1
      asked.set(kind, n)
      const score = shaky ? [0.2, 0.8, 0.9][(n - 1) % 3] : 0.9
      return { body: chatReply(JSON.stringify({ score, reason: 'graded' })) }
    })
  })
  afterEach(() => server.close())

  it('records how many sampled verdicts disagreed on pass/fail; identical outputs cost one verdict', async () => {
    const dir = tempProject({
      'evalgate.yml': `name: noise
target: { module: ./agent.mjs }
repeat: 2
judge: { provider: openai, model: judge-model, baseUrl: "${server.baseUrl}", apiKeyEnv: JUDGE_KEY, samples: 3, threshold: 0.5 }
cases:
  - { id: a, input: steady, assert: [{ type: llm-rubric, value: "Answers well" }] }
  - { id: b, input: shaky, assert: [{ type: llm-rubric, value: "Answers well" }] }
  - { id: c, input: steady too, assert: [{ type: llm-rubric, value: "Answers well" }] }
`,
      'agent.mjs': 'export default (q) => `answer: ${q}`\n'
    })
    const { record, comparison } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { JUDGE_KEY: 'k' } })
    // 3 distinct outputs × 3 samples asked; the second trial of each reuses its verdict
    expect(server.requests).toHaveLength(9)
    expect(record.summary.judge).toMatchObject({ calls: 3, reused: 3, sampled: 3, disagreements: 1 })
    const b = record.cases.find((c) => c.id === 'b')!
    // samples are asked concurrently: their order is the order the server answered in
    expect(b.trials!.map((t) => [...t.assertions[0]!.judge!.samples!].sort())).toEqual([
      [0.2, 0.8, 0.9],
      [0.2, 0.8, 0.9]
    ])
    const md = markdownOf({ comparison, baseline: null, current: record })
    expect(md).toContain('the judge disagreed with itself on pass/fail for 1 of 3 verdicts (33.3%)')
  })
})
