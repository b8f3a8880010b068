/**
 * promptfoo's model-graded checks against a grader on 127.0.0.1 speaking
 * chat completions: given the grader's reply, the verdict is promptfoo's
 * (factuality categories and scores, closedqa's Y/N, g-eval's 0–10 and
 * threshold 0.7, the RAG checks' counts, llm-rubric's {pass, score,
 * reason}); a reply with two verdicts is an error; verdicts are reused;
 * the grader comes from the check, its test, defaultTest, else the judge.
 */
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { evaluateAssertion } from '../../src/assertions/index.js'
import { readRubricReply } from '../../src/assertions/model-graded.js'
import { judgeSchema } from '../../src/config/schema.js'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { createJudge, type JudgeHandle } from '../../src/judge/judge.js'
import type { Assertion } from '../../src/types.js'
import { tempProject } from '../__fixtures__/cli.js'
import { chatReply, embeddingReply, FakeServer, startServer, type RecordedRequest } from '../__fixtures__/openai-server.js'
import { makeCase, makeContext } from './helpers.js'

let server: FakeServer
let judge: JudgeHandle
const KEY = 'sk-grader-1'

beforeEach(async () => {
  server = await startServer()
  judge = createJudge(judgeSchema.parse({ baseUrl: server.baseUrl, retries: 0 }), { env: { OPENAI_API_KEY: KEY }, secrets: new Set() })
})
afterEach(() => server.close())

/** The text the grader was shown (system and user messages). */
const shownTo = (r: RecordedRequest) => (r.body.messages as { content: string }[]).map((m) => m.content).join('\n')

function grade(a: Assertion, output: string, vars: Record<string, unknown> = {}, input: unknown = 'What is the capital of France?') {
  return evaluateAssertion(a, makeContext(output, { input, case: makeCase({ input, vars }), grade: judge.grade, embed: judge.embed }))
}

describe('factuality', () => {
  it.each([
    ['{"category": "A", "reason": "a subset"}', true, 1],
    ['{"category": "c", "reason": "same"}', true, 1],
    ['{"category": "D", "reason": "disagrees"}', false, 0],
    ['The answer is (E) because the differences do not matter', true, 1]
  ])('reply %s → pass %p, score %p', async (reply, passed, score) => {
    server.enqueue({ body: chatReply(reply) })
    const result = await grade({ type: 'factuality', value: 'Paris' }, 'It is Paris.')
    expect(result).toMatchObject({ passed, score })
    const shown = shownTo(server.requests[0]!)
    expect(shown).toContain('Paris')
    expect(shown).toContain('It is Paris.')
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('a reply holding two different categories is an error, not a verdict', async () => {
    server.enqueue({ body: chatReply('{"category": "A"} or maybe {"category": "D"}') })
    const result = await grade({ type: 'factuality', value: 'Paris' }, 'It is {"category": "A"}')
    expect(result).toMatchObject({ passed: false, error: expect.stringContaining('2 different categorys') })
  })
})

describe('model-graded-closedqa', () => {
  it.each([
    ['The submission names the city.\nY', true],
    ['It does not.\nN', false],
    ['I am not sure', false]
  ])('reply %j → pass %p', async (reply, passed) => {
    server.enqueue({ body: chatReply(reply) })
    expect((await grade({ type: 'model-graded-closedqa', value: 'names a city' }, 'Paris')).passed).toBe(passed)
  })
})

describe('g-eval', () => {
  it('asks for steps, then a 0–10 score; passes at score/10 ≥ 0.7 (or its threshold)', async () => {
    server.enqueue({ body: chatReply('{"steps": ["Check the city", "Check brevity"]}') }, { body: chatReply('{"score": 8, "reason": "good"}') })
    expect(await grade({ type: 'g-eval', value: 'Answers with the capital' }, 'Paris')).toMatchObject({ passed: true, score: 0.8 })
    expect(shownTo(server.requests[1]!)).toContain('- Check the city\n- Check brevity')
    server.enqueue({ body: chatReply('{"steps": ["s"]}') }, { body: chatReply('{"score": 8, "reason": "good"}') })
    expect(await grade({ type: 'g-eval', value: 'Answers with the capital city', threshold: 0.9 }, 'Paris')).toMatchObject({ passed: false, score: 0.8 })
  })

  it('a score outside 0–10 is an error', async () => {
    server.enqueue({ body: chatReply('{"steps": ["s"]}') }, { body: chatReply('{"score": 11, "reason": "x"}') })
    expect(await grade({ type: 'g-eval', value: 'c' }, 'Paris')).toMatchObject({ passed: false, error: expect.stringContaining('not a number from 0 to 10') })
  })
})

describe('the RAG checks', () => {
  it('context-faithfulness: statements, then verdicts after the marker line', async () => {
    server.enqueue(
      { body: chatReply('Paris is the capital.\nIt has 2 million people.') },
      { body: chatReply('First is supported; second is not.\nFinal verdict for each statement in order: Yes. No.') }
    )
    const result = await grade({ type: 'context-faithfulness', threshold: 0.6 }, 'Paris, 2M people', {
      query: 'capital?',
      context: 'Paris is the capital of France.'
    })
    expect(result).toMatchObject({ passed: false, score: 0.5 })
  })

  it('context-relevance: relevant sentences over the context’s sentences', async () => {
    server.enqueue({ body: chatReply('Paris is the capital of France.') })
    const result = await grade({ type: 'context-relevance', threshold: 0.5 }, 'x', {
      query: 'capital?',
      context: 'Paris is the capital of France. It rains a lot. Bread is good.'
    })
    expect(result.score).toBeCloseTo(1 / 3)
    expect(result.passed).toBe(false)
    server.enqueue({ body: chatReply('Insufficient Information') })
    expect((await grade({ type: 'context-relevance' }, 'x', { query: 'q?', context: ['a', 'b'] })).score).toBe(0)
  })

  it('context-recall: attributed lines over marked lines; needs the context', async () => {
    server.enqueue({ body: chatReply('1. Paris is the capital. [Attributed]\n2. It is in Europe. [Not Attributed]') })
    expect(
      await grade({ type: 'context-recall', value: 'Paris is the capital. It is in Europe.', threshold: 0.5 }, 'x', { context: 'Paris is the capital.' })
    ).toMatchObject({
      passed: true,
      score: 0.5
    })
  })

  it('context-faithfulness without vars.query fails saying what it needs, without asking', async () => {
    const result = await grade({ type: 'context-faithfulness' }, 'x', { context: 'c' })
    expect(result).toMatchObject({ passed: false, error: 'context-faithfulness needs the user’s question in vars.query'.replace('’', "'") })
    expect(server.requests).toHaveLength(0)
  })

  it('answer-relevance: three questions from the output, embedded beside the question', async () => {
    server.respond((r) =>
      r.url.endsWith('/embeddings')
        ? { body: embeddingReply((r.body.input as string[]).map((t) => (t.startsWith('What') ? [1, 0] : [0.6, 0.8]))) }
        : { body: chatReply('Which city is the capital?') }
    )
    const result = await grade({ type: 'answer-relevance', threshold: 0.5 }, 'Paris is the capital.')
    expect(result).toMatchObject({ passed: true })
    expect(result.score).toBeCloseTo(0.6)
    expect(server.requests.filter((r) => r.url.endsWith('/chat/completions'))).toHaveLength(3)
  })
})

describe('llm-rubric with its own grader or rubricPrompt', () => {
  it.each([
    ['{"pass": true, "score": 0.2, "reason": "ok"}', undefined, true],
    ['{"pass": true, "score": 0.2, "reason": "ok"}', 0.5, false],
    ['{"pass": false, "score": 1, "reason": "no"}', undefined, false],
    ['{"score": 0.9, "reason": "fine"}', undefined, true]
  ])('reads %s with threshold %p as promptfoo does', (reply, threshold, pass) => {
    expect(readRubricReply(reply, threshold).pass).toBe(pass)
  })

  it('renders a custom rubricPrompt with output, rubric and the vars', async () => {
    server.enqueue({ body: chatReply('{"pass": true, "score": 1, "reason": "fine"}') })
    const result = await grade({ type: 'llm-rubric', value: 'is polite', rubricPrompt: 'Grade {{ output }} by: {{ rubric }} (topic {{ topic }})' }, 'Hello!', {
      topic: 'greetings'
    })
    expect(result.passed).toBe(true)
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'Grade Hello! by: is polite (topic greetings)' }])
  })
})

