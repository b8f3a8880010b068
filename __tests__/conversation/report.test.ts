/**
 * A regressed conversation as people see it: the comment names the
 * first differing turn with both replies and the turn's failing check, the
 * transcript folded, never the whole dialogue in the open; without a baseline
 * it names the first failing turn; the HTML report's view carries both
 * transcripts side by side with the turn marked. Pure: records in.
 */
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import { conversationDetail, simulatedUserText } from '../../src/report/conversation.js'
import { caseViews } from '../../src/report/html/view.js'
import { buildReport, renderReport } from '../../src/report/index.js'
import type { AssertionResult, CaseResult, TurnResult } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRun } from '../__fixtures__/records.js'

const check = (n: number, passed: boolean, value: string): AssertionResult => ({
  type: 'contains',
  passed,
  score: passed ? 1 : 0,
  reason: passed ? `turn ${n}: output contains "${value}"` : `turn ${n}: expected output to contain "${value}"`
})
const turn = (n: number, user: string, output: string, passed = true): TurnResult => ({ user, output, latencyMs: 1, assertions: [check(n, passed, 'A18')] })
const conversation = (id: string, turns: TurnResult[], passed: boolean): CaseResult =>
  makeCase(id, passed, { input: undefined, turns, assertions: turns.flatMap((t) => t.assertions ?? []), output: turns.at(-1)!.output })

const BEFORE = conversation('refund', [turn(1, 'refund please', 'order number?'), turn(2, 'A18', 'Order A18'), turn(3, 'yes', 'Refund issued for A18')], true)
const NOW = conversation(
  'refund',
  [turn(1, 'refund please', 'order number?'), turn(2, 'A18', 'Order A18'), turn(3, 'yes', 'Which order? <b>@team</b>', false)],
  false
)

describe('the comment', () => {
  it('shows the first differing turn, both replies and its failing check; the rest folded', () => {
    const baseline = makeBaseline([BEFORE])
    const current = makeRun([NOW])
    const report = renderReport(buildReport({ comparison: compareRuns(baseline, current, makeGate()), baseline, current }))
    const detail = report.slice(report.indexOf('<summary><code>refund</code>'))
    expect(detail).toContain('**First differing turn: turn 3 of 3** — it passed on the baseline and fails now')
    expect(detail).toMatch(/\*\*Baseline reply\*\*\n\n```\nRefund issued for A18\n```/)
    // the agent's words stay inert: in a code block, mentions and HTML do nothing
    expect(detail).toMatch(/\*\*Current reply\*\*\n\n```\nWhich order\? <b>@team<\/b>\n```/)
    expect(detail).toContain('**Failing check**: <code>contains</code> — turn 3: expected output to contain')
    // the whole transcript only inside a folded block
    const open = detail.slice(0, detail.indexOf("<details><summary>This run's conversation (3 turns)</summary>"))
    expect(open).not.toContain('refund please')
    expect(detail).not.toContain('**Input**')
  })

  it('without a baseline, names the first failing turn', () => {
    const text = conversationDetail(undefined, NOW)!
    expect(text).toContain('**First failing turn: turn 3 of 3** — its checks fail')
    expect(text).not.toContain('Baseline reply')
  })

  it('is no conversation detail for a single-input case', () => {
    expect(conversationDetail(undefined, makeCase('plain', false))).toBeNull()
  })

  it('counts the simulated user’s calls in the footer', () => {
    expect(simulatedUserText({ calls: 1, reused: 0, errors: 0, tokens: 9, simulatedUser: { calls: 8, errors: 1, tokens: 9 } })).toBe(
      'simulated user: 8 calls, 1 error'
    )
    expect(simulatedUserText({ calls: 1, reused: 0, errors: 0, tokens: 9 })).toBeNull()
  })
})

describe('the HTML report’s view', () => {
  it('carries both transcripts side by side, the first differing turn and where they first read differently', () => {
    const simulatedBefore = conversation('sim', [turn(1, 'hi', 'order?'), turn(2, 'B7', 'Refunded')], true)
    const simulatedNow = conversation('sim', [turn(1, 'hi', 'order?'), turn(2, 'B7', 'Which order?'), turn(3, 'B7', 'Refunded')], true)
    simulatedNow.assertions.push({ type: 'llm-rubric', passed: false, score: 0, reason: 'asked again' })
    simulatedNow.passed = false
    const baseline = makeBaseline([BEFORE, simulatedBefore])
    const current = makeRun([NOW, simulatedNow])
    const views = new Map(caseViews({ comparison: compareRuns(baseline, current, makeGate()), baseline, current }).map((v) => [v.key, v]))
    const refund = views.get('refund')!.conversation!
    expect(refund.first).toBe(3)
    expect(refund.why).toBe('First differing turn: turn 3 of 3: it passed on the baseline and fails now.')
    expect(refund.baseline!.map((t) => t.output)).toEqual(['order number?', 'Order A18', 'Refund issued for A18'])
    expect(refund.current[2]).toMatchObject({
      user: 'yes',
      output: 'Which order? <b>@team</b>',
      passed: false,
      failed: [expect.objectContaining({ type: 'contains' })]
    })
    const sim = views.get('sim')!.conversation!
    expect([sim.first, sim.diverged]).toEqual([3, 2])
    expect(sim.why).toContain('The conversations first read differently at turn 2.')
    expect(views.get('refund')!.input).toBeDefined()
  })
})
