import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals'
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { HttpError, NetworkError, postJson, requestJson, retryAfterMs, type HttpOptions } from '../../src/llm/http.js'
import { FakeServer, startServer, type Reply } from '../__fixtures__/openai-server.js'

let server: FakeServer
let sleeps: number[]
/** Records the waits instead of waiting: retries stay instant, and the waits can be checked. */
const sleep = async (ms: number) => {
  sleeps.push(ms)
}
const fast = (extra: HttpOptions = {}): HttpOptions => ({ sleep, random: () => 0.5, timeoutMs: 30_000, ...extra })

beforeEach(async () => {
  server = await startServer()
  sleeps = []
})
afterEach(() => server.close())

describe('requestJson', () => {
  it('posts JSON and returns the parsed reply', async () => {
    server.enqueue({ body: { ok: true } })
    const res = await postJson(`${server.url}/echo`, { a: 1 }, fast({ headers: { 'x-test': 'yes' } }))
    expect(res).toMatchObject({ status: 200, data: { ok: true }, text: '{"ok":true}' })
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/echo', body: { a: 1 } })
    expect(server.requests[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-test': 'yes' })
  })

  it('sends GET without a body, and keeps a non-JSON reply as text', async () => {
    server.enqueue({ body: 'plain words' })
    const res = await requestJson('GET', `${server.url}/q?x=1`, undefined, fast())
    expect(res).toMatchObject({ status: 200, text: 'plain words', data: undefined })
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/q?x=1', body: '' })
  })

  it('sends PUT', async () => {
    server.enqueue({ body: {} })
    await requestJson('PUT', server.url, { b: 2 }, fast())
    expect(server.requests[0]).toMatchObject({ method: 'PUT', body: { b: 2 } })
  })
})

describe('maxBodyBytes', () => {
  const limit = { bytes: 1000, setting: 'target.maxOutputBytes' }

  it('reads a body at the limit, and fails one over it without asking again, naming the setting', async () => {
    server.enqueue({ body: 'x'.repeat(1000) }, { body: 'x'.repeat(1001) })
    expect((await postJson(`${server.url}/a`, {}, fast({ maxBodyBytes: limit }))).text).toHaveLength(1000)
    const err = await postJson(`${server.url}/a`, {}, fast({ maxBodyBytes: limit })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NetworkError)
    expect((err as NetworkError).message).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a: the reply exceeded 1000 bytes \(target\.maxOutputBytes\)$/)
    expect(server.requests).toHaveLength(2)
  })

  it('refuses a body by its Content-Length before it arrives (a reply that claims a megabyte and never sends it)', async () => {
    server.enqueue({ body: 'x', headers: { 'content-length': '1000000' } })
    await expect(postJson(server.url, {}, fast({ maxBodyBytes: limit }))).rejects.toThrow('the reply exceeded 1000 bytes (target.maxOutputBytes)')
  })

  it('counts a compressed body as it arrives, decompressed: a small gzip of a large text is over the limit', async () => {
    const text = 'a'.repeat(100_000)
    const zipped = gzipSync(text)
    expect(zipped.length).toBeLessThan(1000)
    server.enqueue({ body: zipped, headers: { 'content-encoding': 'gzip' } }, { body: gzipSync('small'), headers: { 'content-encoding': 'gzip' } })
    await expect(postJson(server.url, {}, fast({ maxBodyBytes: limit }))).rejects.toThrow('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    expect((await postJson(server.url, {}, fast({ maxBodyBytes: limit }))).text).toBe('small')
    // the other way round: bytes that do not compress make a gzip longer than the text, and the text is what counts
    const noise = randomBytes(990)
    const longer = gzipSync(noise)
    expect(longer.length).toBeGreaterThan(1000)
    server.enqueue({ body: longer, headers: { 'content-encoding': 'gzip', 'content-length': String(longer.length) } })
    expect((await postJson(server.url, {}, fast({ maxBodyBytes: limit }))).text).toBe(new TextDecoder().decode(noise))
  })

  it('bounds an error reply too, and reads a body as Response.text does (a byte-order mark dropped, bad bytes replaced)', async () => {
    server.enqueue({ status: 400, body: 'e'.repeat(5000) })
    await expect(postJson(server.url, {}, fast({ maxBodyBytes: limit }))).rejects.toThrow('the reply exceeded 1000 bytes')
    server.enqueue({ body: Buffer.from([0xef, 0xbb, 0xbf, 0x6f, 0x6b, 0xff]) })
    expect((await postJson(server.url, {}, fast({ maxBodyBytes: limit }))).text).toBe('ok\ufffd')
  })
})

describe('retries', () => {
  it('honours Retry-After in seconds on 429', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } }, { body: { ok: 1 } })
    const res = await postJson(server.url, {}, fast())
    expect(res.data).toEqual({ ok: 1 })
    expect(sleeps).toEqual([1000])
    expect(server.requests).toHaveLength(2)
  })

  it('honours retry-after-ms and Retry-After as an HTTP date', async () => {
    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString()
    server.enqueue({ status: 429, headers: { 'retry-after-ms': '250' } }, { status: 503, headers: { 'retry-after': inTwoSeconds } }, { body: {} })
    await postJson(server.url, {}, fast())
    expect(sleeps[0]).toBe(250)
    expect(sleeps[1]).toBeGreaterThan(500)
    expect(sleeps[1]).toBeLessThanOrEqual(2000)
  })

  it('caps a long Retry-After', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '3600' } }, { body: {} })
    await postJson(server.url, {}, fast({ maxDelayMs: 5000, maxTotalMs: 60_000 }))
    expect(sleeps).toEqual([5000])
  })

  it('backs off exponentially with full jitter on 5xx', async () => {
    server.enqueue({ status: 500 }, { status: 502 }, { status: 503 }, { body: { ok: true } })
    const res = await postJson(server.url, {}, fast({ retries: 3, baseDelayMs: 100 }))
    expect(res.data).toEqual({ ok: true })
    // random() = 0.5 of 100, 200, 400
    expect(sleeps).toEqual([50, 100, 200])
  })

  it('retries 408', async () => {
    server.enqueue({ status: 408 }, { body: {} })
    await postJson(server.url, {}, fast())
    expect(server.requests).toHaveLength(2)
  })

  it('retries a dropped connection', async () => {
    server.enqueue('drop', { body: { ok: true } })
    const res = await postJson(server.url, {}, fast())
    expect(res.data).toEqual({ ok: true })
    expect(server.requests).toHaveLength(2)
  })

  it('retries a refused connection, then reports it', async () => {
    const closed = await startServer()
    const url = closed.url
    await closed.close()
    const err = await postJson(url, {}, fast({ retries: 2 })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NetworkError)
    expect((err as NetworkError).code).toBe('ECONNREFUSED')
    expect((err as NetworkError).message).toMatch(/ECONNREFUSED.*after 3 attempts/)
    expect(sleeps).toHaveLength(2)
  })

  it('is bounded: always 500 fails after retries + 1 attempts with the status', async () => {
    server.respond(() => ({ status: 500, body: { error: { message: 'boom' } } }))
    const err = await postJson(`${server.url}/v1/x?api-key=hidden`, {}, fast({ retries: 3 })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(HttpError)
    expect(err).toMatchObject({ status: 500, attempts: 4 })
    expect((err as Error).message).toBe(`HTTP 500 from ${server.url}/v1/x after 4 attempts: {"error":{"message":"boom"}}`)
    expect(server.requests).toHaveLength(4)
  })

  it.each([400, 401, 403, 404, 422])('never retries %p', async (status) => {
    server.respond(() => ({ status, body: { error: { message: 'no' } } }))
    const err = await postJson(server.url, {}, fast()).catch((e: unknown) => e)
    expect(err).toMatchObject({ status, attempts: 1 })
    expect(server.requests).toHaveLength(1)
    expect(sleeps).toEqual([])
  })

  it('stops before a wait that would end past the time budget', async () => {
    server.respond(() => ({ status: 429, headers: { 'retry-after': '10' } }))
    const err = await postJson(server.url, {}, fast({ maxTotalMs: 1000 })).catch((e: unknown) => e)
    expect(err).toMatchObject({ status: 429, attempts: 1 })
    expect(sleeps).toEqual([])
  })
})

