/**
 * The markdown report (SPEC §7): the sticky PR comment, the job summary and
 * `--report` share it. Pure: a comparison, its two records and the verdict in,
 * markdown out, never longer than maxLength.
 */
import {
  KEYS_IN_SENTENCE,
  formatCount,
  formatDuration,
  formatKeys,
  formatList,
  formatPercent,
  formatScore,
  formatValue,
  plural,
  relativeAge,
  signed,
  signedPoints
} from '../compare/format.js'
import type { BaselineStatus, Comparison, ConfigChange, FlakyCase, GateFailure, RunFigures, Verdict } from '../compare/types.js'
import type { AssertionResult, CaseResult, RunRecord } from '../types.js'
import { escapeHtml, escapeInline, fencedBlock, inlineCode, truncate } from './escape.js'
import { conversationDetail, simulatedUserText } from './conversation.js'
import { metricRows, trajectoryDiff } from './metrics.js'
import { namedScoresTable } from './named-scores.js'

/** GitHub refuses comments over 65,536 characters; this leaves room for what callers add. */
export const DEFAULT_MAX_LENGTH = 60_000

/** Regressions (or failing cases) shown in full below their table, unless told otherwise. */
export const DEFAULT_DETAILS = 10

/** Characters of one input, output or expectation shown; the artifact has them whole. */
const BLOCK_CHARS = 1_000
const REASON_CHARS = 500
/** The reason in a row of the regressions table. */
const ROW_REASON_CHARS = 120
/** Fewer characters than any row of a case table has ("| <code>…</code> |  | … | … |"). */
const MIN_ROW_CHARS = 30
/** Rows of a case table shown open; the others fold into a collapsed block below it (still in the comment). */
const OPEN_ROWS = 20
const ERRORS_LISTED = 20
const FLAKY_LISTED = 20
const SCORED_LOWER_LISTED = 20
/** Case ids named per list of removed, changed or added cases. */
const COVERAGE_LISTED = 100

/** An interval is shown only over this many compared cases: below, it spans nearly everything. */
const CI_MIN_CASES = 10
/** A difference of rates or scores spans [−1, 1]; an interval wider than half of that says nothing. */
const CI_MAX_WIDTH = 1

const SEPARATOR = '\n\n'

export interface ReportLinks {
  /** the page of the workflow run that made the baseline */
  baselineRun?: string | null
  /** the page of this workflow run */
  currentRun?: string | null
}

export interface ReportInput {
  comparison: Comparison
  baseline: RunRecord | null
  current: RunRecord
  /** the verdict (compare/conclude.ts); without it, one is read off comparison.gate */
  verdict?: Verdict
  /** what the baseline lookup said, when no verdict carries the notices */
  notices?: string[]
  links?: ReportLinks
}

export interface ReportOptions {
  /** default 60,000 characters */
  maxLength?: number
  /** a hidden HTML comment placed first, by which the sticky comment is found again */
  marker?: string
  /** where the full report is, for the line saying what did not fit (markdown, trusted) */
  fullReportHint?: string
  /** default "evalgate · <run name>" */
  title?: string
  /** regressions detailed below their table; default 10 (the job summary shows them all) */
  details?: number
}

/** What can be left out of a long report, most important first: the order in which room is given. */
const OPTIONAL = ['coverage', 'scored', 'errors', 'fixes', 'flaky', 'tags', 'detail'] as const
type Optional = (typeof OPTIONAL)[number]

/** A whole unit of the report, joined to the next by a blank line. */
interface Block {
  text: string
  optional?: Optional
  /** a table under `text` given room row by row; rows left out leave their case ids in a line below */
  table?: CaseTable
}

interface CaseTable {
  head: string
  rows: { key: string; text: string }[]
  /** cases past the most rows that could fit: their ids always go to the line below the table */
  beyond: string[]
  /** the line naming the cases whose rows did not fit, within `maxChars` when given */
  rest: (keys: string[], maxChars?: number) => string
}

/** The verdict as the report shows it: the lead's Verdict, or one read off the gate. */
interface VerdictView {
  outcome: Verdict['outcome']
  headline: string
  reasons: string[]
  checks: GateFailure[]
  baselineStatus: BaselineStatus
  notices: string[]
  configChanges: ConfigChange[]
}

export function renderReport(input: ReportInput, options: ReportOptions = {}): string {
  const { comparison: c, current } = input
  const view = verdictView(input)
  const details = options.details ?? DEFAULT_DETAILS
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH
  const body: Block[] = [
    ...(options.marker ? [{ text: options.marker }] : []),
    ...verdictAlerts(input, view, options.title ?? `evalgate · ${current.name}`),
    { text: figuresTable(input) },
    ...runIdentity(input),
    ...configChanges(view.configChanges),
    ...failingCases(input, details, options.fullReportHint, maxLength),
    ...scoredLower(input),
    ...fixes(c, current),
    ...otherOutcomes(c),
    ...rerunLine(c, current),
    ...flakyList(c, input.baseline),
    ...tagsTable(c),
    ...namedScoresTable(input.baseline, current, table),
    ...errors(current),
    ...judgeSpread(current)
  ]
  const footer: Block[] = [{ text: runFooter(current) }]
  return fit(body, footer, maxLength, options.fullReportHint)
}

