/**
 * promptfoo's environment variables for hosts, base URLs and keys, each set
 * alone (SPEC §11a: a suite pointed at a proxy or a local server changes no
 * line): the request goes where promptfoo 0.121.20 sends it, with the key it
 * sends, in promptfoo's order when several are set. The names and orders
 * were read from promptfoo's providers (openai, anthropic, google/vertex,
 * azure, ollama, bedrock). Requests to an https host reach the server on
 * 127.0.0.1 through a fetch that keeps their path, after noting the URL.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { createProvider, credentialFlows } from '../../src/providers/index.js'
import type { FakeServer, RecordedRequest } from '../__fixtures__/openai-server.js'
import { chatReply, startServer } from '../__fixtures__/openai-server.js'
import { verifySigV4 } from '../__fixtures__/sigv4.js'

let server: FakeServer
/** the URLs as the provider asked for them, before any https host was sent here */
const asked: string[] = []
const fetchImpl: typeof fetch = (url, init) => {
  asked.push(String(url))
  const local = String(url).replace(/^https:\/\/[^/]+/, server.url)
  return fetch(local, init)
}

/** Each API's reply, by the path it was asked on. */
function reply(r: RecordedRequest) {
  const path = r.url.split('?')[0]!
  if (path.endsWith('/v1/messages'))
    return { body: { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } } }
  if (path.endsWith(':generateContent')) return { body: { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] } }
  if (path.endsWith('/converse')) return { body: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn' } }
  if (path === '/api/chat' || path === '/api/generate') return { body: JSON.stringify({ message: { content: 'ok' }, response: 'ok', done: true }) + '\n' }
  return { body: chatReply('ok') }
}

beforeEach(async () => {
  server = (await startServer()).respond(reply)
  asked.length = 0
})
afterEach(() => server.close())

interface Row {
  /** what is shown: the variables set */
  name: string
  id: string
  config?: Record<string, unknown>
  /** `HOST` is this server's host:port, `BASE` its http URL */
  env: Record<string, string>
  /** the URL asked for (same placeholders) */
  url: string
  /** the credential as the request carries it */
  auth: (r: RecordedRequest) => unknown
  sent: unknown
}

const header = (name: string) => (r: RecordedRequest) => r.headers[name]

