/**
 * The GitLab REST API (v4), as `evalgate gitlab` uses it: one small client
 * over fetch — the token in `PRIVATE-TOKEN` (a personal, project or group
 * access token) or `JOB-TOKEN` (the job's own CI_JOB_TOKEN), pagination by
 * `X-Next-Page` (else the `Link` header's rel="next"), a deadline on every
 * request, a retry of 5xx and dropped connections, and redirects (artifacts
 * live in object storage) followed by hand so the token is never sent on.
 * Every failure is a GitLabError with the status (0: no answer).
 */
import { describeNetworkError } from '../llm/http.js'

export interface GitLabToken {
  /** PRIVATE-TOKEN: EVALGATE_GITLAB_TOKEN or GITLAB_TOKEN; JOB-TOKEN: CI_JOB_TOKEN (reads artifacts only) */
  header: 'PRIVATE-TOKEN' | 'JOB-TOKEN'
  value: string
  /** the variable it was read from, for messages */
  from: string
}

export class GitLabError extends Error {
  constructor(
    message: string,
    /** the HTTP status; 0 when the server did not answer (unreachable, timed out) */
    readonly status: number,
    readonly path: string
  ) {
    super(message)
    this.name = 'GitLabError'
  }
}

export interface GitLabClientOptions {
  /** CI_API_V4_URL, e.g. https://gitlab.example.com/api/v4 */
  apiUrl: string
  token: GitLabToken | null
  fetch?: typeof fetch
  /** per request, redirects included; default 60 s */
  timeoutMs?: number
  /** retries of a 5xx or a dropped connection; default 2 */
  retries?: number
  /** the wait before retry n (1-based); default 1 s, 2 s */
  backoffMs?: (attempt: number) => number
}

/** Redirects followed before giving up (object storage redirects once). */
const MAX_REDIRECTS = 5

function describe(status: number, body: string): string {
  let message = body.trim().slice(0, 300)
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown }
    const m = parsed.message ?? parsed.error
    if (m !== undefined) message = typeof m === 'string' ? m : JSON.stringify(m)
  } catch {
    // not JSON: the text itself
  }
  return `HTTP ${status}${message ? `: ${message}` : ''}`
}

export class GitLabClient {
  readonly apiUrl: string
  readonly token: GitLabToken | null
  private readonly fetchImpl: typeof fetch
  private readonly timeoutMs: number
  private readonly retries: number
  private readonly backoffMs: (attempt: number) => number

