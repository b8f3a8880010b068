/**
 * Conversations on every target kind: each turn reaches the agent
 * with the conversation so far. A remembering agent (it reads `messages`)
 * passes a case whose second turn asks what the first said; the same agent
 * reading only the turn's text fails it, at that turn, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseRunRecord } from '../../src/config/record.js'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { startServer, type FakeServer, type RecordedRequest } from '../__fixtures__/openai-server.js'
import { tempDir } from '../__fixtures__/temp.js'

/** The agent's mind, the same in every kind: it answers "what is my name?" from what it was told earlier. */
const MIND = `
function reply(turn, messages) {
  const told = (messages ?? [{ role: 'user', content: turn }]).filter((m) => m.role === 'user').map((m) => /my name is (\\w+)/i.exec(m.content)?.[1]).filter(Boolean)
  if (/what is my name/i.test(turn)) return told.length ? 'Your name is ' + told.at(-1) + '.' : 'I do not know your name.'
  const name = /my name is (\\w+)/i.exec(turn)?.[1]
  return name ? 'Nice to meet you, ' + name + '.' : 'Hello.'
}
`

/** The conversation both agents have: turn 2 needs turn 1. */
const CASES = `
- id: remembers-name
  turns:
    - user: Hello, my name is Ada.
      assert: [{type: contains, value: Ada}]
    - user: What is my name?
      assert: [{type: contains, value: "Your name is Ada"}]
  assert: [{type: not-icontains, value: "do not know"}]
`

interface Kind {
  name: string
  /** writes the agent into `dir` and returns the config's target; `remembers` chooses whether it reads `messages` */
  target(dir: string, remembers: boolean): Record<string, unknown>
}

let server: FakeServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

/** The http and openai agents: the server answers from what the request carries. */
function answerFrom(body: (request: RecordedRequest) => { turn: string; messages?: { role: string; content: string }[] }, wrap: (text: string) => unknown) {
  const mind = new Function(`${MIND}; return reply`)() as (turn: string, messages?: unknown[]) => string
  server.respond((request) => {
    const { turn, messages } = body(request)
    return { body: wrap(mind(turn, messages)) }
  })
}

/** A chat-completions server answering as the agent: the chat so far (without the system message) is what it remembers. */
function answerChat(remembers: boolean) {
  answerFrom(
    (r) => {
      const chat = r.body.messages.filter((m: { role: string }) => m.role !== 'system')
      return { turn: chat.at(-1).content, messages: remembers ? chat : undefined }
    },
    (text) => ({
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
    })
  )
}

const kinds: Kind[] = [
  {
    name: 'command stdio (target.input: json)',
    target(dir, remembers) {
      writeFileSync(
        path.join(dir, 'agent.mjs'),
        `${MIND}
let text = ''
process.stdin.on('data', (c) => (text += c)).on('end', () => {
  const request = JSON.parse(text)
  process.stdout.write(reply(request.input, ${remembers ? 'request.messages' : 'undefined'}))
})`
      )
      return { command: [process.execPath, 'agent.mjs'], input: 'json' }
    }
  },
  {
    name: 'command jsonl',
    target(dir, remembers) {
      writeFileSync(
        path.join(dir, 'agent.mjs'),
        `${MIND}
import readline from 'node:readline'
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line)
  process.stdout.write(JSON.stringify({ id: request.id, output: reply(request.input, ${remembers ? 'request.messages' : 'undefined'}) }) + '\\n')
})`
      )
      return { command: [process.execPath, 'agent.mjs'], protocol: 'jsonl' }
    }
  },
  {
    name: 'module',
    target(dir, remembers) {
      writeFileSync(path.join(dir, 'agent.mjs'), `${MIND}\nexport default (input, c) => reply(input, ${remembers ? 'c.messages' : 'undefined'})`)
      return { module: './agent.mjs' }
    }
  },
  {
    name: 'http ({{messages}} in the body)',
    target(_dir, remembers) {
      answerFrom(
        (r) => ({ turn: r.body.turn, messages: remembers ? r.body.messages : undefined }),
        (text) => ({ answer: text })
      )
      return { http: { url: `${server.url}/chat`, body: { turn: '{{input}}', messages: '{{messages}}', session: '{{conversationId}}' }, output: 'answer' } }
    }
  },
  {
    name: 'openai (the chat itself)',
    target(_dir, remembers) {
      answerChat(remembers)
      return { openai: { model: 'agent-model', baseUrl: server.baseUrl, system: 'You are a helpful bot.' } }
    }
  },
  {
    name: 'provider (a provider id)',
    target(_dir, remembers) {
      answerChat(remembers)
      return { provider: 'openai:chat:agent-model', config: { apiBaseUrl: server.baseUrl } }
    }
  }
]

