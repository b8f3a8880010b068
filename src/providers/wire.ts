/**
 * What the provider modules share: reading their config (promptfoo's keys),
 * posting through the one HTTP client with failures named after the
 * provider, and promptfoo's reading of a prompt as chat messages.
 */
import { parse as parseYaml } from 'yaml'
import { HttpError, NetworkError, requestJson, type HttpMethod, type HttpOptions, type HttpResponse } from '../llm/http.js'
import { tryParseJson } from '../util/json-in-text.js'
import type { ChatMessage, Provider, ProviderCall, ProviderResult } from './types.js'

/** A provider's failure: the API refused the request, or its reply was not usable. */
export class ProviderError extends Error {
  override name = 'ProviderError'
  constructor(
    message: string,
    /** HTTP status when the API refused the request */
    readonly status?: number,
    /** no reply at all: the API could not be reached (after retries) */
    readonly network = false
  ) {
    super(message)
  }
}

export type Config = Record<string, unknown>

/** A non-empty string setting, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** A finite number setting, else undefined. */
export function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** The first non-empty value among config keys and environment variables, in promptfoo's order. */
export function firstSet(...values: unknown[]): string | undefined {
  for (const v of values) {
    const t = text(v)
    if (t !== undefined) return t
  }
  return undefined
}

/** `host[:port]` of a URL, for credential flows and messages; the text itself when it is not a URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}

/**
 * What an API said was wrong, from the usual error bodies: `{error: {message}}`
 * (OpenAI, Azure, Anthropic, Gemini), `{error: "…"}` (Ollama, proxies),
 * `{message: "…"}` / `{Message: "…"}` (Bedrock).
 */
export function apiMessage(body: string): string | undefined {
  const data = tryParseJson(body) as Record<string, unknown> | undefined
  if (!data || typeof data !== 'object') return undefined
  const error = data.error
  if (typeof error === 'string' && error) return error
  const nested = (error as { message?: unknown } | undefined)?.message
  if (typeof nested === 'string' && nested) return nested
  for (const key of ['message', 'Message', 'detail']) if (typeof data[key] === 'string' && data[key]) return data[key] as string
  return undefined
}

/**
 * One request of a provider through the shared client (retries on 408, 429 and
 * 5xx honouring retry-after; bounded bodies). A refusal is a ProviderError
 * naming the provider, the status and the API's own message.
 */
export async function send(
  provider: string,
  method: HttpMethod,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  http: HttpOptions,
  secrets: string[] = []
): Promise<HttpResponse> {
  try {
    return await requestJson(method, url, body, { ...http, headers: { ...http.headers, ...headers }, secrets: [...secrets, ...(http.secrets ?? [])] })
  } catch (err) {
    if (err instanceof HttpError) {
      const said = apiMessage(err.body)
      throw new ProviderError(said ? `${provider}: HTTP ${err.status}: ${said}` : `${provider}: ${err.message}`, err.status)
    }
    if (err instanceof NetworkError) throw new ProviderError(`${provider}: ${err.message}`, undefined, true)
    throw err
  }
}

/** A reply that is not what the API promises: named with the start of what came. */
export function badReply(provider: string, what: string, text: string): ProviderError {
  return new ProviderError(`${provider}: ${what}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`)
}

/**
 * promptfoo's reading of a prompt for chat APIs: a YAML list starting
 * `- role:` or a JSON value is the messages as written; anything else is
 * one user message. Undefined when it is plain text.
 */
