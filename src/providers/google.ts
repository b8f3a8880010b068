/**
 * Gemini `generateContent`: `google:<model>` (Google AI Studio,
 * `{base}/v1beta/models/<model>:generateContent`) and `vertex:<model>`
 * (Vertex AI in express mode, `https://{host}/v1/publishers/google/models/<model>:generateContent`),
 * the key in `x-goog-api-key`; hosts, bases and keys as promptfoo reads them.
 * The prompt becomes `contents` as promptfoo coerces it (chat messages →
 * `{role: user|model, parts}`, system messages → `system_instruction`);
 * `functionCall` parts become tool calls.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import { stringHeaders } from './openai.js'
import {
  badReply,
  finishReason,
  firstSet,
  hostOf,
  number,
  parsedChatPrompt,
  ProviderError,
  send,
  text,
  trimSlash,
  usageOf,
  type Config,
  modelProvider
} from './wire.js'

const STUDIO_HOST = 'generativelanguage.googleapis.com'
const STUDIO_KEYS = ['GOOGLE_API_KEY', 'GEMINI_API_KEY', 'PALM_API_KEY']
const VERTEX_KEYS = ['VERTEX_API_KEY', 'GOOGLE_API_KEY']
/** finish reasons that mean the reply was withheld */
const BLOCKED = ['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY']

type Part = Record<string, unknown>
type Content = { role?: string; parts: Part[] }

interface Endpoint {
  url: string
  keyVariables: string[]
}

/** AI Studio: `apiHost` / `GOOGLE_API_HOST` / `PALM_API_HOST` mean https; else `apiBaseUrl` / `GOOGLE_API_BASE_URL`; else Google's host. */
function studioBase(config: Config, env: NodeJS.ProcessEnv): string {
  const host = firstSet(config.apiHost, env.GOOGLE_API_HOST, env.PALM_API_HOST)
  if (host) return `https://${host}`
  return trimSlash(firstSet(config.apiBaseUrl, env.GOOGLE_API_BASE_URL) ?? `https://${STUDIO_HOST}`)
}

