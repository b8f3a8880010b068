/**
 * Every model API of the registry, as the target and as the grader (SPEC
 * §11a), against a server on 127.0.0.1 speaking that API: the exact request
 * (path, auth, body), the reply mapped to output, tool calls and usage, a
 * 429 retried after its retry-after, a 4xx named with the provider, the
 * status and the API's message.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { parseConfig } from '../../src/config/load.js'
import { judgeSchema } from '../../src/config/schema.js'
import { TargetError } from '../../src/errors.js'
import { createJudge } from '../../src/judge/judge.js'
import { credentialFlows } from '../../src/providers/index.js'
import { createTarget } from '../../src/targets/index.js'
import { createProviderTarget } from '../../src/targets/provider.js'
import type { RecordedRequest } from '../__fixtures__/openai-server.js'
import { FakeServer, startServer } from '../__fixtures__/openai-server.js'
import { verifySigV4 } from '../__fixtures__/sigv4.js'
import { request as trial, targetConfig } from '../targets/helpers.js'

let server: FakeServer
const waits: number[] = []
const sleep = async (ms: number) => {
  waits.push(ms)
}
/** Vertex speaks only https: its requests reach the plain server on 127.0.0.1 through this fetch, unchanged otherwise. */
const fetchImpl: typeof fetch = (url, init) => fetch(String(url).replace(/^https:\/\/127\.0\.0\.1/, 'http://127.0.0.1'), init)

beforeEach(async () => {
  server = await startServer()
  waits.length = 0
})
afterEach(() => server.close())

interface Api {
  id: string
  config?: () => Record<string, unknown>
  env: () => NodeJS.ProcessEnv
  /** path and query of the request */
  path: string
  auth: (r: RecordedRequest) => unknown
  authValue: unknown
  /** the body sent for the prompt "Capital of France?" with no settings */
  body: Record<string, unknown>
  /** a reply saying `text`, with 11 input and 7 output tokens */
  reply: (text: string) => unknown
  /** a reply with a tool call get_capital({country: "France"}), when the API has tools */
  toolReply?: unknown
  /** a refusal and the message the provider is named with */
  refusal: unknown
  refusalMessage: string
  /** replies are NDJSON lines (Ollama) */
  ndjson?: boolean
  credentials: (host: string) => unknown[]
}

const PROMPT = 'Capital of France?'

