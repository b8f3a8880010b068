import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { chatComplete, chatCompletionsUrl, ChatError, isLocalUrl } from '../../src/llm/chat.js'
import { chatReply, FakeServer, startServer } from '../__fixtures__/openai-server.js'

let server: FakeServer
const http = { sleep: async () => {}, timeoutMs: 30_000 }
const messages = [{ role: 'user' as const, content: 'hi' }]

beforeEach(async () => {
  server = await startServer()
})
afterEach(() => server.close())

describe('chatComplete', () => {
  it.each(['', '/'])('posts to <baseUrl>/chat/completions (trailing %p)', async (slash) => {
    server.enqueue({ body: chatReply('hello') })
    const result = await chatComplete({ baseUrl: server.baseUrl + slash, model: 'm', messages }, http)
    expect(result).toEqual({ content: 'hello', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, finishReason: 'stop' })
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions' })
  })

  it('sends model, messages and the optional settings in wire names', async () => {
    server.enqueue({ body: chatReply('{}') })
    await chatComplete({ baseUrl: server.baseUrl, model: 'm', messages, temperature: 0, responseFormat: { type: 'json_object' }, maxTokens: 64 }, http)
    expect(server.requests[0]!.body).toEqual({ model: 'm', messages, temperature: 0, response_format: { type: 'json_object' }, max_tokens: 64 })
  })

  it('leaves unset settings out', async () => {
    server.enqueue({ body: chatReply('x') })
    await chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)
    expect(Object.keys(server.requests[0]!.body)).toEqual(['model', 'messages'])
  })

  it('sends Authorization: Bearer only when there is a key', async () => {
    server.enqueue({ body: chatReply('a') }, { body: chatReply('b') })
    await chatComplete({ baseUrl: server.baseUrl, apiKey: 'sk-abc123', model: 'm', messages }, http)
    await chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-abc123')
    expect(server.requests[1]!.headers.authorization).toBeUndefined()
  })

  it("surfaces the server's error message, without the key", async () => {
    server.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided: sk-abc123', type: 'invalid_request_error' } } })
    const err = await chatComplete({ baseUrl: server.baseUrl, apiKey: 'sk-abc123', model: 'm', messages }, http).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ChatError)
    expect(err).toMatchObject({ status: 401, message: 'chat completions: HTTP 401: Incorrect API key provided: ***' })
  })

  it('accepts an error given as a plain string', async () => {
    server.enqueue({ status: 400, body: { error: 'model not found' } })
    await expect(chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)).rejects.toThrow('chat completions: HTTP 400: model not found')
  })

  it('falls back to the HTTP error when the body explains nothing', async () => {
    server.enqueue({ status: 404, body: 'Not Found' })
    await expect(chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)).rejects.toThrow(/^HTTP 404 from .*\/v1\/chat\/completions: Not Found$/)
  })

  it('reports a reply without choices', async () => {
    server.enqueue({ body: { hello: 'world' } })
    await expect(chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)).rejects.toThrow(/no choices\[0\]\.message: \{"hello":"world"\}/)
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
    const refused = await chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)
    const parts = await chatComplete({ baseUrl: server.baseUrl, model: 'm', messages }, http)
    expect(refused).toEqual({ content: 'I cannot help', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } })
    expect(parts).toEqual({ content: 'ab', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } })
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
