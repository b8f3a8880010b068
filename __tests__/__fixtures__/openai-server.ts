/**
 * A real HTTP server on 127.0.0.1 for protocol tests: speaks the chat-completions
 * wire format (or any JSON), answers from a per-test script, and records every
 * request so tests can check what was sent.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  /** path and query */
  url: string
  headers: IncomingHttpHeaders
  /** parsed JSON, else the raw text */
  body: any
  /** the body as sent (what a signature covers) */
  raw: string
}

/** One scripted reply; 'drop' destroys the socket without answering. */
export type Reply =
  | 'drop'
  | {
      status?: number
      headers?: Record<string, string>
      /** objects are sent as JSON, strings and bytes as they are */
      body?: unknown
      /** wait before answering */
      delayMs?: number
    }

export type Responder = (request: RecordedRequest) => Reply | Promise<Reply>

/** A chat-completions reply body with `content` as the assistant message. */
export function chatReply(content: string | null, usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage
  }
}

/** An embeddings reply body (`POST /embeddings`): one vector per input, in order. */
export function embeddingReply(vectors: number[][], totalTokens = 8): Record<string, unknown> {
  return {
    object: 'list',
    model: 'test-embedding',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    usage: { prompt_tokens: totalTokens, total_tokens: totalTokens }
  }
}

export class FakeServer {
  readonly requests: RecordedRequest[] = []
  private readonly queue: Reply[] = []
  private fallback: Responder = () => ({ status: 500, body: { error: { message: 'no scripted reply left' } } })
  private readonly server: Server
  private readonly timers = new Set<NodeJS.Timeout>()
  private origin = ''

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: parse(text), raw: text }
        this.requests.push(recorded)
        const next = this.queue.shift()
        void Promise.resolve(next ?? this.fallback(recorded)).then((reply) => this.answer(res, reply))
      })
    })
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    return this.origin
  }

  /** where an OpenAI client points: `<url>/v1` */
  get baseUrl(): string {
    return `${this.origin}/v1`
  }

  /** Replies used in order, one per request, before the responder. */
  enqueue(...replies: Reply[]): this {
    this.queue.push(...replies)
    return this
  }

  /** Answers every request once the queue is empty. */
  respond(responder: Responder): this {
    this.fallback = responder
    return this
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer)
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private answer(res: ServerResponse, reply: Reply): void {
    if (reply === 'drop') {
      res.socket?.destroy()
      return
    }
    const send = () => {
      if (res.destroyed) return
      const raw = typeof reply.body === 'string' || Buffer.isBuffer(reply.body)
      const body = reply.body === undefined ? '' : raw ? (reply.body as string | Buffer) : JSON.stringify(reply.body)
      const type = raw ? 'text/plain' : 'application/json'
      res.writeHead(reply.status ?? 200, { 'content-type': type, ...reply.headers })
      res.end(body)
    }
    if (!reply.delayMs) return send()
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      send()
    }, reply.delayMs)
    this.timers.add(timer)
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Started server; close it in afterEach/afterAll. */
export function startServer(): Promise<FakeServer> {
  return new FakeServer().start()
}
