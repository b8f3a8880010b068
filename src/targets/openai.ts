/**
 * The `openai` target: the agent under test is a model behind any
 * OpenAI-compatible chat-completions server; `system` and the rendered
 * `prompt` are sent, the reply's content is the output, its usage recorded.
 */
import type { TargetConfig } from '../config/schema.js'
import { ConfigError } from '../errors.js'
import type { HttpSeams } from '../llm/http.js'
import { chatBody, chatComplete, chatCompletionsUrl, isLocalUrl } from '../providers/openai.js'
import type { ChatMessage } from '../providers/types.js'
import { isWholeInput, renderText } from '../llm/template.js'
import { credentialFrom, expandVars } from '../util/env.js'
import { asTargetFailure, trialHttpOptions } from './http.js'
import type { Target, TargetContext, TargetReply, TrialRequest } from './types.js'

export type OpenAITargetConfig = NonNullable<TargetConfig['openai']>

export type OpenAITargetDeps = HttpSeams

export function createOpenAITarget(
  openai: OpenAITargetConfig,
  ctx: TargetContext,
  target: Pick<TargetConfig, 'timeoutMs' | 'retries' | 'tools' | 'maxOutputBytes'>,
  deps: OpenAITargetDeps = {}
): Target {
  const expand = (text: string, field: string) => expandVars(text, ctx.env, ctx.secrets, `target.openai.${field}`)
  const baseUrl = expand(openai.baseUrl, 'baseUrl')
  const model = expand(openai.model, 'model')
  const system = openai.system === undefined ? undefined : expand(openai.system, 'system')
  const prompt = expand(openai.prompt, 'prompt')
  const apiKey = apiKeyFor(openai, ctx, baseUrl)
  return {
    async call(request: TrialRequest): Promise<TargetReply> {
      const messages = [...(system === undefined ? [] : [{ role: 'system' as const, content: system }]), ...userMessages(prompt, request)]
      const http = trialHttpOptions(target, request, ctx, deps)
      const body = chatBody(model, { prompt: messages, temperature: openai.temperature, maxTokens: openai.maxTokens, tools: target.tools }, {}, messages)
      const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {}
      let reply
      try {
        reply = await chatComplete({ provider: 'chat completions', url: chatCompletionsUrl(baseUrl), auth, body }, http)
      } catch (err) {
        throw asTargetFailure(err)
      }
      const result: TargetReply = { output: reply.output, usage: reply.usage, metadata: { model }, priceList: 'openai' }
      // the API leaves tool_calls out when the model called none: with tools offered, that is an empty trajectory
      if (reply.toolCalls) result.toolCalls = reply.toolCalls
      else if (target.tools) result.toolCalls = []
      if (reply.finishReason !== undefined) result.finishReason = reply.finishReason
      return result
    },
    async close() {}
  }
}

/** Every trial would fail without a key, so its absence is a config error; local servers need none. */
function apiKeyFor(openai: OpenAITargetConfig, ctx: TargetContext, baseUrl: string): string | undefined {
  const apiKey = credentialFrom(ctx.env, openai.apiKeyEnv, 'target.openai.apiKeyEnv')
  if (apiKey) ctx.secrets.add(apiKey)
  else if (!isLocalUrl(baseUrl)) {
    throw new ConfigError(`target.openai: environment variable ${openai.apiKeyEnv} is not set (target.openai.apiKeyEnv)`)
  }
  return apiKey
}

/**
 * The rendered prompt as one user message; an input that already is a list of
 * chat messages (OpenAI evals datasets) is sent as it is when the prompt is just `{{input}}`;
 * a conversation's turn sends the conversation so far.
 */
function userMessages(prompt: string, request: TrialRequest): ChatMessage[] {
  // a conversation's turn: the chat so far, each user message rendered through the prompt as a single input is
  if (request.messages) {
    return request.messages.map((m) => (m.role === 'user' ? { role: 'user', content: renderText(prompt, { input: m.content, case: request.case }) } : m))
  }
  if (isWholeInput(prompt) && isChatMessages(request.input)) return request.input
  return [{ role: 'user', content: renderText(prompt, { input: request.input, case: request.case }) }]
}

function isChatMessages(input: unknown): input is ChatMessage[] {
  return Array.isArray(input) && input.length > 0 && input.every((m) => typeof m?.content === 'string' && ['system', 'user', 'assistant'].includes(m?.role))
}