describe('reuse, graders and credentials through the engine', () => {
  const config = (url: string) => `prompts: ["Q: {{q}}"]
providers: [echo]
defaultTest:
  options:
    provider: openai:chat:default-grader
tests:
  - vars: { q: Paris }
    assert:
      - { type: factuality, value: Paris }
  - vars: { q: Lyon }
    options: { provider: openai:chat:test-grader }
    assert:
      - { type: factuality, value: Lyon }
      - { type: model-graded-closedqa, value: names a city, provider: { id: openai:chat:own-grader, config: { temperature: 0 } } }
evalgate:
  judge: { baseUrl: "${url}" }
`

  it('the check’s provider, else the test’s, else defaultTest’s; a second run reuses every verdict', async () => {
    server.respond((r) => ({ body: chatReply(r.body.model === 'own-grader' ? 'ok\nY' : '{"category": "C", "reason": "same"}') }))
    const dir = tempProject({ 'promptfooconfig.yaml': config(server.baseUrl) })
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseUrl }
    const first = await evaluate(await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml')), { env })
    expect(first.record.cases.map((c) => c.passed)).toEqual([true, true])
    expect(server.requests.map((r) => r.body.model)).toEqual(['default-grader', 'test-grader', 'own-grader'])
    const again = await evaluate(await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml')), { env, baseline: first.record })
    expect(server.requests).toHaveLength(3)
    expect(again.record.cases.flatMap((c) => c.assertions.map((a) => a.judge?.reused))).toEqual([true, true, true])
    expect(again.record.cases.map((c) => c.passed)).toEqual([true, true])
  })

  it('a check’s grader that would send the judge’s key to another host is refused, saying why', async () => {
    const dir = tempProject({
      'promptfooconfig.yaml': `prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: { q: Paris }
    assert:
      - { type: factuality, value: Paris, provider: { id: openai:chat:x, config: { apiBaseUrl: "https://collector.example/v1" } } }
evalgate:
  judge: { baseUrl: "${server.baseUrl}" }
`
    })
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml')), { env: { OPENAI_API_KEY: KEY } })
    expect(record.cases[0]!.assertions[0]!.error).toMatch(
      /grader openai:chat:x would send OPENAI_API_KEY to collector\.example, where the judge sends no such credential/
    )
    expect(server.requests).toHaveLength(0)
  })

  it('select-best is refused at load, saying what to do', async () => {
    const dir = tempProject({ 'promptfooconfig.yaml': 'prompts: [a, b]\nproviders: [echo]\ntests:\n  - assert: [{ type: select-best, value: best }]\n' })
    await expect(loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))).rejects.toThrow(
      /select-best is not supported by evalgate: .* grade each output with llm-rubric instead/
    )
  })
})
