/**
 * promptfoo's conversations in evalgate: `_conversation` in a
 * prompt and tests that share `metadata.conversationId`, rendered when each
 * test runs from the answers before it; `promptfoo:simulated-user` played by
 * the judge on a chat-completions server on 127.0.0.1. Their verdicts against
 * promptfoo 0.121.20's are checked in config/promptfoo/examples.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { chatReply, startServer, type FakeServer } from '../__fixtures__/openai-server.js'
import { tempDir } from '../__fixtures__/temp.js'

const EXAMPLES = path.resolve('__tests__/__fixtures__/promptfoo-examples')

describe('_conversation', () => {
  it('renders each test’s prompt from the earlier turns of its conversation, in order, whatever the concurrency', async () => {
    const loaded = await loadEvalConfig(path.join(EXAMPLES, 'multiple-turn-conversation', 'promptfooconfig.yaml'))
    loaded.config.concurrency = 8
    const { record } = await evaluate(loaded, { env: {} })
    expect(record.cases.map((c) => [c.output, c.passed])).toEqual([
      ['Mark Zuckerberg founded Facebook.', true],
      ['He lives in Palo Alto.', true],
      ['Palo Alto is in California.', true],
      ['It is sunny in San Francisco.', false],
      ['No umbrella needed: it is sunny.', true],
      ['Boil the pasta, then toss it with garlic and olive oil.', true],
      ['Cook the pasta for 10 minutes.', true]
    ])
  })

  it('keys conversations on provider, prompt and conversationId; a blind turn sees none but joins it', async () => {
    const loaded = await loadEvalConfig(path.join(EXAMPLES, 'conversation-features', 'promptfooconfig.yaml'))
    const { record } = await evaluate(loaded, { env: {} })
    const chat = record.cases.filter((c) => c.id.includes(' · chat · '))
    expect(chat.map((c) => [c.id.split(' · ')[0], c.output])).toEqual([
      ['greet', 'Nice to meet you, Ada.'],
      ['recall', 'Your name is Ada.'],
      ['another thread', 'I do not know your name.'],
      ['blind turn', 'I do not know your name.'],
      ['count the turns', 'There were three turns before this one.']
    ])
    // the plain prompt does not read _conversation: every test stands alone
    expect(record.cases.filter((c) => c.id.includes(' · plain · ')).map((c) => c.output)).toEqual([
      'Nice to meet you, Ada.',
      'I do not know your name.',
      'I do not know your name.',
      'I do not know your name.',
      'I cannot count what I did not see.'
    ])
  })

  it('a test’s fingerprint covers the turns before it', async () => {
    const dir = tempDir('evalgate-pf-conversation-')
    const config = (first: string) =>
      `prompts: ['{% for t in _conversation %}{{ t.output }} {% endfor %}{{ q }}']\nproviders: [echo]\ntests:\n  - vars: {q: ${first}}\n  - vars: {q: two}\n`
    writeFileSync(path.join(dir, 'promptfooconfig.yaml'), config('one'))
    const before = (await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))).cases.map((c) => c.fingerprint)
    writeFileSync(path.join(dir, 'promptfooconfig.yaml'), config('uno'))
    const after = (await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))).cases.map((c) => c.fingerprint)
    expect(after[0]).not.toBe(before[0])
    expect(after[1]).not.toBe(before[1])
  })
})

describe('promptfoo:simulated-user', () => {
  let server: FakeServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it('plays the user with the judge, the agent gets the prompt as a system message and the checks grade the transcript', async () => {
    server.respond((r) => {
      const said = r.body.messages.filter((m: { role: string }) => m.role === 'assistant').length
      return { body: chatReply(['I want to fly to Rome.', 'Yes, book it.', '###STOP###'][said] ?? '###STOP###') }
    })
    const dir = tempDir('evalgate-pf-user-')
    writeFileSync(
      path.join(dir, 'agent.mjs'),
      `export default class { id() { return 'agent' } async callApi(prompt) {
        const chat = JSON.parse(prompt)
        const last = chat.at(-1).content
        return { output: chat[0].role === 'system' && /Rome/.test(last) ? 'Shall I book Rome for you?' : /book/.test(last) ? 'Booked: Rome, seat 4A.' : 'Where to?' }
      } }\n`
    )
    writeFileSync(
      path.join(dir, 'promptfooconfig.yaml'),
      `prompts: ['You are a travel agent for {{ company }}.']
providers: [file://agent.mjs]
defaultTest:
  vars: { company: Acme Air }
  provider:
    id: promptfoo:simulated-user
    config: { maxTurns: 4 }
tests:
  - vars: { instructions: 'You want to fly to Rome.' }
    assert:
      - { type: contains, value: 'Assistant: Booked: Rome' }
      - { type: javascript, value: "output.split('---').length === 4" }
evalgate:
  judge: { model: user-model, baseUrl: '${server.baseUrl}' }
`
    )
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml')), { env: {} })
    const c = record.cases[0]!
    expect(c.output).toBe(
      'User: I want to fly to Rome.\n---\nAssistant: Shall I book Rome for you?\n---\nUser: Yes, book it.\n---\nAssistant: Booked: Rome, seat 4A.'
    )
    expect(c.passed).toBe(true)
    expect(server.requests[0]!.body.messages[0].content).toContain('You want to fly to Rome.')
  })

  it('refuses what it does not honour, naming the place', async () => {
    const dir = tempDir('evalgate-pf-user-')
    const write = (provider: string) =>
      writeFileSync(
        path.join(dir, 'promptfooconfig.yaml'),
        `prompts: [hi]\nproviders: [echo]\ntests:\n  - vars: {instructions: x}\n    provider: ${provider}\n`
      )
    write('{id: promptfoo:simulated-user, config: {stateful: true}}')
    await expect(loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))).rejects.toThrow(
      /tests\[0\]\.provider\.config\.stateful: not supported by evalgate's simulated user/
    )
    write('openai:gpt-4o')
    await expect(loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))).rejects.toThrow(/a test's own provider "openai:gpt-4o" is not supported by evalgate/)
    write('{id: promptfoo:simulated-user, config: {maxTurns: 0}}')
    await expect(loadEvalConfig(path.join(dir, 'promptfooconfig.yaml'))).rejects.toThrow(/maxTurns must be between 1 and 50/)
  })
})