function verdictView(input: ReportInput): VerdictView {
  const { comparison: c, verdict: v } = input
  if (!v) {
    return {
      outcome: c.gate.passed ? 'pass' : 'fail',
      headline: c.gate.passed ? 'gate passed' : 'gate failed',
      reasons: c.gate.failures,
      checks: c.gate.checks,
      baselineStatus: c.baseline ? 'found' : 'none',
      notices: input.notices ?? [],
      configChanges: []
    }
  }
  // an accepted failure passes the check, so its gate failures are not among the reasons; they are shown all the same
  // (an incomplete run the verdict words itself)
  const reasons = [...new Set([...v.reasons, ...v.gate.checks.filter((k) => k.check !== 'incomplete').map((k) => k.sentence)])]
  const notices = [...new Set([...v.notices, ...(input.notices ?? [])])]
  return {
    outcome: v.outcome,
    headline: shortHeadline(v, reasons, notices),
    reasons,
    checks: v.gate.checks,
    baselineStatus: v.baselineStatus,
    notices,
    configChanges: v.configChanges
  }
}

const OUTCOME_WORDS: Record<Verdict['outcome'], string> = {
  pass: 'gate passed',
  fail: 'gate failed',
  accepted: 'gate failed, accepted',
  error: 'evalgate could not tell'
}

/**
 * The headline without what the alert says below it: the first reason (a
 * bullet of its own, "gate failed: <reason>" → "gate failed") and the remark
 * that there is no baseline when a notice says so already.
 */
function shortHeadline(v: Verdict, reasons: string[], notices: string[]): string {
  const repeated = reasons.find((r) => v.headline.endsWith(r))
  let headline = repeated ? v.headline.slice(0, v.headline.length - repeated.length).replace(/[\s:]+$/, '') : v.headline
  if (notices.some((n) => /no baseline/i.test(n)) || v.baselineStatus === 'none') headline = headline.replace(/\s*\([^()]*no baseline[^()]*\)$/i, '')
  return headline || OUTCOME_WORDS[v.outcome]
}

type AlertKind = 'CAUTION' | 'WARNING' | 'NOTE' | 'TIP'

/**
 * The verdict as a GitHub alert: CAUTION when the check fails, WARNING when a
 * failure was accepted by label, the run is incomplete or the baseline is in
 * doubt, NOTE without a baseline, TIP for a clean pass. Notices follow in an
 * alert of their own kind, or inside the verdict's when the kinds agree.
 */
function verdictAlerts(input: ReportInput, view: VerdictView, title: string): Block[] {
  const { comparison: c, current } = input
  const baselineTrouble = view.baselineStatus === 'error' || view.baselineStatus === 'incompatible' || (c.baseline !== null && !c.baseline.complete)
  const onlyIncomplete = current.complete === false && view.checks.every((k) => k.check === 'incomplete') && view.reasons.length <= 1
  const kind: AlertKind =
    view.outcome === 'error' || (view.outcome === 'fail' && !onlyIncomplete)
      ? 'CAUTION'
      : view.outcome !== 'pass' || baselineTrouble
        ? 'WARNING'
        : !c.baseline
          ? 'NOTE'
          : 'TIP'
  const notices = view.notices.map((n) => escapeInline(n, 1_000))
  if (c.baseline && !c.baseline.complete) notices.push('the baseline run is incomplete: cases it lacks count as added')
  // the lookup's own notice says why there is no baseline; the generic one only when none does
  if (!c.baseline && !view.notices.some((n) => /no baseline/i.test(n))) {
    notices.push('no baseline: comparison skipped, only absolute floors checked')
  }
  const noticeKind: AlertKind = baselineTrouble ? 'WARNING' : 'NOTE'
  const lines = [`**${escapeInline(title, 200)}: ${escapeInline(view.headline, 1_000)}**`]
  const reasons = reasonLines(view)
  if (reasons.length) lines.push('', ...reasons)
  const merged = noticeKind === kind
  if (merged && notices.length) lines.push('', ...notices.map((n) => (reasons.length ? `- ${n}` : n)))
  const blocks = [{ text: alert(kind, lines) }]
  if (!merged && notices.length) blocks.push({ text: alert(noticeKind, notices.length > 1 ? notices.map((n) => `- ${n}`) : notices) })
  return blocks
}

function alert(kind: AlertKind, lines: string[]): string {
  return [`> [!${kind}]`, ...lines.map((line) => (line ? `> ${line}` : '>'))].join('\n')
}

