/**
 * Bedrock's SigV4 signing: evalgate's signer (the aws4 package) and the
 * tests' server-side check (__fixtures__/sigv4.ts, written from AWS's
 * description) both reproduce AWS's published Signature Version 4 test
 * vectors (the aws-sig-v4-test-suite's get-vanilla, post-vanilla and
 * get-vanilla-query-order-key-case: credentials AKIDEXAMPLE, 2015-08-30
 * 12:36:00 UTC, us-east-1, service "service"), so that the protocol tests
 * against a server on 127.0.0.1 check real signatures.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import aws4 from 'aws4'
import { signedHeaders } from '../../src/providers/bedrock.js'
import { createProvider, credentialFlows } from '../../src/providers/index.js'
import { FakeServer, startServer } from '../__fixtures__/openai-server.js'
import { verifySigV4 } from '../__fixtures__/sigv4.js'

const EXAMPLE = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }
const AUTH = 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature='

/** AWS's published vectors: method, path and query, and the signature AWS gives. */
const VECTORS = [
  ['get-vanilla', 'GET', '/', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'],
  ['post-vanilla', 'POST', '/', '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b'],
  ['get-vanilla-query-order-key-case', 'GET', '/?Param2=value2&Param1=value1', 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500']
] as const

describe('SigV4 against AWS’s published test vectors', () => {
  it.each(VECTORS)('the tests’ server check accepts AWS’s own signature (%s)', (_name, method, url, signature) => {
    const request = { method, url, headers: { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z', authorization: AUTH + signature }, raw: '' }
    expect(verifySigV4(request, EXAMPLE.secretAccessKey)).toMatchObject({ valid: true, scope: '20150830/us-east-1/service/aws4_request' })
    const forged = { ...request, headers: { ...request.headers, authorization: AUTH + signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) } }
    expect(verifySigV4(forged, EXAMPLE.secretAccessKey).valid).toBe(false)
  })

  it('evalgate’s signer gives AWS’s signature for the same request', () => {
    // the aws4 package signs whatever headers it is given; the vectors sign only host and x-amz-date
    for (const [, method, path, signature] of VECTORS) {
      const signed = aws4.sign(
        { host: 'example.amazonaws.com', method, path, service: 'service', region: 'us-east-1', headers: { 'X-Amz-Date': '20150830T123600Z' } },
        EXAMPLE
      )
      expect(signed.headers!.Authorization).toBe(AUTH + signature)
    }
  })

  it('a signed Bedrock request verifies; changing its body, path or a signed header does not', () => {
    const url = 'http://127.0.0.1:9999/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke'
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })
    const headers = signedHeaders(url, body, { kind: 'sigv4', credentials: { ...EXAMPLE, sessionToken: 'session-token-1' } }, 'eu-west-1', '20250102T030405Z')
    expect(headers['x-amz-security-token']).toBe('session-token-1')
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20250102\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=/)
    const received = {
      method: 'POST',
      url: '/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke',
      headers: { ...headers, host: '127.0.0.1:9999', 'content-length': String(Buffer.byteLength(body)) },
      raw: body
    }
    expect(verifySigV4(received, EXAMPLE.secretAccessKey)).toMatchObject({
      valid: true,
      signedHeaders: expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token', 'content-type'])
    })
    expect(verifySigV4({ ...received, raw: body.replace('hi', 'ho') }, EXAMPLE.secretAccessKey).valid).toBe(false)
    expect(verifySigV4({ ...received, url: received.url.replace('invoke', 'converse') }, EXAMPLE.secretAccessKey).valid).toBe(false)
    expect(verifySigV4({ ...received, headers: { ...received.headers, 'x-amz-security-token': 'other' } }, EXAMPLE.secretAccessKey).valid).toBe(false)
    expect(verifySigV4(received, 'another-secret').valid).toBe(false)
  })
})

describe('bedrock', () => {
  let server: FakeServer
  beforeEach(async () => {
    server = await startServer()
  })
  afterEach(() => server.close())
  const http = { sleep: async () => {}, timeoutMs: 30_000 }

  it('credentials in promptfoo’s order: config keys, then a Bedrock API key as a bearer token, then the environment’s keys', async () => {
    server.respond(() => ({ body: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn' } }))
    const env = { AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: 'env-secret', AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-1' }
    const make = (config: Record<string, unknown>) =>
      createProvider(
        { id: 'bedrock:converse:amazon.nova-lite-v1:0', config: { endpoint: server.url, ...config } },
        { env, secrets: new Set(), baseDir: '.', where: 'judge' }
      )
    await make({ accessKeyId: 'AKIACONFIG', secretAccessKey: 'config-secret' }).call({ prompt: 'x' }, http)
    await make({}).call({ prompt: 'x' }, http)
    const { AWS_BEARER_TOKEN_BEDROCK: _bearer, ...keysOnly } = env
    await createProvider(
      { id: 'bedrock:converse:amazon.nova-lite-v1:0', config: { endpoint: server.url } },
      { env: keysOnly, secrets: new Set(), baseDir: '.', where: 'judge' }
    ).call({ prompt: 'x' }, http)
    const [config, bearer, environment] = server.requests
    expect(verifySigV4(config!, 'config-secret')).toMatchObject({ valid: true, accessKeyId: 'AKIACONFIG' })
    expect(bearer!.headers.authorization).toBe('Bearer bedrock-api-key-1')
    expect(verifySigV4(environment!, 'env-secret')).toMatchObject({
      valid: true,
      accessKeyId: 'AKIAENV',
      scope: expect.stringMatching(/\/us-east-1\/bedrock\/aws4_request$/)
    })
    expect(config!.url).toBe('/model/amazon.nova-lite-v1%3A0/converse')
  })

  it('region from config, else AWS_BEDROCK_REGION; the endpoint from config, else the region’s host', () => {
    const flows = (config: Record<string, unknown>, env: NodeJS.ProcessEnv) =>
      credentialFlows({ id: 'bedrock:anthropic.claude-3-haiku-20240307-v1:0', config }, env)
    expect(flows({}, { AWS_BEDROCK_REGION: 'eu-central-1' })[0]).toEqual({
      variable: 'AWS_BEARER_TOKEN_BEDROCK',
      host: 'bedrock-runtime.eu-central-1.amazonaws.com',
      provider: 'bedrock:anthropic.claude-3-haiku-20240307-v1:0'
    })
    expect(flows({ region: 'ap-south-1' }, { AWS_BEDROCK_REGION: 'eu-central-1' }).map((f) => f.variable)).toEqual([
      'AWS_BEARER_TOKEN_BEDROCK',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN'
    ])
    expect(flows({ region: 'ap-south-1' }, {})[0]!.host).toBe('bedrock-runtime.ap-south-1.amazonaws.com')
    expect(flows({ endpoint: 'https://vpce-1.bedrock-runtime.example:8443' }, {})[0]!.host).toBe('vpce-1.bedrock-runtime.example:8443')
  })

  it('without credentials, or with a profile, says what to set', () => {
    const make = (config: Record<string, unknown>, env: NodeJS.ProcessEnv) =>
      createProvider({ id: 'bedrock:converse:meta.llama3-8b-instruct-v1:0', config }, { env, secrets: new Set(), baseDir: '.', where: 'target' })
    expect(make({}, {}).unusable).toMatch(/no AWS credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/)
    expect(make({ profile: 'dev' }, { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' }).unusable).toMatch(
      /profiles and SSO .* are not supported by evalgate/
    )
  })
})
