/**
 * The markdown report (SPEC §7): the sticky PR comment, the job summary and
 * `--report` share it. Pure: a comparison and its two records in, markdown out,
 * never longer than maxLength.
 */
import { formatCount, formatList, formatPercent, formatScore, plural } from '../compare/format.js'
import type { Comparison, FlakyCase, RunFigures, Verdict } from '../compare/types.js'
import type { AssertionResult, CaseResult, RunRecord } from '../types.js'
import { escapeHtml, escapeInline, fencedBlock, inlineCode, truncate } from './escape.js'
import { namedScoresTable } from './named-scores.js'

/** GitHub refuses comments over 65,536 characters; this leaves room for what callers add. */
export const DEFAULT_MAX_LENGTH = 60_000

/** Characters of one input, output or expectation shown; the artifact has them whole. */
const BLOCK_CHARS = 1_000
const REASON_CHARS = 500
const ERRORS_LISTED = 20
const FLAKY_LISTED = 20

const MINUS = '\u2212'
const SEPARATOR = '\n\n'

export interface ReportInput {
  comparison: Comparison
  baseline: RunRecord | null
  current: RunRecord
  /** the run's verdict (compare/conclude.ts); without one, the gate's result is shown */
  verdict?: Verdict
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
}

/** What can be left out of a long report, most important first: the order in which room is given. */
const OPTIONAL = ['flaky', 'errors', 'fixes', 'tags', 'detail'] as const
type Optional = (typeof OPTIONAL)[number]

/** A whole unit of the report, joined to the next by a blank line. */
interface Block {
  text: string
  optional?: Optional
}

