/**
 * The one HTTP client of evalgate (judge, openai and http targets): JSON over
 * the global `fetch`, with per-attempt timeouts and bounded retries.
 *
 * Retried: HTTP 408, 429 and 5xx, attempt timeouts and transient network
 * failures (reset, refused, socket closed). Never retried: other 4xx, which
 * the same request would only get again. Waits use exponential backoff with
 * full jitter, or the server's `Retry-After` when it gives one (capped).
 *
 * Error messages carry the status, the URL without its query and a short,
 * redacted excerpt of the body — never request headers, so never a key.
 */
import { setTimeout as delay } from 'node:timers/promises'
import { redact } from '../util/env.js'
import { tryParseJson } from '../util/json-in-text.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH'

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

/** Test seams of everything built on this client: its fetch and its waits between retries. */
export interface HttpSeams {
  fetchImpl?: typeof fetch
  sleep?: Sleep
}

export interface HttpOptions {
  headers?: Record<string, string>
  /** per attempt, including reading the body; default 60 s */
  timeoutMs?: number
  /** attempts after the first; default 2 */
  retries?: number
  /** the caller's cancellation: aborts the attempt in flight and any wait */
  signal?: AbortSignal
  /** no further attempt starts (nor wait) past this budget; default 5 min */
  maxTotalMs?: number
  /** first backoff step; default 500 ms */
  baseDelayMs?: number
  /** cap of one wait, backoff or Retry-After; default 30 s */
  maxDelayMs?: number
  /** the most a reply's body may hold, in bytes, and the setting that says so: a longer one fails the request, never retried */
  maxBodyBytes?: { bytes: number; setting: string }
  /**
   * A refusal the same request would only get again (4xx but 408 and 429)
   * comes back as a response for the caller to read, instead of an HttpError
   * (promptfoo's http provider hands every status to its transformResponse).
   */
  returnRefusals?: boolean
  /** values to blank out of error messages, besides the credential-looking headers */
  secrets?: Iterable<string>
  fetchImpl?: typeof fetch
  sleep?: Sleep
  random?: () => number
  now?: () => number
}

export interface HttpResponse {
  status: number
  headers: Headers
  text: string
  /** the body parsed as JSON; undefined when it is not JSON */
  data: unknown
}

/** How much of a response body an error message quotes. */
const EXCERPT_CHARS = 300
/** How much of an error body is kept for callers that parse it (`{error: {message}}`). */
const ERROR_BODY_CHARS = 4096

/** A body sent as the text it is (a form, a template's text), with the content type the caller's headers give; any other body is sent as JSON. */
export class TextBody {
  constructor(readonly text: string) {}
}

/** A non-2xx reply (after retries, when retryable). */
export class HttpError extends Error {
  override name = 'HttpError'
  constructor(
    message: string,
    readonly status: number,
    /** the start of the body, redacted */
    readonly body: string,
    readonly attempts: number
  ) {
    super(message)
  }
}

/** No reply: connection failure or attempt timeout (after retries, when retryable). */
export class NetworkError extends Error {
  override name = 'NetworkError'
  constructor(
    message: string,
    readonly code: string,
    readonly attempts: number
  ) {
    super(message)
  }
}

/** Error codes of failures that a later attempt may not meet (undici and libuv names). */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'TIMEOUT'
])

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500
}

export function postJson(url: string, body: unknown, options: HttpOptions = {}): Promise<HttpResponse> {
  return requestJson('POST', url, body, options)
}

/**
 * One logical request, retried as described above. Resolves with the 2xx reply,
 * rejects with HttpError, NetworkError, or the caller's abort reason.
 */
export async function requestJson(method: HttpMethod, url: string, body: unknown, options: HttpOptions = {}): Promise<HttpResponse> {
  const now = options.now ?? Date.now
  const deadline = now() + (options.maxTotalMs ?? 300_000)
  const maxAttempts = 1 + Math.max(0, options.retries ?? 2)
  const secrets = [...(options.secrets ?? []), ...credentialValues(options.headers ?? {})]
  // a `${VAR}` may sit in the path too (webhook-style URLs)
  const where = redact(describeUrl(url), secrets)
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(method, url, body, options)
    if (isResponse(outcome) && (outcome.status < 300 || (options.returnRefusals === true && !isRetryableStatus(outcome.status)))) return outcome
    // the same request would only get the same body again
    if (!isResponse(outcome) && outcome.code === TOO_LARGE) throw new NetworkError(redact(`${where}: ${outcome.message}`, secrets), TOO_LARGE, attempt)
    const failure = isResponse(outcome) ? statusError(outcome, where, attempt, secrets) : connectionError(outcome, where, attempt, secrets)
    const retryable = isResponse(outcome) ? isRetryableStatus(outcome.status) : TRANSIENT_CODES.has(outcome.code)
    if (!retryable || attempt >= maxAttempts) throw failure
    const wait = waitBefore(attempt, isResponse(outcome) ? outcome.headers : undefined, options, now)
    // a wait that ends past the budget would only delay the same failure
    if (now() + wait > deadline) throw failure
    await (options.sleep ?? abortableDelay)(wait, options.signal)
    throwIfAborted(options.signal)
  }
}