const rows: Row[] = [
  // OpenAI: config apiHost, apiBaseUrl, then OPENAI_API_HOST (https), OPENAI_API_BASE_URL, OPENAI_BASE_URL; the key from apiKeyEnvar, else OPENAI_API_KEY
  {
    name: 'OPENAI_API_HOST',
    id: 'openai:chat:gpt-4o-mini',
    env: { OPENAI_API_HOST: 'HOST', OPENAI_API_KEY: 'k1' },
    url: 'https://HOST/v1/chat/completions',
    auth: header('authorization'),
    sent: 'Bearer k1'
  },
  {
    name: 'OPENAI_API_BASE_URL over OPENAI_BASE_URL',
    id: 'openai:chat:gpt-4o-mini',
    env: { OPENAI_API_BASE_URL: 'BASE/proxy/v1', OPENAI_BASE_URL: 'https://elsewhere.example/v1', OPENAI_API_KEY: 'k2' },
    url: 'BASE/proxy/v1/chat/completions',
    auth: header('authorization'),
    sent: 'Bearer k2'
  },
  {
    name: 'OPENAI_API_HOST over OPENAI_BASE_URL',
    id: 'openai:gpt-4o-mini',
    env: { OPENAI_API_HOST: 'HOST', OPENAI_BASE_URL: 'https://elsewhere.example/v1', OPENAI_API_KEY: 'k3' },
    url: 'https://HOST/v1/chat/completions',
    auth: header('authorization'),
    sent: 'Bearer k3'
  },
  {
    name: 'apiBaseUrl over OPENAI_API_HOST; apiKeyEnvar over OPENAI_API_KEY; OPENAI_ORGANIZATION',
    id: 'openai:chat:gpt-4o-mini',
    config: { apiBaseUrl: 'BASE/v1', apiKeyEnvar: 'TEAM_OPENAI_KEY' },
    env: { OPENAI_API_HOST: 'elsewhere.example', OPENAI_API_KEY: 'not-this', TEAM_OPENAI_KEY: 'k4', OPENAI_ORGANIZATION: 'org-7' },
    url: 'BASE/v1/chat/completions',
    auth: (r) => [r.headers.authorization, r.headers['openai-organization']],
    sent: ['Bearer k4', 'org-7']
  },
  // Anthropic: config apiBaseUrl, else ANTHROPIC_BASE_URL; config apiKey, else ANTHROPIC_API_KEY
  {
    name: 'ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY',
    id: 'anthropic:messages:claude-sonnet-4',
    env: { ANTHROPIC_BASE_URL: 'BASE/gateway', ANTHROPIC_API_KEY: 'k5' },
    url: 'BASE/gateway/v1/messages',
    auth: header('x-api-key'),
    sent: 'k5'
  },
  {
    name: 'apiBaseUrl and apiKey over ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY',
    id: 'anthropic:messages:claude-sonnet-4',
    config: { apiBaseUrl: 'BASE', apiKey: 'k6' },
    env: { ANTHROPIC_BASE_URL: 'https://elsewhere.example', ANTHROPIC_API_KEY: 'not-this' },
    url: 'BASE/v1/messages',
    auth: header('x-api-key'),
    sent: 'k6'
  },
  {
    name: 'ANTHROPIC_CUSTOM_HEADERS (the Anthropic SDK’s: a gateway’s headers, one `Name: value` a line)',
    id: 'anthropic:messages:claude-sonnet-4',
    env: { ANTHROPIC_BASE_URL: 'BASE', ANTHROPIC_API_KEY: 'k5b', ANTHROPIC_CUSTOM_HEADERS: 'cf-aig-authorization: Bearer gw-1\nX-Team:  evals \nnot a header' },
    url: 'BASE/v1/messages',
    auth: (r) => [r.headers['x-api-key'], r.headers['cf-aig-authorization'], r.headers['x-team'], r.headers['anthropic-version']],
    sent: ['k5b', 'Bearer gw-1', 'evals', '2023-06-01']
  },
  // Google AI Studio: apiHost, GOOGLE_API_HOST, PALM_API_HOST (https) before apiBaseUrl, GOOGLE_API_BASE_URL; keys GOOGLE_API_KEY, GEMINI_API_KEY, PALM_API_KEY
  {
    name: 'GOOGLE_API_HOST over GOOGLE_API_BASE_URL; GOOGLE_API_KEY over GEMINI_API_KEY',
    id: 'google:gemini-2.5-flash',
    env: { GOOGLE_API_HOST: 'HOST', GOOGLE_API_BASE_URL: 'https://elsewhere.example', GOOGLE_API_KEY: 'k7', GEMINI_API_KEY: 'not-this' },
    url: 'https://HOST/v1beta/models/gemini-2.5-flash:generateContent',
    auth: header('x-goog-api-key'),
    sent: 'k7'
  },
  {
    name: 'PALM_API_HOST; GEMINI_API_KEY over PALM_API_KEY',
    id: 'google:gemini-2.5-flash',
    env: { PALM_API_HOST: 'HOST', GEMINI_API_KEY: 'k8', PALM_API_KEY: 'not-this' },
    url: 'https://HOST/v1beta/models/gemini-2.5-flash:generateContent',
    auth: header('x-goog-api-key'),
    sent: 'k8'
  },
  {
    name: 'GOOGLE_API_BASE_URL; PALM_API_KEY',
    id: 'google:gemini-2.5-flash',
    env: { GOOGLE_API_BASE_URL: 'BASE', PALM_API_KEY: 'k9' },
    url: 'BASE/v1beta/models/gemini-2.5-flash:generateContent',
    auth: header('x-goog-api-key'),
    sent: 'k9'
  },
  // Vertex (express mode): apiHost, VERTEX_API_HOST, else the region's host (region, VERTEX_REGION, GOOGLE_CLOUD_LOCATION);
  // VERTEX_API_VERSION, VERTEX_PUBLISHER; keys VERTEX_API_KEY, GOOGLE_API_KEY
  {
    name: 'VERTEX_API_HOST, VERTEX_API_VERSION, VERTEX_PUBLISHER; VERTEX_API_KEY over GOOGLE_API_KEY',
    id: 'vertex:gemini-2.5-pro',
    env: { VERTEX_API_HOST: 'HOST', VERTEX_API_VERSION: 'v1beta1', VERTEX_PUBLISHER: 'acme', VERTEX_API_KEY: 'k10', GOOGLE_API_KEY: 'not-this' },
    url: 'https://HOST/v1beta1/publishers/acme/models/gemini-2.5-pro:generateContent',
    auth: header('x-goog-api-key'),
    sent: 'k10'
  },
  {
    name: 'VERTEX_REGION over GOOGLE_CLOUD_LOCATION; GOOGLE_API_KEY',
    id: 'vertex:gemini-2.5-pro',
    env: { VERTEX_REGION: 'europe-west4', GOOGLE_CLOUD_LOCATION: 'asia-east1', GOOGLE_API_KEY: 'k11' },
    url: 'https://europe-west4-aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro:generateContent',
    auth: header('x-goog-api-key'),
    sent: 'k11'
  },
  {
    name: 'GOOGLE_CLOUD_LOCATION',
    id: 'vertex:gemini-2.5-pro',
    env: { GOOGLE_CLOUD_LOCATION: 'global', GOOGLE_API_KEY: 'k12' },
    url: 'https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro:generateContent',
    auth: header('x-goog-api-key'),
    sent: 'k12'
  },
  // Azure: apiBaseUrl, AZURE_API_BASE_URL, AZURE_OPENAI_API_BASE_URL, AZURE_OPENAI_BASE_URL before apiHost, AZURE_API_HOST, AZURE_OPENAI_API_HOST (https);
  // keys apiKey, apiKeyEnvar, AZURE_API_KEY, AZURE_OPENAI_API_KEY
  {
    name: 'AZURE_API_HOST over AZURE_OPENAI_API_HOST; AZURE_API_KEY over AZURE_OPENAI_API_KEY',
    id: 'azure:chat:prod-4o',
    env: { AZURE_API_HOST: 'HOST', AZURE_OPENAI_API_HOST: 'elsewhere.example', AZURE_API_KEY: 'k13', AZURE_OPENAI_API_KEY: 'not-this' },
    url: 'https://HOST/openai/deployments/prod-4o/chat/completions?api-version=2024-12-01-preview',
    auth: header('api-key'),
    sent: 'k13'
  },
  {
    name: 'AZURE_OPENAI_API_HOST; AZURE_OPENAI_API_KEY',
    id: 'azure:chat:prod-4o',
    env: { AZURE_OPENAI_API_HOST: 'HOST', AZURE_OPENAI_API_KEY: 'k14' },
    url: 'https://HOST/openai/deployments/prod-4o/chat/completions?api-version=2024-12-01-preview',
    auth: header('api-key'),
    sent: 'k14'
  },
  {
    name: 'AZURE_API_BASE_URL over AZURE_API_HOST',
    id: 'azure:chat:prod-4o',
    env: { AZURE_API_BASE_URL: 'BASE/azure', AZURE_API_HOST: 'elsewhere.example', AZURE_API_KEY: 'k15' },
    url: 'BASE/azure/openai/deployments/prod-4o/chat/completions?api-version=2024-12-01-preview',
    auth: header('api-key'),
    sent: 'k15'
  },
  {
    name: 'AZURE_OPENAI_BASE_URL; apiKeyEnvar over AZURE_API_KEY',
    id: 'azure:chat:prod-4o',
    config: { apiKeyEnvar: 'TEAM_AZURE_KEY', apiVersion: '2024-10-21' },
    env: { AZURE_OPENAI_BASE_URL: 'BASE', AZURE_API_KEY: 'not-this', TEAM_AZURE_KEY: 'k16' },
    url: 'BASE/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21',
    auth: header('api-key'),
    sent: 'k16'
  },
  // Ollama: OLLAMA_BASE_URL, OLLAMA_API_KEY as a bearer token
  {
    name: 'OLLAMA_BASE_URL, OLLAMA_API_KEY',
    id: 'ollama:chat:llama3.1',
    env: { OLLAMA_BASE_URL: 'BASE', OLLAMA_API_KEY: 'k17' },
    url: 'BASE/api/chat',
    auth: header('authorization'),
    sent: 'Bearer k17'
  },
  // Bedrock: region from AWS_BEDROCK_REGION (not AWS_REGION, as promptfoo); AWS_BEARER_TOKEN_BEDROCK before the AWS keys
  {
    name: 'AWS_BEDROCK_REGION (AWS_REGION is not read), AWS_BEARER_TOKEN_BEDROCK over the keys',
    id: 'bedrock:converse:amazon.nova-lite-v1:0',
    env: { AWS_BEDROCK_REGION: 'eu-west-3', AWS_REGION: 'ap-south-1', AWS_BEARER_TOKEN_BEDROCK: 'k18', AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 's' },
    url: 'https://bedrock-runtime.eu-west-3.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse',
    auth: header('authorization'),
    sent: 'Bearer k18'
  },
  {
    name: 'AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (SigV4)',
    id: 'bedrock:converse:amazon.nova-lite-v1:0',
    env: { AWS_ACCESS_KEY_ID: 'AKIAVARS', AWS_SECRET_ACCESS_KEY: 'vars-secret', AWS_SESSION_TOKEN: 'session-19' },
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse',
    // signed for the host asked (the signature's validity is checked where the host is this server's: roles.test.ts)
    auth: (r) => [verifySigV4(r, 'vars-secret').accessKeyId, verifySigV4(r, 'vars-secret').scope, r.headers['x-amz-security-token']],
    sent: ['AKIAVARS', expect.stringMatching(/^\d{8}\/us-east-1\/bedrock\/aws4_request$/), 'session-19']
  }
]

