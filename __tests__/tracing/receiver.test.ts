/**
 * The OTLP/HTTP receiver against the real OpenTelemetry exporters (JSON and
 * protobuf, gzip or not), and against what no exporter sends: bodies over the
 * limit before or after decompression, bodies that are not OTLP, other media
 * types, spans of traces no trial opened (SPEC §12).
 */
import { request } from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from '@jest/globals'
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { TraceCollector } from '../../src/tracing/collector.js'
import { startReceiver, type Receiver } from '../../src/tracing/receiver.js'
import type { Span } from '../../src/tracing/spans.js'

let receiver: Receiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

/** A receiver whose spans land in `got` (all taken). */
async function receiving(options: { maxBodyBytes?: number; maxBufferedBytes?: number } = {}) {
  const got: Span[] = []
  receiver = await startReceiver({
    ...options,
    onSpans: (spans) => {
      got.push(...spans)
      return { accepted: spans.length, rejected: 0 }
    }
  })
  return { got, url: `${receiver.url}/v1/traces` }
}

function post(url: string, body: Buffer | string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, text }))
    })
    req.on('error', (err) =>
      (err as NodeJS.ErrnoException).code === 'ECONNRESET' || (err as NodeJS.ErrnoException).code === 'EPIPE' ? resolve({ status: -1, text: '' }) : reject(err)
    )
    req.end(body)
  })
}

describe.each([
  ['JSON', (url: string) => new JsonExporter({ url })],
  ['JSON, gzip', (url: string) => new JsonExporter({ url, compression: 'gzip' as never })],
  ['protobuf', (url: string) => new ProtobufExporter({ url })],
  ['protobuf, gzip', (url: string) => new ProtobufExporter({ url, compression: 'gzip' as never })]
])('the real exporter, %s', (_label, exporter) => {
  it('delivers spans with their ids, times, attributes, status and resource', async () => {
    const { got, url } = await receiving()
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'agent', 'evalgate.trial': 'trial-7' }),
      spanProcessors: [new SimpleSpanProcessor(exporter(url))]
    })
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
    const parent = new W3CTraceContextPropagator().extract(ROOT_CONTEXT, { traceparent }, { get: (c, k) => c[k], keys: (c) => Object.keys(c) })
    const tracer = provider.getTracer('t')
    const root = tracer.startSpan('invoke_agent', {}, parent)
    const tool = tracer.startSpan(
      'execute_tool refund',
      {
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'refund', n: 7, big: 2 ** 40, ratio: 0.5, ok: true, tags: ['a', 'b'] }
      },
      trace.setSpan(parent, root)
    )
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'refund failed' })
    tool.end()
    root.end()
    await provider.shutdown()
    expect(got).toHaveLength(2)
    // each span is exported as it ends, in its own request: they may arrive in either order
    const t = got.find((s) => s.name === 'execute_tool refund')!
    const r = got.find((s) => s.name === 'invoke_agent')!
    expect(t).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      parentSpanId: r.spanId,
      name: 'execute_tool refund',
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'refund', n: 7, big: 2 ** 40, ratio: 0.5, ok: true, tags: ['a', 'b'] },
      statusCode: 2,
      statusMessage: 'refund failed',
      trial: 'trial-7'
    })
    expect(r.parentSpanId).toBe('b7ad6b7169203331')
    expect(t.spanId).toMatch(/^[0-9a-f]{16}$/)
    // integer nanoseconds of today, ending after they start
    expect(t.startNs).toBeGreaterThan(1_600_000_000_000_000_000n)
    expect(t.endNs).toBeGreaterThanOrEqual(t.startNs)
  })
})