async function run(kind: Kind, remembers: boolean) {
  const dir = tempDir('evalgate-conversation-')
  writeFileSync(path.join(dir, 'cases.yaml'), CASES)
  writeFileSync(
    path.join(dir, 'evalgate.yml'),
    JSON.stringify({ version: 1, dataset: 'cases.yaml', target: { ...kind.target(dir, remembers), timeoutMs: 20_000 } })
  )
  const before = server.requests.length
  const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { PATH: process.env.PATH } })
  // what the engine writes, transcripts included, is what the record's reader gives back
  expect(parseRunRecord(JSON.stringify(record), 'run.json')).toEqual(record)
  return { c: record.cases[0]!, requests: server.requests.slice(before) }
}

describe.each(kinds)('a conversation on the $name target', (kind) => {
  it('passes when the agent reads the messages: each turn gets the conversation so far', async () => {
    const { c, requests } = await run(kind, true)
    expect(c.error).toBeNull()
    expect(c.turns?.map((t) => [t.user, t.output])).toEqual([
      ['Hello, my name is Ada.', 'Nice to meet you, Ada.'],
      ['What is my name?', 'Your name is Ada.']
    ])
    expect(c.passed).toBe(true)
    expect(c.output).toBe('Your name is Ada.')
    if (kind.name.startsWith('http')) {
      // "{{messages}}" alone is the array itself; the conversation id is the same on both turns
      expect(requests.map((r) => r.body.messages)).toEqual([
        [{ role: 'user', content: 'Hello, my name is Ada.' }],
        [
          { role: 'user', content: 'Hello, my name is Ada.' },
          { role: 'assistant', content: 'Nice to meet you, Ada.' },
          { role: 'user', content: 'What is my name?' }
        ]
      ])
      expect(requests[0]!.body.session).toMatch(/^[0-9a-f-]{36}$/)
      expect(requests[1]!.body.session).toBe(requests[0]!.body.session)
    }
    if (kind.name.startsWith('openai')) {
      expect(requests[1]!.body.messages).toEqual([
        { role: 'system', content: 'You are a helpful bot.' },
        { role: 'user', content: 'Hello, my name is Ada.' },
        { role: 'assistant', content: 'Nice to meet you, Ada.' },
        { role: 'user', content: 'What is my name?' }
      ])
      // usage is summed over the turns
      expect(c.usage).toMatchObject({ inputTokens: 6, outputTokens: 4, totalTokens: 10 })
    }
  })

  it('fails, naming the turn, when the agent reads only the turn’s text', async () => {
    const { c } = await run(kind, false)
    expect(c.passed).toBe(false)
    expect(c.turns?.[1]?.output).toBe('I do not know your name.')
    const failed = c.assertions.filter((a) => !a.passed).map((a) => a.reason)
    expect(failed[0]).toMatch(/^turn 2: expected output to contain "Your name is Ada"/)
    expect(c.turns?.[1]?.assertions?.[0]?.passed).toBe(false)
    expect(c.turns?.[0]?.assertions?.[0]?.passed).toBe(true)
  })
})
