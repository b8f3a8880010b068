/**
 * The `http` target: one JSON request per trial to the agent's own endpoint.
 * `${VAR}` in url, headers and body is expanded once, at creation (a missing
 * variable is a config error before any trial runs); `{{input}}` per trial.
 * `output`, `toolCalls` and `usage` are dot paths into the JSON reply.
 */
import type { TargetConfig } from '../config/schema.js'
import { ConfigError, TargetError } from '../errors.js'
import { HttpError, NetworkError, requestJson, type HttpOptions, type HttpResponse, type HttpSeams } from '../llm/http.js'
import { renderBody, renderText, type TemplateValues } from '../llm/template.js'
import { ProviderError } from '../providers/wire.js'
import { expandDeep } from '../util/env.js'
import { normalizeToolCalls, normalizeUsage } from './result.js'
import { turnFields, type Target, type TargetContext, type TargetReply, type TrialRequest } from './types.js'

export type HttpTargetConfig = NonNullable<TargetConfig['http']>

export type HttpTargetDeps = HttpSeams

export function createHttpTarget(
  http: HttpTargetConfig,
  ctx: TargetContext,
  target: Pick<TargetConfig, 'timeoutMs' | 'retries' | 'maxOutputBytes'>,
  deps: HttpTargetDeps = {}
): Target {
  const spec = expandDeep({ url: http.url, headers: http.headers ?? {}, body: http.body }, ctx.env, ctx.secrets, 'target.http')
  if (!URL.canParse(spec.url.replace(/\{\{[^}]*\}\}/g, 'x'))) {
    // the URL itself is not quoted: it may hold an expanded secret
    throw new ConfigError('target.http.url is not an absolute URL (http://host/path or https://host/path)', undefined, 'target.http.url')
  }
  // without a body template, the input itself is the JSON body
  const bodyTemplate = http.method === 'GET' ? undefined : (spec.body ?? '{{input}}')
  return {
    async call(request: TrialRequest): Promise<TargetReply> {
      const values: TemplateValues = { input: request.input, case: request.case, ...turnFields(request) }
      const url = renderText(spec.url, values, encodeURIComponent)
      const body = bodyTemplate === undefined ? undefined : renderBody(bodyTemplate, values)
      const options = trialHttpOptions(target, request, ctx, deps)
      const response = await send(http.method, url, body, { ...options, headers: { ...spec.headers, ...options.headers } })
      const reply: TargetReply = { output: http.output === undefined ? response.text : outputAt(response, http.output) }
      if (http.toolCalls !== undefined) {
        const calls = valueAt(response, http.toolCalls, 'toolCalls')
        // a reply without tool calls has made none: null and a missing field are both an empty list
        reply.toolCalls = calls === null ? [] : normalizeToolCalls(calls, `target.http.toolCalls ("${http.toolCalls}")`)
      }
      if (http.usage !== undefined) {
        const usage = normalizeUsage(valueAt(response, http.usage, 'usage'))
        if (usage) reply.usage = usage
      }
      return reply
    },
    async close() {}
  }
}

/** What the target's settings say of each request of a trial (`http` and `openai`): its time, its retries, its reply's size. */
export function trialHttpOptions(
  target: Pick<TargetConfig, 'timeoutMs' | 'retries' | 'maxOutputBytes'>,
  request: TrialRequest,
  ctx: TargetContext,
  deps: HttpSeams
): HttpOptions {
  return {
    timeoutMs: target.timeoutMs,
    retries: target.retries,
    maxBodyBytes: { bytes: target.maxOutputBytes, setting: 'target.maxOutputBytes' },
    signal: request.signal,
    secrets: ctx.secrets,
    // the trial's trace context: the agent's server continues it
    ...(request.traceparent === undefined ? {} : { headers: { traceparent: request.traceparent } }),
    ...deps
  }
}

/** A failure of the shared HTTP/chat client as the trial's error; anything else (a bug) as it is. */
export function asTargetFailure(err: unknown): unknown {
  return err instanceof HttpError || err instanceof NetworkError || err instanceof ProviderError ? new TargetError(err.message) : err
}

async function send(...args: Parameters<typeof requestJson>): Promise<HttpResponse> {
  try {
    return await requestJson(...args)
  } catch (err) {
    throw asTargetFailure(err)
  }
}

/** The value at `target.http.output` in the JSON reply, as text. */
function outputAt(response: HttpResponse, path: string): string {
  const value = valueAt(response, path, 'output', true)
  if (value === null) throw new TargetError(`target.http.output: "${path}" is null in the reply`)
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The value at a `target.http.<field>` path; a missing one is null unless `required`. */
function valueAt(response: HttpResponse, path: string, field: string, required = false): unknown {
  if (response.data === undefined) {
    throw new TargetError(`target.http.${field} is "${path}" but the reply is not JSON: ${response.text.replace(/\s+/g, ' ').slice(0, 200)}`)
  }
  const found = readPath(response.data, path)
  if (found.ok) return found.value
  if (!required) return null
  throw new TargetError(
    `target.http.${field}: the reply has no "${path}" (missing at "${found.missing}"); the reply's top-level keys: ${topLevelKeys(response.data)}`
  )
}

type PathResult = { ok: true; value: unknown } | { ok: false; missing: string }

/** Follows a dot path (`data.answer`, `choices.0.message.content`, `items[0].text`) into a JSON value. */
export function readPath(data: unknown, path: string): PathResult {
  const steps = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)
  let value = data
  for (const step of steps) {
    const holder = value as Record<string, unknown> | null
    if (holder === null || typeof holder !== 'object' || !Object.hasOwn(holder, step)) return { ok: false, missing: step }
    value = holder[step]
  }
  return { ok: true, value }
}

function topLevelKeys(data: unknown): string {
  if (Array.isArray(data)) return `none (an array of ${data.length})`
  if (data === null || typeof data !== 'object') return `none (a ${data === null ? 'null' : typeof data})`
  const keys = Object.keys(data)
  return keys.length ? keys.slice(0, 20).join(', ') : 'none (an empty object)'
}