/** One bullet per reason; cases a bullet above already named are not named again. */
function reasonLines(view: VerdictView): string[] {
  const named = new Set<string>()
  return [...new Set(view.reasons)].map((reason) => {
    const check = view.checks.find((k) => k.sentence === reason)
    const text = check ? withoutNamedKeys(check, named) : reason
    for (const key of check?.keys ?? []) named.add(key)
    return `- ${escapeInline(text, 2_000)}`
  })
}

/**
 * The failure's sentence, its closing list of cases shortened to those not
 * named before: "…: q and the case above", "…: the 2 cases above".
 */
export function withoutNamedKeys(f: GateFailure, named: ReadonlySet<string>): string {
  const list = formatKeys(f.keys)
  const repeated = f.keys.filter((k) => named.has(k)).length
  if (!repeated || !f.sentence.endsWith(list)) return f.sentence
  const fresh = f.keys.filter((k) => !named.has(k))
  const above = repeated === 1 ? 'the case above' : `the ${formatCount(repeated)} cases above`
  // "a, b and 3 more, and the case above": a comma once the fresh list has its own "and"
  const rest = fresh.length === 0 ? above : `${formatKeys(fresh)}${fresh.length > KEYS_IN_SENTENCE ? ',' : ''} and ${above}`
  return f.sentence.slice(0, f.sentence.length - list.length) + rest
}

function figuresTable(input: ReportInput): string {
  const c = input.comparison
  const current = c.current
  if (!c.baseline) {
    const rows = [['pass rate', rateCell(current)]]
    if (current.meanScore !== null) rows.push(['mean score', formatScore(current.meanScore)])
    return table(['', 'current'], rows)
  }
  const baseline = c.baseline
  const common = c.common
  // When both runs hold exactly the compared cases, the all-cases row already is the paired one.
  const sameCases = common !== null && common.total === baseline.total && common.total === current.total
  const ci = telling(c.passRateDeltaCI, common?.total ?? 0) ? confidenceText(c.passRateDeltaCI) : ''
  const rows = [['pass rate', rateCell(baseline), rateCell(current), signedPoints(c.passRateDelta!) + (sameCases ? ci : '')]]
  if (common && !sameCases) {
    rows.push([
      `pass rate, ${plural(common.total, 'case')} in both runs`,
      formatPercent(common.baselinePassRate),
      formatPercent(common.currentPassRate),
      signedPoints(common.passRateDelta) + ci
    ])
  }
  // Scores compared on fewer cases than all the scored ones get their own row, which carries the paired interval.
  const sameScores = common?.baselineMeanScore === baseline.meanScore && common?.currentMeanScore === current.meanScore
  const scoreCI = telling(c.meanScoreDeltaCI, scoredInBoth(input)) ? scoreConfidenceText(c.meanScoreDeltaCI) : ''
  if (baseline.meanScore !== null || current.meanScore !== null) {
    rows.push(['mean score', scoreOrDash(baseline.meanScore), scoreOrDash(current.meanScore), signedScore(c.meanScoreDelta) + (sameScores ? scoreCI : '')])
  }
  if (common && !sameScores && common.meanScoreDelta !== null) {
    rows.push([
      'mean score, cases scored in both runs',
      scoreOrDash(common.baselineMeanScore),
      scoreOrDash(common.currentMeanScore),
      signedScore(common.meanScoreDelta) + scoreCI
    ])
  }
  rows.push(...metricRows(c))
  return table(['', 'baseline', 'current', 'change'], rows)
}

/** Whether an interval over n compared cases says something: enough cases, and narrower than half the range. */
function telling(ci: [number, number] | null, n: number): ci is [number, number] {
  return ci !== null && n >= CI_MIN_CASES && ci[1] - ci[0] <= CI_MAX_WIDTH
}

/** The cases compared (same key and fingerprint) and scored in both runs: the mean-score interval's sample. */
function scoredInBoth(input: ReportInput): number {
  // most runs have no judge: no score to look up, no map of 100,000 cases to make
  if (!input.baseline || !input.current.cases.some((k) => k.score !== null)) return 0
  const before = byKey(input.baseline.cases)
  return input.current.cases.filter((k) => {
    const b = before.get(k.id)
    return b !== undefined && b.fingerprint === k.fingerprint && b.score !== null && k.score !== null
  }).length
}

/** "Baseline: commit `ba5e110` on `main`, 3 hours older than this run, workflow run 41. This run: commit `c0ffee0`, workflow run 42." */
function runIdentity(input: ReportInput): Block[] {
  const { baseline, current } = input
  const links = input.links ?? {}
  const sentences: string[] = []
  if (baseline) {
    const { sha, ref } = baseline.git
    const commit = sha ? `commit ${inlineCode(sha.slice(0, 7))}` : 'a run with no recorded commit'
    const branch = ref ? ` on ${inlineCode(ref.replace(/^refs\/(heads|tags)\//, ''))}` : ''
    const age = relativeAge(baseline.createdAt, current.createdAt)
    sentences.push(`Baseline: ${commit}${branch}${age ? `, ${age}` : ''}${runText(baseline.git.runId, links.baselineRun)}.`)
  }
  const { sha } = current.git
  const run = runText(current.git.runId, links.currentRun)
  if (sha || run) sentences.push(`This run: ${sha ? `commit ${inlineCode(sha.slice(0, 7))}` : 'no recorded commit'}${run}.`)
  return sentences.length ? [{ text: sentences.join(' ') }] : []
}

