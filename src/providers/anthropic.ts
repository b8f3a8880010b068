/**
 * Anthropic Messages (`anthropic:messages:<model>`): `POST {base}/v1/messages`
 * with `x-api-key` and `anthropic-version`. The prompt is read as promptfoo
 * reads it (a JSON list of messages, or `system:` / `user:` / `assistant:`
 * lines); tools are Anthropic's `{name, description, input_schema}` (OpenAI
 * function tools are translated); `tool_use` blocks become tool calls, and
 * the output is the text blocks with each tool_use block's JSON, as promptfoo
 * shows it. `ANTHROPIC_CUSTOM_HEADERS` (the Anthropic SDK's, which promptfoo
 * uses: `Name: value` lines, a gateway's headers) is sent with every request.
 */
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import { stringHeaders } from './openai.js'
import {
  badReply,
  contentText,
  finishReason,
  firstSet,
  hostOf,
  number,
  listedMessages,
  send,
  text,
  trimSlash,
  usageOf,
  type Config,
  modelProvider,
  roleLines
} from './wire.js'

const DEFAULT_BASE_URL = 'https://api.anthropic.com'
const API_VERSION = '2023-06-01'
const DEFAULT_MAX_TOKENS = 1024

type Block = { type: string; text?: string; [key: string]: unknown }
type Message = { role: string; content: Block[] }

function anthropicBaseUrl(config: Config, env: NodeJS.ProcessEnv): string {
  return trimSlash(firstSet(config.apiBaseUrl, env.ANTHROPIC_BASE_URL) ?? DEFAULT_BASE_URL)
}

export function anthropicProvider(id: string, model: string, config: Config, ctx: ProviderContext): Provider {
  const baseUrl = anthropicBaseUrl(config, ctx.env)
  const apiKey = firstSet(config.apiKey, ctx.env.ANTHROPIC_API_KEY)
  if (apiKey) ctx.secrets.add(apiKey)
  // a gateway's headers often carry its own secret: redacted like the key
  const gateway = customHeaders(ctx.env)
  const secrets = [apiKey!, ...Object.values(gateway)].filter(Boolean)
  for (const value of Object.values(gateway)) ctx.secrets.add(value)
  const unusable = apiKey
    ? undefined
    : `${ctx.where}: ${id}: environment variable ANTHROPIC_API_KEY is not set; set it, or add \`apiKey\` to the provider config`
  return modelProvider(id, model, unusable, async (call, http) => {
    const headers: Record<string, string> = {
      'x-api-key': apiKey!,
      'anthropic-version': API_VERSION,
      ...gateway,
      ...stringHeaders(config.headers),
      ...call.headers
    }
    if (Array.isArray(config.beta) && config.beta.length) headers['anthropic-beta'] = config.beta.join(',')
    const response = await send(id, 'POST', `${baseUrl}/v1/messages`, messagesBody(model, call, config), headers, http, secrets)
    return readMessage(id, model, response.data, response.text)
  })
}

function messagesBody(model: string, call: ProviderCall, config: Config): Record<string, unknown> {
  const { system, messages } = parseMessages(call.prompt)
  const body: Record<string, unknown> = {
    model,
    max_tokens: number(config.max_tokens) ?? call.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages
  }
  if (system) body.system = system
  const temperature = number(config.temperature) ?? call.temperature
  if (temperature !== undefined) body.temperature = temperature
  for (const key of ['top_p', 'top_k', 'stop_sequences', 'metadata', 'thinking', 'tool_choice']) if (config[key] !== undefined) body[key] = config[key]
  const tools = Array.isArray(config.tools) ? config.tools : call.tools
  if (tools?.length) body.tools = tools.map(anthropicTool)
  if (config.extra_body && typeof config.extra_body === 'object') Object.assign(body, config.extra_body)
  return body
}

/** An OpenAI function tool as Anthropic's `{name, description, input_schema}`; Anthropic's own tools as they are. */
export function anthropicTool(tool: unknown): unknown {
  const fn = (tool as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } })?.function
  if ((tool as { type?: unknown })?.type !== 'function' || !fn) return tool
  return {
    name: fn.name,
    ...(fn.description !== undefined ? { description: fn.description } : {}),
    input_schema: fn.parameters ?? { type: 'object', properties: {} }
  }
}

