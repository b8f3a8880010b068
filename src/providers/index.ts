/**
 * The providers' registry: promptfoo's provider ids parsed into
 * the module that speaks that API, for targets, the judge, the model-graded
 * checks and the simulated user alike, and the credential flows of each
 * (which variable goes to which host), as data for the secrets policy.
 */
import { anthropicCredentials, anthropicProvider } from './anthropic.js'
import { azureCredentials, azureProvider } from './azure.js'
import { bedrockCredentials, bedrockProvider } from './bedrock.js'
import { googleCredentials, googleProvider } from './google.js'
import { httpCredentials, httpProvider } from './http.js'
import { ollamaCredentials, ollamaProvider } from './ollama.js'
import { openaiCredentials, openaiProvider } from './openai.js'
import { pythonCredentials, pythonProvider } from './python.js'
import type { CredentialFlow, Provider, ProviderContext, ProviderSpec } from './types.js'
import type { Config } from './wire.js'

export type { ChatMessage, CredentialFlow, Provider, ProviderCall, ProviderContext, ProviderResult, ProviderSpec, ProviderUsage } from './types.js'
export { ProviderError } from './wire.js'

/** The provider ids evalgate runs, as a user reads them in a message. */
export const PROVIDER_IDS =
  'openai:chat:<model>, openai:<model>, anthropic:messages:<model>, google:<model>, vertex:<model>, bedrock:<model id>, bedrock:converse:<model id>, azure:chat:<deployment>, ollama:chat:<model>, ollama:completion:<model>, http (or the URL) with config.url, file://provider.py (or python:provider.py)'

/** What an id names: the module and the model (or deployment) it calls. */
type Parsed =
  | { kind: 'openai' | 'anthropic' | 'azure'; model: string }
  | { kind: 'google'; model: string; vertex: boolean }
  | { kind: 'ollama'; model: string; chat: boolean }
  | { kind: 'bedrock'; model: string; converse: boolean }
  | { kind: 'http' }
  | { kind: 'python' }

/** The parts after a prefix, rejoined: model names may hold colons (`ollama:chat:llama3:8b`). */
function rest(parts: string[], from: number): string {
  return parts.slice(from).join(':')
}

export function parseProviderId(id: string): Parsed | undefined {
  if (id === 'http' || id === 'https' || /^https?:\/\/./.test(id)) return { kind: 'http' }
  if (/^(file:\/\/|python:).+\.py(:[A-Za-z_]\w*)?$/.test(id)) return { kind: 'python' }
  const parts = id.split(':')
  const [family, second] = parts
  const model = (from: number) => rest(parts, from) || undefined
  switch (family) {
    case 'openai': {
      if (second === 'chat') return model(2) ? { kind: 'openai', model: model(2)! } : undefined
      return parts.length === 2 && model(1) ? { kind: 'openai', model: model(1)! } : undefined
    }
    case 'anthropic':
      return second === 'messages' && model(2) ? { kind: 'anthropic', model: model(2)! } : undefined
    case 'azure':
    case 'azureopenai':
      return second === 'chat' && model(2) ? { kind: 'azure', model: model(2)! } : undefined
    case 'google':
      return parts.length === 2 && model(1) ? { kind: 'google', model: model(1)!, vertex: false } : undefined
    case 'vertex':
      if (second === 'chat') return model(2) ? { kind: 'google', model: model(2)!, vertex: true } : undefined
      return ['embedding', 'embeddings', 'video'].includes(second ?? '') || !model(1) ? undefined : { kind: 'google', model: model(1)!, vertex: true }
    case 'ollama':
      if (second === 'chat' || second === 'completion') return model(2) ? { kind: 'ollama', model: model(2)!, chat: second === 'chat' } : undefined
      return ['embedding', 'embeddings'].includes(second ?? '') || !model(1) ? undefined : { kind: 'ollama', model: model(1)!, chat: false }
    case 'bedrock':
      if (second === 'converse') return model(2) ? { kind: 'bedrock', model: model(2)!, converse: true } : undefined
      // promptfoo's other Bedrock APIs (agents, knowledge bases, embeddings, video) are not model calls evalgate makes
      return BEDROCK_OTHER.has(second ?? '') || !model(1) ? undefined : { kind: 'bedrock', model: model(1)!, converse: false }
    default:
      return undefined
  }
}

const BEDROCK_OTHER = new Set(['agents', 'kb', 'knowledge-base', 'embedding', 'embeddings', 'completion', 'messages', 'mantle', 'video', 'nova-sonic'])

/** The maintained price list's name for the API an id calls (targets/pricing.ts); none for local models, HTTP APIs and code. */
export function priceListProvider(id: string): string | undefined {
  const parsed = parseProviderId(id)
  switch (parsed?.kind) {
    case 'openai':
    case 'anthropic':
    case 'azure':
    case 'google':
      return parsed.kind
    case 'bedrock':
      return 'aws'
    default:
      return undefined
  }
}

/** Whether evalgate can run this id. */
export function isProviderId(id: string): boolean {
  return parseProviderId(id) !== undefined
}

/** Why an id cannot be run, naming what can; undefined when it can. */
export function providerIdProblem(id: string): string | undefined {
  return isProviderId(id) ? undefined : `provider "${id}" is not supported by evalgate; supported: ${PROVIDER_IDS}`
}

/** Makes the provider an id names. Throws (a plain Error naming `ctx.where`) for an id it cannot run. */
export function createProvider(spec: ProviderSpec, ctx: ProviderContext): Provider {
  const parsed = parseProviderId(spec.id)
  if (!parsed) throw new Error(`${ctx.where}: ${providerIdProblem(spec.id)}`)
  const config: Config = spec.config ?? {}
  switch (parsed.kind) {
    case 'openai':
      return openaiProvider(spec.id, parsed.model, config, ctx)
    case 'anthropic':
      return anthropicProvider(spec.id, parsed.model, config, ctx)
    case 'azure':
      return azureProvider(spec.id, parsed.model, config, ctx)
    case 'google':
      return googleProvider(spec.id, parsed.model, parsed.vertex, config, ctx)
    case 'ollama':
      return ollamaProvider(spec.id, parsed.model, parsed.chat, config, ctx)
    case 'bedrock':
      return bedrockProvider(spec.id, parsed.model, parsed.converse, config, ctx)
    case 'http':
      return httpProvider(spec.id, config, ctx)
    case 'python':
      return pythonProvider(spec.id, config, ctx, spec.label)
  }
}

/**
 * The credentials a provider would send, and where, without making it: every
 * variable it may read (the first set one wins at run time) and the host, as
 * the config and environment resolve it. Empty for an id evalgate cannot run.
 */
export function credentialFlows(spec: ProviderSpec, env: NodeJS.ProcessEnv): CredentialFlow[] {
  const parsed = parseProviderId(spec.id)
  const config: Config = spec.config ?? {}
  if (!parsed) return []
  switch (parsed.kind) {
    case 'openai':
      return openaiCredentials(spec.id, config, env)
    case 'anthropic':
      return anthropicCredentials(spec.id, config, env)
    case 'azure':
      return azureCredentials(spec.id, config, env)
    case 'google':
      return googleCredentials(spec.id, parsed.model, parsed.vertex, config, env)
    case 'ollama':
      return ollamaCredentials(spec.id, env)
    case 'bedrock':
      return bedrockCredentials(spec.id, config, env)
    case 'http':
      return httpCredentials(spec.id, config)
    case 'python':
      return pythonCredentials()
  }
}