/** ", [workflow run 41](…)" when the page is known, else ", workflow run `41`". */
function runText(runId: string | null, url: string | null | undefined): string {
  const label = `workflow run ${runId ? escapeInline(runId, 40) : ''}`.trim()
  if (url && /^https?:\/\/[^\s()<>[\]]+$/.test(url)) return `, [${label}](${url})`
  return runId ? `, workflow run ${inlineCode(runId, 40)}` : ''
}

/** SPEC §9: the trusted settings the pull request changes, which this run did not apply. */
function configChanges(changes: ConfigChange[]): Block[] {
  if (!changes.length) return []
  // a code span in a table cell: GFM splits cells at every pipe not escaped, even inside code
  const code = (text: string) => inlineCode(text, 200).replace(/\|/g, '\\|')
  const value = (v: unknown) => (v === undefined ? '_not set_' : code(JSON.stringify(v) ?? String(v)))
  const rows = changes.map((ch) => [code(ch.key), value(ch.base), value(ch.head)])
  return [
    {
      text:
        `#### Config changes (apply after merge)\n\n` +
        `This pull request changes trusted settings; this run used the base branch's values.\n\n` +
        table(['setting', 'applied (base branch)', 'this pull request'], rows, 'left')
    }
  ]
}

/**
 * The regressed cases (without a baseline: the failing ones): a table of every
 * one that fits, the ids of the rest below it, then details of the first ones.
 */
