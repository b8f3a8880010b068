/**
 * The `provider` target: the agent under test is a model behind
 * any provider of the registry — `target: {provider: anthropic:messages:…,
 * config: {…}}` in evalgate.yml, and each provider of a promptfoo config.
 * The input is the prompt (a list of chat messages is sent as the
 * conversation, other JSON as its text); the reply's text, tool calls,
 * usage, model and finish reason are the trial's result.
 */
import type { TargetConfig } from '../config/schema.js'
import { ConfigError, errorMessage, TargetError } from '../errors.js'
import type { HttpSeams } from '../llm/http.js'
import { inputText } from '../llm/template.js'
import { createProvider, priceListProvider, ProviderError, type ChatMessage, type Provider, type ProviderSpec } from '../providers/index.js'
import { expandDeep, expandVars, minimalEnv } from '../util/env.js'
import { asTargetFailure, trialHttpOptions } from './http.js'
import type { Target, TargetContext, TargetReply, TrialRequest } from './types.js'

export function createProviderTarget(
  spec: ProviderSpec,
  ctx: TargetContext,
  target: Pick<TargetConfig, 'timeoutMs' | 'retries' | 'tools' | 'maxOutputBytes' | 'env'>,
  deps: HttpSeams & { where?: string } = {}
): Target {
  const where = deps.where ?? 'target.provider'
  const config = spec.config && expandDeep(spec.config, ctx.env, ctx.secrets, `${where}.config`)
  // code the provider runs (a Python provider) sees the minimal environment and target.env, as a module agent does
  const extra = Object.fromEntries(Object.entries(target.env).map(([name, value]) => [name, expandVars(value, ctx.env, ctx.secrets, `target.env.${name}`)]))
  const codeEnv = minimalEnv(ctx.env, extra)
  let provider: Provider
  try {
    provider = createProvider(
      { ...spec, ...(config ? { config } : {}) },
      { env: ctx.env, secrets: ctx.secrets, baseDir: ctx.baseDir, where, checkTimeoutMs: ctx.checkTimeoutMs, codeEnv, ...deps }
    )
  } catch (err) {
    throw new ConfigError(errorMessage(err))
  }
  // every trial would fail without a key: a config error before any runs
  if (provider.unusable) throw new ConfigError(provider.unusable)
  const priceList = priceListProvider(spec.id)
  // the tools the model is offered: the provider config's own (promptfoo), else target.tools
  const tools = Array.isArray(config?.tools) ? (config.tools as unknown[]) : target.tools
  return {
    async call(request: TrialRequest): Promise<TargetReply> {
      let result
      try {
        result = await provider.call(
          // a conversation's turn: the conversation so far is the chat
          { prompt: request.messages ?? promptOf(request.input), tools: target.tools, vars: request.case.vars },
          trialHttpOptions(target, request, ctx, deps)
        )
      } catch (err) {
        throw err instanceof ProviderError ? new TargetError(err.message) : asTargetFailure(err)
      }
      const reply: TargetReply = { output: result.output, metadata: { ...result.metadata, model: result.model } }
      if (priceList !== undefined) reply.priceList = priceList
      if (result.toolCalls) reply.toolCalls = result.toolCalls
      if (result.usage) reply.usage = result.usage
      if (result.finishReason !== undefined) reply.finishReason = result.finishReason
      if (tools) reply.tools = tools
      return reply
    },
    close: () => provider.close()
  }
}

/** The trial's input as a prompt: text as it is, chat messages as the conversation, any other value as its JSON. */
function promptOf(input: unknown): string | ChatMessage[] {
  if (Array.isArray(input) && input.length > 0 && input.every((m) => typeof m?.content === 'string' && ['system', 'user', 'assistant'].includes(m?.role)))
    return input as ChatMessage[]
  return inputText(input)
}
