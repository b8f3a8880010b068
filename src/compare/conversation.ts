/**
 * Where a conversation went wrong against the baseline's: the
 * first turn whose checks changed verdict, else the turn where the case's own
 * checks failed (its last), else the first turn one transcript lacks. Pure:
 * two case results in.
 */
import type { AssertionResult, CaseResult, TurnResult } from '../types.js'

export type TurnDifferenceKind =
  /** the turn's checks (or the turn itself: a target error) passed on one side and failed on the other */
  | 'checks'
  /** every turn reads alike, but the case's own checks (graded on the last reply) changed verdict */
  | 'case'
  /** one conversation has a turn the other lacks (it ended sooner) */
  | 'missing'

export interface TurnDifference {
  /** 1-based */
  turn: number
  kind: TurnDifferenceKind
  baseline: TurnResult | undefined
  current: TurnResult | undefined
  /** the current run's first failing check at that turn (the case's own, for `case`), when it has one */
  failing?: AssertionResult
  /** how many turns each conversation had */
  turns: { baseline: number; current: number }
  /**
   * the first turn (1-based) where what was said differs — the user's message
   * or the agent's reply — when it comes before `turn`: where a conversation
   * judged as a whole (a simulated user's) started to go another way
   */
  divergedAt?: number
}

type Conversation = Pick<CaseResult, 'turns' | 'assertions'>

/** Whether a turn went well: it answered, and its checks passed (a check of weight 0 informs, it does not fail). */
function turnPassed(t: TurnResult): boolean {
  return t.error === undefined && t.output !== null && (t.assertions ?? []).every((a) => a.passed || a.weight === 0)
}

/** The case's own checks: what its assertions hold after every turn's. */
export function caseChecks(c: Conversation): AssertionResult[] {
  const turnChecks = (c.turns ?? []).reduce((n, t) => n + (t.assertions?.length ?? 0), 0)
  return c.assertions.slice(turnChecks)
}

const failingOf = (list: readonly AssertionResult[] | undefined) => list?.find((a) => !a.passed && a.weight !== 0)

/** The first turn where two conversations part, or null when neither is one (or they read alike). */
export function firstDifferingTurn(baseline: Conversation | undefined, current: Conversation): TurnDifference | null {
  const before = baseline?.turns ?? []
  const now = current.turns
  if (!now) return null
  const turns = { baseline: before.length, current: now.length }
  const at = (i: number, kind: TurnDifferenceKind, failing?: AssertionResult): TurnDifference => {
    const d: TurnDifference = { turn: i + 1, kind, baseline: before[i], current: now[i], turns }
    if (failing) d.failing = failing
    const diverged = before.findIndex((b, k) => k < i && (b.user !== now[k]?.user || b.output !== now[k]?.output))
    if (diverged !== -1) d.divergedAt = diverged + 1
    return d
  }
  // without a baseline: where the conversation alone went wrong
  if (!baseline) {
    const failed = now.findIndex((t) => !turnPassed(t))
    if (failed !== -1) return at(failed, 'checks', failingOf(now[failed]!.assertions))
    const failing = failingOf(caseChecks(current))
    return failing && now.length > 0 ? at(now.length - 1, 'case', failing) : null
  }
  const shared = Math.min(before.length, now.length)
  for (let i = 0; i < shared; i++) {
    if (turnPassed(before[i]!) !== turnPassed(now[i]!)) return at(i, 'checks', failingOf(now[i]!.assertions))
  }
  const passedBefore = caseChecks(baseline).every((a) => a.passed || a.weight === 0)
  const own = caseChecks(current)
  const failing = failingOf(own)
  if (now.length > 0 && passedBefore !== (failing === undefined)) return at(now.length - 1, 'case', failing)
  if (before.length !== now.length) return at(shared, 'missing')
  return null
}
