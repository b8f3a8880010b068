/**
 * Amazon Bedrock (`bedrock:converse:<model id>`, `bedrock:<model id>`):
 * SigV4-signed requests (service `bedrock`, signed by the aws4 package) to
 * `{endpoint}/model/<id>/converse` — the Converse API, for every model — or,
 * for Anthropic's models named bare (`bedrock:anthropic.claude-…`),
 * `/model/<id>/invoke` with the Anthropic Messages body Bedrock takes.
 * Region, endpoint and credentials as promptfoo reads them: config `region`,
 * else `AWS_BEDROCK_REGION`, else us-east-1; config `endpoint`, else the
 * region's bedrock-runtime host; config `accessKeyId`/`secretAccessKey`/
 * `sessionToken`, else a Bedrock API key (config `apiKey`,
 * `AWS_BEARER_TOKEN_BEDROCK`) as a bearer token, else `AWS_ACCESS_KEY_ID`/
 * `AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` (what GitHub's OIDC role
 * setup exports).
 */
import aws4 from 'aws4'
import { anthropicTool, parseMessages, readMessage } from './anthropic.js'
import type { CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult } from './types.js'
import {
  badReply,
  finishReason,
  firstSet,
  hostOf,
  number,
  listedMessages,
  ProviderError,
  send,
  text,
  trimSlash,
  usageOf,
  type Config,
  modelProvider,
  roleLines
} from './wire.js'

const SERVICE = 'bedrock'
const KEY_VARIABLES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']
const BEARER_VARIABLE = 'AWS_BEARER_TOKEN_BEDROCK'
const ANTHROPIC_VERSION = 'bedrock-2023-05-31'

interface Credentials {
  accessKeyId: string
  secretAccessKey: string
  sessionToken?: string
}

type Auth = { kind: 'sigv4'; credentials: Credentials } | { kind: 'bearer'; token: string }

function region(config: Config, env: NodeJS.ProcessEnv): string {
  return firstSet(config.region, env.AWS_BEDROCK_REGION) ?? 'us-east-1'
}

function endpoint(config: Config, env: NodeJS.ProcessEnv): string {
  return trimSlash(text(config.endpoint) ?? `https://bedrock-runtime.${region(config, env)}.amazonaws.com`)
}

/** promptfoo's order: keys in the config, a Bedrock API key, then the environment's keys; profiles and SSO are refused. */
function auth(config: Config, env: NodeJS.ProcessEnv): Auth | undefined {
  if (text(config.accessKeyId) && text(config.secretAccessKey)) {
    return {
      kind: 'sigv4',
      credentials: { accessKeyId: text(config.accessKeyId)!, secretAccessKey: text(config.secretAccessKey)!, sessionToken: text(config.sessionToken) }
    }
  }
  const bearer = firstSet(config.apiKey, env[BEARER_VARIABLE])
  if (bearer) return { kind: 'bearer', token: bearer }
  if (text(env.AWS_ACCESS_KEY_ID) && text(env.AWS_SECRET_ACCESS_KEY)) {
    return {
      kind: 'sigv4',
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY!, sessionToken: text(env.AWS_SESSION_TOKEN) }
    }
  }
  return undefined
}

/** Anthropic's models named bare go to InvokeModel with the Messages body; everything else speaks Converse. */
export function isInvokedAnthropic(model: string): boolean {
  return /(^|\.)anthropic\.claude/.test(model)
}

export function bedrockProvider(id: string, model: string, converse: boolean, config: Config, ctx: ProviderContext): Provider {
  const base = endpoint(config, ctx.env)
  const signing = auth(config, ctx.env)
  const secrets =
    signing?.kind === 'bearer' ? [signing.token] : signing ? [signing.credentials.secretAccessKey, signing.credentials.sessionToken ?? ''].filter(Boolean) : []
  for (const s of secrets) ctx.secrets.add(s)
  const unusable = text(config.profile)
    ? `${ctx.where}: ${id}: AWS profiles and SSO (config profile) are not supported by evalgate; give AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), e.g. from aws-actions/configure-aws-credentials`
    : signing
      ? undefined
      : `${ctx.where}: ${id}: no AWS credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or AWS_BEARER_TOKEN_BEDROCK`
  const invoke = !converse && isInvokedAnthropic(model)
  const where = region(config, ctx.env)
  return modelProvider(id, model, unusable, async (call, http) => {
    const url = `${base}/model/${encodeURIComponent(model)}/${invoke ? 'invoke' : 'converse'}`
    const body = invoke ? invokeBody(call, config) : converseBody(call, config)
    const headers = { ...signedHeaders(url, JSON.stringify(body), signing!, where), ...call.headers }
    const response = await send(id, 'POST', url, body, headers, http, secrets)
    return invoke ? readMessage(id, model, response.data, response.text) : readConverse(id, model, response.data, response.text)
  })
}