/** An attempt that got no reply. */
export interface ConnectionFailure {
  code: string
  message: string
}

function isResponse(outcome: HttpResponse | ConnectionFailure): outcome is HttpResponse {
  return 'status' in outcome
}

/** One fetch with its own timeout; network failures come back as values so the loop can decide. */
async function attemptOnce(method: HttpMethod, url: string, body: unknown, options: HttpOptions): Promise<HttpResponse | ConnectionFailure> {
  throwIfAborted(options.signal)
  const timeoutMs = options.timeoutMs ?? 60_000
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(), timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal
  try {
    const res = await (options.fetchImpl ?? fetch)(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined || body instanceof TextBody ? {} : { 'content-type': 'application/json' }),
        ...options.headers
      },
      body: body === undefined ? undefined : body instanceof TextBody ? body.text : JSON.stringify(body),
      signal
    })
    // the timer still runs: a body that trickles in slower than the timeout is a timeout too
    const text = options.maxBodyBytes ? await boundedText(res, options.maxBodyBytes) : await res.text()
    if (typeof text !== 'string') return text
    return { status: res.status, headers: res.headers, text, data: tryParseJson(text) }
  } catch (err) {
    throwIfAborted(options.signal)
    if (timeout.signal.aborted) return { code: 'TIMEOUT', message: `no reply within ${timeoutMs} ms` }
    return describeNetworkError(err)
  } finally {
    clearTimeout(timer)
  }
}

const TOO_LARGE = 'TOO_LARGE'

/**
 * The body as text (UTF-8, as `Response.text` reads it), or the failure as soon
 * as it is known to hold more than the limit: by its Content-Length, else while
 * it arrives (decompressed), so that a reply without end is not held whole.
 */
async function boundedText(res: Response, limit: { bytes: number; setting: string }): Promise<string | ConnectionFailure> {
  const tooLarge = { code: TOO_LARGE, message: `the reply exceeded ${limit.bytes} bytes (${limit.setting})` }
  if (!res.body) return ''
  // a compressed body's length is not its text's: that one is counted as it arrives
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity'
  if (!encoded && Number(res.headers.get('content-length')) > limit.bytes) {
    await res.body.cancel()
    return tooLarge
  }
  const chunks: Uint8Array[] = []
  let bytes = 0
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > limit.bytes) {
      await reader.cancel()
      return tooLarge
    }
    chunks.push(value)
  }
  return new TextDecoder().decode(Buffer.concat(chunks, bytes))
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return
  const reason: unknown = signal.reason
  throw reason instanceof Error ? reason : new Error(reason === undefined ? 'aborted' : String(reason))
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  // the loop rethrows the caller's own abort reason right after
  return delay(ms, undefined, { signal }).catch(() => undefined)
}

/** fetch wraps the real failure (`ECONNRESET`, undici's `SocketError`) in a TypeError's `cause`. */
export function describeNetworkError(err: unknown): ConnectionFailure {
  const cause = (err as { cause?: unknown })?.cause ?? err
  const code = String((cause as { code?: unknown })?.code ?? (err as { code?: unknown })?.code ?? 'UNKNOWN')
  const message = cause instanceof Error ? cause.message : String(cause)
  return { code, message: `request failed: ${message}${code !== 'UNKNOWN' && !message.includes(code) ? ` (${code})` : ''}` }
}

function connectionError(failure: ConnectionFailure, where: string, attempts: number, secrets: string[]): NetworkError {
  const tries = `after ${attempts} attempt${attempts > 1 ? 's' : ''}`
  return new NetworkError(redact(`${where}: ${failure.message} (${tries})`, secrets), failure.code, attempts)
}

function statusError(response: HttpResponse, where: string, attempts: number, secrets: string[]): HttpError {
  const body = redact(response.text.slice(0, ERROR_BODY_CHARS), secrets)
  const excerpt = body.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS)
  const tries = attempts > 1 ? ` after ${attempts} attempts` : ''
  return new HttpError(`HTTP ${response.status} from ${where}${tries}${excerpt ? `: ${excerpt}` : ''}`, response.status, body, attempts)
}

/** Backoff with full jitter (AWS architecture blog), unless the server said how long to wait. */
function waitBefore(attempt: number, headers: Headers | undefined, options: HttpOptions, now: () => number): number {
  const cap = options.maxDelayMs ?? 30_000
  const told = headers ? retryAfterMs(headers, now()) : undefined
  if (told !== undefined) return Math.min(told, cap)
  const ceiling = Math.min(cap, (options.baseDelayMs ?? 500) * 2 ** (attempt - 1))
  return Math.round((options.random ?? Math.random)() * ceiling)
}

/** `retry-after-ms` (OpenAI, Azure) or `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = headers.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}

/** Scheme, host and path: a query string may hold a key (`?api-key=`), so it is never shown. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return 'an invalid URL'
  }
}

/** Header values that look like credentials, and the token inside `Bearer …`, for redaction. */
function credentialValues(headers: Record<string, string>): string[] {
  const values: string[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (!/auth|key|token|secret|cookie|password/i.test(name) || value.length < 4) continue
    values.push(value)
    const token = /^\S+\s+(\S{4,})$/.exec(value)?.[1]
    if (token) values.push(token)
  }
  return values
}