export function renderReport(input: ReportInput, options: ReportOptions = {}): string {
  const { comparison: c, current } = input
  const body: Block[] = [
    ...(options.marker ? [{ text: options.marker }] : []),
    ...verdict(c, options.title ?? `evalgate · ${current.name}`, input.verdict),
    ...configChanges(input.verdict),
    { text: figuresTable(c) },
    ...baselineIdentity(input.baseline, current),
    ...regressions(input),
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
  return fit(body, footer, options.maxLength ?? DEFAULT_MAX_LENGTH, options.fullReportHint)
}

const HEADINGS: Record<Verdict['outcome'], string> = {
  pass: '✅ gate passed',
  fail: '❌ gate failed',
  accepted: '⚠️ gate failed, accepted by label',
  error: '❌ evalgate could not tell'
}

function verdict(c: Comparison, title: string, v: Verdict | undefined): Block[] {
  const heading = `### ${HEADINGS[v?.outcome ?? (c.gate.passed ? 'pass' : 'fail')]}: ${escapeInline(title)}`
  const sentences = v ? [...new Set([...v.reasons, ...v.gate.failures])] : c.gate.failures
  const failures = sentences.map((f) => `- ${escapeInline(f, 2_000)}`)
  if (v?.outcome === 'accepted') failures.unshift(escapeInline(v.headline, 2_000))
  const notes: string[] = []
  if (!c.baseline) notes.push('> ℹ️ no baseline: comparison skipped, only absolute floors checked')
  else if (!c.baseline.complete) notes.push('> ⚠️ the baseline run is incomplete: cases it lacks count as added')
  return [{ text: [heading, ...failures].join('\n') }, ...notes.map((text) => ({ text }))]
}

/** Trusted settings the pull request changes (SPEC §9): not applied to this run. */
function configChanges(v: Verdict | undefined): Block[] {
  if (!v?.configChanges.length) return []
  const show = (x: unknown) => (x === undefined ? '(not set)' : inlineCode(JSON.stringify(x), 200))
  const rows = v.configChanges.map((ch) => `| ${inlineCode(ch.key, 200)} | ${show(ch.base)} | ${show(ch.head)} |`)
  return [
    {
      text: [
        '#### Config changes (apply after merge)',
        'This pull request changes settings that decide its own verdict; this run used the base commit’s values.',
        '',
        '| setting | base (used) | this PR |',
        '|---|---|---|',
        ...rows
      ].join('\n')
    }
  ]
}

function figuresTable(c: Comparison): string {
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
  const ci = confidenceText(c.passRateDeltaCI)
  const rows = [
    ['pass rate', rateCell(baseline), rateCell(current), signedPoints(c.passRateDelta!) + (sameCases ? ci : '')]
  ]
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
  const scoreCI = scoreConfidenceText(c.meanScoreDeltaCI)
  if (baseline.meanScore !== null || current.meanScore !== null) {
    rows.push([
      'mean score',
      scoreOrDash(baseline.meanScore),
      scoreOrDash(current.meanScore),
      signedScore(c.meanScoreDelta) + (sameScores ? scoreCI : '')
    ])
  }
  if (common && !sameScores && common.meanScoreDelta !== null) {
    rows.push([
      'mean score, cases scored in both runs',
      scoreOrDash(common.baselineMeanScore),
      scoreOrDash(common.currentMeanScore),
      signedScore(common.meanScoreDelta) + scoreCI
    ])
  }
  return table(['', 'baseline', 'current', 'change'], rows)
}

function baselineIdentity(baseline: RunRecord | null, current: RunRecord): Block[] {
  if (!baseline) return []
  const { sha, ref, runId } = baseline.git
  const commit = sha ? `commit ${inlineCode(sha.slice(0, 7))}` : 'a commit of unknown SHA'
  const branch = ref ? ` on ${inlineCode(ref.replace(/^refs\/(heads|tags)\//, ''))}` : ''
  const age = relativeAge(baseline.createdAt, current.createdAt)
  const run = runId ? `, workflow run ${inlineCode(runId)}` : ''
  return [{ text: `Baseline: ${commit}${branch}${age ? `, ${age}` : ''}${run}.` }]
}

function regressions(input: ReportInput): Block[] {
  const { comparison: c, baseline, current } = input
  if (!c.regressed.length) return []
  const baselineCases = byKey(baseline?.cases ?? [])
  const currentCases = byKey(current.cases)
  const details = c.regressed.flatMap((key) => {
    const now = currentCases.get(key)
    return now ? [{ text: regressionDetail(baselineCases.get(key), now), optional: 'detail' as const }] : []
  })
  return [{ text: `#### Regressed (${formatCount(c.regressed.length)})` }, ...details]
}

function regressionDetail(before: CaseResult | undefined, now: CaseResult): string {
  const label = now.name !== now.id ? ` ${escapeHtml(now.name)}` : ''
  const parts = [
    `<details><summary><code>${escapeHtml(now.id)}</code>${label}</summary>`,
    '**Input**',
    fencedBlock(show(now.input), BLOCK_CHARS)
  ]
  if (now.expected !== undefined) parts.push('**Expected**', fencedBlock(show(now.expected), BLOCK_CHARS))
  if (before) parts.push(`**Baseline output** (passed${trialsText(before)})`, outputBlock(before))
  parts.push(`**Current output** (failed${trialsText(now)})`, outputBlock(now))
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
  if (error !== null) lines.unshift(`- target error: ${escapeInline(error, REASON_CHARS)}`)
  return lines.length ? lines : ['- no failing assertion was recorded']
}

function assertionReason(a: AssertionResult): string {
  const judge = a.judge
  if (!judge) return `- ${inlineCode(a.type)}: ${escapeInline(a.reason, REASON_CHARS)}`
  const reused = judge.reused ? ', reused' : ''
  const judgeReason =
    judge.reason && judge.reason !== a.reason ? ` — judge: ${escapeInline(judge.reason, REASON_CHARS)}` : ''
  const judgeError = judge.error ? ` — judge error: ${escapeInline(judge.error, REASON_CHARS)}` : ''
  return (
    `- ${inlineCode(a.type)} (judge ${escapeInline(judge.model, 100)} scored ${formatScore(judge.score)}${reused}): ` +
    `${escapeInline(a.reason, REASON_CHARS)}${judgeReason}${judgeError}`
  )
}

function fixes(c: Comparison, current: RunRecord): Block[] {
  if (!c.fixed.length) return []
  const cases = byKey(current.cases)
  const lines = c.fixed.map((key) => `- ${caseLabel(key, cases.get(key))}`)
  return [{ text: [`#### Fixed (${formatCount(c.fixed.length)})`, ...lines].join('\n'), optional: 'fixes' }]
}

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
  return [{ text: lines.join('\n\n') }]
}

/** "3 flipped cases re-run 5 times each to confirm: 2 confirmed, 1 flaky." */
function rerunLine(c: Comparison, current: RunRecord): Block[] {
  const rerun = current.cases.filter((k) => (k.reruns ?? 0) > 0)
  if (!c.baseline || !rerun.length) return []
  const times = [...new Set(rerun.map((k) => k.reruns!))].sort((a, b) => a - b)
  const timesText = times.length === 1 ? plural(times[0]!, 'time') : `${formatCount(times[0]!)} to ${plural(times.at(-1)!, 'time')}`
  const keys = new Set(rerun.map((k) => k.id))
  const confirmed = [...c.regressed, ...c.fixed].filter((k) => keys.has(k)).length
  const flaky = c.flaky.filter((k) => keys.has(k)).length
  return [
    {
      text:
        `${plural(rerun.length, 'flipped case')} re-run ${timesText} each to confirm: ` +
        `${formatCount(confirmed)} confirmed, ${formatCount(flaky)} flaky.`
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
    return c.baseline
      ? [tag, percentOrDash(t.baselinePassRate), current, formatCount(t.total), formatCount(t.regressed)]
      : [tag, current, formatCount(t.total)]
  })
  return [{ text: `#### By tag\n\n${table(header, rows)}`, optional: 'tags' }]
}

