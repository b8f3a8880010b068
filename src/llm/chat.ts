/**
 * A minimal OpenAI chat-completions client: what the judge and the `openai`
 * target need from any compatible server (OpenAI, Azure, vLLM, Ollama, LiteLLM).
 */
import { HttpError, postJson, type HttpOptions } from './http.js'
import { tryParseJson } from '../util/json-in-text.js'

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface ChatRequest {
  baseUrl: string
  /** omitted for servers that need none (Ollama, a local vLLM) */
  apiKey?: string
  model: string
  messages: ChatMessage[]
  temperature?: number
  responseFormat?: { type: 'json_object' | 'text' }
  maxTokens?: number
  /** the OpenAI tools array, sent as it is (the openai target's `target.tools`) */
  tools?: unknown[]
}

export interface ChatUsage {
  promptTokens: number
  completionTokens: number
  totalTokens: number
}

export interface ChatResult {
  content: string
  usage: ChatUsage
  /** the message's `tool_calls` as the server sent them */
  toolCalls?: unknown[]
  finishReason?: string
}

/** The server answered, but not with a usable completion, or with an error it explained. */
export class ChatError extends Error {
  override name = 'ChatError'
  constructor(
    message: string,
    /** HTTP status when the server refused the request */
    readonly status?: number
  ) {
    super(message)
  }
}

/** `${baseUrl}/chat/completions`, whether or not baseUrl ends with a slash. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`
}

/** Local servers (Ollama, vLLM, LiteLLM on the runner) usually need no key. */
export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host)
  } catch {
    return false
  }
}

export async function chatComplete(request: ChatRequest, http: HttpOptions = {}): Promise<ChatResult> {
  const headers: Record<string, string> = { ...http.headers }
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`
  const secrets = request.apiKey ? [request.apiKey, ...(http.secrets ?? [])] : http.secrets
  try {
    const response = await postJson(chatCompletionsUrl(request.baseUrl), requestBody(request), { ...http, headers, secrets })
    return readCompletion(response.data, response.text)
  } catch (err) {
    throw err instanceof HttpError ? explainHttpError(err) : err
  }
}

function requestBody(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages }
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.responseFormat) body.response_format = request.responseFormat
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
  if (request.tools?.length) body.tools = request.tools
  return body
}

/** Servers say why in `{error: {message}}` (OpenAI) or `{error: "…"}` (some proxies); that beats a raw excerpt. */
export function explainHttpError(err: HttpError, endpoint = 'chat completions'): Error {
  const error = (tryParseJson(err.body) as { error?: unknown } | undefined)?.error
  const message = typeof error === 'string' ? error : (error as { message?: unknown } | undefined)?.message
  if (typeof message !== 'string' || !message) return err
  return new ChatError(`${endpoint}: HTTP ${err.status}: ${message}`, err.status)
}

function readCompletion(data: unknown, text: string): ChatResult {
  type Choice = { message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown }; finish_reason?: unknown }
  const body = data as { choices?: Choice[]; usage?: Record<string, unknown> } | undefined
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined
  const message = choice?.message
  if (!message) throw new ChatError(`chat completions: reply has no choices[0].message: ${text.replace(/\s+/g, ' ').slice(0, 200)}`)
  const result: ChatResult = { content: contentText(message.content ?? message.refusal), usage: readUsage(body?.usage) }
  if (Array.isArray(message.tool_calls)) result.toolCalls = message.tool_calls
  if (typeof choice.finish_reason === 'string') result.finishReason = choice.finish_reason
  return result
}

/** Content is a string, or (some servers) a list of text parts; a refusal comes in its own field. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('')
  return ''
}

function readUsage(usage: Record<string, unknown> | undefined): ChatUsage {
  const count = (key: string) => (typeof usage?.[key] === 'number' ? (usage[key] as number) : 0)
  const promptTokens = count('prompt_tokens')
  const completionTokens = count('completion_tokens')
  return { promptTokens, completionTokens, totalTokens: count('total_tokens') || promptTokens + completionTokens }
}