const apis: Api[] = [
  {
    id: 'anthropic:messages:claude-sonnet-4',
    env: () => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-1' }),
    path: '/v1/messages',
    auth: (r) => [r.headers['x-api-key'], r.headers['anthropic-version']],
    authValue: ['sk-ant-test-1', '2023-06-01'],
    body: { model: 'claude-sonnet-4', max_tokens: 1024, messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }] },
    reply: (text) => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 11, output_tokens: 7 }
    }),
    toolReply: {
      type: 'message',
      content: [
        { type: 'text', text: 'Looking it up.' },
        { type: 'tool_use', id: 'tu_1', name: 'get_capital', input: { country: 'France' } }
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 11, output_tokens: 7 }
    },
    refusal: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    refusalMessage: 'anthropic:messages:claude-sonnet-4: HTTP 401: invalid x-api-key',
    credentials: (host) => [{ variable: 'ANTHROPIC_API_KEY', host, provider: 'anthropic:messages:claude-sonnet-4' }]
  },
  {
    id: 'google:gemini-2.5-flash',
    env: () => ({ GOOGLE_API_BASE_URL: server.url, GEMINI_API_KEY: 'AIza-test-2' }),
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    auth: (r) => r.headers['x-goog-api-key'],
    authValue: 'AIza-test-2',
    body: { contents: [{ role: 'user', parts: [{ text: PROMPT }] }], generationConfig: {} },
    reply: (text) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 },
      modelVersion: 'gemini-2.5-flash'
    }),
    toolReply: {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_capital', args: { country: 'France' } } }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 }
    },
    refusal: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } },
    refusalMessage: 'google:gemini-2.5-flash: HTTP 400: API key not valid. Please pass a valid API key.',
    credentials: (host) => ['GOOGLE_API_KEY', 'GEMINI_API_KEY', 'PALM_API_KEY'].map((variable) => ({ variable, host, provider: 'google:gemini-2.5-flash' }))
  },
  {
    id: 'vertex:gemini-2.5-pro',
    config: () => ({ apiHost: server.url.replace('http://', '') }),
    env: () => ({ GOOGLE_API_KEY: 'AIza-vertex-3' }),
    path: '/v1/publishers/google/models/gemini-2.5-pro:generateContent',
    auth: (r) => r.headers['x-goog-api-key'],
    authValue: 'AIza-vertex-3',
    body: { contents: [{ role: 'user', parts: [{ text: PROMPT }] }], generationConfig: {} },
    reply: (text) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 }
    }),
    refusal: { error: { code: 403, message: 'Permission denied on resource project.', status: 'PERMISSION_DENIED' } },
    refusalMessage: 'vertex:gemini-2.5-pro: HTTP 403: Permission denied on resource project.',
    credentials: (host) => ['VERTEX_API_KEY', 'GOOGLE_API_KEY'].map((variable) => ({ variable, host, provider: 'vertex:gemini-2.5-pro' }))
  },
  {
    id: 'azure:chat:gpt4o-prod',
    config: () => ({ apiVersion: '2024-10-21' }),
    env: () => ({ AZURE_OPENAI_API_BASE_URL: server.url, AZURE_API_KEY: 'az-key-4' }),
    path: '/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21',
    auth: (r) => [r.headers['api-key'], r.headers.authorization],
    authValue: ['az-key-4', undefined],
    body: { model: 'gpt4o-prod', messages: [{ role: 'user', content: PROMPT }] },
    reply: (text) => ({
      model: 'gpt-4o-2024-08-06',
      choices: [{ message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
    }),
    toolReply: {
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_capital', arguments: '{"country":"France"}' } }]
          },
          finish_reason: 'tool_calls'
        }
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
    },
    refusal: { error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } },
    refusalMessage: 'azure:chat:gpt4o-prod: HTTP 404: The API deployment for this resource does not exist.',
    credentials: (host) => ['AZURE_API_KEY', 'AZURE_OPENAI_API_KEY'].map((variable) => ({ variable, host, provider: 'azure:chat:gpt4o-prod' }))
  },
  {
    id: 'ollama:chat:llama3.1:8b',
    env: () => ({ OLLAMA_BASE_URL: server.url, OLLAMA_API_KEY: 'ollama-key-5' }),
    path: '/api/chat',
    auth: (r) => r.headers.authorization,
    authValue: 'Bearer ollama-key-5',
    body: { model: 'llama3.1:8b', messages: [{ role: 'user', content: PROMPT }], options: {} },
    ndjson: true,
    reply: (text) =>
      [
        { model: 'llama3.1:8b', message: { role: 'assistant', content: text.slice(0, 3) }, done: false },
        { model: 'llama3.1:8b', message: { role: 'assistant', content: text.slice(3) }, done: false },
        { model: 'llama3.1:8b', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 11, eval_count: 7 }
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    toolReply:
      [
        { message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_capital', arguments: { country: 'France' } } }] }, done: false },
        { message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: 11, eval_count: 7 }
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    refusal: { error: 'model "llama3.1:8b" not found, try pulling it first' },
    refusalMessage: 'ollama:chat:llama3.1:8b: HTTP 404: model "llama3.1:8b" not found, try pulling it first',
    credentials: (host) => [{ variable: 'OLLAMA_API_KEY', host, provider: 'ollama:chat:llama3.1:8b' }]
  },
  {
    id: 'ollama:completion:mistral',
    env: () => ({ OLLAMA_BASE_URL: server.url }),
    path: '/api/generate',
    auth: (r) => r.headers.authorization,
    authValue: undefined,
    body: { model: 'mistral', prompt: PROMPT, stream: false, options: {} },
    ndjson: true,
    reply: (text) => JSON.stringify({ model: 'mistral', response: text, done: true, done_reason: 'stop', prompt_eval_count: 11, eval_count: 7 }) + '\n',
    refusal: { error: 'model "mistral" not found' },
    refusalMessage: 'ollama:completion:mistral: HTTP 404: model "mistral" not found',
    credentials: (host) => [{ variable: 'OLLAMA_API_KEY', host, provider: 'ollama:completion:mistral' }]
  },
  {
    id: 'bedrock:converse:amazon.nova-lite-v1:0',
    config: () => ({ endpoint: server.url, region: 'eu-west-1' }),
    env: () => ({ AWS_ACCESS_KEY_ID: 'AKIATEST7', AWS_SECRET_ACCESS_KEY: 'aws-secret-7', AWS_SESSION_TOKEN: 'oidc-session-7' }),
    path: '/model/amazon.nova-lite-v1%3A0/converse',
    auth: (r) => ({ ...verifySigV4(r, 'aws-secret-7'), token: r.headers['x-amz-security-token'] }),
    authValue: {
      valid: true,
      accessKeyId: 'AKIATEST7',
      scope: expect.stringMatching(/^\d{8}\/eu-west-1\/bedrock\/aws4_request$/),
      signedHeaders: expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']),
      token: 'oidc-session-7'
    },
    body: { messages: [{ role: 'user', content: [{ text: PROMPT }] }] },
    reply: (text) => ({
      output: { message: { role: 'assistant', content: [{ text }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 },
      metrics: { latencyMs: 120 }
    }),
    toolReply: {
      output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'get_capital', input: { country: 'France' } } }] } },
      stopReason: 'tool_use',
      usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 }
    },
    refusal: { message: 'The security token included in the request is invalid.' },
    refusalMessage: 'bedrock:converse:amazon.nova-lite-v1:0: HTTP 403: The security token included in the request is invalid.',
    credentials: (host) =>
      ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'].map((variable) => ({
        variable,
        host,
        provider: 'bedrock:converse:amazon.nova-lite-v1:0'
      }))
  },
  {
    id: 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0',
    config: () => ({ endpoint: server.url }),
    env: () => ({ AWS_ACCESS_KEY_ID: 'AKIATEST8', AWS_SECRET_ACCESS_KEY: 'aws-secret-8' }),
    path: '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
    auth: (r) => verifySigV4(r, 'aws-secret-8'),
    authValue: { valid: true, accessKeyId: 'AKIATEST8', scope: expect.stringMatching(/\/us-east-1\/bedrock\/aws4_request$/), signedHeaders: expect.any(Array) },
    body: {
      messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }],
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1024,
      temperature: 0
    },
    reply: (text) => ({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 11, output_tokens: 7 }
    }),
    refusal: { message: "You don't have access to the model with the specified model ID." },
    refusalMessage: "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0: HTTP 403: You don't have access to the model with the specified model ID.",
    credentials: (host) =>
      ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'].map((variable) => ({
        variable,
        host,
        provider: 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0'
      }))
  },
  {
    id: 'openai:chat:gpt-4o-mini',
    env: () => ({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-openai-6' }),
    path: '/v1/chat/completions',
    auth: (r) => r.headers.authorization,
    authValue: 'Bearer sk-openai-6',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] },
    reply: (text) => ({
      choices: [{ message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
    }),
    refusal: { error: { message: 'The model `gpt-4o-mini` does not exist' } },
    refusalMessage: 'openai:chat:gpt-4o-mini: HTTP 404: The model `gpt-4o-mini` does not exist',
    credentials: (host) => [{ variable: 'OPENAI_API_KEY', host, provider: 'openai:chat:gpt-4o-mini' }]
  }
]

/** A scripted reply of the API: NDJSON text for Ollama, JSON otherwise. */
function answer(api: Api, body: unknown, status = 200, headers: Record<string, string> = {}) {
  return { status, headers: api.ndjson && status === 200 ? { 'content-type': 'application/x-ndjson', ...headers } : headers, body }
}

/** The provider target as createTarget makes it, with the fetch that reaches Vertex's https host here. */
async function target(api: Api) {
  const config = targetConfig({ provider: api.id, ...(api.config ? { config: api.config() } : {}), timeoutMs: 30_000 })
  return createProviderTarget({ id: config.provider!, config: config.config }, { baseDir: '.', env: api.env(), secrets: new Set() }, config, {
    fetchImpl,
    sleep
  })
}

describe.each(apis)('$id', (api) => {
  it('as the target: the exact request, and the reply as output, usage and model', async () => {
    server.enqueue(answer(api, api.reply('Paris')))
    const t = await target(api)
    const reply = await t.call(trial(PROMPT))
    const sent = server.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.url).toBe(api.path)
    expect(api.auth(sent)).toEqual(api.authValue)
    expect(sent.body).toEqual(api.body)
    expect(reply.output).toBe('Paris')
    expect(reply.usage).toEqual({ inputTokens: 11, outputTokens: 7, totalTokens: 18 })
    expect(reply.finishReason).toBe('stop')
    expect(reply.metadata?.model).toEqual(expect.any(String))
  })

  it('as the grader: the rubric and output sent, the verdict read, tokens counted', async () => {
    server.enqueue(answer(api, api.reply('{"score": 0.8, "reason": "names the capital"}')))
    const config = judgeSchema.parse({ provider: api.id, ...(api.config ? { config: api.config() } : {}), retries: 0 })
    const judge = createJudge(config, { env: api.env(), secrets: new Set(), fetchImpl, sleep })
    const verdict = await judge.judge({ input: PROMPT, output: 'Paris', rubric: 'Names the capital city', threshold: 0.5 })
    expect(verdict).toMatchObject({ score: 0.8, reason: 'names the capital', model: api.id, tokens: 18 })
    const sent = server.requests[0]!
    expect(sent.url).toBe(api.path)
    expect(api.auth(sent)).toEqual(api.authValue)
    expect(sent.raw).toContain('Names the capital city')
    expect(sent.raw).toContain('Paris')
    expect(judge.stats()).toMatchObject({ calls: 1, errors: 0, tokens: 18 })
  })

  it('retries a 429 after its retry-after, then answers', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '2' }, body: { error: { message: 'rate limited' } } }, answer(api, api.reply('later')))
    const config = judgeSchema.parse({ provider: api.id, ...(api.config ? { config: api.config() } : {}), retries: 2 })
    const judge = createJudge(config, { env: api.env(), secrets: new Set(), fetchImpl, sleep })
    const verdict = await judge.judge({ input: PROMPT, output: 'x', rubric: 'r', threshold: 0.5 })
    expect(server.requests).toHaveLength(2)
    expect(waits).toEqual([2000])
    // "later" is no verdict: the reply was read, and judged unusable
    expect(verdict.error).toMatch(/judge reply is not JSON: later/)
  })

  it('as the target: retries a 429 after its retry-after and a 503, then the trial has the answer', async () => {
    server.enqueue(
      { status: 429, headers: { 'retry-after': '3' }, body: { error: { message: 'rate limited' } } },
      { status: 503, body: { error: { message: 'overloaded' } } },
      answer(api, api.reply('Paris'))
    )
    const reply = await (await target(api)).call(trial(PROMPT))
    expect(server.requests).toHaveLength(3)
    // the same request each time (a Bedrock request is signed again: its date may change, its body does not)
    expect(server.requests.map((r) => [r.url, r.body])).toEqual(Array(3).fill([api.path, api.body]))
    expect(waits[0]).toBe(3000)
    expect(waits).toHaveLength(2)
    expect(reply.output).toBe('Paris')
  })

  it('names the provider, the status and the API’s message on a 4xx, and does not retry it', async () => {
    const status = Number(/HTTP (\d+)/.exec(api.refusalMessage)![1])
    server.enqueue({ status, body: api.refusal })
    const config = judgeSchema.parse({ provider: api.id, ...(api.config ? { config: api.config() } : {}), retries: 3 })
    const judge = createJudge(config, { env: api.env(), secrets: new Set(), fetchImpl, sleep })
    const verdict = await judge.judge({ input: PROMPT, output: 'x', rubric: 'r', threshold: 0.5 })
    expect(verdict.error).toBe(`judge request failed: ${api.refusalMessage}`)
    expect(server.requests).toHaveLength(1)
    server.enqueue({ status, body: api.refusal })
    const err = await (await target(api)).call(trial(PROMPT)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TargetError)
    expect((err as Error).message).toBe(api.refusalMessage)
  })

  if (api.toolReply) {
    it('maps a tool call to {name, args}, and shows it in the output as promptfoo does', async () => {
      server.enqueue(answer(api, api.toolReply))
      const t = await target(api)
      const reply = await t.call(trial(PROMPT))
      expect(reply.toolCalls).toEqual([{ name: 'get_capital', args: { country: 'France' } }])
      expect(reply.output).toContain('get_capital')
    })
  }

  it('declares which variable it sends to which host', () => {
    const host = server.url.replace('http://', '')
    expect(credentialFlows({ id: api.id, ...(api.config ? { config: api.config() } : {}) }, api.env())).toEqual(api.credentials(host))
  })
})

