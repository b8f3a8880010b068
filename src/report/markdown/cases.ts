/**
 * The comment's regressed cases (without a baseline: the failing ones): a
 * table row each — all of whose ids stay in the comment — and the details of
 * the first ones: input, expectation, both outputs, both trajectories, a traced
 * case's error spans and why the case fails.
 */
import { conversationDetail } from '../conversation.js'
import type { AssertionResult, CaseResult, RunRecord } from '../../types.js'
import { escapeHtml, escapeInline, fencedBlock, inlineCode } from '../escape.js'
import { formatCount, formatScore, formatValue, plural } from '../format.js'
import { trajectoryDiff } from '../metrics.js'
import type { ReportModel } from '../model.js'
import { caseError, caseFailure, failedAssertions } from '../failure.js'
import { errorSpansText } from '../trace.js'
import { byKey, idList, table, trialsText } from './cells.js'
import { SEPARATOR, type Block } from './fit.js'

/** Characters of one input, output or expectation shown; the artifact has them whole. */
const BLOCK_CHARS = 1_000
export const REASON_CHARS = 500
/** The reason in a row of the regressions table. */
export const ROW_REASON_CHARS = 120
/** Fewer characters than any row of a case table has ("| <code>…</code> |  | … | … |"). */
const MIN_ROW_CHARS = 30

/**
 * The regressed cases (without a baseline: the failing ones): a table of every
 * one that fits, the ids of the rest below it, then details of the first ones.
 */
export function failingCases(model: ReportModel, limit: number, hint: string | undefined, maxLength: number): Block[] {
  const { comparison: c, baseline, current } = model
  const notGraded = new Set(c.notGraded)
  const keys = c.baseline ? c.regressed : current.cases.filter((k) => !k.passed && !notGraded.has(k.id)).map((k) => k.id)
  if (!keys.length) return []
  const currentCases = byKey(current.cases)
  const baselineCases = byKey(baseline?.cases ?? [])
  // a case regressed as the baseline ran it is shown as it ran then
  const asBaseline = new Set(c.changedRegressed ?? [])
  const cases = keys.flatMap((key) => {
    const k = currentCases.get(key)
    return !k ? [] : asBaseline.has(key) ? [asBaselineView(k, baselineCases.get(key))] : [k]
  })
  if (!cases.length) return []
  const noun = c.baseline ? 'Regressed' : 'Failing'
  const shown = cases.slice(0, limit)
  const capped = shown.length < cases.length && shown.length > 0
  const heading: Block = {
    text: `#### ${noun} (${formatCount(cases.length)})`,
    table: {
      head: table(['case', 'tags', 'first failing check', 'reason'], [], 'left'),
      // a row takes more than MIN_ROW_CHARS: rows past maxLength / MIN_ROW_CHARS could never be shown
      rows: cases.slice(0, Math.ceil(maxLength / MIN_ROW_CHARS)).map((k) => ({ key: k.id, text: caseRow(k, asBaseline.has(k.id)) })),
      beyond: cases.slice(Math.ceil(maxLength / MIN_ROW_CHARS)).map((k) => k.id),
      rest: (rest, maxChars) => restLine(`${noun}, not in the table for lack of room`, rest, maxChars)
    }
  }
  const details = shown.map((k) => ({ text: caseDetail(baselineCases.get(k.id), k, !!c.baseline, asBaseline.has(k.id)), optional: 'detail' as const }))
  const cap = capped
    ? [{ text: `<sub>Details of the first ${formatCount(shown.length)} of ${formatCount(cases.length)}${hint ? `; all are in ${hint}` : ''}.</sub>` }]
    : []
  return [heading, ...tooFewTrials(model, 'regressed'), ...cap, ...details]
}

/** "Regressed, not in the table…: `a`, `b`, `c`": every id, unless even the ids overflow maxChars. */
function restLine(label: string, keys: string[], maxChars = Infinity): string {
  let text = `${label} (${formatCount(keys.length)}): `
  for (const [i, key] of keys.entries()) {
    const piece = `${i ? ', ' : ''}${inlineCode(key)}`
    const reserve = i < keys.length - 1 ? ` and ${formatCount(keys.length)} more`.length : 0
    if (text.length + piece.length + reserve > maxChars) return i ? `${text} and ${formatCount(keys.length - i)} more` : `${text}too many to list`
    text += piece
  }
  return text
}

/** A changed case as it ran with the baseline's input and assertions: what the report shows of it. */
function asBaselineView(k: CaseResult, before: CaseResult | undefined): CaseResult {
  const view: CaseResult = { ...k, ...k.asBaseline!, input: before?.input ?? k.input, expected: before?.expected }
  if (!k.asBaseline!.trials) delete view.trials
  return view
}

function caseRow(k: CaseResult, asBaseline = false): string {
  const name = k.name !== k.id ? ` ${escapeInline(k.name, 60)}` : ''
  const first = firstFailure(k)
  const check = first.check
  const reason = asBaseline ? `changed in this pull request; as the baseline ran it: ${first.reason}` : first.reason
  return `| <code>${escapeHtml(k.id, 100)}</code>${name} | ${escapeInline(k.tags.join(', '), 60)} | ${check} | ${escapeInline(reason, ROW_REASON_CHARS)} |`
}

/** The first thing that went wrong with a case, for its row: the target's error, else its first failed check. */
export function firstFailure(k: CaseResult): { check: string; reason: string } {
  const failure = caseFailure(k)
  if (failure.kind === 'error') return { check: 'target error', reason: failure.error }
  if (failure.kind === 'unknown') return { check: '—', reason: 'no failing assertion was recorded' }
  const failed = failure.assertion
  const check = `<code>${escapeHtml(failed.type, 60)}</code>`
  if (failed.judge) {
    const why = failed.judge.error ? `judge error: ${failed.judge.error}` : failed.judge.reason || failed.reason
    return { check, reason: `scored ${formatScore(failed.judge.score)}: ${why}` }
  }
  const { claim, got } = splitReason(failed.reason)
  return { check, reason: got === null ? claim : `${claim}, got: ${got}` }
}

