/**
 * Agents instrumented with the real OpenTelemetry SDK (its OTLP/HTTP JSON and
 * protobuf exporters), run by evalgate as every target kind (SPEC §12): the
 * agents report nothing but their answers, and their tool calls, usage and
 * model come out of their spans; trace assertions grade the spans.
 */
import { createServer } from 'node:net'
import path from 'node:path'
import { writeFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import type { CaseResult } from '../../src/types.js'
import { chatReply, startServer } from '../__fixtures__/openai-server.js'
import { tempDir } from '../__fixtures__/temp.js'

const AGENTS = path.resolve('__tests__/__fixtures__/agents/otel')

const CASES = `
  - id: refund
    input: Please refund A18
    assert:
      - { type: trajectory:tool-sequence, value: [lookup_order, refund] }
      - { type: trajectory:tool-args-match, value: { name: refund, args: { order_id: A18, amount: 20.5 } } }
      - { type: trace-span-count, value: { pattern: "execute_tool *", min: 2, max: 2 } }
      - { type: trace-error-spans, value: 0 }
      - { type: trace-span-duration, value: { pattern: "*", max: 60000 } }
  - id: status
    input: What is the status of B7?
    assert:
      - { type: trajectory-match, value: [{ name: lookup_order, args: { order_id: B7 } }] }
      - { type: not-trajectory:tool-used, value: [refund] }
  - id: failing-tool
    input: please fail
    assert:
      - { type: trace-error-spans, value: { max_count: 0 } }
`

function writeConfig(target: string, extra = ''): string {
  const dir = tempDir('evalgate-traces-')
  const file = path.join(dir, 'evalgate.yml')
  writeFileSync(file, `version: 1\ntracing: ${extra || 'true'}\ntarget:\n${target}\ncases:${CASES}`)
  return file
}

const env = { PATH: process.env.PATH }

function byId(cases: CaseResult[]) {
  return Object.fromEntries(cases.map((c) => [c.id, c]))
}

/** What every target kind must give for the three cases. */
function expectTraced(cases: CaseResult[], model = 'support-mini') {
  const c = byId(cases)
  expect(c.refund!.toolCalls).toEqual([
    { name: 'lookup_order', args: { order_id: 'A18' }, result: { status: 'delivered' } },
    { name: 'refund', args: { order_id: 'A18', amount: 20.5 }, result: { ok: true } }
  ])
  // two chat spans: 120 + 200 in, 12 + 30 out; the agent span encloses them and is not counted again
  expect(c.refund!.usage).toMatchObject({ inputTokens: 320, outputTokens: 42, totalTokens: 362 })
  expect(c.refund!.metadata).toEqual({ model })
  expect(c.refund!.assertions.map((a) => [a.type, a.passed])).toEqual([
    ['trajectory:tool-sequence', true],
    ['trajectory:tool-args-match', true],
    ['trace-span-count', true],
    ['trace-error-spans', true],
    ['trace-span-duration', true]
  ])
  expect(c.refund!.passed).toBe(true)
  // the invoke_agent span, two chat spans and two tool spans
  expect(c.refund!.trace).toMatchObject({ spans: 5, errorCount: 0 })
  expect(c.status!.passed).toBe(true)
  expect(c.status!.toolCalls!.map((t) => t.name)).toEqual(['lookup_order'])
  expect(c['failing-tool']!.passed).toBe(false)
  expect(c['failing-tool']!.assertions[0]!.reason).toBe(
    '1 error span of 4 matching "*", allowed 0: execute_tool lookup_order (lookup failed: order service timeout)'
  )
  expect(c['failing-tool']!.trace).toMatchObject({
    errorCount: 1,
    errorSpans: [{ name: 'execute_tool lookup_order', message: 'lookup failed: order service timeout' }]
  })
  // each trial its own trace
  expect(new Set(cases.map((x) => x.trace!.traceId)).size).toBe(3)
}

describe.each([
  ['protobuf', 'http/protobuf'],
  ['JSON', 'http/json']
])('OTLP/HTTP %s exporter', (_format, protocol) => {
  it('stdio: one process per trial, its spans found by its trace', async () => {
    const loaded = await loadEvalConfig(writeConfig(`  command: [node, ${AGENTS}/stdio.mjs]\n  env: { OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} }`))
    const { record } = await evaluate(loaded, { env })
    expectTraced(record.cases)
  })

  it('module: the trial context on the case argument, the exporter variables set before the import', async () => {
    const loaded = await loadEvalConfig(writeConfig(`  module: ${AGENTS}/module.mjs\n  env: { OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} }`))
    const { record } = await evaluate(loaded, { env })
    expectTraced(record.cases)
  })

  it('http: the traceparent header, continued by the agent server', async () => {
    const port = await freePort()
    const { startAgentServer } = (await import(path.join(AGENTS, 'http.mjs'))) as {
      startAgentServer(url: string, protocol: string): Promise<{ url: string; close(): Promise<void> }>
    }
    const agent = await startAgentServer(`http://127.0.0.1:${port}/v1/traces`, protocol)
    try {
      const file = writeConfig(`  http: { url: "${agent.url}", body: { question: "{{input}}" }, output: answer }`, `{ port: ${port} }`)
      const { record } = await evaluate(await loadEvalConfig(file), { env })
      expectTraced(record.cases)
    } finally {
      await agent.close()
    }
  })
})

describe('jsonl workers', () => {
  it('concurrency 8 on one worker: each trial gets its own spans and no other', async () => {
    const dir = tempDir('evalgate-traces-')
    const file = path.join(dir, 'evalgate.yml')
    const ids = Array.from({ length: 24 }, (_, i) => `A${100 + i}`)
    const cases = ids
      .map(
        (id) =>
          `  - { id: ${id}, input: "refund ${id}", assert: [{ type: trajectory:tool-args-match, value: { name: refund, mode: exact, args: { order_id: ${id}, amount: 20.5 } } }] }`
      )
      .join('\n')
    writeFileSync(file, `version: 1\ntracing: true\nconcurrency: 8\ntarget:\n  command: [node, ${AGENTS}/jsonl.mjs]\n  protocol: jsonl\ncases:\n${cases}\n`)
    const lines: string[] = []
    const { record } = await evaluate(await loadEvalConfig(file), { env, log: (line) => lines.push(line) })
    // the receiver's URL is said when the run starts
    expect(lines).toEqual([expect.stringMatching(/^evalgate: receiving traces at http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(OTLP\/HTTP, JSON or protobuf\)$/)])
    expect(record.cases.every((c) => c.passed)).toBe(true)
    for (const c of record.cases) {
      // exactly its own two tool calls, with its own order id: none of another trial's spans
      expect(c.toolCalls!.map((t) => [t.name, (t.args as { order_id: string }).order_id])).toEqual([
        ['lookup_order', c.id],
        ['refund', c.id]
      ])
      expect(c.trace!.spans).toBe(5)
    }
  })
})

describe('OpenInference attributes', () => {
  it.each([
    ['stdio, following TRACEPARENT', {}],
    ['stdio, a trace of its own (tied to the trial by evalgate.trial)', { AGENT_IGNORE_TRACEPARENT: '1' }]
  ])('%s', async (_label, extra) => {
    const vars = { AGENT_CONVENTIONS: 'openinference', AGENT_MODEL: 'gpt-4o-mini', ...extra }
    const loaded = await loadEvalConfig(writeConfig(`  command: [node, ${AGENTS}/stdio.mjs]\n  env: ${JSON.stringify(vars)}`))
    const { record } = await evaluate(loaded, { env })
    expectTraced(record.cases, 'gpt-4o-mini')
  })
})

describe('servers evalgate does not start', () => {
  it.each([
    ['http', '{ http: { url: "http://127.0.0.1:9/ask" } }'],
    ['openai', '{ openai: { model: m, baseUrl: "http://127.0.0.1:9/v1" } }']
  ])('%s: tracing without a port is refused at load, naming the fix', async (kind, target) => {
    const dir = tempDir('evalgate-traces-')
    const file = path.join(dir, 'evalgate.yml')
    writeFileSync(file, `version: 1\ntracing: true\ntarget: ${target}\ncases: [{ input: x }]\n`)
    await expect(loadEvalConfig(file)).rejects.toThrow(
      `an ${kind} target is a server evalgate does not start, so it cannot be told where to export: give tracing.port`
    )
  })
})

describe('a target that reports its own', () => {
  it('keeps its own tool calls and usage: the spans fill in only what it left out', async () => {
    const dir = tempDir('evalgate-traces-')
    const agent = path.join(dir, 'own.mjs')
    writeFileSync(
      agent,
      `import inner from ${JSON.stringify(path.join(AGENTS, 'module.mjs'))}\nexport default async (input, c) => ({ output: await inner(input, c), toolCalls: [{ name: 'own', args: {} }] })\n`
    )
    const file = path.join(dir, 'evalgate.yml')
    writeFileSync(file, `version: 1\ntracing: true\ntarget: { module: ./own.mjs }\ncases: [{ id: r, input: refund A18 }]\n`)
    const { record } = await evaluate(await loadEvalConfig(file), { env })
    expect(record.cases[0]!.toolCalls).toEqual([{ name: 'own', args: {} }])
    expect(record.cases[0]!.usage).toMatchObject({ inputTokens: 320, outputTokens: 42 })
  })
})

describe('an openai target', () => {
  it('sends each trial its traceparent header; a model server that exports no span leaves the trial with none', async () => {
    const server = await startServer()
    try {
      server.respond(() => ({ body: chatReply('Paris') }))
      const dir = tempDir('evalgate-traces-')
      const file = path.join(dir, 'evalgate.yml')
      writeFileSync(
        file,
        `version: 1\ntracing: { port: ${await freePort()} }\ntarget: { openai: { model: m, baseUrl: "${server.baseUrl}" } }\ncases: [{ id: a, input: capital?, expected: Paris }, { id: b, input: capital!, expected: Paris }]\n`
      )
      const { record } = await evaluate(await loadEvalConfig(file), { env })
      const sent = server.requests.map((r) => String(r.headers.traceparent))
      expect(sent).toHaveLength(2)
      for (const c of record.cases) {
        // the header the trial sent carries its trace id
        expect(sent.filter((t) => t.split('-')[1] === c.trace!.traceId)).toHaveLength(1)
        expect(c.trace).toEqual({ traceId: c.trace!.traceId, spans: 0, errorCount: 0 })
      }
      expect(sent[0]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      expect(sent[0]).not.toBe(sent[1])
    } finally {
      await server.close()
    }
  })
})

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
