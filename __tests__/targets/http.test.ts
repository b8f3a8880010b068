import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { ConfigError, TargetError } from '../../src/errors.js'
import { createHttpTarget, readPath } from '../../src/targets/http.js'
import type { TargetContext } from '../../src/targets/types.js'
import { FakeServer, startServer } from '../__fixtures__/openai-server.js'
import { request as trial, targetConfig } from './helpers.js'

const API_KEY = 'sk-http-target-9876'
let server: FakeServer
let ctx: TargetContext
const deps = { sleep: async () => {} }

beforeEach(async () => {
  server = await startServer()
  ctx = { baseDir: '.', env: { API_KEY, TENANT: 'acme' }, secrets: new Set() }
})
afterEach(() => server.close())

/** An http target as users get it: parsed through the real schema, so the defaults (POST, retries 2) apply. */
function target(http: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const config = targetConfig({ http: { url: `${server.url}/ask`, ...http }, timeoutMs: 30_000, ...extra })
  return createHttpTarget(config.http!, ctx, config, deps)
}

describe('the http target', () => {
  it('sends the templated body and headers with ${VAR} expanded, and reads a nested output path', async () => {
    server.enqueue({ body: { data: { answer: 'Dublin', meta: 1 } } })
    const t = target({
      url: `${server.url}/\${TENANT}/ask`,
      headers: { Authorization: 'Bearer ${API_KEY}' },
      body: { question: '{{input}}', context: { case: '{{case.id}}', note: 'about {{input}}' } },
      output: 'data.answer'
    })
    const reply = await t.call(trial("What's the capital of Ireland?"))
    expect(reply).toEqual({ output: 'Dublin' })
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/acme/ask',
      body: { question: "What's the capital of Ireland?", context: { case: 'case-1', note: "about What's the capital of Ireland?" } }
    })
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(ctx.secrets.has(API_KEY)).toBe(true)
  })

  it('keeps a JSON input as JSON where the leaf is exactly {{input}}', async () => {
    server.enqueue({ body: { ok: 1 } })
    await target({ body: { payload: '{{input}}' } }).call(trial({ items: [1, 2] }))
    expect(server.requests[0]!.body).toEqual({ payload: { items: [1, 2] } })
  })

  it('sends the input itself when there is no body template', async () => {
    server.enqueue({ body: 'ok' })
    await target({}).call(trial({ q: 'x' }))
    expect(server.requests[0]!.body).toEqual({ q: 'x' })
  })

  it('returns the whole body as text without an output path', async () => {
    server.enqueue({ body: 'plain answer' })
    expect(await target({}).call(trial('hi'))).toEqual({ output: 'plain answer' })
  })

  it('supports GET with the input in the query string', async () => {
    server.enqueue({ body: { items: [{ text: 'first' }] } })
    const reply = await target({ method: 'GET', url: `${server.url}/search?q={{input}}`, output: 'items[0].text' }).call(trial('a b'))
    expect(reply.output).toBe('first')
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/search?q=a%20b', body: '' })
  })

  it('gives non-string values at the output path as JSON', async () => {
    server.enqueue({ body: { choices: [{ message: { content: { a: 1 } } }] } })
    expect((await target({ output: 'choices.0.message.content' }).call(trial('x'))).output).toBe('{"a":1}')
  })

  it('names a missing output path and shows the top-level keys', async () => {
    server.enqueue({ body: { result: { text: 'x' }, id: 7 } })
    const err = await target({ output: 'data.answer' })
      .call(trial('x'))
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TargetError)
    expect((err as Error).message).toBe('target.http.output: the reply has no "data.answer" (missing at "data"); the reply\'s top-level keys: result, id')
  })

  it('says when the reply is not JSON but an output path is set', async () => {
    server.enqueue({ body: '<html>oops</html>' })
    await expect(target({ output: 'data' }).call(trial('x'))).rejects.toThrow('target.http.output is "data" but the reply is not JSON: <html>oops</html>')
  })

  it('retries 5xx and dropped connections, then succeeds', async () => {
    server.enqueue({ status: 503 }, 'drop', { body: { data: 'ok' } })
    expect((await target({ output: 'data' }).call(trial('x'))).output).toBe('ok')
    expect(server.requests).toHaveLength(3)
  })

  it('fails with the status after retries, never showing the secret header', async () => {
    server.respond((req) => ({ status: 500, body: { error: `bad auth ${req.headers.authorization}` } }))
    const t = target({ headers: { Authorization: 'Bearer ${API_KEY}' } }, { retries: 1 })
    const err = await t.call(trial('x')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TargetError)
    expect((err as Error).message).toMatch(/^HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/ask after 2 attempts: \{"error":"bad auth \*\*\*"\}$/)
    expect((err as Error).message).not.toContain(API_KEY)
    expect(server.requests).toHaveLength(2)
  })

  it('does not retry a 404', async () => {
    server.respond(() => ({ status: 404, body: 'no such route' }))
    await expect(target({}).call(trial('x'))).rejects.toThrow(/^HTTP 404 from .*\/ask: no such route$/)
    expect(server.requests).toHaveLength(1)
  })

  it('fails a reply larger than target.maxOutputBytes, by its Content-Length or as it streams, without retrying it', async () => {
    const t = target({}, { maxOutputBytes: 1000 })
    server.enqueue({ body: 'x'.repeat(1000) })
    expect((await t.call(trial('x'))).output).toHaveLength(1000)
    server.enqueue({ body: 'x'.repeat(1001) })
    const declared = await t.call(trial('x')).catch((e: unknown) => e)
    expect(declared).toBeInstanceOf(TargetError)
    expect((declared as Error).message).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ask: the reply exceeded 1000 bytes \(target\.maxOutputBytes\)$/)
    // no Content-Length: counted as it arrives, in UTF-8 bytes (501 two-byte characters)
    server.enqueue({ body: 'é'.repeat(501), headers: { 'transfer-encoding': 'chunked' } })
    await expect(t.call(trial('x'))).rejects.toThrow('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    server.enqueue({ body: 'é'.repeat(500), headers: { 'transfer-encoding': 'chunked' } })
    expect((await t.call(trial('x'))).output).toBe('é'.repeat(500))
    // four requests: the two refused were not sent again
    expect(server.requests).toHaveLength(4)
  })

  it("stops when the trial's signal aborts", async () => {
    const controller = new AbortController()
    // aborted once the request is in flight, and never answered: an event, not a race against a timer
    server.respond(() => {
      controller.abort(new TargetError('timed out after 30 ms'))
      return new Promise(() => {})
    })
    await expect(target({}).call(trial('x', controller.signal))).rejects.toThrow('timed out after 30 ms')
  })

  it('is a config error when a ${VAR} is not set', () => {
    expect(() => target({ headers: { Authorization: 'Bearer ${MISSING_KEY}' } })).toThrow(ConfigError)
  })

  it('is a config error when the url is not absolute', () => {
    expect(() => target({ url: '/ask?q={{input}}' })).toThrow('target.http.url is not an absolute URL')
  })
})

describe('readPath', () => {
  const data = { data: { answer: 'a', list: [{ text: 't0' }, { text: 't1' }] }, choices: [{ message: { content: 'c' } }], zero: 0 }
  it.each([
    ['data.answer', { ok: true, value: 'a' }],
    ['choices.0.message.content', { ok: true, value: 'c' }],
    ['data.list[1].text', { ok: true, value: 't1' }],
    ['zero', { ok: true, value: 0 }],
    ['data.missing', { ok: false, missing: 'missing' }],
    ['data.list[5].text', { ok: false, missing: '5' }],
    ['data.answer.length', { ok: false, missing: 'length' }],
    ['constructor', { ok: false, missing: 'constructor' }]
  ])('%s', (path, expected) => {
    expect(readPath(data, path)).toEqual(expected)
  })
})