describe('timeouts and cancellation', () => {
  /** A reply that never comes: the server holds the request until it closes. */
  const never = (): Promise<Reply> => new Promise(() => {})

  /** Resolves once the server has received `n` requests (polled on the event loop, not on a timer). */
  async function received(n: number): Promise<void> {
    while (server.requests.length < n) await new Promise((resolve) => setImmediate(resolve))
  }

  afterEach(() => {
    jest.useRealTimers()
  })

  it('times out a reply that never comes, retrying it', async () => {
    // each attempt's timer runs on a fake clock and fires once the server has the request: on a loaded machine
    // a real 50 ms could pass before a request even arrives, and the second would never be seen
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'Date'] })
    server.respond(never)
    const pending = postJson(server.url, {}, fast({ timeoutMs: 50, retries: 1 })).catch((e: unknown) => e)
    await received(1)
    jest.advanceTimersByTime(50)
    await received(2)
    jest.advanceTimersByTime(50)
    const err = await pending
    expect(err).toBeInstanceOf(NetworkError)
    expect(err).toMatchObject({ code: 'TIMEOUT', attempts: 2 })
    expect((err as Error).message).toMatch(/no reply within 50 ms \(after 2 attempts\)/)
    expect(server.requests).toHaveLength(2)
  })

  it('succeeds when only the first attempt was slow', async () => {
    // the attempt timer runs on a fake clock: the first attempt times out when the test says so,
    // and the second cannot, however slow the machine
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'Date'] })
    let seen = 0
    server.respond(() => (++seen === 1 ? never() : { body: { n: 2 } }))
    const reply = postJson(server.url, {}, fast({ timeoutMs: 50 }))
    await received(1)
    jest.advanceTimersByTime(50)
    expect((await reply).data).toEqual({ n: 2 })
    expect(server.requests).toHaveLength(2)
  })

  it("rejects with the caller's abort reason and stops retrying", async () => {
    const controller = new AbortController()
    // aborted once the request is in flight: an event, not a race against a timer
    server.respond(() => {
      controller.abort(new Error('run interrupted'))
      return never()
    })
    await expect(postJson(server.url, {}, fast({ signal: controller.signal }))).rejects.toThrow('run interrupted')
    expect(server.requests).toHaveLength(1)
  })

  it('does not start when already aborted', async () => {
    const controller = new AbortController()
    controller.abort(new Error('already'))
    await expect(postJson(server.url, {}, fast({ signal: controller.signal }))).rejects.toThrow('already')
    expect(server.requests).toHaveLength(0)
  })
})

describe('errors never show credentials', () => {
  it('redacts header credentials and secrets the server echoes back', async () => {
    server.respond((req) => ({
      status: 401,
      body: { error: { message: `bad key ${req.headers.authorization} / ${req.headers['x-api-key']} / extra-secret-1` } }
    }))
    const options = fast({ headers: { Authorization: 'Bearer sk-test-123456', 'x-api-key': 'k-abcdef' }, secrets: ['extra-secret-1'] })
    const err = (await postJson(server.url, {}, options).catch((e: unknown) => e)) as HttpError
    expect(err.message).toContain('HTTP 401')
    for (const secret of ['sk-test-123456', 'k-abcdef', 'extra-secret-1']) {
      expect(err.message).not.toContain(secret)
      expect(err.body).not.toContain(secret)
    }
  })
})

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': '1.5' }, 1500],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, 3000],
    [{ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after-ms': '20', 'retry-after': '5' }, 20],
    [{}, undefined]
  ])('%p → %p', (headers, expected) => {
    expect(retryAfterMs(new Headers(headers), now)).toBe(expected)
  })
})