/** Vertex: `apiHost` or `VERTEX_API_HOST`, else the region's host (`global` has none); always https. */
function vertexHost(config: Config, env: NodeJS.ProcessEnv): string {
  const region = firstSet(config.region, env.VERTEX_REGION, env.GOOGLE_CLOUD_LOCATION) ?? 'us-central1'
  return firstSet(config.apiHost, env.VERTEX_API_HOST) ?? (region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`)
}

function endpoint(vertex: boolean, model: string, config: Config, env: NodeJS.ProcessEnv): Endpoint {
  if (!vertex) {
    const version = text(config.apiVersion) ?? 'v1beta'
    return { url: `${studioBase(config, env)}/${version}/models/${model}:generateContent`, keyVariables: STUDIO_KEYS }
  }
  const publisher = firstSet(config.publisher, env.VERTEX_PUBLISHER) ?? 'google'
  const version = firstSet(config.apiVersion, env.VERTEX_API_VERSION) ?? 'v1'
  return { url: `https://${vertexHost(config, env)}/${version}/publishers/${publisher}/models/${model}:generateContent`, keyVariables: VERTEX_KEYS }
}

export function googleProvider(id: string, model: string, vertex: boolean, config: Config, ctx: ProviderContext): Provider {
  const where = endpoint(vertex, model, config, ctx.env)
  const apiKey = firstSet(config.apiKey, ...where.keyVariables.map((v) => ctx.env[v]))
  if (apiKey) ctx.secrets.add(apiKey)
  const oauth = vertex && (config.credentials !== undefined || config.keyFilename !== undefined || config.expressMode === false)
  const unusable = oauth
    ? `${ctx.where}: ${id}: Vertex with service-account credentials (credentials, keyFilename, expressMode: false) is not supported by evalgate; use an API key (express mode: GOOGLE_API_KEY or apiKey)`
    : apiKey
      ? undefined
      : `${ctx.where}: ${id}: no API key; set ${where.keyVariables.join(' or ')}, or apiKey in the provider config`
  // promptfoo reads a `file://` system instruction from its file (relative to the config)
  let instruction: unknown = config.systemInstruction
  let problem = unusable
  if (typeof instruction === 'string' && instruction.startsWith('file://')) {
    const file = path.resolve(ctx.baseDir, instruction.slice('file://'.length))
    try {
      const text = readFileSync(file, 'utf8')
      instruction = /\.json$/i.test(file) ? (JSON.parse(text) as unknown) : text
    } catch (err) {
      problem ??= `${ctx.where}: ${id}: config.systemInstruction: cannot read ${file}: ${(err as Error).message}`
    }
  }
  const own = { ...config, systemInstruction: instruction }
  return modelProvider(id, model, problem, async (call, http) => {
    const headers = { 'x-goog-api-key': apiKey!, ...stringHeaders(config.headers), ...call.headers }
    const response = await send(id, 'POST', where.url, generateBody(call, own), headers, http, [apiKey!])
    return readCandidates(id, model, response.data, response.text)
  })
}

function generateBody(call: ProviderCall, config: Config): Record<string, unknown> {
  const { contents, system } = geminiContents(call.prompt)
  const generationConfig: Record<string, unknown> = {}
  const temperature = number(config.temperature) ?? call.temperature
  if (temperature !== undefined) generationConfig.temperature = temperature
  const maxTokens = number(config.maxOutputTokens) ?? call.maxTokens
  if (maxTokens !== undefined) generationConfig.maxOutputTokens = maxTokens
  for (const key of ['topP', 'topK', 'stopSequences']) if (config[key] !== undefined) generationConfig[key] = config[key]
  if (config.generationConfig && typeof config.generationConfig === 'object') Object.assign(generationConfig, config.generationConfig)
  if (call.json && generationConfig.responseMimeType === undefined) generationConfig.responseMimeType = 'application/json'
  if (config.responseSchema !== undefined) {
    generationConfig.response_schema = config.responseSchema
    generationConfig.response_mime_type = 'application/json'
  }
  const body: Record<string, unknown> = { contents, generationConfig }
  if (config.safetySettings !== undefined) body.safetySettings = config.safetySettings
  if (config.toolConfig !== undefined) body.toolConfig = config.toolConfig
  // Gemini's own tools may be one object ({function_declarations: [...]}) as promptfoo sends it
  const tools = Array.isArray(config.tools) ? config.tools : isObject(config.tools) ? [config.tools] : call.tools
  if (tools?.length) body.tools = geminiTools(tools)
  const instruction = config.systemInstruction
  const fromConfig = typeof instruction === 'string' ? [{ text: instruction }] : ((instruction as { parts?: Part[] } | undefined)?.parts ?? [])
  const parts = [...fromConfig, ...(system ?? [])]
  if (parts.length) body.system_instruction = { parts }
  return body
}

/** OpenAI function tools gathered into one `functionDeclarations` entry; Gemini's own tools as they are. */
function geminiTools(tools: unknown[]): unknown[] {
  const functions = tools.filter((t) => (t as { type?: unknown })?.type === 'function' && (t as { function?: unknown }).function)
  const own = tools.filter((t) => !functions.includes(t))
  if (functions.length === 0) return own
  return [...own, { functionDeclarations: functions.map((t) => (t as { function: unknown }).function) }]
}

/** promptfoo's coercion of a prompt into Gemini `contents`, with system messages apart. */
export function geminiContents(prompt: string | { role: string; content: unknown }[]): { contents: Content[]; system?: Part[] } {
  const parsed = Array.isArray(prompt) ? prompt : parsedChatPrompt(prompt)
  if (parsed === undefined) return { contents: [{ role: 'user', parts: [{ text: prompt as string }] }] }
  let contents: Content[]
  let system: Part[] | undefined
  if (isContents(parsed)) contents = parsed
  else if (isObject(parsed) && 'system_instruction' in parsed) {
    system = ((parsed.system_instruction as { parts?: Part[] } | undefined)?.parts ?? []) as Part[]
    contents = Array.isArray(parsed.contents) ? (parsed.contents as Content[]) : []
  } else if (Array.isArray(parsed) && parsed.every((m) => isObject(m) && m.role && m.content !== undefined)) {
    contents = parsed.map((m: { role: string; content: unknown }) => ({
      role: m.role === 'assistant' ? 'model' : m.role,
      parts: Array.isArray(m.content)
        ? m.content.map((c: unknown) => (typeof c === 'string' ? { text: c } : (c as Part).type === 'text' ? { text: (c as Part).text } : (c as Part)))
        : typeof m.content === 'object' && m.content !== null
          ? [m.content as Part]
          : [{ text: String(m.content) }]
    }))
  } else if (isObject(parsed) && Array.isArray(parsed.parts)) contents = [parsed as unknown as Content]
  else if (typeof parsed === 'string') contents = [{ parts: [{ text: parsed }] }]
  else throw new ProviderError(`the prompt is JSON but not chat messages or Gemini contents: ${JSON.stringify(parsed).slice(0, 200)}`)
  const systemParts: Part[] = []
  contents = contents.filter((c) => {
    if (c.role !== 'system') return true
    systemParts.push(...c.parts.filter((p) => typeof p.text === 'string'))
    return false
  })
  if (contents.length === 0 && systemParts.length) return { contents: [{ role: 'user', parts: systemParts }], ...(system ? { system } : {}) }
  const allSystem = [...(system ?? []), ...systemParts]
  return { contents, ...(allSystem.length ? { system: allSystem } : {}) }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isContents(value: unknown): value is Content[] {
  return Array.isArray(value) && value.length > 0 && value.every((c) => isObject(c) && Array.isArray(c.parts))
}

function readCandidates(id: string, model: string, data: unknown, raw: string): ProviderResult {
  const reply = data as
    | {
        candidates?: { content?: { parts?: Part[] }; finishReason?: unknown }[]
        usageMetadata?: Record<string, unknown>
        promptFeedback?: { blockReason?: unknown }
        modelVersion?: unknown
      }
    | undefined
  const candidate = reply?.candidates?.[0]
  if (!candidate) {
    const blocked = reply?.promptFeedback?.blockReason
    throw blocked ? new ProviderError(`${id}: the prompt was blocked: ${String(blocked)}`) : badReply(id, 'reply has no candidates', raw)
  }
  if (typeof candidate.finishReason === 'string' && BLOCKED.includes(candidate.finishReason))
    throw new ProviderError(`${id}: the reply was blocked with finish reason ${candidate.finishReason}`)
  const parts = candidate.content?.parts
  if (!Array.isArray(parts)) throw badReply(id, 'the candidate has no content parts', raw)
  const allText = parts.every((p) => 'text' in p)
  const usage = reply?.usageMetadata ?? {}
  const input = number(usage.promptTokenCount) === undefined ? undefined : (usage.promptTokenCount as number) + (number(usage.toolUsePromptTokenCount) ?? 0)
  const result: ProviderResult = {
    // promptfoo's output is the parts themselves when any is not text (a function call)
    output: allText ? parts.map((p) => String(p.text)).join('') : JSON.stringify(parts),
    model: typeof reply?.modelVersion === 'string' ? reply.modelVersion : model,
    toolCalls: parts
      .filter((p) => isObject(p.functionCall))
      .map((p) => ({ name: String((p.functionCall as Part).name), args: (p.functionCall as Part).args ?? {} }))
  }
  const counted = usageOf(input, usage.candidatesTokenCount, usage.totalTokenCount)
  if (counted) result.usage = counted
  const finish = finishReason(candidate.finishReason)
  if (finish) result.finishReason = finish
  return result
}

export function googleCredentials(id: string, model: string, vertex: boolean, config: Config, env: NodeJS.ProcessEnv): CredentialFlow[] {
  const where = endpoint(vertex, model, config, env)
  const host = hostOf(where.url)
  if (text(config.apiKey)) return [{ configKey: 'apiKey', host, provider: id }]
  return where.keyVariables.map((variable) => ({ variable, host, provider: id }))
}
