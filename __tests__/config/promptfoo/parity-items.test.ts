/**
 * What promptfoo's own examples needed beyond providers: a custom check that
 * returns no verdict fails as in promptfoo; a config without `tests` is
 * promptfoo's; a key evalgate does not read is refused as not supported;
 * the judge calls OPENAI_BASE_URL as the target does; an openai provider's
 * `tools` are sent and its tool-call reply is graded.
 */
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../../src/engine.js'
import { tempProject } from '../../__fixtures__/cli.js'
import { chatReply, FakeServer, startServer } from '../../__fixtures__/openai-server.js'

let server: FakeServer
beforeEach(async () => {
  server = await startServer()
})
afterEach(() => server.close())

async function run(files: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const dir = tempProject(files)
  const name = Object.keys(files).find((f) => f.endsWith('.yaml') || f.endsWith('.yml'))!
  return evaluate(await loadEvalConfig(path.join(dir, name)), { env: { PATH: process.env.PATH, ...env } })
}

describe('promptfoo parity items', () => {
  it('a javascript check returning text, null or a list fails in a promptfoo config (in evalgate.yml it counts as truthy)', async () => {
    const checks = ["'yes'", 'null', '[1]', 'true', '0.4', '({pass: true, score: 1, reason: "ok"})']
    const { record } = await run({
      'promptfooconfig.yaml': `prompts: [x]\nproviders: [echo]\ntests:\n${checks.map((c) => `  - assert: [{ type: javascript, value: ${JSON.stringify(c)} }]`).join('\n')}\n`
    })
    expect(record.cases.map((c) => c.passed)).toEqual([false, false, false, true, false, true])
    expect(record.cases[0]!.assertions[0]!.reason).toMatch(
      /must return a boolean, a number or \{pass, score, reason\}, as in promptfoo; it returned the string "yes"/
    )
    const own = await run({
      'evalgate.yml': `target: { module: ./a.mjs }\ncases: [{ input: x, assert: [{ type: javascript, value: "'yes'" }] }]\n`,
      'a.mjs': 'export default (q) => q'
    })
    expect(own.record.cases[0]!.passed).toBe(true)
  })

  it('a config without tests is promptfoo’s (run once); a key evalgate does not read is not supported, not a typo', async () => {
    const { record } = await run({ 'promptfooconfig.yaml': 'description: no tests\nprompts: ["hello {{name}}"]\nproviders: [echo]\n' })
    expect(record.cases.map((c) => c.output)).toEqual(['hello '])
    await expect(run({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests:\n  - vars: {}\n    provider: echo\n' })).rejects.toThrow(
      /promptfooconfig\.yaml:5 at tests\[0\]\.provider: "provider" is not supported by evalgate: remove it, or run this suite with promptfoo/
    )
    await expect(run({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: []\ndefaultTest:\n  options: { providr: x }\n' })).rejects.toThrow(
      /"providr" is not supported by evalgate \(or did you mean "provider"\?\)/
    )
  })

  it('the judge calls OPENAI_BASE_URL when judge.baseUrl is not set; an explicit one wins', async () => {
    server.respond(() => ({ body: chatReply('{"score": 1, "reason": "fine"}') }))
    const config = (judge: string) => ({
      'promptfooconfig.yaml': `prompts: [x]\nproviders: [echo]\ntests:\n  - assert: [{ type: llm-rubric, value: ok }]\n${judge}`
    })
    const viaEnv = await run(config(''), { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-1' })
    expect(viaEnv.record.cases[0]!.passed).toBe(true)
    expect(server.requests).toHaveLength(1)
    const explicit = await run(config(`evalgate:\n  judge: { baseUrl: "${server.url}/explicit/v1" }\n`), {
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      OPENAI_API_KEY: 'sk-1'
    })
    expect(explicit.record.cases[0]!.passed).toBe(true)
    expect(server.requests[1]!.url).toBe('/explicit/v1/chat/completions')
  })

  it('an openai provider’s tools and tool_choice are sent; its tool call is graded by is-valid-openai-tools-call', async () => {
    const tools = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }
    ]
    server.respond(() => ({
      body: {
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]
            },
            finish_reason: 'tool_calls'
          }
        ],
        usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 }
      }
    }))
    const { record } = await run(
      {
        'promptfooconfig.yaml': `prompts: ["Weather in {{city}}?"]
providers:
  - id: openai:chat:gpt-4o-mini
    config:
      tools: ${JSON.stringify(tools)}
      tool_choice: required
tests:
  - vars: { city: Paris }
    assert:
      - { type: is-valid-openai-tools-call }
      - { type: javascript, value: "output.includes('get_weather')" }
`
      },
      { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-1' }
    )
    expect(server.requests[0]!.body).toMatchObject({ tools, tool_choice: 'required' })
    expect(record.cases[0]).toMatchObject({ passed: true, toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] })
  })
})
