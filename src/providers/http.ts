/**
 * promptfoo's `http` provider (`id: http`, `https`, or the URL itself, with
 * `config: {url, method, headers, body, queryParams, transformResponse}`):
 * the URL, headers, query and body are Nunjucks templates over the test's
 * vars and `prompt`; a JSON body (an object, or `content-type:
 * application/json`) is rendered value by value, any other body as text. The
 * reply's parsed JSON (else its text) is the output unless
 * `transformResponse` — an expression of `json`, `text` and `context`, an
 * arrow function, or `file://transform.js[:name]` — says otherwise. That
 * transform is the config's code: it runs in the checks' sandbox under
 * `checkTimeoutMs`, like a promptfoo `transform`.
 */
import path from 'node:path'
import { TextBody } from '../llm/http.js'
import { checks, DEFAULT_CHECK_TIMEOUT_MS, type SandboxItem } from '../sandbox/index.js'
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import { hostOf, ProviderError, send, text, usageOf, type Config } from './wire.js'

type Templates = import('../llm/nunjucks.js').Templates

/** The template engine, loaded on first use: runs without an http provider never load it. */
let engine: Promise<Templates> | undefined
function templates(): Promise<Templates> {
  engine ??= import('../llm/nunjucks.js').then((m) => new m.Templates())
  return engine
}

/** The URL an `http` provider calls: config `url`, else its id when the id is the URL. */
export function httpUrl(id: string, config: Config): string | undefined {
  return text(config.url) ?? (/^https?:\/\//.test(id) ? id : undefined)
}

export function httpProvider(id: string, config: Config, ctx: ProviderContext): Provider {
  const url = httpUrl(id, config)
  const method = (text(config.method) ?? 'GET').toUpperCase()
  const unusable = !url
    ? `${ctx.where}: ${id}: the http provider needs config.url`
    : config.request !== undefined
      ? `${ctx.where}: ${id}: a raw \`request\` is not supported by evalgate; give url, method, headers and body`
      : method !== 'GET' && config.body === undefined
        ? `${ctx.where}: ${id}: an http provider sending ${method} needs config.body (a template over {{prompt}} and the vars)`
        : unsupportedKey(config)
  const transform = config.transformResponse ?? config.responseParser
  return {
    id,
    model: id,
    unusable: unusable && (unusable.startsWith(ctx.where) ? unusable : `${ctx.where}: ${id}: ${unusable}`),
    async call(call, http) {
      if (unusable) throw new Error(unusable)
      const t = await templates()
      const vars = { ...call.vars, prompt: promptText(call.prompt) }
      const render = (s: string) => t.render(s, vars)
      const headers = renderHeaders(config, render)
      const target = withQuery(render(url!), config.queryParams, render)
      const body = method === 'GET' || config.body === undefined ? undefined : requestBody(config.body, isJson(headers), vars, t)
      const response = await send(id, method as 'GET', target, body, { ...headers, ...call.headers }, http)
      const json = response.data === undefined ? null : response.data
      const shown = transform === undefined ? (json ?? response.text) : await transformed(transform, json, response.text, ctx, call)
      return resultOf(id, shown)
    },
    async close() {}
  }
}

/** Keys of promptfoo's http provider that change what is sent or read, and that evalgate does not honour. */
const UNSUPPORTED_KEYS = ['transformRequest', 'sessionParser', 'session', 'auth', 'signatureAuth', 'tls', 'multipart', 'validateStatus', 'useHttps']

function unsupportedKey(config: Config): string | undefined {
  const key = UNSUPPORTED_KEYS.find((k) => config[k] !== undefined)
  return key && `config.${key} is not supported by evalgate's http provider; put what it computes into headers and body templates`
}

function promptText(prompt: ProviderCall['prompt']): string {
  return typeof prompt === 'string' ? prompt : JSON.stringify(prompt)
}

/** promptfoo's headers: names lower-cased, a JSON content type for an object body and a form one for a text body, values rendered. */
function renderHeaders(config: Config, render: (s: string) => string): Record<string, string> {
  const headers: Record<string, string> = {}
  const method = (text(config.method) ?? 'GET').toUpperCase()
  if (method !== 'GET') {
    if (config.body !== null && typeof config.body === 'object') headers['content-type'] = 'application/json'
    else if (typeof config.body === 'string') headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const own = config.headers && typeof config.headers === 'object' ? (config.headers as Record<string, unknown>) : {}
  for (const [name, value] of Object.entries(own)) headers[name.toLowerCase()] = String(value)
  for (const name of Object.keys(headers)) headers[name] = render(headers[name]!)
  return headers
}

function isJson(headers: Record<string, string>): boolean {
  return /json/i.test(headers['content-type'] ?? '')
}

function withQuery(url: string, query: unknown, render: (s: string) => string): string {
  if (!query || typeof query !== 'object') return url
  const u = new URL(url)
  for (const [k, v] of Object.entries(query)) u.searchParams.append(k, render(String(v)))
  return u.toString()
}

/** The body as promptfoo makes it: a JSON body rendered value by value (strings that render to JSON become that JSON), else rendered text. */
function requestBody(body: unknown, json: boolean, vars: Record<string, unknown>, t: Templates): unknown {
  if (!json) return new TextBody(typeof body === 'string' ? t.render(body, vars).trim() : String(body))
  let template = body
  if (typeof body === 'string') {
    try {
      template = JSON.parse(body) as unknown
    } catch {
      const rendered = t.render(body, vars)
      try {
        return JSON.parse(rendered) as unknown
      } catch {
        return new TextBody(rendered)
      }
    }
  }
  return renderDeep(template, vars, t)
}

function renderDeep(value: unknown, vars: Record<string, unknown>, t: Templates): unknown {
  if (typeof value === 'string') {
    const rendered = t.render(value, vars)
    const trimmed = rendered.trim()
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        const parsed = JSON.parse(rendered) as unknown
        if (typeof parsed === 'object' && parsed !== null) return parsed
      } catch {
        // text that only looks like JSON stays text
      }
    }
    return rendered
  }
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars, t))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, vars, t)]))
  return value
}

