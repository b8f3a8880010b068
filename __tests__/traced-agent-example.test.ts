/**
 * examples/traced-agent through the engine: an agent that reports only its
 * answers, graded from its OpenTelemetry trace (SPEC §12). The pull request
 * (AGENT_VERSION 2) against the committed baseline regresses one case — a
 * refund nobody asked for, refused by the refund service — and sends the model
 * more tokens.
 */
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../src/engine.js'
import { readRunRecord } from '../src/config/record.js'
import { markdownOf } from './__fixtures__/report.js'

const DIR = path.resolve('examples/traced-agent')

describe('examples/traced-agent', () => {
  it('the pull request regresses late-boots, with its refund and the refund service’s error span; tokens rise', async () => {
    const baseline = await readRunRecord(path.join(DIR, 'baseline.json'))
    const loaded = await loadEvalConfig(path.join(DIR, 'evalgate.yml'))
    const { record, comparison } = await evaluate(loaded, { env: { PATH: process.env.PATH }, baseline })
    expect(comparison.regressed).toEqual(['late-boots'])
    expect(comparison.gate.passed).toBe(false)
    expect(comparison.gate.checks.map((c) => c.check)).toEqual(['maxRegressions', 'maxTokensIncrease'])
    const boots = record.cases.find((c) => c.id === 'late-boots')!
    expect(boots.toolCalls!.map((c) => c.name)).toEqual(['lookup_order', 'refund'])
    expect(boots.trace).toMatchObject({
      errorCount: 1,
      errorSpans: [{ name: 'execute_tool refund', message: 'refund refused: order B7 is not delivered yet' }]
    })
    // the spans' tokens, priced by `pricing` at the model the spans name
    expect(boots.metadata).toEqual({ model: 'support-mini' })
    expect(boots.usage!.costUsd).toBeGreaterThan(0)
    const md = markdownOf({ comparison, baseline, current: record, gate: loaded.config.gate })
    expect(md).toContain('**Error spans** (1 in trace')
    expect(md).toContain('- `execute_tool refund`: refund refused: order B7 is not delivered yet')
  })

  it('the released agent (AGENT_VERSION 1) passes every case against its own baseline', async () => {
    const baseline = await readRunRecord(path.join(DIR, 'baseline.json'))
    const loaded = await loadEvalConfig(path.join(DIR, 'evalgate.yml'))
    loaded.config.target.env = { AGENT_VERSION: '1' }
    const { record, comparison } = await evaluate(loaded, { env: { PATH: process.env.PATH }, baseline })
    expect(record.summary.passed).toBe(5)
    expect(comparison.gate.passed).toBe(true)
    expect(record.cases.every((c) => c.trace && c.trace.spans >= 3 && c.toolCalls !== undefined)).toBe(true)
  })
})