/** promptfoo's reading of a prompt for Anthropic: JSON messages (the system one apart), else role-prefixed lines, else one user message. */
export function parseMessages(prompt: string | { role: string; content: unknown }[]): { system?: Block[]; messages: Message[] } {
  const parsed = listedMessages(prompt)
  if (Array.isArray(parsed)) {
    const list = parsed as { role?: unknown; content?: unknown }[]
    const system = list.find((m) => m?.role === 'system')
    return {
      ...(system ? { system: blocks(system.content) } : {}),
      messages: list.filter((m) => typeof m?.role === 'string' && m.role !== 'system').map((m) => ({ role: m.role as string, content: blocks(m.content) }))
    }
  }
  return fromLines(prompt as string)
}

function blocks(content: unknown): Block[] {
  return Array.isArray(content) ? (content as Block[]) : [{ type: 'text', text: typeof content === 'string' ? content : contentText(content) }]
}

/** Role lines as Anthropic's reading of them; the whole prompt as one user message when it has none. */
function fromLines(prompt: string): { system?: Block[]; messages: Message[] } {
  const { system, messages } = roleLines(prompt, false)
  const shaped = messages.map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }] }))
  if (shaped.length === 0 && system === undefined) shaped.push({ role: 'user', content: [{ type: 'text', text: prompt.trim() }] })
  return { ...(system !== undefined ? { system: [{ type: 'text', text: system }] } : {}), messages: shaped }
}

export function readMessage(id: string, model: string, data: unknown, raw: string): ProviderResult {
  const message = data as { content?: Block[]; usage?: Record<string, unknown>; stop_reason?: unknown; model?: unknown } | undefined
  if (!Array.isArray(message?.content)) throw badReply(id, 'reply has no content blocks', raw)
  const uses = message.content.filter((b) => b.type === 'tool_use')
  // promptfoo shows tool_use (and other non-text) blocks as their JSON beside the text
  const output = uses.length
    ? message.content
        .map((b) => (b.type === 'text' ? (b.text ?? '') : b.type === 'thinking' || b.type === 'redacted_thinking' ? '' : JSON.stringify(b)))
        .filter((t) => t !== '')
        .join('\n\n')
    : message.content.map((b) => b.text ?? '').join('\n\n')
  const usage = message.usage ?? {}
  const input = ['input_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'].reduce((n, k) => n + (number(usage[k]) ?? 0), 0)
  const result: ProviderResult = {
    output,
    model: typeof message.model === 'string' ? message.model : model,
    usage: usageOf(message.usage ? input : undefined, usage.output_tokens)
  }
  if (!result.usage) delete result.usage
  result.toolCalls = uses.map((b) => ({ name: String(b.name), args: b.input ?? {} }))
  const finish = finishReason(message.stop_reason)
  if (finish) result.finishReason = finish
  return result
}

/** `ANTHROPIC_CUSTOM_HEADERS` read as the Anthropic SDK reads it: one `Name: value` per line. */
function customHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of (env.ANTHROPIC_CUSTOM_HEADERS ?? '').split('\n')) {
    const colon = line.indexOf(':')
    const name = colon < 0 ? '' : line.slice(0, colon).trim()
    if (name) headers[name] = line.slice(colon + 1).trim()
  }
  return headers
}

export function anthropicCredentials(id: string, config: Config, env: NodeJS.ProcessEnv): CredentialFlow[] {
  const host = hostOf(anthropicBaseUrl(config, env))
  const key: CredentialFlow = text(config.apiKey) ? { configKey: 'apiKey', host, provider: id } : { variable: 'ANTHROPIC_API_KEY', host, provider: id }
  return text(env.ANTHROPIC_CUSTOM_HEADERS) ? [key, { variable: 'ANTHROPIC_CUSTOM_HEADERS', host, provider: id }] : [key]
}
