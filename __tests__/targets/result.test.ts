/** Result objects (SPEC §10) from every target kind, and the one reader behind them. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { TargetError } from '../../src/errors.js'
import { createHttpTarget } from '../../src/targets/http.js'
import { createTarget } from '../../src/targets/index.js'
import { createOpenAITarget } from '../../src/targets/openai.js'
import { priceUsage } from '../../src/targets/pricing.js'
import { normalizeToolCalls, normalizeUsage, readResult } from '../../src/targets/result.js'
import type { Target } from '../../src/targets/types.js'
import { FakeServer, startServer } from '../__fixtures__/openai-server.js'
import { context, request, targetConfig } from './helpers.js'

const RESULT = {
  output: 'Refund of $20.50 issued for A18.',
  toolCalls: [
    { name: 'lookup_order', args: { order_id: 'A18' }, result: { status: 'delivered' } },
    { type: 'function', function: { name: 'refund', arguments: '{"order_id":"A18","amount":20.5}' } }
  ],
  usage: { inputTokens: 812, outputTokens: 95, costUsd: 0.00021 },
  metadata: { model: 'support-mini' }
}
const NORMALISED_CALLS = [
  { name: 'lookup_order', args: { order_id: 'A18' }, result: { status: 'delivered' } },
  { name: 'refund', args: { order_id: 'A18', amount: 20.5 } }
]

describe('readResult and its normalisers', () => {
  it('reads every field of a result object, OpenAI-style calls normalised to {name, args}', () => {
    expect(readResult(RESULT, 'the agent')).toEqual({
      output: RESULT.output,
      toolCalls: NORMALISED_CALLS,
      usage: { inputTokens: 812, outputTokens: 95, totalTokens: 907, costUsd: 0.00021 },
      metadata: { model: 'support-mini' }
    })
  })

  it.each([
    ['{name, args}', { name: 'a', args: { x: 1 } }, { name: 'a', args: { x: 1 } }],
    ['{name, arguments} as an object', { name: 'a', arguments: { x: 1 } }, { name: 'a', args: { x: 1 } }],
    ['{name, arguments} as JSON text', { name: 'a', arguments: '{"x":1}' }, { name: 'a', args: { x: 1 } }],
    ['OpenAI tool call', { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } }, { name: 'a', args: { x: 1 } }],
    ['OpenAI call with empty arguments', { type: 'function', function: { name: 'a', arguments: '' } }, { name: 'a', args: {} }],
    ['{name, input} (Anthropic-style)', { name: 'a', input: { x: 1 } }, { name: 'a', args: { x: 1 } }],
    ['no arguments at all', { name: 'a' }, { name: 'a', args: {} }],
    ['a result kept', { name: 'a', args: {}, result: 'ok' }, { name: 'a', args: {}, result: 'ok' }]
  ])('normalises %s', (_label, call, expected) => {
    expect(normalizeToolCalls([call], 'toolCalls')).toEqual([expected])
  })

  it('keeps the calls it owns that are already {name, args} (no copy), interning their names; copies all others', () => {
    const a = { name: 'lookup' + '_order', args: { order_id: 'A18' } }
    const b = { name: 'refund', args: { amount: 1 }, result: 'ok' }
    const c = { args: { x: 1 }, name: 'refund' }
    const d = { name: 'refund', args: '{"x":1}' }
    const e = { name: 'refund', args: { x: 1 }, result: null }
    const f = { name: 'refund', args: { x: 1 }, id: 'call_1' }
    const owned = normalizeToolCalls([a, b, c, d, e, f], 'toolCalls', true)
    expect(owned[0]).toBe(a)
    expect(owned[1]).toBe(b)
    // other key orders, JSON text arguments, a null result, other keys: copied as before
    for (const i of [2, 3, 4, 5]) expect(owned[i]).not.toBe([a, b, c, d, e, f][i])
    expect(owned).toEqual([
      a,
      b,
      { name: 'refund', args: { x: 1 } },
      { name: 'refund', args: { x: 1 } },
      { name: 'refund', args: { x: 1 } },
      { name: 'refund', args: { x: 1 } }
    ])
    // a caller's own objects (a library agent's) are never kept
    const mine = { name: 'refund', args: { x: 1 } }
    expect(normalizeToolCalls([mine], 'toolCalls')[0]).not.toBe(mine)
    // one string per tool name, however the calls spelled it
    const again = normalizeToolCalls([{ name: ['lookup', 'order'].join('_'), args: {} }], 'toolCalls', true)
    expect(again[0]!.name).toBe('lookup_order')
  })

  it.each([
    ['not a list', { name: 'a' }, 'toolCalls must be a list of tool calls, got an object'],
    ['a call without a name', [{ args: {} }], 'toolCalls[0] has no tool name'],
    ['arguments that are not JSON', [{ type: 'function', function: { name: 'a', arguments: '{oops' } }], 'toolCalls[0].arguments is not valid JSON: {oops'],
    ['a call that is a string', ['refund'], 'toolCalls[0] must be an object {name, args}, got a string']
  ])('refuses %s, saying where', (_label, calls, message) => {
    expect(() => normalizeToolCalls(calls, 'toolCalls')).toThrow(message)
  })

  it.each([
    ['ours', { inputTokens: 10, outputTokens: 5, costUsd: 0.1 }, { inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 0.1 }],
    ["OpenAI's", { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, { inputTokens: 10, outputTokens: 5, totalTokens: 15 }],
    ['earlier records (promptTokens)', { promptTokens: 3, completionTokens: 4, totalTokens: 7 }, { inputTokens: 3, outputTokens: 4, totalTokens: 7 }],
    ["promptfoo's cost", { total: 9, cost: 0.5 }, { totalTokens: 9, costUsd: 0.5 }],
    ['junk left out', { inputTokens: -1, outputTokens: 'x', costUsd: Infinity }, undefined]
  ])('reads usage in %s names', (_label, usage, expected) => {
    expect(normalizeUsage(usage)).toEqual(expected)
  })

  it('prices tokens with `pricing` when no cost is reported; a reported cost wins', () => {
    const pricing = { 'support-mini': { input: 0.15, output: 0.6 } }
    expect(priceUsage({ inputTokens: 1_000_000, outputTokens: 500_000 }, 'support-mini', pricing)).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 500_000,
      costUsd: 0.45
    })
    expect(priceUsage({ inputTokens: 10, costUsd: 1 }, 'support-mini', pricing)).toEqual({ inputTokens: 10, costUsd: 1 })
    expect(priceUsage({ inputTokens: 10 }, 'other-model', pricing)).toEqual({ inputTokens: 10 })
  })
})

const targets: Target[] = []
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()))
})

/** A node one-liner as a command target: no fixture file needed for what each test prints. */
async function nodeTarget(script: string, extra: Record<string, unknown> = {}): Promise<Target> {
  const target = await createTarget(targetConfig({ command: [process.execPath, '-e', script], ...extra }), context())
  targets.push(target)
  return target
}

