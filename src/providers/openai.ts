/**
 * OpenAI chat completions (`POST {base}/chat/completions`), as promptfoo's
 * `openai:chat:<model>` / `openai:<model>` configure it, and the wire format
 * Azure OpenAI shares (azure.ts). Also what evalgate's own `openai` target
 * and `judge.provider: openai` send: any OpenAI-compatible server (vLLM,
 * LiteLLM, Ollama's /v1).
 */
import type { HttpOptions } from '../llm/http.js'
import { normalizeToolCalls } from '../util/tool-calls.js'
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import {
  badReply,
  chatMessages,
  contentText,
  finishReason,
  firstSet,
  hostOf,
  number,
  send,
  text,
  trimSlash,
  usageOf,
  type Config,
  modelProvider
} from './wire.js'

export const OPENAI_BASE_URL = 'https://api.openai.com/v1'

/** `${baseUrl}/chat/completions`, whether or not baseUrl ends with a slash. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${trimSlash(baseUrl)}/chat/completions`
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

/** One chat-completions request as evalgate makes it. */
export interface ChatRequest {
  url: string
  /** the request headers that authenticate (`authorization`, Azure's `api-key`) */
  auth: Record<string, string>
  /** names the API in messages */
  provider: string
  body: Record<string, unknown>
  /** promptfoo's output when the model called tools without text: the calls' JSON (evalgate's own openai target keeps the text) */
  showCalls?: boolean
}

/**
 * Sends one chat-completions request; reads content, tool calls, usage and
 * finish reason.
 */
export async function chatComplete(request: ChatRequest, http: HttpOptions): Promise<ProviderResult> {
  const response = await send(request.provider, 'POST', request.url, request.body, request.auth, http, Object.values(request.auth))
  type Choice = { message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown; function_call?: unknown }; finish_reason?: unknown }
  const data = response.data as { choices?: Choice[]; usage?: Record<string, unknown>; model?: unknown } | undefined
  const choice = Array.isArray(data?.choices) ? data.choices[0] : undefined
  const message = choice?.message
  if (!message) throw badReply(request.provider, 'reply has no choices[0].message', response.text)
  const calls =
    Array.isArray(message.tool_calls) && message.tool_calls.length ? message.tool_calls : message.function_call ? [message.function_call] : undefined
  const content = contentText(message.content ?? message.refusal)
  const result: ProviderResult = {
    output: content === '' && calls && request.showCalls ? JSON.stringify(calls) : content,
    model: typeof data?.model === 'string' ? data.model : String(request.body.model ?? ''),
    usage: usageOf(data?.usage?.prompt_tokens, data?.usage?.completion_tokens, data?.usage?.total_tokens) ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  }
  if (calls) result.toolCalls = normalizeToolCalls(calls, `${request.provider}: the reply's tool_calls`)
  else if (Array.isArray(message.tool_calls)) result.toolCalls = []
  const finish = finishReason(choice.finish_reason)
  if (finish) result.finishReason = finish
  return result
}

/** The request body of promptfoo's chat providers: the messages and the config's sampling and tool settings. */
export function chatBody(model: string, call: ProviderCall, config: Config, messages: unknown[]): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages }
  const temperature = number(config.temperature) ?? call.temperature
  if (temperature !== undefined) body.temperature = temperature
  const maxTokens = number(config.max_tokens) ?? call.maxTokens
  if (maxTokens !== undefined) body.max_tokens = maxTokens
  if (number(config.max_completion_tokens) !== undefined) body.max_completion_tokens = config.max_completion_tokens
  for (const key of ['top_p', 'presence_penalty', 'frequency_penalty', 'seed', 'stop', 'reasoning_effort', 'tool_choice', 'parallel_tool_calls']) {
    if (config[key] !== undefined) body[key] = config[key]
  }
  const tools = Array.isArray(config.tools) ? config.tools : call.tools
  if (tools?.length) body.tools = tools
  if (config.response_format !== undefined) body.response_format = config.response_format
  else if (call.json) body.response_format = { type: 'json_object' }
  if (config.passthrough && typeof config.passthrough === 'object') Object.assign(body, config.passthrough)
  return body
}

/** `openai:chat:<model>` / `openai:<model>` with promptfoo's config keys and variables. */
export function openaiProvider(id: string, model: string, config: Config, ctx: ProviderContext): Provider {
  const baseUrl = openaiBaseUrl(config, ctx.env)
  const flow = openaiKey(config, ctx.env)
  const apiKey = flow.value
  if (apiKey) ctx.secrets.add(apiKey)
  const organization = firstSet(config.organization, ctx.env.OPENAI_ORGANIZATION)
  const headers = { ...stringHeaders(config.headers), ...(organization ? { 'OpenAI-Organization': organization } : {}) }
  const unusable =
    apiKey || isLocalUrl(baseUrl)
      ? undefined
      : `${ctx.where}: ${id}: environment variable ${flow.variable} is not set; set it, or add \`apiKey\` to the provider config`
  return modelProvider(id, model, unusable, async (call, http) => {
    const messages = chatMessages(call.prompt)
    return chatComplete(
      {
        provider: id,
        url: chatCompletionsUrl(baseUrl),
        auth: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
        body: chatBody(model, call, config, messages),
        showCalls: true
      },
      { ...http, headers: { ...headers, ...call.headers, ...http.headers } }
    )
  })
}

/** promptfoo's order: config `apiHost` (https), `apiBaseUrl`, `OPENAI_API_HOST`, `OPENAI_API_BASE_URL`, `OPENAI_BASE_URL`, OpenAI. */
export function openaiBaseUrl(config: Config, env: NodeJS.ProcessEnv): string {
  const host = text(config.apiHost)
  if (host) return `https://${host}/v1`
  if (text(config.apiBaseUrl)) return text(config.apiBaseUrl)!
  if (text(env.OPENAI_API_HOST)) return `https://${env.OPENAI_API_HOST}/v1`
  return firstSet(env.OPENAI_API_BASE_URL, env.OPENAI_BASE_URL) ?? OPENAI_BASE_URL
}

/** The key: config `apiKey`, else the variable `apiKeyEnvar` names, else `OPENAI_API_KEY`. */
function openaiKey(config: Config, env: NodeJS.ProcessEnv): { value?: string; variable: string } {
  if (text(config.apiKey)) return { value: text(config.apiKey), variable: 'apiKey' }
  const named = text(config.apiKeyEnvar)
  if (named && text(env[named])) return { value: env[named], variable: named }
  return { value: text(env.OPENAI_API_KEY), variable: named ?? 'OPENAI_API_KEY' }
}

export function openaiCredentials(id: string, config: Config, env: NodeJS.ProcessEnv): CredentialFlow[] {
  const host = hostOf(openaiBaseUrl(config, env))
  if (text(config.apiKey)) return [{ configKey: 'apiKey', host, provider: id }]
  const named = text(config.apiKeyEnvar)
  return [...(named ? [named] : []), 'OPENAI_API_KEY'].map((variable) => ({ variable, host, provider: id }))
}

/** Header values of a config's `headers`, as text. */
export function stringHeaders(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
}