function failingCases(input: ReportInput, limit: number, hint: string | undefined, maxLength: number): Block[] {
  const { comparison: c, baseline, current } = input
  const keys = c.baseline ? c.regressed : current.cases.filter((k) => !k.passed).map((k) => k.id)
  if (!keys.length) return []
  const currentCases = byKey(current.cases)
  const cases = keys.flatMap((key) => currentCases.get(key) ?? [])
  if (!cases.length) return []
  const noun = c.baseline ? 'Regressed' : 'Failing'
  const baselineCases = byKey(baseline?.cases ?? [])
  const shown = cases.slice(0, limit)
  const capped = shown.length < cases.length && shown.length > 0
  const heading: Block = {
    text: `#### ${noun} (${formatCount(cases.length)})`,
    table: {
      head: table(['case', 'tags', 'first failing check', 'reason'], [], 'left'),
      // a row takes more than MIN_ROW_CHARS: rows past maxLength / MIN_ROW_CHARS could never be shown
      rows: cases.slice(0, Math.ceil(maxLength / MIN_ROW_CHARS)).map((k) => ({ key: k.id, text: caseRow(k) })),
      beyond: cases.slice(Math.ceil(maxLength / MIN_ROW_CHARS)).map((k) => k.id),
      rest: (rest, maxChars) => restLine(`${noun}, not in the table for lack of room`, rest, maxChars)
    }
  }
  const details = shown.map((k) => ({ text: caseDetail(baselineCases.get(k.id), k, !!c.baseline), optional: 'detail' as const }))
  const cap = capped
    ? [{ text: `<sub>Details of the first ${formatCount(shown.length)} of ${formatCount(cases.length)}${hint ? `; all are in ${hint}` : ''}.</sub>` }]
    : []
  return [heading, ...cap, ...details]
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

function caseRow(k: CaseResult): string {
  const name = k.name !== k.id ? ` ${escapeInline(k.name, 60)}` : ''
  const { check, reason } = firstFailure(k)
  return `| <code>${escapeHtml(k.id, 100)}</code>${name} | ${escapeInline(k.tags.join(', '), 60)} | ${check} | ${escapeInline(reason, ROW_REASON_CHARS)} |`
}

/** The first thing that went wrong with a case, for its row: the target's error, else its first failed check. */
export function firstFailure(k: CaseResult): { check: string; reason: string } {
  const trial = k.trials?.find((t) => !t.passed)
  const error = k.error ?? trial?.error ?? null
  if (error !== null) return { check: 'target error', reason: error }
  const failed = k.assertions.find((a) => !a.passed) ?? trial?.assertions.find((a) => !a.passed)
  if (!failed) return { check: '—', reason: 'no failing assertion was recorded' }
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

function caseDetail(before: CaseResult | undefined, now: CaseResult, compared: boolean): string {
  const label = now.name !== now.id ? ` ${escapeHtml(now.name)}` : ''
  const parts = [`<details><summary><code>${escapeHtml(now.id)}</code>${label}</summary>`]
  // a conversation shows the turn where it parted from the baseline's instead of one input and output (SPEC §13)
  const conversation = conversationDetail(compared ? before : undefined, now)
  if (!conversation) parts.push('**Input**', fencedBlock(formatValue(now.input), BLOCK_CHARS))
  if (now.expected !== undefined) parts.push('**Expected**', fencedBlock(formatValue(now.expected), BLOCK_CHARS))
  if (conversation) parts.push(conversation)
  else {
    if (compared && before) parts.push(`**Baseline output** (passed${trialsText(before)})`, outputBlock(before))
    parts.push(`**${compared ? 'Current output' : 'Output'}** (failed${trialsText(now)})`, outputBlock(now))
  }
  const calls = trajectoryDiff(before, now)
  if (calls) parts.push(calls)
  parts.push('**Why it fails**', failureReasons(now).join('\n'), '</details>')
  return parts.join(SEPARATOR)
}

function outputBlock(c: CaseResult): string {
  if (c.output !== null) return fencedBlock(c.output, BLOCK_CHARS)
  return c.error !== null ? `_no output; the target failed:_\n\n${fencedBlock(c.error, BLOCK_CHARS)}` : '_no output_'
}

/** The failed assertions with their reasons (and the judge's), else what the failing trials say. */
function failureReasons(c: CaseResult): string[] {
  const trial = c.trials?.find((t) => !t.passed)
  const failed = c.assertions.filter((a) => !a.passed)
  const assertions = failed.length ? failed : (trial?.assertions.filter((a) => !a.passed) ?? [])
  const error = c.error ?? trial?.error ?? null
  const lines = assertions.map(assertionReason)
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

/** Cases that still pass but the judge scored lower than in the baseline, largest drop first. */
function scoredLower(input: ReportInput): Block[] {
  const { comparison: c, baseline, current } = input
  const keys = c.common?.scoredLower ?? []
  // no index of 100,000 cases for a list that is empty
  if (!keys.length) return []
  const before = byKey(baseline?.cases ?? [])
  const now = byKey(current.cases)
  const lower = keys.flatMap((key) => {
    const [b, k] = [before.get(key), now.get(key)]
    return b && k && k.passed && b.score !== null && k.score !== null ? [{ b, k }] : []
  })
  if (!lower.length) return []
  const rows = lower.slice(0, SCORED_LOWER_LISTED).map(({ b, k }) => {
    const judged = k.assertions.find((a) => a.judge)
    const name = k.name !== k.id ? ` ${escapeInline(k.name, 60)}` : ''
    return [
      `<code>${escapeHtml(k.id, 100)}</code>${name}`,
      `${formatScore(b.score!)} → ${formatScore(k.score!)}`,
      escapeInline(judged?.judge?.reason ?? judged?.reason ?? '', ROW_REASON_CHARS)
    ]
  })
  const more = lower.length > SCORED_LOWER_LISTED ? `\n\nand ${formatCount(lower.length - SCORED_LOWER_LISTED)} more` : ''
  const heading = `#### Scored lower (${formatCount(lower.length)}): still passing, the judge's score dropped`
  return [{ text: `${heading}\n\n${table(['case', 'score', 'judge'], rows, 'left')}${more}`, optional: 'scored' }]
}

function fixes(c: Comparison, current: RunRecord): Block[] {
  if (!c.fixed.length) return []
  const cases = byKey(current.cases)
  const lines = c.fixed.map((key) => `- ${caseLabel(key, cases.get(key))}`)
  return [{ text: [`#### Fixed (${formatCount(c.fixed.length)})`, ...lines].join('\n'), optional: 'fixes' }]
}

/** The counts of every outcome, then the ids of removed, changed and added cases (SPEC §9). */
function otherOutcomes(c: Comparison): Block[] {
  if (!c.baseline) return []
  const counts = [
    `${formatCount(c.flaky.length)} flaky`,
    `${formatCount(c.added.length)} added`,
    `${formatCount(c.removed.length)} removed`,
    `${formatCount(c.changed.length)} changed (fingerprint differs, not compared)`,
    `${formatCount(c.unchanged)} unchanged`
  ]
  const lines = [counts.join(' · ')]
  if (c.unfinished.length) {
    lines.push(`Not reached by this incomplete run: ${plural(c.unfinished.length, 'baseline case')}.`)
  }
  const lists = (
    [
      ['Removed', c.removed],
      ['Changed', c.changed],
      ['Added', c.added]
    ] as const
  ).flatMap(([label, keys]) => (keys.length ? [`- ${label}: ${idList(keys, COVERAGE_LISTED)}`] : []))
  return [{ text: lines.join('\n\n') }, ...(lists.length ? [{ text: lists.join('\n'), optional: 'coverage' as const }] : [])]
}

function idList(keys: readonly string[], limit: number): string {
  const shown = keys
    .slice(0, limit)
    .map((k) => inlineCode(k))
    .join(', ')
  return keys.length > limit ? `${shown} and ${formatCount(keys.length - limit)} more` : shown
}

/** "3 flipped cases re-run 5 times each to confirm: 2 confirmed, 1 flaky." */
function rerunLine(c: Comparison, current: RunRecord): Block[] {
  const rerun = current.cases.filter((k) => (k.reruns ?? 0) > 0)
  if (!c.baseline || !rerun.length) return []
  const times = [...new Set(rerun.map((k) => k.reruns!))].sort((a, b) => a - b)
  const timesText = times.length === 1 ? plural(times[0]!, 'time') : `${formatCount(times[0]!)} to ${plural(times.at(-1)!, 'time')}`
  const keys = new Set(rerun.map((k) => k.id))
  // against a single baseline trial the re-runs cannot confirm anything: no result would be significant
  const untestable = new Set(c.notTestable)
  const confirmed = [...c.regressed, ...c.fixed].filter((k) => keys.has(k) && !untestable.has(k)).length
  const notTestable = c.notTestable.filter((k) => keys.has(k)).length
  const flaky = c.flaky.filter((k) => keys.has(k)).length
  return [
    {
      text:
        `${plural(rerun.length, 'flipped case')} re-run ${timesText} each to confirm: ` +
        `${formatCount(confirmed)} confirmed, ${formatCount(flaky)} flaky` +
        (notTestable ? `, ${formatCount(notTestable)} not testable (a single baseline trial: counted as flipped)` : '') +
        '.'
    }
  ]
}

/** The flaky cases, one line each saying in plain words why the flip was not counted. */
function flakyList(c: Comparison, baseline: RunRecord | null): Block[] {
  if (!c.flakyCases.length) return []
  const branch = baseline?.git.ref ? inlineCode(baseline.git.ref.replace(/^refs\/(heads|tags)\//, '')) : undefined
  const lines = c.flakyCases.slice(0, FLAKY_LISTED).map((f) => `- ${inlineCode(f.key)} ${flakyReason(f, branch)}`)
  if (c.flakyCases.length > FLAKY_LISTED) lines.push(`- and ${formatCount(c.flakyCases.length - FLAKY_LISTED)} more`)
  const heading = `#### Flaky (${formatCount(c.flakyCases.length)}): flipped, but within chance, not counted`
  return [{ text: [heading, ...lines].join('\n'), optional: 'flaky' }]
}

/**
 * "failed this time, but failed 3 of its last 10 runs on `main`";
 * "failed at first, then passed 4 of 5 re-runs";
 * "failed 3 of 4 trials, against 1 of 4 in the baseline: within chance (p = 0.24)".
 */
export function flakyReason(f: FlakyCase, branch?: string): string {
  const verb = f.flip
  const count = (t: { passed: number; total: number }, as = verb) => (as === 'passed' ? t.passed : t.total - t.passed)
  const opposite = verb === 'failed' ? 'passed' : 'failed'
  const chance = f.p !== undefined ? `: within chance (p = ${formatP(f.p)})` : ''
  const rerunNote = f.reruns ? ` (${formatCount(f.reruns.total)} of them re-runs)` : ''
  const now = f.current.total === 1 ? `${verb} this time` : `${verb} ${formatCount(count(f.current))} of ${plural(f.current.total, 'trial')}${rerunNote}`
  if (f.because === 'reruns' && f.reruns) {
    const first = { passed: f.current.passed - f.reruns.passed, total: f.current.total - f.reruns.total }
    const before = first.total === 1 ? `${verb} at first` : `${verb} ${formatCount(count(first))} of ${plural(first.total, 'trial')} at first`
    return `${before}, then ${opposite} ${formatCount(count(f.reruns, opposite))} of ${plural(f.reruns.total, 're-run')}`
  }
  if (f.because === 'history') {
    const runs = branch ? `${plural(f.baseline.total, 'run')} on ${branch}` : plural(f.baseline.total, 'recorded run')
    return `${now}, but ${verb} ${formatCount(count(f.baseline))} of its last ${runs}${chance}`
  }
  return `${now}, against ${formatCount(count(f.baseline))} of ${formatCount(f.baseline.total)} in the baseline${chance}`
}

/** A p-value to two significant digits: 0.24, 0.0012. */
function formatP(p: number): string {
  return String(Number(p.toPrecision(2)))
}

/** How often the judge disagreed with itself, with judge.samples > 1. */
function judgeSpread(current: RunRecord): Block[] {
  const { sampled, disagreements } = current.summary.judge
  if (!sampled) return []
  const share = formatPercent((disagreements ?? 0) / sampled)
  return [
    {
      text:
        `Judge noise: asked several times about the same output (judge.samples), the judge disagreed with itself ` +
        `on pass/fail for ${formatCount(disagreements ?? 0)} of ${plural(sampled, 'verdict')} (${share}); each verdict is the median of its samples.`
    }
  ]
}

function tagsTable(c: Comparison): Block[] {
  if (!c.tags.length) return []
  const header = c.baseline ? ['tag', 'baseline', 'current', 'cases', 'regressed'] : ['tag', 'pass rate', 'cases']
  const rows = c.tags.map((t) => {
    const tag = escapeInline(t.tag, 100)
    const current = formatPercent(t.currentPassRate)
    return c.baseline ? [tag, percentOrDash(t.baselinePassRate), current, formatCount(t.total), formatCount(t.regressed)] : [tag, current, formatCount(t.total)]
  })
  return [{ text: `#### By tag\n\n${table(header, rows)}`, optional: 'tags' }]
}

function errors(current: RunRecord): Block[] {
  const errored = current.cases.filter((c) => c.error !== null)
  if (!errored.length) return []
  const lines = errored.slice(0, ERRORS_LISTED).map((c) => `- ${inlineCode(c.id)}: ${escapeInline(c.error!, REASON_CHARS)}`)
  if (errored.length > ERRORS_LISTED) lines.push(`- and ${formatCount(errored.length - ERRORS_LISTED)} more`)
  return [{ text: [`#### Errors (${formatCount(errored.length)})`, ...lines].join('\n'), optional: 'errors' }]
}

function runFooter(current: RunRecord): string {
  const { judge, durationMs } = current.summary
  const parts: string[] = []
  if (judge.calls || judge.reused || judge.errors || judge.tokens) {
    parts.push(
      `judge: ${plural(judge.calls, 'call')}, ${formatCount(judge.reused)} reused, ` + `${plural(judge.errors, 'error')}, ${plural(judge.tokens, 'token')}`
    )
  }
  const user = simulatedUserText(judge)
  if (user) parts.push(user)
  parts.push(`duration: ${formatDuration(durationMs)}`, `${plural(current.cases.length, 'case')}`)
  return `<sub>${parts.join(' · ')} · evalgate ${escapeHtml(current.tool.version, 40)}</sub>`
}

/** A block as shown with the first `rows` rows of its table (the others' ids in the line below it). */
function renderBlock(block: Block, rows = block.table?.rows.length ?? 0, restChars?: number): string {
  const t = block.table
  if (!t) return block.text
  const parts = [block.text]
  const lines = t.rows.slice(0, rows).map((r) => r.text)
  if (rows > 0) parts.push(`${t.head}\n${lines.slice(0, OPEN_ROWS).join('\n')}`)
  if (rows > OPEN_ROWS) parts.push(`${foldOpening(rows - OPEN_ROWS)}${t.head}\n${lines.slice(OPEN_ROWS).join('\n')}${FOLD_CLOSING}`)
  if (rows < t.rows.length || t.beyond.length) parts.push(t.rest([...t.rows.slice(rows).map((r) => r.key), ...t.beyond], restChars))
  return parts.join(SEPARATOR)
}

function foldOpening(rows: number): string {
  return `<details><summary>${plural(rows, 'more case')}</summary>${SEPARATOR}`
}

const FOLD_CLOSING = `${SEPARATOR}</details>`

/**
 * The report within maxLength. Every essential block stays, and so does every
 * regressed case's id: a case table's rows are given room first, one by one in
 * dataset order, and the ids of rows left out are listed below the table. Then
 * optional blocks get room in order of importance (coverage lists, scored
 * lower, errors, fixes, flaky, per-tag, then regression details in dataset
 * order) and are dropped whole when they do not fit, with a line saying what
 * was left out and where to find it.
 */
function fit(body: Block[], footer: Block[], maxLength: number, hint?: string): string {
  const all = [...body, ...footer]
  const full = all.map((b) => renderBlock(b))
  if (joinedLength(full) <= maxLength) return full.join(SEPARATOR)
  const essential = all.filter((b) => !b.optional)
  const tables = essential.filter((b) => b.table)
  // Room for the longest possible note: the one that says everything optional was dropped.
  const longestNote = omissionNote(
    body.filter((b) => b.optional),
    maxLength,
    hint
  )
  const reserved = SEPARATOR.length + longestNote.length
  // Only when the ids alone overflow is the line of ids cut, each table's line to an equal share.
  const withoutRows = essential.map((b) => renderBlock(b, 0))
  let restChars: number | undefined
  if (joinedLength(withoutRows) + reserved > maxLength && tables.length) {
    const lines = tables.reduce((n, b) => n + renderBlock(b, 0).length - b.text.length, 0)
    restChars = Math.max(0, Math.floor((maxLength - reserved - (joinedLength(withoutRows) - lines)) / tables.length) - SEPARATOR.length)
  }
  const rowsKept = new Map<Block, number>()
  let length = joinedLength(essential.map((b) => renderBlock(b, 0, restChars))) + reserved
  for (const block of tables) {
    const t = block.table!
    let kept = 0
    for (const row of t.rows) {
      // a row moves its id out of the line below; a cut line gives nothing back
      const freed = restChars === undefined ? inlineCode(row.key).length + 2 : 0
      // the first row opens the table, the first folded one the collapsed block and its table
      const opening =
        kept === 0
          ? SEPARATOR.length + t.head.length
          : kept === OPEN_ROWS
            ? SEPARATOR.length + foldOpening(t.rows.length).length + t.head.length + FOLD_CLOSING.length
            : 0
      const extra = opening + 1 + row.text.length - freed
      if (length + extra > maxLength) break
      length += extra
      kept++
    }
    rowsKept.set(block, kept)
  }
  const kept = new Set(essential)
  for (const kind of OPTIONAL) {
    for (const block of body.filter((b) => b.optional === kind)) {
      const extra = SEPARATOR.length + block.text.length
      if (length + extra <= maxLength) {
        kept.add(block)
        length += extra
      } else if (kind === 'detail') {
        break // regression details stay a prefix, in dataset order
      }
    }
  }
  const dropped = body.filter((b) => !kept.has(b))
  const note = dropped.length ? [omissionNote(dropped, maxLength, hint)] : []
  const shown = (blocks: Block[]) => blocks.filter((b) => kept.has(b)).map((b) => renderBlock(b, rowsKept.get(b), restChars))
  const text = [...shown(body), ...note, ...shown(footer)].join(SEPARATOR)
  return text.length <= maxLength ? text : hardCut(text, maxLength)
}

function omissionNote(dropped: Block[], maxLength: number, hint?: string): string {
  const details = dropped.filter((b) => b.optional === 'detail').length
  const what = [
    ...(details ? [plural(details, 'regression detail')] : []),
    ...(dropped.some((b) => b.optional === 'coverage') ? ['the lists of removed, changed and added cases'] : []),
    ...(dropped.some((b) => b.optional === 'scored') ? ['the cases scored lower'] : []),
    ...(dropped.some((b) => b.optional === 'fixes') ? ['the fixes list'] : []),
    ...(dropped.some((b) => b.optional === 'tags') ? ['the per-tag breakdown'] : []),
    ...(dropped.some((b) => b.optional === 'errors') ? ['the errors list'] : []),
    ...(dropped.some((b) => b.optional === 'flaky') ? ['the flaky list'] : [])
  ]
  const where = hint ? `; see ${hint}` : ''
  return `⚠️ ${formatList(what)} did not fit within ${formatCount(maxLength)} characters${where}.`
}

/** Last resort when even the essential blocks are too long (a tiny maxLength). */
function hardCut(text: string, maxLength: number): string {
  const note = `${SEPARATOR}⚠️ cut at ${formatCount(maxLength)} characters`
  if (note.length >= maxLength) return truncate(text, maxLength).text
  return truncate(text, maxLength - note.length).text + note
}

function joinedLength(texts: readonly string[]): number {
  return texts.reduce((n, t) => n + t.length, 0) + SEPARATOR.length * Math.max(0, texts.length - 1)
}

/** Each record's cases by key, made once: several sections look cases up, and at 100,000 cases making a map per section was most of the report's time. */
const keyed = new WeakMap<readonly CaseResult[], Map<string, CaseResult>>()

function byKey(cases: readonly CaseResult[]): Map<string, CaseResult> {
  let map = keyed.get(cases)
  if (!map) {
    map = new Map()
    for (const c of cases) map.set(c.id, c)
    keyed.set(cases, map)
  }
  return map
}

function caseLabel(key: string, c: CaseResult | undefined): string {
  return c && c.name !== key ? `${inlineCode(key)} ${escapeInline(c.name, 200)}` : inlineCode(key)
}

function trialsText(c: CaseResult): string {
  if (!c.trials || c.trials.length < 2) return ''
  const reruns = c.reruns ? `, ${formatCount(c.reruns)} of them re-runs` : ''
  return `, ${c.trials.filter((t) => t.passed).length} of ${c.trials.length} trials${reruns}`
}

function rateCell(f: RunFigures): string {
  return `${formatPercent(f.passRate)} (${formatCount(f.passed)}/${formatCount(f.total)})`
}

/** A markdown table of escaped cells: the first column left-aligned, the others right-aligned (figures) or left (text). */
function table(header: string[], rows: string[][], align: 'right' | 'left' = 'right'): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  const alignment = `|:--|${(align === 'right' ? '--:|' : ':--|').repeat(header.length - 1)}`
  return [line(header), alignment, ...rows.map(line)].join('\n')
}

function percentOrDash(rate: number | null): string {
  return rate === null ? '—' : formatPercent(rate)
}

function scoreOrDash(score: number | null): string {
  return score === null ? '—' : formatScore(score)
}

function signedScore(delta: number | null): string {
  return delta === null ? '—' : signed(delta, 3)
}

function confidenceText(ci: [number, number] | null): string {
  return ci ? ` (95% CI ${signed(ci[0] * 100, 1)} to ${signed(ci[1] * 100, 1)})` : ''
}

function scoreConfidenceText(ci: [number, number] | null): string {
  return ci ? ` (95% CI ${signed(ci[0], 3)} to ${signed(ci[1], 3)})` : ''
}