describe.each(rows)('$id: $name', (row) => {
  const fill = (s: string) => s.replace('HOST', server.url.replace('http://', '')).replace('BASE', server.url)
  const env = () => Object.fromEntries(Object.entries(row.env).map(([k, v]) => [k, fill(v)]))
  const config = () => (row.config ? (JSON.parse(fill(JSON.stringify(row.config))) as Record<string, unknown>) : undefined)

  it('sends the request where promptfoo would, with the key promptfoo would send', async () => {
    const provider = createProvider({ id: row.id, config: config() }, { env: env(), secrets: new Set(), baseDir: '.', where: 'target' })
    expect(provider.unusable).toBeUndefined()
    const result = await provider.call({ prompt: 'hi' }, { fetchImpl, timeoutMs: 30_000, retries: 0 })
    expect(result.output).toBe('ok')
    expect(asked).toEqual([fill(row.url)])
    expect(row.auth(server.requests[0]!)).toEqual(row.sent)
  })

  it('declares the same host to the secrets policy', () => {
    const host = new URL(fill(row.url)).host
    const flows = credentialFlows({ id: row.id, config: config() }, env())
    expect(flows.length).toBeGreaterThan(0)
    expect(new Set(flows.map((f) => f.host))).toEqual(new Set([host]))
  })
})

it('a gateway’s headers from ANTHROPIC_CUSTOM_HEADERS are secrets, and a flow toward the host the key goes to', () => {
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_CUSTOM_HEADERS: 'cf-aig-authorization: Bearer gw-2' }
  const secrets = new Set<string>()
  createProvider({ id: 'anthropic:messages:claude-sonnet-4' }, { env, secrets, baseDir: '.', where: 'target' })
  expect(secrets).toEqual(new Set(['k', 'Bearer gw-2']))
  expect(credentialFlows({ id: 'anthropic:messages:claude-sonnet-4' }, env).map((f) => [f.variable, f.host])).toEqual([
    ['ANTHROPIC_API_KEY', 'api.anthropic.com'],
    ['ANTHROPIC_CUSTOM_HEADERS', 'api.anthropic.com']
  ])
})