  constructor(options: GitLabClientOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, '')
    this.token = options.token
    this.fetchImpl = options.fetch ?? fetch
    this.timeoutMs = options.timeoutMs ?? 60_000
    this.retries = options.retries ?? 2
    this.backoffMs = options.backoffMs ?? ((n) => 1000 * n)
  }

  /** Whether the token can do what only a personal, project or group token can (post notes, list jobs, read files). */
  get canWrite(): boolean {
    return this.token?.header === 'PRIVATE-TOKEN'
  }

  private url(path: string): string {
    return `${this.apiUrl}${path}`
  }

  /**
   * One request, redirects followed without the token, 5xx and dropped
   * connections retried; the final response, whatever its status.
   */
  async send(method: string, path: string, body?: unknown): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let response: Response
      try {
        response = await this.once(method, path, body)
      } catch (err) {
        if (err instanceof GitLabError || attempt >= this.retries) {
          // fetch says only 'fetch failed': the refused connection, the unknown host is in its cause
          const why = err instanceof GitLabError ? err.message : describeNetworkError(err).message
          throw new GitLabError(`${method} ${path}: ${why}`, 0, path)
        }
        await sleep(this.backoffMs(attempt + 1))
        continue
      }
      if (response.status >= 500 && attempt < this.retries) {
        await response.body?.cancel()
        await sleep(this.backoffMs(attempt + 1))
        continue
      }
      return response
    }
  }

  private async once(method: string, path: string, body: unknown): Promise<Response> {
    const signal = AbortSignal.timeout(this.timeoutMs)
    const headers: Record<string, string> = { accept: 'application/json' }
    if (this.token) headers[this.token.header] = this.token.value
    if (body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await this.fetchImpl(this.url(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal
      })
    } catch (err) {
      if (signal.aborted) throw new GitLabError(`no answer within ${Math.round(this.timeoutMs / 1000)} s`, 0, path)
      throw err
    }
    // object storage: followed without the token (a signed URL carries its own authority)
    let location = this.url(path)
    for (let hops = 0; response.status >= 300 && response.status < 400 && response.headers.get('location'); hops++) {
      if (hops >= MAX_REDIRECTS) throw new GitLabError(`more than ${MAX_REDIRECTS} redirects`, response.status, path)
      location = new URL(response.headers.get('location')!, location).href
      await response.body?.cancel()
      try {
        response = await this.fetchImpl(location, { method: 'GET', redirect: 'manual', signal })
      } catch (err) {
        if (signal.aborted)
          throw new GitLabError(`no answer within ${Math.round(this.timeoutMs / 1000)} s (from the redirect to ${new URL(location).host})`, 0, path)
        throw err
      }
    }
    return response
  }

  /** The body as text of a 2xx answer; anything else throws with the status and GitLab's message. */
  async text(path: string): Promise<string> {
    const response = await this.send('GET', path)
    const text = await response.text()
    if (!response.ok) throw new GitLabError(`GET ${path}: ${describe(response.status, text)}`, response.status, path)
    return text
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.send(method, path, body)
    const text = await response.text()
    if (!response.ok) throw new GitLabError(`${method} ${path}: ${describe(response.status, text)}`, response.status, path)
    try {
      return JSON.parse(text) as T
    } catch {
      throw new GitLabError(`${method} ${path}: the answer is not JSON`, response.status, path)
    }
  }

  /**
   * Every page of a list, in order: `per_page=100`, the next page from
   * `X-Next-Page` (GitLab's offset pagination) or the `Link` header's next
   * (keyset pagination, and what proxies keep), at most `maxPages`.
   */
  async *pages<T>(path: string, maxPages = 100): AsyncGenerator<T[]> {
    let next: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=100`
    for (let page = 0; next && page < maxPages; page++) {
      const current: string = next
      const response = await this.send('GET', current)
      const text = await response.text()
      if (!response.ok) throw new GitLabError(`GET ${current}: ${describe(response.status, text)}`, response.status, current)
      let items: T[]
      try {
        items = JSON.parse(text) as T[]
      } catch {
        throw new GitLabError(`GET ${current}: the answer is not JSON`, response.status, current)
      }
      if (!Array.isArray(items)) throw new GitLabError(`GET ${current}: expected a list`, response.status, current)
      yield items
      next = nextPage(current, response.headers, this.apiUrl)
    }
  }
}

/** The path of the next page, or null on the last one. */
export function nextPage(current: string, headers: Headers, apiUrl: string): string | null {
  const xNext = headers.get('x-next-page')
  if (xNext !== null) {
    if (!/^\d+$/.test(xNext.trim())) return null
    const url = new URL(current, 'http://x')
    url.searchParams.set('page', xNext.trim())
    return `${url.pathname}${url.search}`
  }
  const link = headers.get('link')
  const next = link
    ?.split(',')
    .map((part) => /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim()))
    .find((m) => m)?.[1]
  if (!next) return null
  // a path relative to the API root, whatever host the Link names (the token is never sent elsewhere)
  const url = new URL(next, apiUrl)
  const base = new URL(apiUrl)
  const path = url.pathname.startsWith(base.pathname) ? url.pathname.slice(base.pathname.replace(/\/+$/, '').length) : url.pathname
  return `${path}${url.search}`
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve()
}

/** A project id (numeric, or a path) as a URL segment. */
export function projectSegment(id: string): string {
  return encodeURIComponent(id)
}
