/**
 * Azure OpenAI (`azure:chat:<deployment>`, `azure:<deployment>`): the chat
 * completions wire format at
 * `{base}/openai/deployments/<deployment>/chat/completions?api-version=…`,
 * the key in `api-key`. Base and key as promptfoo reads them.
 */
import type { CredentialFlow, Provider, ProviderContext } from './types.js'
import { chatBody, chatComplete, stringHeaders } from './openai.js'
import { chatMessages, firstSet, hostOf, text, trimSlash, type Config, modelProvider } from './wire.js'

const DEFAULT_API_VERSION = '2024-12-01-preview'
const KEY_VARIABLES = ['AZURE_API_KEY', 'AZURE_OPENAI_API_KEY']

/** promptfoo's order: config `apiHost` (https), `apiBaseUrl`, then the variables; undefined when none is set. */
function azureBaseUrl(config: Config, env: NodeJS.ProcessEnv): string | undefined {
  const host = firstSet(config.apiHost, env.AZURE_API_HOST, env.AZURE_OPENAI_API_HOST)
  const base = firstSet(config.apiBaseUrl, env.AZURE_API_BASE_URL, env.AZURE_OPENAI_API_BASE_URL, env.AZURE_OPENAI_BASE_URL)
  // promptfoo reads apiBaseUrl first when both are given
  if (base) return trimSlash(base)
  if (host) return `https://${host.replace(/^https?:\/\//, '').replace(/\/$/, '')}`
  return undefined
}

function azureKey(config: Config, env: NodeJS.ProcessEnv): string | undefined {
  const named = text(config.apiKeyEnvar)
  return firstSet(config.apiKey, named ? env[named] : undefined, ...KEY_VARIABLES.map((v) => env[v]))
}

export function azureProvider(id: string, deployment: string, config: Config, ctx: ProviderContext): Provider {
  const baseUrl = azureBaseUrl(config, ctx.env)
  const apiKey = azureKey(config, ctx.env)
  if (apiKey) ctx.secrets.add(apiKey)
  const unusable = !baseUrl
    ? `${ctx.where}: ${id}: no Azure endpoint; set AZURE_API_HOST or AZURE_OPENAI_API_BASE_URL, or apiHost / apiBaseUrl in the provider config`
    : !apiKey
      ? `${ctx.where}: ${id}: no key; set AZURE_API_KEY (or AZURE_OPENAI_API_KEY), or apiKey in the provider config (Entra ID client credentials are not supported by evalgate)`
      : undefined
  const version = text(config.apiVersion) ?? DEFAULT_API_VERSION
  return modelProvider(id, deployment, unusable, async (call, http) => {
    const body = chatBody(deployment, call, config, chatMessages(call.prompt))
    if (text(config.systemPrompt)) body.messages = withSystem(body.messages as { role: string; content: unknown }[], config.systemPrompt as string)
    return chatComplete(
      {
        provider: id,
        url: `${baseUrl}/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(version)}`,
        auth: { 'api-key': apiKey! },
        body,
        showCalls: true
      },
      { ...http, headers: { ...stringHeaders(config.headers), ...call.headers, ...http.headers } }
    )
  })
}

/** promptfoo's `systemPrompt`: replaces the prompt's system message, or opens the conversation. */
function withSystem(messages: { role: string; content: unknown }[], system: string): { role: string; content: unknown }[] {
  const at = messages.findIndex((m) => m.role === 'system')
  if (at < 0) return [{ role: 'system', content: system }, ...messages]
  return messages.map((m, i) => (i === at ? { role: 'system', content: system } : m))
}

export function azureCredentials(id: string, config: Config, env: NodeJS.ProcessEnv): CredentialFlow[] {
  const host = hostOf(azureBaseUrl(config, env) ?? '')
  if (text(config.apiKey)) return [{ configKey: 'apiKey', host, provider: id }]
  const named = text(config.apiKeyEnvar)
  return [...(named ? [named] : []), ...KEY_VARIABLES].map((variable) => ({ variable, host, provider: id }))
}