/**
 * A rule-based reason "expected output to contain \"x\", got: \"…\"" split into
 * its claim and the output excerpt (unquoted); the report shows the output
 * itself, so the excerpt is left out there.
 */
export function splitReason(reason: string): { claim: string; got: string | null } {
  const m = /^(.*?), got: ("(?:[^"\\]|\\.)*")$/s.exec(reason)
  if (!m) return { claim: reason, got: null }
  try {
    return { claim: m[1]!, got: JSON.parse(m[2]!) as string }
  } catch {
    return { claim: reason, got: null }
  }
}

function caseDetail(before: CaseResult | undefined, now: CaseResult, compared: boolean, asBaseline = false): string {
  const label = now.name !== now.id ? ` ${escapeHtml(now.name)}` : ''
  const parts = [`<details><summary><code>${escapeHtml(now.id)}</code>${label}</summary>`]
  if (asBaseline)
    parts.push(
      '_This case changed in this pull request (its input or checks differ from the baseline’s). It passed on the baseline and fails when run as the baseline ran it, shown here; to change an expected answer on purpose, label the pull request to accept it._'
    )
  // a conversation shows the turn where it parted from the baseline's instead of one input and output
  const conversation = conversationDetail(compared ? before : undefined, now)
  if (!conversation) parts.push('**Input**', fencedBlock(formatValue(now.input), BLOCK_CHARS))
  if (now.expected !== undefined) parts.push('**Expected**', fencedBlock(formatValue(now.expected), BLOCK_CHARS))
  if (conversation) parts.push(conversation)
  else {
    if (compared && before) parts.push(`**Baseline output** (passed${trialsText(before)})`, outputBlock(before))
    parts.push(
      `**${compared ? (asBaseline ? 'Current output, as the baseline ran it' : 'Current output') : 'Output'}** (failed${trialsText(now)})`,
      outputBlock(now)
    )
  }
  const calls = trajectoryDiff(before, now)
  if (calls) parts.push(calls)
  const errorSpans = errorSpansText(now)
  if (errorSpans) parts.push(errorSpans)
  parts.push('**Why it fails**', failureReasons(now).join('\n'), '</details>')
  return parts.join(SEPARATOR)
}

function outputBlock(c: CaseResult): string {
  if (c.output !== null) return fencedBlock(c.output, BLOCK_CHARS)
  return c.error !== null ? `_no output; the target failed:_\n\n${fencedBlock(c.error, BLOCK_CHARS)}` : '_no output_'
}

/** The failed assertions with their reasons (and the judge's), else what the failing trials say. */
function failureReasons(c: CaseResult): string[] {
  const error = caseError(c)
  const lines = failedAssertions(c).map(assertionReason)
  // the output block above already shows what the target said; its error is shown there too
  if (error !== null && c.output !== null) lines.unshift(`- target error: ${escapeInline(error, REASON_CHARS)}`)
  else if (error !== null && !lines.length) lines.push('- the target failed (its error is shown above)')
  return lines.length ? lines : ['- no failing assertion was recorded']
}

function assertionReason(a: AssertionResult): string {
  const judge = a.judge
  if (!judge) return `- ${inlineCode(a.type)}: ${escapeInline(splitReason(a.reason).claim, REASON_CHARS)}`
  const reused = judge.reused ? ', reused' : ''
  const judgeReason = judge.reason && judge.reason !== a.reason ? ` — judge: ${escapeInline(judge.reason, REASON_CHARS)}` : ''
  const judgeError = judge.error ? ` — judge error: ${escapeInline(judge.error, REASON_CHARS)}` : ''
  return (
    `- ${inlineCode(a.type)} (judge ${escapeInline(judge.model, 100)} scored ${formatScore(judge.score)}${reused}): ` +
    `${escapeInline(a.reason, REASON_CHARS)}${judgeReason}${judgeError}`
  )
}

/** Case ids named in the too-few-trials sentence before "and N more". */
const IDS_LISTED = 20

/**
 * Why flips of repeated cases counted without the test: "`a`, `b`
 * passed all 3 trials on the baseline and failed all 3 now: with too few
 * trials for the significance test to tell a break from chance whatever
 * happened, they count as regressed, as with one trial." Under the regressed
 * table for regressions, after the fixed list for fixes.
 */
export function tooFewTrials(model: ReportModel, outcome: 'regressed' | 'fixed'): Block[] {
  const { comparison: c, baseline, current } = model
  const keys = new Set(c.tooFewTrials ?? [])
  if (!keys.size) return []
  const hit = (outcome === 'regressed' ? c.regressed : c.fixed).filter((k) => keys.has(k))
  if (!hit.length) return []
  const [before, now] = outcome === 'regressed' ? ['passed', 'failed'] : ['failed', 'passed']
  const trials = (run: RunRecord | null, key: string) => run?.cases.find((k) => k.id === key)?.trials?.length ?? 1
  const [b, n] = [trials(baseline, hit[0]!), trials(current, hit[0]!)]
  const they = hit.length === 1 ? 'it counts' : 'they count'
  return [
    {
      text:
        `${idList(hit, IDS_LISTED)} ${before} all ${plural(b, 'trial')} on the baseline and ${now} all ${formatCount(n)} now: ` +
        `with too few trials for the significance test to tell a break from chance whatever happened, ${they} as ${outcome}, as with one trial.`
    }
  ]
}
