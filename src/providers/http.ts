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
import { TextBody, type HttpResponse } from '../llm/http.js'
import { checks, DEFAULT_CHECK_TIMEOUT_MS, type SandboxItem } from '../sandbox/index.js'
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import { apiMessage, hostOf, ProviderError, send, text, usageOf, type Config } from './wire.js'

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
  const validateStatus = config.validateStatus
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
      // as promptfoo's: a refusal (a 404, a 400 naming a bad input) is the reply its transform reads; 408, 429 and 5xx are retried, then fail
      const response = await send(id, method as 'GET', target, body, { ...headers, ...call.headers }, { ...http, returnRefusals: true })
      if (validateStatus !== undefined ? !(await statusValid(validateStatus, response.status, ctx)) : false)
        throw new ProviderError(`${id}: HTTP ${response.status} did not pass validateStatus: ${excerpt(response.text)}`, response.status)
      const json = response.data === undefined ? null : response.data
      let shown: unknown
      try {
        shown = transform === undefined ? (json ?? response.text) : await transformed(transform, json, response, ctx, call)
      } catch (err) {
        if (response.status < 300) throw err
        throw refusal(id, response)
      }
      // a refusal the transform finds nothing in is named as every provider names one
      if (response.status >= 300 && (shown === undefined || shown === null || shown === '')) throw refusal(id, response)
      return resultOf(id, shown)
    },
    async close() {}
  }
}

/** Keys of promptfoo's http provider that change what is sent or read, and that evalgate does not honour. */
const UNSUPPORTED_KEYS = ['transformRequest', 'sessionParser', 'session', 'auth', 'signatureAuth', 'tls', 'multipart', 'useHttps']

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
async function transformed(transform: unknown, json: unknown, response: HttpResponse, ctx: ProviderContext, call: ProviderCall): Promise<unknown> {
  if (typeof transform !== 'string') throw new ProviderError('transformResponse must be an expression or file://path.js')
  const context = { vars: call.vars ?? {}, response: { data: response.text, status: response.status, headers: Object.fromEntries(response.headers) } }
  return runConfigCode('transformResponse', transform, 'const json = output, text = input;', 'json, text, context', ctx, {
    output: json,
    input: response.text,
    context
  })
}

/** promptfoo's `validateStatus`: an expression of `status` (or a function of it, or file://module.js[:name]) that says whether a status is a reply. */
async function statusValid(validate: unknown, status: number, ctx: ProviderContext): Promise<boolean> {
  if (typeof validate !== 'string') throw new ProviderError('validateStatus must be an expression of status, a function, or file://path.js')
  return Boolean(await runConfigCode('validateStatus', validate, 'const status = output;', 'status', ctx, { output: status, input: null, context: {} }))
}

/**
 * The config's code (a transform, a status check) in the checks' sandbox
 * under checkTimeoutMs: `file://path.js[:name]` calls that function with
 * (output, text, context), an arrow or function expression is called with
 * `args`, any other text is an expression of them.
 */
async function runConfigCode(
  setting: string,
  source: string,
  prelude: string,
  args: string,
  ctx: ProviderContext,
  values: { output: unknown; input: unknown; context: unknown }
): Promise<unknown> {
  let item: SandboxItem
  if (source.startsWith('file://')) {
    const ref = source.slice('file://'.length)
    const at = ref.lastIndexOf(':')
    const [file, name] = at > 1 ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, undefined]
    const text = typeof values.input === 'string' ? values.input : ''
    item = { kind: 'transform', file: path.resolve(ctx.baseDir, file), output: values.output, text, context: values.context, ...(name ? { name } : {}) }
  } else {
    const expression = source.trim()
    const fn = /^(async\s+)?(\(.*?\)\s*=>|function\s*\(.*?\)|[A-Za-z_$][\w$]*\s*=>)/.test(expression)
    const body = `${prelude}\nreturn ${fn ? `(${expression})(${args})` : `(${expression}\n)`}`
    item = { kind: 'transform', body, ...values }
  }
  const outcome = await checks().run(item, ctx.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)
  if (!outcome.ok) throw new ProviderError(`${setting} failed: ${outcome.error}`)
  return outcome.value
}

function refusal(id: string, response: HttpResponse): ProviderError {
  return new ProviderError(`${id}: HTTP ${response.status}: ${apiMessage(response.text) ?? excerpt(response.text)}`, response.status)
}

function excerpt(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
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