describe('what no exporter sends', () => {
  const span = (traceId: string) => ({
    traceId,
    spanId: '00f067aa0ba902b7',
    name: 'x',
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000001000000'
  })
  const otlp = (traceId = '4bf92f3577b34da6a3ce929d0e0e4736') => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(traceId)] }] }] })
  const json = { 'content-type': 'application/json' }

  it.each<[string, Buffer | string, Record<string, string>, number, string]>([
    ['JSON that is not OTLP', '{"hello": "world"}', json, 400, 'no resourceSpans list'],
    ['text that is not JSON', 'GET / HTTP/1.1', json, 400, 'not JSON'],
    [
      'bytes that are not OTLP protobuf',
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]),
      { 'content-type': 'application/x-protobuf' },
      400,
      'not an OTLP protobuf'
    ],
    ['gzip that is not', 'plain', { ...json, 'content-encoding': 'gzip' }, 400, 'content-encoding is gzip but the body is not'],
    ['another media type', otlp(), { 'content-type': 'text/plain' }, 415, 'application/json or application/x-protobuf'],
    ['another encoding', otlp(), { ...json, 'content-encoding': 'br' }, 415, 'send gzip or none'],
    [
      'attributes nested past any telemetry',
      JSON.stringify({
        resourceSpans: [{ scopeSpans: [{ spans: [{ ...span('4bf92f3577b34da6a3ce929d0e0e4736'), attributes: [{ key: 'deep', value: nested(40) }] }] }] }]
      }),
      json,
      400,
      'nested deeper than 32'
    ]
  ])('%s: refused, and the receiver goes on', async (_label, body, headers, status, words) => {
    const { got, url } = await receiving()
    const answer = await post(url, body, headers)
    expect(answer.status).toBe(status)
    expect(answer.text).toContain(words)
    expect(got).toHaveLength(0)
    expect((await post(url, otlp(), json)).status).toBe(200)
    expect(got).toHaveLength(1)
  })

  it('other paths and methods are refused', async () => {
    const { url } = await receiving()
    expect((await post(url.replace('/v1/traces', '/v1/metrics'), otlp(), json)).status).toBe(404)
    const get = await new Promise<number>((resolve) => request(url, { method: 'GET' }, (res) => resolve(res.statusCode!)).end())
    expect(get).toBe(405)
  })

  it('a body over the limit is refused with 413: declared, sent without a length, or once decompressed', async () => {
    const { got, url } = await receiving({ maxBodyBytes: 64 * 1024 })
    const big = Buffer.alloc(100 * 1024, 'a')
    expect((await post(url, big, { ...json, 'content-length': String(big.length) })).status).toBe(413)
    const chunked = await post(url, big, { ...json, 'transfer-encoding': 'chunked' })
    // the answer comes while the rest is still on its way: a client may see the connection close instead
    expect([413, -1]).toContain(chunked.status)
    const bomb = gzipSync(Buffer.alloc(1024 * 1024, ' '))
    expect(bomb.length).toBeLessThan(64 * 1024)
    expect(await post(url, bomb, { ...json, 'content-encoding': 'gzip' })).toEqual({ status: 413, text: expect.stringContaining('once decompressed') })
    expect(got).toHaveLength(0)
    expect((await post(url, otlp(), json)).status).toBe(200)
  })

  it('while too much is being read at once, the next export gets 503 to retry', async () => {
    const { url } = await receiving({ maxBufferedBytes: 1024 })
    const answer = await post(url, Buffer.alloc(4096, ' '), json)
    expect([503, -1]).toContain(answer.status)
    expect((await post(url, otlp(), json)).status).toBe(200)
  })

  it('spans of traces no trial opened are dropped, and the exporter told so', async () => {
    const collector = new TraceCollector()
    const open = collector.begin()
    receiver = await startReceiver({ onSpans: (spans) => collector.add(spans) })
    const url = `${receiver.url}/v1/traces`
    const mixed = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(open.traceId), span('4bf92f3577b34da6a3ce929d0e0e4736')] }] }] })
    const answer = await post(url, mixed, json)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text)).toMatchObject({ partialSuccess: { rejectedSpans: '1' } })
    expect(collector.unknownSpans).toBe(1)
    open.discard()
  })
})

function nested(depth: number): unknown {
  let value: unknown = { stringValue: 'bottom' }
  for (let i = 0; i < depth; i++) value = { arrayValue: { values: [value] } }
  return value
}