describe('command stdio with target.output: json', () => {
  it('reads stdout as a result object; text assertions will see `output` only', async () => {
    const t = await nodeTarget(`process.stdout.write(JSON.stringify(${JSON.stringify(RESULT)}))`, { output: 'json' })
    const reply = await t.call(request('refund A18'))
    expect(reply).toMatchObject({ output: RESULT.output, toolCalls: NORMALISED_CALLS, metadata: { model: 'support-mini' } })
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('keeps a latencyMs the command reports itself (its own time, start-up excluded)', async () => {
    const t = await nodeTarget(`console.log(JSON.stringify({ output: 'hi', latencyMs: 42 }))`, { output: 'json' })
    expect((await t.call(request('x'))).latencyMs).toBe(42)
  })

  it.each([
    ['text that is not JSON', `console.log('Refund issued')`, 'target.output is json but stdout is not JSON'],
    [
      'JSON without "output"',
      `console.log(JSON.stringify({ answer: 'x' }))`,
      'target.output is json but stdout is not a JSON object with an "output" field: {"answer":"x"}'
    ],
    [
      'malformed tool calls',
      `console.log(JSON.stringify({ output: 'x', toolCalls: 'refund' }))`,
      'the command: toolCalls must be a list of tool calls, got a string'
    ]
  ])('fails the case on %s, saying why', async (_label, script, message) => {
    const t = await nodeTarget(script, { output: 'json' })
    await expect(t.call(request('x'))).rejects.toThrow(message)
  })

  it('without output: json, the same stdout is plain text', async () => {
    const t = await nodeTarget(`console.log(JSON.stringify({ output: 'x' }))`)
    expect((await t.call(request('x'))).output).toBe('{"output":"x"}')
  })
})

describe('jsonl replies carry result fields beside id', () => {
  it('reads toolCalls, usage, metadata and finishReason; latency is measured per request', async () => {
    const script = `
      const rl = require('node:readline').createInterface({ input: process.stdin })
      rl.on('line', (line) => {
        const { id, input } = JSON.parse(line)
        console.log(JSON.stringify({ id, output: 'done ' + input, toolCalls: [{ type: 'function', function: { name: 'search_kb', arguments: '{"q":"' + input + '"}' } }], usage: { prompt_tokens: 7, completion_tokens: 3 }, metadata: { model: 'm' }, finishReason: 'tool_calls' }))
      })`
    const t = await nodeTarget(script, { protocol: 'jsonl' })
    const reply = await t.call(request('returns'))
    expect(reply).toEqual({
      output: 'done returns',
      toolCalls: [{ name: 'search_kb', args: { q: 'returns' } }],
      usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
      metadata: { model: 'm' },
      finishReason: 'tool_calls',
      latencyMs: expect.any(Number)
    })
  })
})

describe('http and openai targets', () => {
  let server: FakeServer
  const ctx = { baseDir: '.', env: {}, secrets: new Set<string>() }
  const deps = { sleep: async () => {} }
  beforeEach(async () => {
    server = await startServer()
  })
  afterEach(() => server.close())

  it('http: output, toolCalls and usage at their dot paths', async () => {
    server.enqueue({ body: { data: { answer: 'Refunded', steps: RESULT.toolCalls }, meta: { usage: { prompt_tokens: 5, completion_tokens: 2 } } } })
    const config = targetConfig({ http: { url: `${server.url}/agent`, output: 'data.answer', toolCalls: 'data.steps', usage: 'meta.usage' } })
    const reply = await createHttpTarget(config.http!, ctx, config, deps).call(request('refund'))
    expect(reply).toEqual({ output: 'Refunded', toolCalls: NORMALISED_CALLS, usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } })
  })

  it('http: a reply without the tool-call path made no calls', async () => {
    server.enqueue({ body: { data: { answer: 'Hello' } } })
    const config = targetConfig({ http: { url: `${server.url}/agent`, output: 'data.answer', toolCalls: 'data.steps' } })
    expect(await createHttpTarget(config.http!, ctx, config, deps).call(request('hi'))).toEqual({ output: 'Hello', toolCalls: [] })
  })

  it('openai: sends target.tools and reads tool_calls (arguments parsed), usage and finish_reason', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } }]
    server.enqueue({
      body: {
        model: 'agent-model',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A18"}' } }]
            },
            finish_reason: 'tool_calls'
          }
        ],
        usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 }
      }
    })
    const config = targetConfig({ openai: { model: 'agent-model', baseUrl: server.baseUrl }, tools })
    const reply = await createOpenAITarget(config.openai!, ctx, config, deps).call(request('where is A18?'))
    expect(server.requests[0]!.body.tools).toEqual(tools)
    expect(reply).toEqual({
      output: '',
      toolCalls: [{ name: 'lookup_order', args: { order_id: 'A18' } }],
      usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 },
      metadata: { model: 'agent-model' },
      priceList: 'openai',
      finishReason: 'tool_calls'
    })
  })

  it('openai: with tools offered, a reply without tool_calls is an empty trajectory; without tools, none is recorded', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object' } } }]
    const answer = {
      body: {
        model: 'agent-model',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }
      }
    }
    server.enqueue(answer)
    server.enqueue(answer)
    const offered = targetConfig({ openai: { model: 'agent-model', baseUrl: server.baseUrl }, tools })
    expect((await createOpenAITarget(offered.openai!, ctx, offered, deps).call(request('hi'))).toolCalls).toEqual([])
    const plain = targetConfig({ openai: { model: 'agent-model', baseUrl: server.baseUrl } })
    expect(await createOpenAITarget(plain.openai!, ctx, plain, deps).call(request('hi'))).not.toHaveProperty('toolCalls')
  })
})

