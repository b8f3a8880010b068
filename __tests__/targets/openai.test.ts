import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { ConfigError, TargetError } from '../../src/errors.js'
import { createOpenAITarget } from '../../src/targets/openai.js'
import type { TargetContext } from '../../src/targets/types.js'
import { chatReply, FakeServer, startServer } from '../__fixtures__/openai-server.js'
import { request as trial, targetConfig } from './helpers.js'

const KEY = 'sk-target-key-5555'
let server: FakeServer
let ctx: TargetContext
const deps = { sleep: async () => {} }

beforeEach(async () => {
  server = await startServer()
  ctx = { baseDir: '.', env: { OPENAI_API_KEY: KEY, PERSONA: 'terse' }, secrets: new Set() }
})
afterEach(() => server.close())

/** Parsed through the real schema, so the defaults (apiKeyEnv, prompt, retries) are those users get. */
function target(openai: Record<string, unknown> = {}) {
  const config = targetConfig({ openai: { model: 'agent-model', baseUrl: server.baseUrl, ...openai }, timeoutMs: 30_000 })
  return createOpenAITarget(config.openai!, ctx, config, deps)
}

describe('the openai target', () => {
  it('sends system and the rendered prompt, and returns content and usage', async () => {
    server.enqueue({ body: chatReply('Dublin', { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 }) })
    const t = target({ system: 'Be ${PERSONA}.', prompt: 'Question: {{input}}', temperature: 0.3, maxTokens: 50 })
    const reply = await t.call(trial("What's the capital of Ireland?"))
    expect(reply).toEqual({
      output: 'Dublin',
      usage: { inputTokens: 20, outputTokens: 2, totalTokens: 22 },
      metadata: { model: 'agent-model' },
      priceList: 'openai',
      finishReason: 'stop'
    })
    expect(server.requests[0]!.body).toEqual({
      model: 'agent-model',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: "Question: What's the capital of Ireland?" }
      ],
      temperature: 0.3,
      max_tokens: 50
    })
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(ctx.secrets).toEqual(new Set([KEY, 'terse']))
  })

  it('sends a JSON input as text, and chat messages as they are', async () => {
    server.respond(() => ({ body: chatReply('ok') }))
    await target().call(trial({ q: 1 }))
    const messages = [
      { role: 'system', content: 'You are a grader.' },
      { role: 'user', content: '2+2?' }
    ]
    await target().call(trial(messages))
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: '{"q":1}' }])
    expect(server.requests[1]!.body.messages).toEqual(messages)
  })

  it('retries a 429, then answers', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '0' } }, { body: chatReply('later') })
    expect((await target().call(trial('x'))).output).toBe('later')
  })

  it('fails a reply larger than target.maxOutputBytes, and does not ask again', async () => {
    const config = targetConfig({ openai: { model: 'agent-model', baseUrl: server.baseUrl }, timeoutMs: 30_000, maxOutputBytes: 2000 })
    const t = createOpenAITarget(config.openai!, ctx, config, deps)
    server.enqueue({ body: chatReply('x'.repeat(5000)) })
    const err = await t.call(trial('x')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TargetError)
    expect((err as Error).message).toMatch(/the reply exceeded 2000 bytes \(target\.maxOutputBytes\)$/)
    expect(server.requests).toHaveLength(1)
    server.enqueue({ body: chatReply('short') })
    expect((await t.call(trial('x'))).output).toBe('short')
  })

  it('fails with the server message, never the key', async () => {
    server.respond(() => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } }))
    const err = await target()
      .call(trial('x'))
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TargetError)
    expect((err as Error).message).toBe('chat completions: HTTP 401: Incorrect API key provided: ***')
  })

  it('is a config error without a key for a remote server', () => {
    ctx.env = {}
    expect(() => target({ baseUrl: 'https://api.example.invalid/v1' })).toThrow(ConfigError)
    expect(() => target({ baseUrl: 'https://api.example.invalid/v1' })).toThrow(/OPENAI_API_KEY is not set/)
  })

  it('needs no key for a local server, and sends none', async () => {
    ctx.env = {}
    server.enqueue({ body: chatReply('local') })
    expect((await target().call(trial('x'))).output).toBe('local')
    expect(server.requests[0]!.headers.authorization).toBeUndefined()
  })
})