/**
 * The headers that authenticate one request: SigV4 over method, path, host,
 * body and the content headers the HTTP client sends (the values must be
 * the same bytes), or the Bedrock API key as a bearer token.
 */
export function signedHeaders(url: string, body: string, authentication: Auth, region: string, date?: string): Record<string, string> {
  const content = { accept: 'application/json', 'content-type': 'application/json' }
  if (authentication.kind === 'bearer') return { ...content, authorization: `Bearer ${authentication.token}` }
  const u = new URL(url)
  const signed = aws4.sign(
    {
      host: u.host,
      path: `${u.pathname}${u.search}`,
      method: 'POST',
      service: SERVICE,
      region,
      body,
      headers: { ...content, ...(date ? { 'X-Amz-Date': date } : {}) }
    },
    authentication.credentials
  )
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(signed.headers ?? {})) {
    // the HTTP client sets Host and Content-Length itself, to the same values
    if (!['host', 'content-length'].includes(name.toLowerCase())) headers[name.toLowerCase()] = String(value)
  }
  return headers
}

/** InvokeModel for Anthropic's models: the Messages body, with Bedrock's `anthropic_version` and promptfoo's defaults. */
function invokeBody(call: ProviderCall, config: Config): Record<string, unknown> {
  const { system, messages } = parseMessages(call.prompt)
  const body: Record<string, unknown> = {
    messages,
    anthropic_version: text(config.anthropic_version) ?? ANTHROPIC_VERSION,
    max_tokens: number(config.max_tokens) ?? call.maxTokens ?? 1024,
    temperature: number(config.temperature) ?? call.temperature ?? 0
  }
  const tools = Array.isArray(config.tools) ? config.tools : call.tools
  if (tools?.length) body.tools = tools.map(anthropicTool)
  for (const key of ['tool_choice', 'thinking']) if (config[key] !== undefined) body[key] = config[key]
  if (system) body.system = system.map((b) => b.text ?? '').join('\n')
  return body
}

type ConverseBlock = Record<string, unknown>
type ConverseMessage = { role: string; content: ConverseBlock[] }

/** promptfoo's reading of a prompt for Converse: JSON messages (system apart), else role-prefixed lines, else one user message. */
export function converseMessages(prompt: string | { role: string; content: unknown }[]): { system?: { text: string }[]; messages: ConverseMessage[] } {
  const parsed = listedMessages(prompt)
  if (Array.isArray(parsed)) {
    const system: { text: string }[] = []
    const messages: ConverseMessage[] = []
    for (const m of parsed as { role?: unknown; content?: unknown }[]) {
      if (m?.role === 'system') system.push({ text: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) })
      else if (m?.role === 'user' || m?.role === 'assistant') messages.push({ role: m.role, content: converseBlocks(m.content) })
    }
    return { ...(system.length ? { system } : {}), messages }
  }
  return fromLines(prompt as string)
}

function converseBlocks(content: unknown): ConverseBlock[] {
  if (typeof content === 'string') return [{ text: content }]
  if (!Array.isArray(content)) return [{ text: JSON.stringify(content) }]
  return content.map((b: unknown) =>
    typeof b === 'string' ? { text: b } : (b as ConverseBlock)?.type === 'text' ? { text: (b as ConverseBlock).text } : { text: JSON.stringify(b) }
  )
}