describe('tools offered to the model', () => {
  const tools = [
    {
      type: 'function',
      function: { name: 'get_capital', description: 'Capital of a country', parameters: { type: 'object', properties: { country: { type: 'string' } } } }
    }
  ]

  it('anthropic gets them as input_schema tools; gemini as functionDeclarations; ollama and azure as they are', async () => {
    server.respond((r) =>
      r.url.startsWith('/api/')
        ? { body: JSON.stringify({ message: { content: 'ok' }, done: true }) + '\n' }
        : r.url.startsWith('/v1/messages')
          ? { body: apis[0]!.reply('ok') as object }
          : r.url.includes('generateContent')
            ? { body: apis[1]!.reply('ok') as object }
            : { body: apis[3]!.reply('ok') as object }
    )
    for (const api of [apis[0]!, apis[1]!, apis[3]!, apis[4]!]) {
      const config = targetConfig({ provider: api.id, ...(api.config ? { config: api.config() } : {}), tools })
      await (await createTarget(config, { baseDir: '.', env: api.env(), secrets: new Set() })).call(trial(PROMPT))
    }
    const [anthropic, google, azure, ollama] = server.requests.map((r) => r.body.tools)
    expect(anthropic).toEqual([{ name: 'get_capital', description: 'Capital of a country', input_schema: tools[0]!.function.parameters }])
    expect(google).toEqual([{ functionDeclarations: [tools[0]!.function] }])
    expect(azure).toEqual(tools)
    expect(ollama).toEqual(tools)
  })
})