export function parsedChatPrompt(prompt: string): unknown {
  const trimmed = prompt.trim()
  if (trimmed.startsWith('- role:')) {
    try {
      return parseYaml(prompt) as unknown
    } catch (err) {
      throw new ProviderError(`the prompt is not valid YAML chat messages: ${(err as Error).message}`)
    }
  }
  if (!/^[[{]/.test(trimmed)) return undefined
  try {
    return JSON.parse(prompt) as unknown
  } catch (err) {
    throw new ProviderError(`the prompt looks like JSON chat messages but does not parse: ${(err as Error).message}`)
  }
}

/** The prompt's messages when they are given or written as a list (JSON or YAML), else undefined (role lines, plain text, broken JSON). */
export function listedMessages(prompt: string | { role: string; content: unknown }[]): unknown {
  if (Array.isArray(prompt)) return prompt
  try {
    return parsedChatPrompt(prompt)
  } catch {
    return undefined
  }
}

/** The prompt as chat messages `{role, content}` (OpenAI-shaped: content may be parts), or one user message. */
export function chatMessages(prompt: string | ChatMessage[]): { role: string; content: unknown }[] {
  if (Array.isArray(prompt)) return prompt
  const parsed = parsedChatPrompt(prompt)
  if (Array.isArray(parsed) && parsed.every((m) => m && typeof m === 'object' && typeof (m as { role?: unknown }).role === 'string'))
    return parsed as { role: string; content: unknown }[]
  return [{ role: 'user', content: prompt }]
}

/** Message content as text: strings as they are, parts' texts joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('')
  return content === undefined || content === null ? '' : JSON.stringify(content)
}

/** A count the API reported, when it is a number ≥ 0. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

/** Usage from input and output counts; undefined when the API reported neither. */
export function usageOf(input: unknown, output: unknown, total?: unknown): { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined {
  const i = count(input)
  const o = count(output)
  const t = count(total)
  if (i === undefined && o === undefined && t === undefined) return undefined
  const usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number } = {}
  if (i !== undefined) usage.inputTokens = i
  if (o !== undefined) usage.outputTokens = o
  usage.totalTokens = t ?? (i ?? 0) + (o ?? 0)
  return usage
}

/** Each API's words for why a reply ended, as promptfoo normalises them for `finish-reason`; others pass as they are. */
const FINISH_REASONS: Record<string, string> = {
  function_call: 'tool_calls',
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter'
}

export function finishReason(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined
  const key = raw.trim().toLowerCase()
  return Object.hasOwn(FINISH_REASONS, key) ? FINISH_REASONS[key] : key
}

/** A provider whose calls fail with `unusable` when it could not be set up (a missing key), and which keeps nothing running. */
export function modelProvider(
  id: string,
  model: string,
  unusable: string | undefined,
  call: (call: ProviderCall, http: HttpOptions) => Promise<ProviderResult>
): Provider {
  return {
    id,
    model,
    unusable,
    call: (request, http) => (unusable ? Promise.reject(new Error(unusable)) : call(request, http)),
    close: async () => {}
  }
}

/**
 * A prompt written as `system:`, `user:` and `assistant:` lines (promptfoo's
 * form for Anthropic and Bedrock): each role line starts a message, other
 * lines continue the current one (a user message before any role line).
 * Anthropic's reading trims lines, skips blank ones and matches the prefixes
 * as written; Bedrock's keeps lines as they are, matches any case, and a
 * `system:` line closes the message before it.
 */
export function roleLines(prompt: string, bedrock: boolean): { system?: string; messages: { role: string; text: string }[] } {
  let system: string | undefined
  const messages: { role: string; text: string }[] = []
  let role: string | undefined
  let lines: string[] = []
  const flush = () => {
    if (role && lines.length) messages.push({ role, text: lines.join('\n') })
    lines = []
  }
  for (const raw of prompt.split('\n')) {
    const line = raw.trim()
    if (!bedrock && !line) continue
    const head = bedrock ? line.toLowerCase() : line
    const prefix = ['system:', 'user:', 'assistant:'].find((p) => head.startsWith(p))
    if (prefix === 'system:') {
      if (bedrock) {
        flush()
        role = undefined
      }
      system = line.slice(prefix.length).trim()
    } else if (prefix) {
      flush()
      role = prefix.slice(0, -1)
      const rest = line.slice(prefix.length).trim()
      if (rest || !bedrock) lines.push(rest)
    } else {
      role ??= 'user'
      lines.push(bedrock ? raw : line)
    }
  }
  flush()
  return { ...(system !== undefined ? { system } : {}), messages }
}
