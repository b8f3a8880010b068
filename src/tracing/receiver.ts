/**
 * The OTLP/HTTP trace receiver: `POST /v1/traces` on 127.0.0.1,
 * `application/json` or `application/x-protobuf`, gzip or not. Whatever an
 * agent sends, the run goes on and memory stays bounded: a body over
 * `maxBodyBytes` before or after decompression gets 413 (and is not read
 * further), one that is not OTLP gets 400, another media type 415, and while
 * more than `maxBufferedBytes` of bodies are being read at once the next gets
 * 503 (exporters retry it). Spans go to the collector, which drops those of
 * traces no trial opened.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { decodeJson, decodeProtobuf, OtlpError } from './decode.js'
import type { Intake } from './collector.js'
import type { Span } from './spans.js'

export const MAX_BODY_BYTES = 10 * 1024 * 1024
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024
export const TRACES_PATH = '/v1/traces'

export interface ReceiverOptions {
  /** 0 or absent: an ephemeral port */
  port?: number
  maxBodyBytes?: number
  maxBufferedBytes?: number
  /** where the spans of each export go; says how many it took */
  onSpans(spans: Span[]): Intake
}

export interface ReceiverStats {
  /** exports answered 200 */
  exports: number
  /** refused: 400 not OTLP, 413 too large, 415 another media type, 503 busy, 404/405 elsewhere */
  refused: Record<number, number>
}

export interface Receiver {
  /** `http://127.0.0.1:<port>`: the OTLP endpoint (the traces URL adds /v1/traces) */
  url: string
  stats: ReceiverStats
  close(): Promise<void>
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES
  const stats: ReceiverStats = { exports: 0, refused: {} }
  let buffered = 0

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, message: string) => {
    stats.refused[status] = (stats.refused[status] ?? 0) + 1
    // the rest of a refused body is not read: the connection closes once the answer is out
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...(status === 503 ? { 'retry-after': '1' } : {}) })
    res.end(`${message}\n`, () => req.destroy())
  }

  const server = createServer((req, res) => {
    const url = req.url ?? ''
    if (url.split('?')[0] !== TRACES_PATH) return refuse(req, res, 404, `evalgate receives traces at POST ${TRACES_PATH} (OTLP/HTTP)`)
    if (req.method !== 'POST') return refuse(req, res, 405, `POST ${TRACES_PATH}`)
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    if (type !== 'application/json' && type !== 'application/x-protobuf')
      return refuse(req, res, 415, `send application/json or application/x-protobuf (OTLP/HTTP); got ${type || 'no content type'}`)
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
    if (encoding !== 'gzip' && encoding !== 'identity') return refuse(req, res, 415, `content-encoding ${encoding}: send gzip or none`)
    const declared = Number(req.headers['content-length'])
    if (declared > maxBody) return refuse(req, res, 413, `the body is over ${maxBody} bytes`)
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const release = () => {
      buffered -= size
      size = 0
    }
    const fail = (status: number, message: string) => {
      if (done) return
      done = true
      release()
      refuse(req, res, status, message)
    }
    req.on('data', (chunk: Buffer) => {
      if (done) return
      if (size + chunk.length > maxBody) return fail(413, `the body is over ${maxBody} bytes`)
      if (buffered + chunk.length > maxBuffered) return fail(503, 'too many exports at once: retry')
      size += chunk.length
      buffered += chunk.length
      chunks.push(chunk)
    })
    req.on('error', () => {
      if (!done) {
        done = true
        release()
      }
    })
    req.on('end', () => {
      if (done) return
      done = true
      const body = Buffer.concat(chunks, size)
      chunks.length = 0
      release()
      try {
        const intake = options.onSpans(decode(body, type, encoding, maxBody))
        stats.exports++
        answer(res, type, intake)
      } catch (err) {
        if (err instanceof Refusal) return refuse(req, res, err.status, err.message)
        refuse(req, res, 400, err instanceof OtlpError ? err.message : `cannot read the export: ${(err as Error).message}`)
      }
    })
  })
  // a stuck exporter cannot hold a connection for the whole run
  server.requestTimeout = 30_000
  server.headersTimeout = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

function decode(body: Buffer, type: string, encoding: string, maxBody: number): Span[] {
  let raw = body
  if (encoding === 'gzip') {
    try {
      raw = gunzipSync(body, { maxOutputLength: maxBody })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new Refusal(413, `the body is over ${maxBody} bytes once decompressed`)
      throw new OtlpError(`content-encoding is gzip but the body is not: ${(err as Error).message}`)
    }
  }
  return type === 'application/json' ? decodeJson(raw.toString('utf8')) : decodeProtobuf(raw)
}

/** 200; spans not taken (unknown traces, late, over a trial's cap) are reported as OTLP's partial success. */
function answer(res: ServerResponse, type: string, intake: Intake): void {
  if (type === 'application/x-protobuf') {
    // an empty ExportTraceServiceResponse
    res.writeHead(200, { 'content-type': 'application/x-protobuf' })
    return void res.end()
  }
  const body =
    intake.rejected > 0
      ? { partialSuccess: { rejectedSpans: String(intake.rejected), errorMessage: 'spans of traces no running evalgate trial opened, or over its limit' } }
      : {}
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