describe('reading prompts as promptfoo does', () => {
  it('anthropic: system/user lines, and a JSON list with a system message', async () => {
    server.respond(() => ({ body: apis[0]!.reply('ok') as object }))
    const t = await target(apis[0]!)
    await t.call(trial('system: Be brief.\nuser: Hi\nassistant: Hello\nuser: Capital?'))
    await t.call(
      trial(
        JSON.stringify([
          { role: 'system', content: 'S' },
          { role: 'user', content: 'U' }
        ])
      )
    )
    expect(server.requests[0]!.body).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
        { role: 'user', content: [{ type: 'text', text: 'Capital?' }] }
      ]
    })
    expect(server.requests[1]!.body).toMatchObject({
      system: [{ type: 'text', text: 'S' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'U' }] }]
    })
  })

  it('gemini: chat messages become contents with role model, and the system message system_instruction', async () => {
    server.respond(() => ({ body: apis[1]!.reply('ok') as object }))
    const t = await target(apis[1]!)
    await t.call(
      trial([
        { role: 'system', content: 'S' },
        { role: 'user', content: 'U' },
        { role: 'assistant', content: 'A' }
      ])
    )
    expect(server.requests[0]!.body).toMatchObject({
      contents: [
        { role: 'user', parts: [{ text: 'U' }] },
        { role: 'model', parts: [{ text: 'A' }] }
      ],
      system_instruction: { parts: [{ text: 'S' }] }
    })
  })
})

