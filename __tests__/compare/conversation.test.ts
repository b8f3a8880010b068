/**
 * firstDifferingTurn: the first turn whose checks changed verdict,
 * else the turn where the case's own checks failed, else the first turn one
 * transcript lacks; and where the two first read differently before it.
 */
import { describe, expect, it } from '@jest/globals'
import { caseChecks, firstDifferingTurn } from '../../src/compare/conversation.js'
import type { AssertionResult, TurnResult } from '../../src/types.js'

const check = (passed: boolean, reason = passed ? 'ok' : 'failed', type = 'contains'): AssertionResult => ({ type, passed, score: passed ? 1 : 0, reason })
const turn = (user: string, output: string | null, checks: boolean[] = [], error?: string): TurnResult => ({
  user,
  output,
  ...(error ? { error } : {}),
  assertions: checks.map((p, i) => check(p, `turn: check ${i} ${p ? 'passed' : 'failed'}`))
})
/** A conversation: its turns, then the case's own checks (its assertions list holds the turns' first). */
const conv = (turns: TurnResult[], own: boolean[] = []) => ({
  turns,
  assertions: [...turns.flatMap((t) => t.assertions ?? []), ...own.map((p) => check(p, 'case', 'llm-rubric'))]
})

const A = turn('hi', 'hello', [true])
const B = turn('A18', 'Order A18', [true])
const C = turn('refund it', 'Refund of $20.50 issued for A18.', [true])
const C_FORGOT = turn('refund it', 'Which order should I refund?', [false])

describe('firstDifferingTurn', () => {
  it.each([
    ['a turn whose checks now fail', conv([A, B, C]), conv([A, B, C_FORGOT]), { turn: 3, kind: 'checks', failing: 'turn: check 0 failed' }],
    ['a turn the target failed on', conv([A, B, C]), conv([A, turn('A18', null, [], 'timed out after 100 ms')]), { turn: 2, kind: 'checks' }],
    [
      'the earliest of several',
      conv([A, B, C]),
      conv([turn('hi', 'hello', [false]), B, C_FORGOT]),
      { turn: 1, kind: 'checks', failing: 'turn: check 0 failed' }
    ],
    ['the case’s own checks on the last reply', conv([A, B, C], [true]), conv([A, B, C], [false]), { turn: 3, kind: 'case', failing: 'case' }],
    ['a conversation that ended sooner', conv([A, B, C]), conv([A, B]), { turn: 3, kind: 'missing' }],
    ['one that went on longer', conv([A, B]), conv([A, B, C]), { turn: 3, kind: 'missing' }]
  ])('%s', (_label, baseline, current, expected) => {
    const d = firstDifferingTurn(baseline, current)!
    expect({ turn: d.turn, kind: d.kind, ...(d.failing ? { failing: d.failing.reason } : {}) }).toEqual(expected)
    expect(d.turns).toEqual({ baseline: baseline.turns.length, current: current.turns.length })
  })

  it('is null for conversations that read alike in verdicts, and for a case that is no conversation', () => {
    expect(firstDifferingTurn(conv([A, B, C]), conv([A, B, C]))).toBeNull()
    expect(firstDifferingTurn(undefined, { assertions: [] })).toBeNull()
  })

  it('says where the conversations first read differently, before a turn judged as a whole', () => {
    // a simulated user's conversation: no turn checks, the case's rubric fails at the end; the replies parted at turn 2
    const before = conv([turn('hi', 'hello'), turn('B7', 'Refund issued'), turn('thanks', 'welcome')], [true])
    const now = conv([turn('hi', 'hello'), turn('B7', 'Which order?'), turn('B7', 'Refund issued'), turn('thanks', 'welcome')], [false])
    const d = firstDifferingTurn(before, now)!
    expect([d.turn, d.kind, d.divergedAt]).toEqual([4, 'case', 2])
  })

  it('without a baseline, names the failing turn of the conversation alone', () => {
    expect(firstDifferingTurn(undefined, conv([A, C_FORGOT]))).toMatchObject({ turn: 2, kind: 'checks', baseline: undefined })
  })

  it('caseChecks are what the assertions hold after every turn’s', () => {
    expect(caseChecks(conv([A, B], [false, true])).map((a) => a.passed)).toEqual([false, true])
  })
})