function errors(current: RunRecord): Block[] {
  const errored = current.cases.filter((c) => c.error !== null)
  if (!errored.length) return []
  const lines = errored
    .slice(0, ERRORS_LISTED)
    .map((c) => `- ${inlineCode(c.id)}: ${escapeInline(c.error!, REASON_CHARS)}`)
  if (errored.length > ERRORS_LISTED) lines.push(`- and ${formatCount(errored.length - ERRORS_LISTED)} more`)
  return [{ text: [`#### Errors (${formatCount(errored.length)})`, ...lines].join('\n'), optional: 'errors' }]
}

function runFooter(current: RunRecord): string {
  const { judge, durationMs } = current.summary
  const parts: string[] = []
  if (judge.calls || judge.reused || judge.errors || judge.tokens) {
    parts.push(
      `judge: ${plural(judge.calls, 'call')}, ${formatCount(judge.reused)} reused, ` +
        `${plural(judge.errors, 'error')}, ${plural(judge.tokens, 'token')}`
    )
  }
  parts.push(`duration: ${formatDuration(durationMs)}`, `${plural(current.cases.length, 'case')}`)
  return `<sub>${parts.join(' · ')} · evalgate ${escapeHtml(current.tool.version, 40)}</sub>`
}

/**
 * The report within maxLength: optional blocks are given room in order of
 * importance (errors, fixes, per-tag, then regression details in dataset
 * order) and dropped whole when they do not fit, with a line saying what was
 * left out and where to find it.
 */
function fit(body: Block[], footer: Block[], maxLength: number, hint?: string): string {
  const all = [...body, ...footer]
  if (joinedLength(all) <= maxLength) return join(all)
  const kept = new Set(all.filter((b) => !b.optional))
  // Room for the longest possible note: the one that says everything optional was dropped.
  const longestNote = omissionNote(
    body.filter((b) => b.optional),
    maxLength,
    hint
  )
  let length = joinedLength([...kept]) + SEPARATOR.length + longestNote.length
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
  const note = dropped.length ? [{ text: omissionNote(dropped, maxLength, hint) }] : []
  const text = join([...body.filter((b) => kept.has(b)), ...note, ...footer])
  return text.length <= maxLength ? text : hardCut(text, maxLength)
}

function omissionNote(dropped: Block[], maxLength: number, hint?: string): string {
  const details = dropped.filter((b) => b.optional === 'detail').length
  const what = [
    ...(details ? [plural(details, 'regression detail')] : []),
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

function joinedLength(blocks: readonly Block[]): number {
  return blocks.reduce((n, b) => n + b.text.length, 0) + SEPARATOR.length * Math.max(0, blocks.length - 1)
}

function join(blocks: readonly Block[]): string {
  return blocks.map((b) => b.text).join(SEPARATOR)
}

function byKey(cases: readonly CaseResult[]): Map<string, CaseResult> {
  return new Map(cases.map((c) => [c.id, c]))
}

/** A case input or expectation as text: strings verbatim, anything else as indented JSON. */
function show(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value))
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

/** A markdown table of escaped cells: the first column left-aligned, figures right-aligned. */
function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  const alignment = `|:--|${'--:|'.repeat(header.length - 1)}`
  return [line(header), alignment, ...rows.map(line)].join('\n')
}

function percentOrDash(rate: number | null): string {
  return rate === null ? '—' : formatPercent(rate)
}

function scoreOrDash(score: number | null): string {
  return score === null ? '—' : formatScore(score)
}

/** A signed figure with a true minus sign; zero (after rounding) carries no sign. */
function signed(value: number, digits: number): string {
  const text = Math.abs(value).toFixed(digits)
  if (Number(text) === 0) return text
  return `${value < 0 ? MINUS : '+'}${text}`
}

function signedPoints(delta: number): string {
  return `${signed(delta * 100, 1)} pts`
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

/** How much older the baseline is than the current run, from the records alone (no clock). */
export function relativeAge(baselineCreatedAt: string, currentCreatedAt: string): string | null {
  const ms = Date.parse(currentCreatedAt) - Date.parse(baselineCreatedAt)
  if (!Number.isFinite(ms)) return null
  const span = formatSpan(Math.abs(ms))
  return ms >= 0 ? `${span} older than this run` : `${span} newer than this run`
}

function formatSpan(ms: number): string {
  const minutes = Math.floor(ms / 60_000)
  if (minutes < 1) return 'less than a minute'
  if (minutes < 60) return plural(minutes, 'minute')
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return plural(hours, 'hour')
  return plural(Math.floor(hours / 24), 'day')
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`
  const seconds = ms / 1_000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  const whole = Math.round(seconds)
  const h = Math.floor(whole / 3_600)
  const m = Math.floor((whole % 3_600) / 60)
  const s = whole % 60
  return h ? `${h} h ${m} min` : `${m} min ${s} s`
}
