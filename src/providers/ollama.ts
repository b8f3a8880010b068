/**
 * Ollama (`ollama:chat:<model>`, `ollama:completion:<model>`, `ollama:<model>`):
 * `POST {OLLAMA_BASE_URL}/api/chat` and `/api/generate`, whose replies stream
 * as NDJSON (one JSON object per line, the last with `done` and the counts);
 * `OLLAMA_API_KEY` as a bearer token. The config's model options go in
 * `options`, as promptfoo sends them.
 */
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import { badReply, chatMessages, firstSet, hostOf, ProviderError, send, trimSlash, usageOf, type Config } from './wire.js'

const DEFAULT_BASE_URL = 'http://localhost:11434'

/** The model options promptfoo passes to Ollama in `options` (besides `think`, `tools` and `passthrough`). */
const OPTION_KEYS = new Set([
  'num_predict',
  'top_k',
  'top_p',
  'tfs_z',
  'seed',
  'useNUMA',
  'num_ctx',
  'num_keep',
  'num_batch',
  'num_gqa',
  'num_gpu',
  'main_gpu',
  'low_vram',
  'f16_kv',
  'logits_all',
  'vocab_only',
  'use_mmap',
  'use_mlock',
  'embedding_only',
  'rope_frequency_base',
  'rope_frequency_scale',
  'typical_p',
  'repeat_last_n',
  'temperature',
  'repeat_penalty',
  'presence_penalty',
  'frequency_penalty',
  'mirostat',
  'mirostat_tau',
  'mirostat_eta',
  'penalize_newline',
  'stop',
  'num_thread'
])

function ollamaBaseUrl(env: NodeJS.ProcessEnv): string {
  return trimSlash(firstSet(env.OLLAMA_BASE_URL) ?? DEFAULT_BASE_URL)
}

export function ollamaProvider(id: string, model: string, chat: boolean, config: Config, ctx: ProviderContext): Provider {
  const baseUrl = ollamaBaseUrl(ctx.env)
  const apiKey = firstSet(ctx.env.OLLAMA_API_KEY)
  if (apiKey) ctx.secrets.add(apiKey)
  return {
    id,
    model,
    async call(call, http) {
      const headers = { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...call.headers }
      const url = `${baseUrl}/api/${chat ? 'chat' : 'generate'}`
      const response = await send(id, 'POST', url, requestBody(model, chat, call, config), headers, http, apiKey ? [apiKey] : [])
      return readStream(id, model, chat, response.text)
    },
    async close() {}
  }
}

function requestBody(model: string, chat: boolean, call: ProviderCall, config: Config): Record<string, unknown> {
  const options: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) if (OPTION_KEYS.has(key)) options[key] = value
  if (options.temperature === undefined && call.temperature !== undefined) options.temperature = call.temperature
  if (options.num_predict === undefined && call.maxTokens !== undefined) options.num_predict = call.maxTokens
  const body: Record<string, unknown> = { model }
  if (chat) body.messages = chatMessages(call.prompt)
  else {
    body.prompt = typeof call.prompt === 'string' ? call.prompt : call.prompt.map((m) => m.content).join('\n\n')
    body.stream = false
  }
  body.options = options
  if (config.think !== undefined) body.think = config.think
  if (call.json) body.format = 'json'
  const tools = Array.isArray(config.tools) ? config.tools : call.tools
  if (chat && tools?.length) body.tools = tools
  if (config.passthrough && typeof config.passthrough === 'object') Object.assign(body, config.passthrough)
  return body
}

type Chunk = {
  message?: { content?: unknown; tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[] }
  response?: unknown
  done?: unknown
  prompt_eval_count?: unknown
  eval_count?: unknown
  error?: unknown
  done_reason?: unknown
}

/** The NDJSON lines joined: text in order, the first chunk's tool calls, the final chunk's counts. */
function readStream(id: string, model: string, chat: boolean, body: string): ProviderResult {
  let chunks: Chunk[]
  try {
    chunks = body
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Chunk)
  } catch {
    throw badReply(id, 'reply is not NDJSON', body)
  }
  const failed = chunks.find((c) => c.error !== undefined)
  if (failed) throw new ProviderError(`${id}: Ollama error: ${String(failed.error)}`)
  const output = chunks
    .map((c) => (chat ? c.message?.content : c.response))
    .filter((t): t is string => typeof t === 'string' && t !== '')
    .join('')
  const calls = chunks.find((c) => Array.isArray(c.message?.tool_calls) && c.message.tool_calls.length)?.message?.tool_calls
  const toolCalls = (calls ?? []).map((c) => ({
    name: String(c.function?.name ?? ''),
    args: typeof c.function?.arguments === 'string' ? parseArgs(c.function.arguments) : (c.function?.arguments ?? {})
  }))
  const last = chunks.find((c) => c.done === true)
  // promptfoo's output is the calls (with the text, when there is some) when the model called tools
  const shown = toolCalls.length ? JSON.stringify(output.trim() ? { content: output, tool_calls: calls!.map(asOpenAI) } : calls!.map(asOpenAI)) : output
  const result: ProviderResult = { output: shown, model }
  if (chat) result.toolCalls = toolCalls
  const usage =
    last && (last.prompt_eval_count !== undefined || last.eval_count !== undefined) ? usageOf(last.prompt_eval_count ?? 0, last.eval_count ?? 0) : undefined
  if (usage) result.usage = usage
  if (typeof last?.done_reason === 'string') result.finishReason = last.done_reason
  return result
}

function asOpenAI(call: { function?: { name?: unknown; arguments?: unknown } }): unknown {
  const args = call.function?.arguments
  return { function: { name: call.function?.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } }
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

export function ollamaCredentials(id: string, env: NodeJS.ProcessEnv): CredentialFlow[] {
  return [{ variable: 'OLLAMA_API_KEY', host: hostOf(ollamaBaseUrl(env)), provider: id }]
}