describe('at load', () => {
  it('a target provider without its key is a config error naming the variable', async () => {
    await expect(createTarget(targetConfig({ provider: 'anthropic:messages:claude-3-haiku' }), { baseDir: '.', env: {}, secrets: new Set() })).rejects.toThrow(
      /target\.provider: anthropic:messages:claude-3-haiku: environment variable ANTHROPIC_API_KEY is not set/
    )
  })

  it('an unknown id is refused naming the file, the line and what is supported', () => {
    const config = (text: string) => () => parseConfig(`version: 1\ncases: [{input: x}]\n${text}`, 'evalgate.yml')
    expect(config('target:\n  provider: replicate:llama\n')).toThrow(
      /evalgate\.yml:4 at target\.provider: provider "replicate:llama" is not supported by evalgate; supported: openai:chat:<model>/
    )
    expect(config('target: {module: ./a.mjs}\njudge:\n  provider: claude\n')).toThrow(
      /evalgate\.yml:5 at judge\.provider: provider "claude" is not supported by evalgate/
    )
    expect(config('target: {module: ./a.mjs}\njudge:\n  provider: openai\n  config: {}\n')).toThrow(
      /at judge\.config: judge\.config is the settings of a provider id/
    )
    expect(config('target:\n  module: ./a.mjs\n  config: {x: 1}\n')).toThrow(/at target\.config: target\.config is the settings of a `provider` target/)
  })

  it('the key is a secret: collected for redaction', async () => {
    const secrets = new Set<string>()
    await createTarget(targetConfig({ provider: apis[0]!.id }), { baseDir: '.', env: apis[0]!.env(), secrets })
    expect(secrets.has('sk-ant-test-1')).toBe(true)
  })
})
