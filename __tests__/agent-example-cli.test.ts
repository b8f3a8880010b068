/**
 * examples/agent through the command line, as a pull request's job runs it:
 * `--json` carries the compared metrics (cost, tokens, latency p50 and p95,
 * each with its paired interval), worked out here from the agent itself and
 * the committed baseline.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { parse } from 'yaml'
import { runCli, tempProject } from './__fixtures__/cli.js'

const EXAMPLE = path.resolve('examples/agent')

interface Figures {
  cost: number
  tokens: number
  latency: number
}

/** Nearest rank, as the report defines p50 and p95. */
function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!
}

describe('examples/agent: evalgate run --json', () => {
  it('gives metrics.cost, tokens, latencyP50 and latencyP95 with baseline, current, change and a 95% interval (p95 from 20 cases)', async () => {
    const { answer } = (await import(path.join(EXAMPLE, 'agent.mjs'))) as {
      answer: (message: string, version: string, model: string) => { usage: { inputTokens: number; outputTokens: number }; latencyMs: number }
    }
    const cases = parse(readFileSync(path.join(EXAMPLE, 'cases.yaml'), 'utf8')) as { id: string; input: string }[]
    const baseline = JSON.parse(readFileSync(path.join(EXAMPLE, 'baseline.json'), 'utf8')) as {
      cases: { id: string; usage: { totalTokens: number; costUsd: number }; latencyMs: number }[]
    }
    // v2 (the config's AGENT_VERSION) on support-mini, priced at 0.6 / 2.4 USD per million tokens
    const current: Figures[] = cases.map(({ input }) => {
      const r = answer(input, '2', 'support-mini')
      return { cost: (r.usage.inputTokens * 0.6 + r.usage.outputTokens * 2.4) / 1e6, tokens: r.usage.inputTokens + r.usage.outputTokens, latency: r.latencyMs }
    })
    const before: Figures[] = cases.map(({ id }) => {
      const c = baseline.cases.find((b) => b.id === id)!
      return { cost: c.usage.costUsd, tokens: c.usage.totalTokens, latency: c.latencyMs }
    })
    const sum = (xs: Figures[], key: 'cost' | 'tokens') => xs.reduce((n, x) => n + x[key], 0)
    const expected = {
      cost: [sum(before, 'cost'), sum(current, 'cost')],
      tokens: [sum(before, 'tokens'), sum(current, 'tokens')],
      latencyP50: [
        quantile(
          before.map((x) => x.latency),
          0.5
        ),
        quantile(
          current.map((x) => x.latency),
          0.5
        )
      ],
      latencyP95: [
        quantile(
          before.map((x) => x.latency),
          0.95
        ),
        quantile(
          current.map((x) => x.latency),
          0.95
        )
      ]
    }

    const dir = tempProject({})
    const json = path.join(dir, 'comparison.json')
    const res = await runCli(['run', '-c', path.join(EXAMPLE, 'evalgate.yml'), '--baseline', path.join(EXAMPLE, 'baseline.json'), '--json', json, '--quiet'])
    expect(res.code).toBe(1)
    const { metrics, gate } = JSON.parse(readFileSync(json, 'utf8'))
    expect(Object.keys(metrics)).toEqual(['cost', 'tokens', 'latencyP50', 'latencyP95'])
    for (const [key, [b, c]] of Object.entries(expected)) {
      const m = metrics[key]
      expect(m.baseline).toBeCloseTo(b!, 9)
      expect(m.current).toBeCloseTo(c!, 9)
      expect(m.change).toBeCloseTo(c! / b! - 1, 9)
      expect(m.cases).toBe(cases.length)
      // a paired interval around the change it qualifies; none for p95 on the example's 10 cases (it needs 20)
      if (key === 'latencyP95') {
        expect(m.ci).toBeNull()
        continue
      }
      expect(m.ci).toHaveLength(2)
      expect(m.ci[0]).toBeLessThanOrEqual(m.change)
      expect(m.ci[1]).toBeGreaterThanOrEqual(m.change)
    }
    // v2 checks the knowledge base first: a step more, and more cost, on every conversation that did not already
    expect(metrics.cost.change).toBeGreaterThan(0.1)
    const rose = cases.filter((_, i) => current[i]!.cost > before[i]!.cost).map((c) => c.id)
    expect(rose.length).toBeGreaterThan(0)
    expect([...metrics.cost.rose].sort()).toEqual(rose.sort())
    expect(gate.checks.map((c: { check: string }) => c.check)).toEqual(['maxRegressions', 'maxCostIncrease', 'maxTokensIncrease', 'maxLatencyIncrease'])
  }, 60_000)
})
