/**
 * `similar` end to end: the judge's OpenAI-compatible server on 127.0.0.1
 * answers POST /embeddings; the assertion compares cosine similarities.
 */
import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { judgeSchema } from '../../src/config/schema.js'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { cosineSimilarity, embed } from '../../src/providers/embeddings.js'
import { createJudge } from '../../src/judge/judge.js'
import { tempProject } from '../__fixtures__/cli.js'
import { embeddingReply, FakeServer, startServer, type RecordedRequest } from '../__fixtures__/openai-server.js'
import { grade } from './helpers.js'

const KEY = 'sk-embed-secret-7'
let server: FakeServer

/** Vectors by text: the server answers each input with its vector, in the order asked. */
function vectorsBy(table: Record<string, number[]>) {
  return (req: RecordedRequest) => {
    if (req.url !== '/v1/embeddings') return { status: 404, body: { error: { message: `no route ${req.url}` } } }
    const input = req.body.input as string[]
    return { body: embeddingReply(input.map((t) => table[t] ?? [0, 0, 1])) }
  }
}

beforeEach(async () => {
  server = await startServer()
})
afterEach(() => server.close())

function handle(extra: Record<string, unknown> = {}) {
  const config = judgeSchema.parse({ baseUrl: server.baseUrl, embeddingModel: 'embed-small', retries: 0, ...extra })
  return createJudge(config, { env: { OPENAI_API_KEY: KEY }, secrets: new Set() })
}

describe('similar', () => {
  const table = { 'The capital is Dublin.': [1, 0, 0], 'Dublin is the capital.': [0.9, 0.1, 0], 'Cork.': [0, 1, 0] }

  it('passes at the threshold (default 0.75) and sends the model, the key and the texts', async () => {
    server.respond(vectorsBy(table))
    const { embed: embedder } = handle()
    const result = await grade({ type: 'similar', value: 'Dublin is the capital.' }, 'The capital is Dublin.', { embed: embedder })
    expect(result).toMatchObject({ passed: true, type: 'similar' })
    expect(result.score).toBeCloseTo(cosineSimilarity([1, 0, 0], [0.9, 0.1, 0]), 12)
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/embeddings',
      body: { model: 'embed-small', input: ['The capital is Dublin.', 'Dublin is the capital.'] }
    })
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('fails below the threshold, naming the similarity; not-similar passes there', async () => {
    server.respond(vectorsBy(table))
    const { embed: embedder } = handle()
    const failed = await grade({ type: 'similar', value: 'Dublin is the capital.' }, 'Cork.', { embed: embedder })
    expect(failed).toMatchObject({ passed: false })
    expect(failed.reason).toMatch(/expected similarity at least 0\.75 to "Dublin is the capital\.", got 0\.11/)
    expect((await grade({ type: 'not-similar', value: 'Dublin is the capital.' }, 'Cork.', { embed: embedder })).passed).toBe(true)
  })

  it('takes the closest of a list, and embeds each distinct text once per run', async () => {
    server.respond(vectorsBy(table))
    const { embed: embedder } = handle()
    const a = { type: 'similar', value: ['Cork.', 'Dublin is the capital.'], threshold: 0.9 }
    const first = await grade(a, 'The capital is Dublin.', { embed: embedder })
    expect(first.passed).toBe(true)
    expect(first.reason).toContain('to "Dublin is the capital."')
    await grade(a, 'Cork.', { embed: embedder })
    // the second case asks for nothing new: every text was embedded by the first
    expect(server.requests.map((r) => r.body.input)).toEqual([['The capital is Dublin.', 'Cork.', 'Dublin is the capital.']])
  })

  it("fails with the server's explanation when the embeddings request fails", async () => {
    server.respond(() => ({ status: 400, body: { error: { message: 'model embed-small does not exist' } } }))
    const result = await grade({ type: 'similar', value: 'x' }, 'y', { embed: handle().embed })
    expect(result).toMatchObject({ passed: false, score: 0, error: 'embeddings: HTTP 400: model embed-small does not exist' })
  })

  it('fails with a fix when no judge is configured, and a command judge gives none', async () => {
    const result = await grade({ type: 'similar', value: 'x' }, 'y')
    expect(result).toMatchObject({ passed: false, error: expect.stringContaining('add a `judge:` section') })
    const command = createJudge(judgeSchema.parse({ provider: 'command', command: ['true'] }), { env: {}, secrets: new Set() })
    expect(command.embed).toBeUndefined()
  })
})

describe('the embeddings client', () => {
  it('puts the vectors back in input order when the server answers out of order', async () => {
    server.enqueue({
      body: {
        data: [
          { index: 1, embedding: [2] },
          { index: 0, embedding: [1] }
        ],
        usage: { total_tokens: 3 }
      }
    })
    expect(await embed({ baseUrl: server.baseUrl, model: 'm', input: ['a', 'b'] })).toEqual({ vectors: [[1], [2]], totalTokens: 3 })
  })

  it('rejects a reply with a missing vector', async () => {
    server.enqueue({ body: embeddingReply([[1]]) })
    await expect(embed({ baseUrl: server.baseUrl, model: 'm', input: ['a', 'b'] })).rejects.toThrow('embeddings: reply has 1 embeddings for 2 inputs')
  })

  it('refuses to compare vectors of different lengths', () => {
    expect(() => cosineSimilarity([1, 0], [1, 0, 0])).toThrow('made by the same model?')
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0)
  })
})

describe('similar through the engine: evalgate.yml, a module target, the judge server', () => {
  it('grades each case by its embeddings, embedding the shared reference once', async () => {
    server.respond(vectorsBy({ 'Dublin.': [1, 0], 'Cork.': [0, 1], 'The capital is Dublin.': [0.95, 0.05] }))
    const dir = tempProject({
      'evalgate.yml': `name: sim
target: { module: ./agent.mjs }
judge: { baseUrl: "${server.baseUrl}", embeddingModel: embed-small, apiKeyEnv: EMBED_KEY }
cases:
  - { id: right, input: Dublin., assert: [{ type: similar, value: "The capital is Dublin." }] }
  - { id: wrong, input: Cork., assert: [{ type: similar, value: "The capital is Dublin." }] }
`,
      'agent.mjs': 'export default (q) => q'
    })
    try {
      const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { EMBED_KEY: KEY } })
      expect(Object.fromEntries(record.cases.map((c) => [c.id, c.passed]))).toEqual({ right: true, wrong: false })
      const inputs = server.requests.flatMap((r) => r.body.input as string[])
      expect(inputs.filter((t) => t === 'The capital is Dublin.')).toHaveLength(1)
      expect(server.requests.every((r) => r.body.model === 'embed-small' && r.headers.authorization === `Bearer ${KEY}`)).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