/** Role lines as Bedrock's reading of them; the whole prompt as one user message when it has no message. */
function fromLines(prompt: string): { system?: { text: string }[]; messages: ConverseMessage[] } {
  const { system, messages } = roleLines(prompt, true)
  const shaped = messages.map((m) => ({ role: m.role, content: [{ text: m.text }] }))
  if (shaped.length === 0) shaped.push({ role: 'user', content: [{ text: prompt }] })
  return { ...(system !== undefined ? { system: [{ text: system }] } : {}), messages: shaped }
}

function converseBody(call: ProviderCall, config: Config): Record<string, unknown> {
  const { system, messages } = converseMessages(call.prompt)
  const inference: Record<string, unknown> = {}
  const maxTokens = number(config.maxTokens) ?? number(config.max_tokens) ?? call.maxTokens
  if (maxTokens !== undefined) inference.maxTokens = maxTokens
  const temperature = number(config.temperature) ?? call.temperature
  if (temperature !== undefined) inference.temperature = temperature
  const topP = number(config.topP) ?? number(config.top_p)
  if (topP !== undefined) inference.topP = topP
  const stop = config.stopSequences ?? config.stop
  if (Array.isArray(stop)) inference.stopSequences = stop
  const body: Record<string, unknown> = { messages }
  if (system) body.system = system
  if (Object.keys(inference).length) body.inferenceConfig = inference
  const tools = Array.isArray(config.tools) ? config.tools : call.tools
  if (tools?.length) body.toolConfig = { tools: tools.map(converseTool), ...(config.toolChoice !== undefined ? { toolChoice: config.toolChoice } : {}) }
  if (config.additionalModelRequestFields !== undefined) body.additionalModelRequestFields = config.additionalModelRequestFields
  if (config.guardrailConfig !== undefined) body.guardrailConfig = config.guardrailConfig
  return body
}

/** An OpenAI function tool as Converse's `{toolSpec: {name, description, inputSchema: {json}}}`; Bedrock's own as they are. */
function converseTool(tool: unknown): unknown {
  const fn = (tool as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } })?.function
  if ((tool as { type?: unknown })?.type !== 'function' || !fn) return tool
  return {
    toolSpec: {
      name: fn.name,
      ...(fn.description !== undefined ? { description: fn.description } : {}),
      inputSchema: { json: fn.parameters ?? { type: 'object' } }
    }
  }
}

function readConverse(id: string, model: string, data: unknown, raw: string): ProviderResult {
  const reply = data as { output?: { message?: { content?: ConverseBlock[] } }; stopReason?: unknown; usage?: Record<string, unknown> } | undefined
  const content = reply?.output?.message?.content
  if (!Array.isArray(content)) throw badReply(id, 'reply has no output.message.content', raw)
  if (reply?.stopReason === 'malformed_model_output') throw new ProviderError(`${id}: the model produced invalid output (stopReason malformed_model_output)`)
  const uses = content.filter((b) => b.toolUse && typeof b.toolUse === 'object') as { toolUse: { toolUseId?: unknown; name?: unknown; input?: unknown } }[]
  // promptfoo's output: the tool_use blocks' JSON when the model called tools, else the text blocks
  const output = uses.length
    ? uses.map((b) => JSON.stringify({ type: 'tool_use', id: b.toolUse.toolUseId, name: b.toolUse.name, input: b.toolUse.input })).join('\n\n')
    : content
        .filter((b) => typeof b.text === 'string' && b.text !== '')
        .map((b) => b.text as string)
        .join('\n\n')
  const result: ProviderResult = { output, model, toolCalls: uses.map((b) => ({ name: String(b.toolUse.name), args: b.toolUse.input ?? {} })) }
  const usage = usageOf(reply?.usage?.inputTokens, reply?.usage?.outputTokens, reply?.usage?.totalTokens)
  if (usage) result.usage = usage
  const finish = finishReason(reply?.stopReason)
  if (finish) result.finishReason = finish
  return result
}

export function bedrockCredentials(id: string, config: Config, env: NodeJS.ProcessEnv): CredentialFlow[] {
  const host = hostOf(endpoint(config, env))
  if (text(config.accessKeyId) || text(config.secretAccessKey)) return [{ configKey: 'secretAccessKey', host, provider: id }]
  if (text(config.apiKey)) return [{ configKey: 'apiKey', host, provider: id }]
  return [BEARER_VARIABLE, ...KEY_VARIABLES].map((variable) => ({ variable, host, provider: id }))
}
