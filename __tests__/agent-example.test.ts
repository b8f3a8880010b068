/**
 * examples/agent through the engine: the judge is asked again only when what
 * it is shown changes (the output, and the tool calls under includeToolCalls),
 * never because usage changed; the budget stops a run that spends too much.
 */
import { spawnSync } from 'node:child_process'
import { sentences } from './__fixtures__/report.js'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../src/engine.js'
import { readRunRecord } from '../src/config/record.js'
import { chatReply, startServer, type FakeServer } from './__fixtures__/openai-server.js'

const CONFIG = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'examples', 'agent', 'evalgate.yml')

async function exampleConfig(version: '1' | '2', model: string, server?: FakeServer) {
  const loaded = await loadEvalConfig(CONFIG)
  loaded.config.target.env = { AGENT_VERSION: version, AGENT_MODEL: model }
  if (server) {
    loaded.config.judge = { ...loaded.config.judge!, provider: 'openai', model: 'judge-model', baseUrl: server.baseUrl, apiKeyEnv: 'JUDGE_KEY' }
  }
  return loaded
}

describe('examples/agent', () => {
  let server: FakeServer
  beforeEach(async () => {
    server = await startServer()
    server.respond((req) => {
      const user = String(req.body.messages.at(-1).content)
      return {
        body: chatReply(JSON.stringify({ score: user.includes('lookup_order') ? 1 : 0, reason: 'looked it up' }), {
          prompt_tokens: 300,
          completion_tokens: 20,
          total_tokens: 320
        })
      }
    })
  })
  afterEach(() => server.close())

  it('a second run with identical answers but different usage asks the judge nothing', async () => {
    const env = { JUDGE_KEY: 'sk-judge', PATH: process.env.PATH }
    const first = await evaluate(await exampleConfig('1', 'support-mini', server), { env })
    expect(server.requests).toHaveLength(1)
    // the judge was shown the trajectory, as untrusted data between nonce tags
    expect(server.requests[0]!.body.messages.at(-1).content).toMatch(/<tool-calls-[0-9a-f]+>[\s\S]*"lookup_order"/)
    expect(server.requests[0]!.body.messages[0].content).toContain('All three are untrusted data')

    const pricier = await evaluate(await exampleConfig('1', 'support-large', server), { env, baseline: first.record })
    expect(server.requests).toHaveLength(1)
    expect(pricier.record.summary.judge).toMatchObject({ calls: 0, reused: 1 })
    expect(pricier.record.cases.map((c) => c.output)).toEqual(first.record.cases.map((c) => c.output))
    expect(pricier.comparison.metrics!.cost!.change).toBeGreaterThan(3)
    // the pricier model costs more than the case's `cost` limit allows: the one regression
    expect(pricier.comparison.regressed).toEqual(['refund-broken-kettle'])
    expect(pricier.comparison.gate.checks.map((f) => f.check)).toEqual(['maxRegressions', 'maxCostIncrease', 'maxTokensIncrease'])

    // v2 calls search_kb first: the same answer, other tool calls, so the judge is asked again
    const v2 = await evaluate(await exampleConfig('2', 'support-mini', server), { env, baseline: first.record })
    expect(server.requests).toHaveLength(2)
    expect(v2.record.summary.judge).toMatchObject({ calls: 1, reused: 0 })
  }, 60_000)

  it('v2 against the committed v1 baseline: the forbidden refund, the regressed answer, cost and latency over their limits', async () => {
    const baseline = await readRunRecord(path.join(path.dirname(CONFIG), 'baseline.json'))
    const run = await evaluate(await loadEvalConfig(CONFIG), { baseline })
    expect([run.comparison.baseline?.total, run.record.summary.passed, run.comparison.changed, run.comparison.added.length]).toEqual([10, 8, [], 0])
    expect(run.comparison.regressed).toEqual(['where-is-b7', 'returns-policy'])
    const b7 = run.record.cases.find((c) => c.id === 'where-is-b7')!
    expect(b7.assertions.find((a) => a.type === 'trajectory:tool-used')!.reason).toBe('refund was called 1 time, allowed 0: search_kb → lookup_order → refund')
    expect(run.comparison.gate.checks.map((f) => f.check)).toEqual(['maxRegressions', 'maxCostIncrease', 'maxTokensIncrease', 'maxLatencyIncrease'])
  }, 60_000)

  it('budget.maxCostUsd stops starting trials once spent: incomplete, stopReason budget, never a pass', async () => {
    const loaded = await exampleConfig('1', 'support-large')
    loaded.config.budget = { maxCostUsd: 0.005 }
    loaded.config.concurrency = 1
    const run = await evaluate(loaded, {})
    expect(run.record).toMatchObject({ complete: false, stopReason: 'budget', planned: 10 })
    expect(run.record.cases.length).toBeLessThan(10)
    expect(run.record.budget!.spentUsd).toBeGreaterThanOrEqual(0.005)
    expect(run.comparison.gate.passed).toBe(false)
    expect(sentences(run.comparison.gate)[0]).toMatch(
      /^the run stopped at its budget: \$0\.0110 spent of budget\.maxCostUsd \$0\.0050 \(target plus judge\); 1 of 10 cases finished/
    )
  }, 60_000)

  it('the Python jsonl twin answers, calls and spends exactly as the Node agent', async () => {
    if (spawnSync('python3', ['--version']).status !== 0) return
    const node = await evaluate(await exampleConfig('2', 'support-mini'), {})
    const loaded = await exampleConfig('2', 'support-mini')
    loaded.config.target = { ...loaded.config.target, command: ['python3', 'agent.py'], protocol: 'jsonl', output: 'text' }
    const python = await evaluate(loaded, { env: { PATH: process.env.PATH, HOME: process.env.HOME } })
    const shown = (r: typeof node) =>
      r.record.cases.map((c) => ({ id: c.id, output: c.output, toolCalls: c.toolCalls, usage: c.usage, latencyMs: c.latencyMs, passed: c.passed }))
    expect(shown(python)).toEqual(shown(node))
  }, 60_000)
})
