/**
 * OpenAI chat completions against a server on 127.0.0.1: the request as
 * promptfoo's `openai:chat:<model>` sends it (base URL and key from its
 * config keys and variables), the reply's text, tool calls and usage.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { createProvider, credentialFlows, ProviderError } from '../../src/providers/index.js'
import { chatComplete, chatCompletionsUrl, isLocalUrl } from '../../src/providers/openai.js'
import { chatReply, FakeServer, startServer } from '../__fixtures__/openai-server.js'

let server: FakeServer
const http = { sleep: async () => {}, timeoutMs: 30_000 }

beforeEach(async () => {
  server = await startServer()
})
afterEach(() => server.close())

function provider(id: string, config: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-test-1' }) {
  return createProvider({ id, config }, { env, secrets: new Set(), baseDir: '.', where: 'target' })
}

describe('chatComplete', () => {
  const request = (body: Record<string, unknown> = { model: 'm', messages: [{ role: 'user', content: 'hi' }] }) => ({
    provider: 'chat completions',
    url: chatCompletionsUrl(server.baseUrl),
    auth: { authorization: 'Bearer sk-abc123' },
    body
  })

  it('posts the body as it is and reads content, usage and finish reason', async () => {
    server.enqueue({ body: chatReply('hello') })
    const result = await chatComplete(request(), http)
    expect(result).toEqual({ output: 'hello', model: 'test-model', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, finishReason: 'stop' })
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } })
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-abc123')
  })

  it("surfaces the server's error message, without the key", async () => {
    server.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided: sk-abc123', type: 'invalid_request_error' } } })
    const err = await chatComplete(request(), http).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderError)
    expect(err).toMatchObject({ status: 401, message: 'chat completions: HTTP 401: Incorrect API key provided: ***' })
  })

  it('accepts an error given as a plain string, and falls back to the HTTP error when the body explains nothing', async () => {
    server.enqueue({ status: 400, body: { error: 'model not found' } }, { status: 404, body: 'Not Found' })
    await expect(chatComplete(request(), http)).rejects.toThrow('chat completions: HTTP 400: model not found')
    await expect(chatComplete(request(), http)).rejects.toThrow(/^chat completions: HTTP 404 from .*\/v1\/chat\/completions: Not Found$/)
  })

  it('reports a reply without choices', async () => {
    server.enqueue({ body: { hello: 'world' } })
    await expect(chatComplete(request(), http)).rejects.toThrow(/no choices\[0\]\.message: \{"hello":"world"\}/)
  })

  it('reads a refusal, content parts and missing usage', async () => {
    server.enqueue(
      { body: { choices: [{ message: { content: null, refusal: 'I cannot help' } }] } },
      {
        body: {
          choices: [
            {
              message: {
                content: [
                  { type: 'text', text: 'a' },
                  { type: 'text', text: 'b' }
                ]
              }
            }
          ],
          usage: { prompt_tokens: 3, completion_tokens: 4 }
        }
      }
    )
    const refused = await chatComplete(request(), http)
    const parts = await chatComplete(request(), http)
    expect(refused).toEqual({ output: 'I cannot help', model: 'm', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } })
    expect(parts).toEqual({ output: 'ab', model: 'm', usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } })
  })
})

describe('openai:chat:<model>', () => {
  it('sends promptfoo’s config keys: tools, tool_choice, temperature, max_tokens; a JSON prompt is the messages', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]
    const call = { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }
    server.enqueue({
      body: {
        model: 'gpt-4o-mini-2024',
        choices: [{ message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 }
      }
    })
    const p = provider('openai:chat:gpt-4o-mini', { tools, tool_choice: 'required', temperature: 0.2, max_tokens: 300 })
    const prompt = JSON.stringify([
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'Weather in Paris?' }
    ])
    const result = await p.call({ prompt }, http)
    expect(server.requests[0]!.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'Weather in Paris?' }
      ],
      temperature: 0.2,
      max_tokens: 300,
      tool_choice: 'required',
      tools
    })
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-1')
    // promptfoo's output for a tool call without text is the calls' JSON
    expect(result).toEqual({
      output: JSON.stringify([call]),
      model: 'gpt-4o-mini-2024',
      toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
      usage: { inputTokens: 40, outputTokens: 9, totalTokens: 49 },
      finishReason: 'tool_calls'
    })
  })

  it('reads the base URL as promptfoo does: config apiBaseUrl, else OPENAI_BASE_URL; the key from apiKeyEnvar', async () => {
    server.respond(() => ({ body: chatReply('ok') }))
    const viaConfig = provider(
      'openai:gpt-4o',
      { apiBaseUrl: server.baseUrl, apiKeyEnvar: 'TEAM_KEY' },
      { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', TEAM_KEY: 'sk-team-2' }
    )
    expect((await viaConfig.call({ prompt: 'hi' }, http)).output).toBe('ok')
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-team-2')
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }])
    expect(credentialFlows({ id: 'openai:gpt-4o', config: { apiKeyEnvar: 'TEAM_KEY' } }, { OPENAI_BASE_URL: 'https://proxy.example:8443/v1' })).toEqual([
      { variable: 'TEAM_KEY', host: 'proxy.example:8443', provider: 'openai:gpt-4o' },
      { variable: 'OPENAI_API_KEY', host: 'proxy.example:8443', provider: 'openai:gpt-4o' }
    ])
  })

  it('is unusable without a key toward a remote host, usable without one on this machine', () => {
    expect(provider('openai:chat:m', {}, { OPENAI_BASE_URL: 'https://api.example/v1' }).unusable).toMatch(/OPENAI_API_KEY is not set/)
    expect(provider('openai:chat:m', {}, { OPENAI_BASE_URL: server.baseUrl }).unusable).toBeUndefined()
  })
})

it.each([
  ['https://api.openai.com/v1', 'https://api.openai.com/v1/chat/completions'],
  ['http://localhost:11434/v1/', 'http://localhost:11434/v1/chat/completions']
])('chatCompletionsUrl(%p)', (base, url) => {
  expect(chatCompletionsUrl(base)).toBe(url)
})

it.each([
  ['http://localhost:11434/v1', true],
  ['http://127.0.0.1:8000/v1', true],
  ['http://[::1]:8000/v1', true],
  ['https://api.openai.com/v1', false],
  ['http://localhost.evil.com/v1', false],
  ['not a url', false]
])('isLocalUrl(%p) = %p', (url, local) => {
  expect(isLocalUrl(url)).toBe(local)
})
