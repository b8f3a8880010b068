/**
 * promptfoo's `http` provider against a server on 127.0.0.1: the URL, query,
 * headers and body rendered from the prompt and the test's vars, the reply
 * read through `transformResponse` (run in the checks' sandbox), retries
 * and refusals as every provider has them.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { judgeSchema } from '../../src/config/schema.js'
import { createJudge } from '../../src/judge/judge.js'
import { createProvider, credentialFlows } from '../../src/providers/index.js'
import { FakeServer, startServer } from '../__fixtures__/openai-server.js'
import { tempDir } from '../__fixtures__/temp.js'

let server: FakeServer
const http = { sleep: async () => {}, timeoutMs: 30_000 }
beforeEach(async () => {
  server = await startServer()
})
afterEach(() => server.close())

function provider(config: Record<string, unknown>, extra: { baseDir?: string; checkTimeoutMs?: number } = {}) {
  return createProvider(
    { id: 'http', config: { url: `${server.url}/chat`, ...config } },
    { env: {}, secrets: new Set(), baseDir: extra.baseDir ?? '.', where: 'target', checkTimeoutMs: extra.checkTimeoutMs }
  )
}

describe('the http provider', () => {
  it('renders the JSON body, headers and query from the prompt and vars; transformResponse picks the output', async () => {
    server.enqueue({ body: { data: { answer: 'Paris', tokens: 3 } } })
    const p = provider({
      method: 'POST',
      headers: { 'X-Team': '{{team}}', Authorization: 'Bearer static-token-1' },
      queryParams: { lang: '{{lang}}' },
      body: { question: '{{prompt}}', history: '{{history}}', user: { id: '{{user_id}}' } },
      transformResponse: 'json.data.answer'
    })
    const result = await p.call({ prompt: 'Capital of France?', vars: { team: 'geo', lang: 'fr', history: '[{"q":1}]', user_id: 42 } }, http)
    const sent = server.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.url).toBe('/chat?lang=fr')
    expect(sent.headers['content-type']).toBe('application/json')
    expect(sent.headers['x-team']).toBe('geo')
    expect(sent.headers.authorization).toBe('Bearer static-token-1')
    // a string that renders to JSON becomes that JSON, as promptfoo sends it
    expect(sent.body).toEqual({ question: 'Capital of France?', history: [{ q: 1 }], user: { id: '42' } })
    expect(result).toEqual({ output: 'Paris', model: 'http' })
  })

  it('without transformResponse the output is the reply’s JSON (as text), else its text; GET sends no body', async () => {
    server.enqueue({ body: { a: 1 } }, { body: 'plain words' })
    const p = provider({ url: `${server.url}/ask?q={{prompt | urlencode}}` })
    expect((await p.call({ prompt: 'a b' }, http)).output).toBe('{"a":1}')
    expect((await p.call({ prompt: 'c' }, http)).output).toBe('plain words')
    expect(server.requests.map((r) => [r.method, r.url, r.raw])).toEqual([
      ['GET', '/ask?q=a%20b', ''],
      ['GET', '/ask?q=c', '']
    ])
  })

  it('a text body is sent as rendered text with promptfoo’s form content type', async () => {
    server.enqueue({ body: 'ok' })
    await provider({ method: 'POST', body: 'q={{prompt}}&n=1' }).call({ prompt: 'hi' }, http)
    expect(server.requests[0]!.raw).toBe('q=hi&n=1')
    expect(server.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded')
  })

  it('transformResponse as an arrow function, and as file:// with (json, text, context) returning a provider response', async () => {
    const dir = tempDir('evalgate-http-provider-')
    writeFileSync(
      path.join(dir, 'parse.mjs'),
      'export function read(json, text, context) { return { output: `${json.reply} (${text.length} chars, vars ${Object.keys(context.vars)})`, tokenUsage: { prompt: 5, completion: 2, total: 7 } } }\n'
    )
    server.respond(() => ({ body: { reply: 'hello' } }))
    const arrow = provider({ method: 'POST', body: { q: '{{prompt}}' }, transformResponse: '(json, text) => json.reply.toUpperCase() + text.length' })
    expect((await arrow.call({ prompt: 'x' }, http)).output).toBe('HELLO17')
    const file = provider({ method: 'POST', body: { q: '{{prompt}}' }, transformResponse: 'file://parse.mjs:read' }, { baseDir: dir })
    expect(await file.call({ prompt: 'x', vars: { topic: 'greeting' } }, http)).toEqual({
      output: 'hello (17 chars, vars topic)',
      model: 'http',
      usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 }
    })
  })

  it('a transformResponse that never returns fails the call at checkTimeoutMs, in the sandbox', async () => {
    server.enqueue({ body: { reply: 'x' } })
    const p = provider({ method: 'POST', body: { q: '{{prompt}}' }, transformResponse: '(() => { for (;;) {} })()' }, { checkTimeoutMs: 300 })
    await expect(p.call({ prompt: 'x' }, http)).rejects.toThrow(/transformResponse failed: did not finish within checkTimeoutMs \(300 ms\)/)
  })

  it('a refusal reaches transformResponse with its status, as in promptfoo; validateStatus makes a status an error; 5xx is retried', async () => {
    server.enqueue(
      { status: 404, body: { detail: 'no such order' } },
      { status: 400, body: { error: 'bad input' } },
      { status: 503 },
      { body: { detail: 'ok now' } },
      { status: 404, body: { detail: 'gone' } }
    )
    const p = provider({
      method: 'POST',
      body: { q: '{{prompt}}' },
      transformResponse: '(json, text, context) => `${context.response.status}: ${json.detail}`'
    })
    expect((await p.call({ prompt: 'x' }, http)).output).toBe('404: no such order')
    // a refusal the transform reads nothing from is named with the API's message
    const plain = provider({ method: 'POST', body: { q: '{{prompt}}' }, transformResponse: 'json.detail' })
    await expect(plain.call({ prompt: 'x' }, http)).rejects.toThrow('http: HTTP 400: bad input')
    expect((await plain.call({ prompt: 'x' }, http)).output).toBe('ok now')
    expect(server.requests).toHaveLength(4)
    const strict = provider({ method: 'POST', body: { q: '{{prompt}}' }, transformResponse: 'json.detail', validateStatus: 'status < 400' })
    await expect(strict.call({ prompt: 'x' }, http)).rejects.toThrow('http: HTTP 404 did not pass validateStatus: {"detail":"gone"}')
  })

  it('as the grader: retries a 429, names a 4xx with the server’s message', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after': '1' } },
      { body: { text: '{"score": 1, "reason": "fine"}' } },
      { status: 403, body: { error: 'forbidden for this key' } }
    )
    const config = judgeSchema.parse({
      provider: 'http',
      config: { url: `${server.url}/grade`, method: 'POST', body: { prompt: '{{prompt}}' }, transformResponse: 'json.text' },
      retries: 2
    })
    const judge = createJudge(config, { env: {}, secrets: new Set(), sleep: async () => {} })
    expect(await judge.judge({ input: 'q', output: 'a', rubric: 'r', threshold: 0.5 })).toMatchObject({ score: 1, reason: 'fine', model: 'http' })
    // the judge's messages render to JSON, which promptfoo sends as JSON
    expect(JSON.stringify(server.requests[1]!.body.prompt)).toContain('<rubric-')
    const refused = await judge.judge({ input: 'q2', output: 'a', rubric: 'r', threshold: 0.5 })
    expect(refused.error).toBe('judge request failed: http: HTTP 403: forbidden for this key')
  })

  it('refuses what it cannot send, and declares the host its headers go to', () => {
    expect(createProvider({ id: 'http', config: {} }, { env: {}, secrets: new Set(), baseDir: '.', where: 'providers[0]' }).unusable).toMatch(
      /needs config\.url/
    )
    expect(provider({ method: 'POST' }).unusable).toMatch(/sending POST needs config\.body/)
    expect(provider({ method: 'POST', body: {}, transformRequest: 'x' }).unusable).toMatch(/config\.transformRequest is not supported by evalgate/)
    expect(credentialFlows({ id: 'https://api.example.com:8443/v1/chat', config: { headers: { Authorization: 'Bearer x' } } }, {})).toEqual([
      { configKey: 'headers', host: 'api.example.com:8443', provider: 'https://api.example.com:8443/v1/chat' }
    ])
  })
})
