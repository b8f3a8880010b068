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
    expect(record.cases.map((c) => c.passed)).toEqual([false, false, false, true, true, true])
    expect(record.cases[0]!.assertions[0]!.reason).toMatch(
      /must return a boolean, a number or \{pass, score, reason\}, as in promptfoo; it returned the string "yes"/
    )
    const own = await run({
      'evalgate.yml': `target: { module: ./a.mjs }\ncases: [{ input: x, assert: [{ type: javascript, value: "'yes'" }] }]\n`,
      'a.mjs': 'export default (q) => q'
    })
    expect(own.record.cases[0]!.passed).toBe(true)
  })

  it('a promptfoo javascript check returning a number passes above 0 without a threshold, at the threshold with one', async () => {
    const checks = ['0.3', '0', '-0.2', '0.3']
    const { record } = await run({
      'promptfooconfig.yaml': `prompts: [x]\nproviders: [echo]\ntests:\n${checks.map((c, i) => `  - assert: [{ type: javascript, value: "${c}"${i === 3 ? ', threshold: 0.5' : ''} }]`).join('\n')}\n`
    })
    expect(record.cases.map((c) => c.passed)).toEqual([true, false, false, false])
    expect(record.cases[0]!.assertions[0]!.reason).toMatch(/returned 0\.3, which passes above 0 without a threshold, as in promptfoo/)
  })

  it('llm-rubric with a rubricPrompt needs no value: the grading prompt holds the criteria', async () => {
    server.respond(() => ({ body: chatReply('{"pass": false, "score": 1, "reason": "no clarifying question"}') }))
    const { record } = await run(
      {
        'promptfooconfig.yaml': `prompts: ["Talk about {{topic}}"]\nproviders: [echo]\ndefaultTest:\n  options:\n    rubricPrompt:\n      - { role: system, content: "Did it mention {{x}}?" }\n      - { role: user, content: "Output: {{ output }}" }\ntests:\n  - vars: { topic: rates, x: the Fed }\n    assert: [{ type: llm-rubric }]\n`
      },
      { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-1' }
    )
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'Did it mention the Fed?' },
      { role: 'user', content: 'Output: Talk about rates' }
    ])
    expect(record.cases[0]).toMatchObject({ passed: false, assertions: [{ reason: 'no clarifying question' }] })
  })

  it('a provider runs the prompts it names, a test those it names (label, id, `label*`, a file’s `label: n`)', async () => {
    const dir = tempProject({
      'p.txt': 'one {{q}}\n---\ntwo {{q}}\n',
      'promptfooconfig.yaml': [
        'prompts:',
        '  - { id: "file://p.txt", label: file }',
        '  - { raw: "plain {{q}}", label: plain }',
        'providers:',
        '  - { id: echo, label: a, prompts: [file] }',
        '  - { id: echo, label: b, prompts: ["pla*"] }',
        '  - { id: echo, label: c }',
        'tests:',
        '  - vars: { q: x }',
        '  - vars: { q: y }',
        '    prompts: ["file: 2", plain]',
        ''
      ].join('\n')
    })
    const loaded = await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))
    expect(loaded.cases.map((c) => c.id)).toEqual([
      'test 1 · file: 1 · a',
      'test 1 · file: 2 · a',
      'test 1 · plain · b',
      'test 1 · file: 1 · c',
      'test 1 · file: 2 · c',
      'test 1 · plain · c',
      'test 2 · file: 2 · a',
      'test 2 · plain · b',
      'test 2 · file: 2 · c',
      'test 2 · plain · c'
    ])
  })

  it('a grader given by use ({text, embedding}) grades with `text`; a check that embeds with a provider of its own is refused', async () => {
    server.respond(() => ({ body: chatReply('{"pass": true, "score": 1, "reason": "fine"}') }))
    const text = `{ id: "openai:chat:grader-model", config: { apiBaseUrl: "${server.baseUrl}" } }`
    const { record } = await run({
      'promptfooconfig.yaml': `prompts: [x]\nproviders: [echo]\ndefaultTest:\n  options:\n    provider: { text: ${text}, embedding: { id: "openai:embedding:e" } }\ntests:\n  - assert: [{ type: llm-rubric, value: ok }]\n`
    })
    expect(record.cases[0]).toMatchObject({ passed: true, assertions: [{ judge: { model: 'openai:chat:grader-model' } }] })
    expect(server.requests[0]!.body.model).toBe('grader-model')
    await expect(
      run({
        'promptfooconfig.yaml': `prompts: [x]\nproviders: [echo]\ntests:\n  - assert: [{ type: similar, value: x, provider: "azure:embeddings:e" }]\n`
      })
    ).rejects.toThrow(/similar with a `provider` of its own is not supported by evalgate: embeddings come from the judge/)
    await expect(
      run({
        'promptfooconfig.yaml': `prompts: [x]\nproviders: [echo]\ndefaultTest:\n  options:\n    provider: { embedding: "openai:embedding:e" }\ntests:\n  - assert: [{ type: answer-relevance }]\n`
      })
    ).rejects.toThrow(/answer-relevance with an embedding provider of its own is not supported by evalgate/)
  })

  it('a Gemini provider reads a file:// systemInstruction and sends Gemini’s own tools object as a list', async () => {
    server.respond(() => ({ body: { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] } }))
    const tools = { function_declarations: [{ name: 'verify_answer', parameters: { type: 'object' } }] }
    await run(
      {
        'system.txt': 'You are a math tutor.',
        'promptfooconfig.yaml': `prompts: [x]\nproviders:\n  - id: google:gemini-2.5-pro\n    config: { systemInstruction: "file://system.txt", tools: ${JSON.stringify(tools)} }\n`
      },
      { GOOGLE_API_BASE_URL: server.url, GEMINI_API_KEY: 'gemini-key-1' }
    )
    expect(server.requests[0]!.url).toBe('/v1beta/models/gemini-2.5-pro:generateContent')
    expect(server.requests[0]!.body).toMatchObject({ system_instruction: { parts: [{ text: 'You are a math tutor.' }] }, tools: [tools] })
  })

  it('a config without tests is promptfoo’s (run once); a key evalgate does not read is not supported, not a typo', async () => {
    const { record } = await run({ 'promptfooconfig.yaml': 'description: no tests\nprompts: ["hello {{name}}"]\nproviders: [echo]\n' })
    expect(record.cases.map((c) => c.output)).toEqual(['hello '])
    await expect(run({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests:\n  - vars: {}\n    provider: echo\n' })).rejects.toThrow(
      // a test's own provider: only promptfoo's simulated user (docs/conversations.md)
      /promptfooconfig\.yaml:4 at tests\[0\]\.provider: a test's own provider "echo" is not supported by evalgate; only promptfoo:simulated-user/
    )
    await expect(run({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: []\ndefaultTest:\n  options: { providr: x }\n' })).rejects.toThrow(
      /"providr" is not supported by evalgate \(or did you mean "provider"\?\)/
    )
  })

  it('a case’s expected names each check with its threshold (a cost check read "cost: undefined")', async () => {
    const dir = tempProject({
      'promptfooconfig.yaml':
        'prompts: [x]\nproviders: [echo]\ntests:\n  - assert: [{ type: cost, threshold: 0.01 }, { type: contains, value: x }, { type: latency, threshold: 300 }]\n'
    })
    const loaded = await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))
    expect(loaded.cases[0]!.expected).toBe('cost (threshold $0.01)\ncontains: x\nlatency (threshold 300 ms)')
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

  it('a check with a grader of its own runs without the judge’s key; one that falls back to the judge still needs it', async () => {
    server.respond(() => ({ body: chatReply('{"category": "C", "reason": "same facts"}') }))
    const config = (provider: string) => ({
      'promptfooconfig.yaml': `prompts: [Paris]\nproviders: [echo]\ntests:\n  - assert:\n      - type: factuality\n        value: Paris\n${provider}`
    })
    const own = await run(config(`        provider: { id: "openai:chat:gpt-4o-mini", config: { apiBaseUrl: "${server.baseUrl}" } }\n`))
    expect(own.record.cases[0]).toMatchObject({ passed: true, assertions: [{ type: 'factuality', passed: true }] })
    expect(server.requests).toHaveLength(1)
    await expect(run(config(''))).rejects.toThrow(/judge: environment variable OPENAI_API_KEY is not set/)
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
