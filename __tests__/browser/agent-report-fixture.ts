/**
 * An agent's report (SPEC §10) for the HTML report's tests: per-case cost and
 * latency, and trajectories that differ at the first step, at a later one, at
 * the end of the shorter one, or not at all, and one the current run stopped reporting.
 */
import { compareRuns } from '../../src/compare/index.js'
import type { ReportInput } from '../../src/report/index.js'
import type { CaseResult, ToolCall } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRun } from '../__fixtures__/records.js'

export const LOOKUP: ToolCall = { name: 'lookup_order', args: { order_id: 'B7' } }
export const REFUND: ToolCall = { name: 'refund', args: { order_id: 'B7', amount: 64 } }
export const SEARCH: ToolCall = { name: 'search_kb', args: { query: 'returns' } }

const agent = (id: string, passed: boolean, costUsd: number, latencyMs: number, toolCalls?: ToolCall[]): CaseResult =>
  makeCase(id, passed, { usage: { totalTokens: 100, costUsd }, latencyMs, ...(toolCalls ? { toolCalls } : {}) })

export function agentReportFixture(): ReportInput {
  const baseline = makeBaseline([
    agent('where-is-b7', true, 0.0006, 560, [LOOKUP]),
    agent('returns-policy', true, 0.0006, 560, [SEARCH]),
    agent('refund-late', true, 0.0007, 870, [LOOKUP, REFUND]),
    agent('extra-step', true, 0.0006, 400, [LOOKUP]),
    agent('greeting', true, 0.0001, 200),
    agent('lost-calls', true, 0.0006, 500, [LOOKUP])
  ])
  const current = makeRun([
    // a forbidden refund after a new first step
    agent('where-is-b7', false, 0.0009, 1300, [SEARCH, LOOKUP, REFUND]),
    agent('returns-policy', true, 0.0006, 680, [SEARCH]),
    // the same first step, a different second one
    agent('refund-late', true, 0.0007, 870, [LOOKUP, SEARCH]),
    // the baseline's trajectory and one call more
    agent('extra-step', true, 0.00062, 450, [LOOKUP, REFUND]),
    agent('greeting', true, 0.0005, 200),
    agent('new-case', true, 0.0004, 300, [LOOKUP]),
    // the target stopped reporting its tool calls: not the same as calling none
    agent('lost-calls', true, 0.0006, 500)
  ])
  return { comparison: compareRuns(baseline, current, makeGate()), baseline, current }
}