/** `transformResponse` in the checks' sandbox: (json, text, context) → the output, or a provider response `{output, tokenUsage, cost, error}`. */
async function transformed(transform: unknown, json: unknown, raw: string, ctx: ProviderContext, call: ProviderCall): Promise<unknown> {
  if (typeof transform !== 'string') throw new ProviderError('transformResponse must be an expression or file://path.js')
  const context = { vars: call.vars ?? {}, response: { data: raw } }
  let item: SandboxItem
  if (transform.startsWith('file://')) {
    const ref = transform.slice('file://'.length)
    const at = ref.lastIndexOf(':')
    const [file, name] = at > 1 ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, undefined]
    item = { kind: 'transform', file: path.resolve(ctx.baseDir, file), output: json, text: raw, context, ...(name ? { name } : {}) }
  } else {
    const expression = transform.trim()
    const fn = /^(async\s+)?(\(.*?\)\s*=>|function\s*\(.*?\)|[A-Za-z_$][\w$]*\s*=>)/.test(expression)
    const body = `const json = output, text = input;\nreturn ${fn ? `(${expression})(json, text, context)` : `(${expression}\n)`}`
    item = { kind: 'transform', body, output: json, input: raw, context }
  }
  const outcome = await checks().run(item, ctx.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)
  if (!outcome.ok) throw new ProviderError(`transformResponse failed: ${outcome.error}`)
  return outcome.value
}

/** What the transform (or the reply) gave, as a result: a provider response's fields, else the value as the output. */
function resultOf(id: string, shown: unknown): ProviderResult {
  if (shown && typeof shown === 'object' && !Array.isArray(shown) && ('output' in shown || 'error' in shown)) {
    const response = shown as { output?: unknown; error?: unknown; tokenUsage?: Record<string, unknown>; cost?: unknown }
    if (response.error !== undefined && response.error !== null && response.error !== '') throw new ProviderError(`${id}: ${String(response.error)}`)
    const result: ProviderResult = { output: asText(response.output), model: id }
    const usage = usageOf(response.tokenUsage?.prompt, response.tokenUsage?.completion, response.tokenUsage?.total)
    if (usage) result.usage = typeof response.cost === 'number' ? { ...usage, costUsd: response.cost } : usage
    return result
  }
  return { output: asText(shown), model: id }
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value
  return value === undefined || value === null ? '' : JSON.stringify(value)
}

/** An http provider sends what its headers hold; the config names no variable of its own. */
export function httpCredentials(id: string, config: Config): CredentialFlow[] {
  const url = httpUrl(id, config)
  const headers = config.headers && typeof config.headers === 'object' ? Object.keys(config.headers) : []
  return url && headers.length ? [{ configKey: 'headers', host: hostOf(url), provider: id }] : []
}
