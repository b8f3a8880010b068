/**
 * A regressed conversation in the comment: the first turn where it
 * parted from the baseline's, with what the user said, both replies and the
 * turn's failing check; the rest of the transcript folded. Pure.
 */
import { firstDifferingTurn, type TurnDifference } from '../compare/conversation.js'
import { formatCount } from './format.js'
import type { CaseResult, JudgeSummary, TurnResult } from '../types.js'
import { escapeHtml, escapeInline, fencedBlock } from './escape.js'

/** Characters of one message shown; the artifact has them whole. */
const MESSAGE_CHARS = 600
/** Turns of the folded transcript shown; longer conversations say how many more. */
const TURNS_SHOWN = 20

const turns = (n: number) => `${n} turn${n === 1 ? '' : 's'}`

/** The turn shown and why it is the one, in words (the comment bolds the title, the HTML report shows both as text). */
export function differenceWords(d: TurnDifference, compared = true): { title: string; why: string } {
  const title = d.current ? `First differing turn: turn ${d.turn} of ${d.turns.current}` : `First differing turn: turn ${d.turn}`
  if (!compared)
    return {
      title: `First failing turn: turn ${d.turn} of ${d.turns.current}`,
      why: d.kind === 'case' ? "the case's checks on this last reply fail" : 'its checks fail'
    }
  switch (d.kind) {
    case 'checks':
      return { title, why: d.current && turnOk(d.current) ? 'it failed on the baseline and passes now' : 'it passed on the baseline and fails now' }
    case 'case':
      return { title, why: `no turn's own checks changed verdict; the case's checks, on this last reply, ${d.failing ? 'fail' : 'pass'} now` }
    default:
      return {
        title,
        why: d.current
          ? `the baseline's conversation ended after ${turns(d.turns.baseline)}`
          : `this run's conversation ended after ${turns(d.turns.current)}; the baseline's went on`
      }
  }
}

const turnOk = (t: TurnResult) => t.output !== null && (t.assertions ?? []).every((a) => a.passed || a.weight === 0)

function reply(t: TurnResult | undefined, side: string): string {
  if (!t) return `**${side} reply**: _no such turn_`
  if (t.output !== null) return `**${side} reply**\n\n${fencedBlock(t.output, MESSAGE_CHARS)}`
  return `**${side} reply**: _none; the target failed:_\n\n${fencedBlock(t.error ?? 'target failed', MESSAGE_CHARS)}`
}

/** One turn of the folded transcript. */
function transcriptTurn(t: TurnResult, n: number, marked: boolean): string {
  const mark = marked ? ' ⬅ first difference' : ''
  const checks = t.assertions?.length ? ` · checks: ${t.assertions.filter((a) => a.passed).length}/${t.assertions.length} passed` : ''
  const answer = t.output !== null ? fencedBlock(t.output, MESSAGE_CHARS) : `_no reply: ${escapeInline(t.error ?? 'target failed', 300)}_`
  return `${n}. **User**${mark}${checks}\n\n${fencedBlock(t.user, MESSAGE_CHARS)}\n\n**Agent**\n\n${answer}`
}

/** Where the two conversations first read differently, before the turn shown. */
function divergence(before: CaseResult, now: CaseResult, n: number): string {
  const [b, c] = [before.turns![n - 1]!, now.turns![n - 1]]
  const said = (t: TurnResult | undefined) => (t ? escapeInline(t.output ?? `(no reply: ${t.error ?? 'target failed'})`, 200) : '(no such turn)')
  const heard = b.user !== c?.user ? ` The user said ${escapeInline(b.user, 120)} on the baseline, ${escapeInline(c?.user ?? '(nothing)', 120)} now.` : ''
  return `The conversations first read differently at **turn ${n}**:${heard} Baseline: ${said(b)} — current: ${said(c)}`
}

/**
 * The conversation part of a regressed (or failing) case's details, or null
 * when the case is no conversation.
 */
export function conversationDetail(before: CaseResult | undefined, now: CaseResult): string | null {
  if (!now.turns) return null
  const d = firstDifferingTurn(before, now)
  const parts: string[] = []
  if (d) {
    const user = d.current?.user ?? d.baseline?.user
    const { title, why } = differenceWords(d, before !== undefined)
    parts.push(`**${title}** — ${why}`)
    if (d.divergedAt !== undefined) parts.push(divergence(before!, now, d.divergedAt))
    if (user !== undefined) parts.push(`**User**\n\n${fencedBlock(user, MESSAGE_CHARS)}`)
    if (before) parts.push(reply(d.baseline, 'Baseline'))
    parts.push(reply(d.current, before ? 'Current' : 'Agent'))
    if (d.failing) parts.push(`**Failing check**: <code>${escapeHtml(d.failing.type, 60)}</code> — ${escapeInline(d.failing.reason, 500)}`)
  }
  const shown = now.turns.slice(0, TURNS_SHOWN).map((t, i) => transcriptTurn(t, i + 1, d?.turn === i + 1))
  const more = now.turns.length > TURNS_SHOWN ? [`_and ${now.turns.length - TURNS_SHOWN} more turns in the record_`] : []
  const noun = `${now.turns.length} turn${now.turns.length === 1 ? '' : 's'}`
  parts.push(`<details><summary>This run's conversation (${noun})</summary>`, ...shown, ...more, '</details>')
  return parts.join('\n\n')
}

/** The simulated users' calls for a run's footer (their tokens are in the judge's), or null without any. */
export function simulatedUserText(judge: JudgeSummary): string | null {
  const user = judge.simulatedUser
  if (!user?.calls) return null
  const errors = user.errors ? `, ${formatCount(user.errors)} error${user.errors === 1 ? '' : 's'}` : ''
  return `simulated user: ${formatCount(user.calls)} call${user.calls === 1 ? '' : 's'}${errors}`
}
