/**
 * The one interface every model API implements: a call in, the
 * text, tool calls, usage, model and finish reason out. Targets, the judge,
 * the model-graded checks and the simulated user all speak it; each
 * provider's wire format stays inside its own module.
 */
import type { HttpOptions, HttpSeams } from '../llm/http.js'
import type { ToolCall } from '../util/tool-calls.js'

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** One request to a model. */
export interface ProviderCall {
  /**
   * Text is read the way promptfoo reads a rendered prompt for that provider
   * (a JSON list of chat messages is a conversation, anthropic's `system:` /
   * `user:` lines…); messages are sent as they are.
   */
  prompt: string | ChatMessage[]
  /** OpenAI-style tools (`{type: "function", function: {name, description, parameters}}`), translated per provider; the provider config's own `tools` win */
  tools?: unknown[]
  temperature?: number
  maxTokens?: number
  /** ask for a JSON reply where the API has a switch for it (the judge) */
  json?: boolean
  /** promptfoo's `vars` of the test (http bodies, Python providers' context) */
  vars?: Record<string, unknown>
  /** extra request headers (a trial's `traceparent`) */
  headers?: Record<string, string>
}

/** Token counts as the record keeps them. */
export interface ProviderUsage {
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  /** what the provider itself said the call cost (a Python provider's `cost`) */
  costUsd?: number
}

export interface ProviderResult {
  /** the reply as text: what promptfoo's checks would see (tool calls without text are their JSON) */
  output: string
  /** tool calls, normalised to {name, args}; absent when the API has no such notion */
  toolCalls?: ToolCall[]
  usage?: ProviderUsage
  /** the model that answered (as the API names it, else as configured) */
  model: string
  finishReason?: string
  /** any provider-specific detail worth keeping (promptfoo's `metadata`) */
  metadata?: Record<string, unknown>
}

/** A model behind an API, made once per run from its id and config. */
export interface Provider {
  /** promptfoo's id, e.g. `anthropic:messages:claude-sonnet-4` */
  readonly id: string
  /** the model name, for pricing and the record */
  readonly model: string
  /** why no call can be made (a missing key), when that is known before any call; calls then fail with it */
  readonly unusable?: string
  call(call: ProviderCall, http: HttpOptions): Promise<ProviderResult>
  /** ends what the provider keeps running (a Python worker) */
  close(): Promise<void>
}

/** promptfoo's `{id, config}`: what a provider is made from. */
export interface ProviderSpec {
  id: string
  config?: Record<string, unknown>
  /** promptfoo's `label` */
  label?: string
}

export interface ProviderContext extends HttpSeams {
  /** where keys, hosts and base URLs are read from (promptfoo's variables) */
  env: NodeJS.ProcessEnv
  /** every credential a provider reads is added, to be redacted everywhere */
  secrets: Set<string>
  /** relative paths of the config (a Python provider's file) are resolved against it */
  baseDir: string
  /** names the provider's place in messages: "target", "judge", "providers[2]" */
  where: string
  /** the deadline of the config's code a provider runs (an http provider's transformResponse): checkTimeoutMs */
  checkTimeoutMs?: number
  /**
   * the whole environment of code a provider runs (a Python provider's process):
   * the minimal one plus what the trusted config passes (target.env); never `env` itself
   */
  codeEnv?: Record<string, string>
}

/**
 * A credential a provider would send, and where: the
 * environment variable it reads, or the config key that holds it, and the
 * host it goes to. Plain data, so the secrets policy can compare a pull
 * request's flows with the base commit's without making any provider.
 */
export interface CredentialFlow {
  /** the environment variable read (`ANTHROPIC_API_KEY`), or undefined when the value is written in the config */
  variable?: string
  /** the config key that holds it when written there (`apiKey`) */
  configKey?: string
  /** where it is sent: host[:port], e.g. `api.anthropic.com` */
  host: string
  /** the provider id that sends it */
  provider: string
}