describe('module agents (in-process function target)', () => {
  it('a returned result object is read field by field; other objects stay JSON output', async () => {
    const { functionTarget } = await import('../../src/targets/function.js')
    const structured = functionTarget(() => () => RESULT, 'agent')
    expect(await structured.call(request('x'))).toMatchObject({ output: RESULT.output, toolCalls: NORMALISED_CALLS })
    const plain = functionTarget(() => () => ({ answer: 42 }), 'agent')
    expect(await plain.call(request('x'))).toEqual({ output: '{"answer":42}' })
    const broken = functionTarget(() => () => ({ output: 'x', toolCalls: [{}] }), 'agent')
    await expect(broken.call(request('x'))).rejects.toThrow(TargetError)
  })

  it('the case a function agent is given has no `expected`: what its case expects is how it is graded', async () => {
    const { functionTarget } = await import('../../src/targets/function.js')
    const seen: unknown[] = []
    const target = functionTarget(() => (_input, c) => (seen.push(c), 'ok'), 'agent')
    const asked = request('What is 2 + 2?')
    await target.call({ ...asked, case: { ...asked.case, expected: '4', vars: { topic: 'sums' } } })
    expect(seen).toEqual([{ id: 'case-1', name: 'case 1', input: 'What is 2 + 2?', tags: [], index: 0, vars: { topic: 'sums' } }])
  })
})
