/**
 * The HTML report (`--html`): one self-contained file — inline CSS and
 * script, nothing fetched — with the summary and a sortable, filterable table
 * of every case; a case opens on its input, expectation, both outputs, their
 * line diff and the assertion reasons.
 *
 * Pure. Untrusted text (model output, inputs, reasons, names) never reaches the
 * HTML parser: the summary is escaped here, the cases travel as JSON inside a
 * non-executable <script type="application/json"> with "<", ">" and "&" written
 * as \u escapes, and the page script shows them with textContent only. A
 * Content-Security-Policy allows no network and only this file's own script
 * and style (by hash), so even a missed escape could run nothing.
 */
import { createHash } from 'node:crypto'
import { formatCount, formatPercent, formatScore, plural } from '../compare/format.js'
import type { Comparison } from '../compare/types.js'
import type { AssertionResult, CaseResult, RunRecord, ToolCall } from '../types.js'
import { lineDiff, withContext, type DiffLine, type DiffSkip } from './diff.js'
import { HTML_ENTITIES } from './escape.js'
import { flakyReason, formatDuration, relativeAge, type ReportInput } from './markdown.js'
import { firstDifferingStep } from './metrics.js'

export interface HtmlOptions {
  /** default "evalgate · <run name>" */
  title?: string
  /** applied to every text taken from the records, e.g. to mask secrets */
  redact?: (text: string) => string
  /** characters of one input, expectation, output or error kept; default 100,000 */
  maxTextChars?: number
}

export type Flip = 'regressed' | 'flaky' | 'changed' | 'added' | 'fixed' | 'removed' | 'unfinished' | 'unchanged' | 'none'
export type Status = 'error' | 'fail' | 'pass' | 'not run'

export interface AssertionView {
  type: string
  passed: boolean
  score: number
  reason: string
  /** the judge's own words, model and score, for llm-rubric */
  judge: string | null
}

/** One row of the case table and what opens under it. */
export interface CaseView {
  key: string
  name: string
  /** dataset order: current cases first, then baseline cases the current run lacks */
  index: number
  status: Status
  flip: Flip
  tags: string[]
  score: number | null
  baselineScore: number | null
  /** "3/5" with repeated trials */
  trials: string | null
  /** what the flip means for this case: why it is flaky, that it changed, … */
  note: string | null
  durationMs: number | null
  /** the target's cost (USD) and latency (ms), SPEC §10; null when the run carries none */
  costUsd: number | null
  latencyMs: number | null
  baselineCostUsd: number | null
  baselineLatencyMs: number | null
  /** both runs' tool calls as "name {args}" steps, and the first step that differs (-1: none); null without tool calls */
  trajectory: { baseline: string[]; current: string[]; first: number } | null
  input: string
  expected: string | null
  output: string | null
  error: string | null
  /** null when the baseline lacks the case (or there is no baseline) */
  baseline: { passed: boolean; output: string | null; error: string | null; assertions: AssertionView[] } | null
  assertions: AssertionView[]
  /** baseline output → current output, long equal runs cut; null when either is missing or they are equal */
  diff: Array<DiffLine | DiffSkip> | null
}

const DEFAULT_TEXT_CHARS = 100_000

/** The order of the flip column, worst first: also the table's initial order. */
export const FLIP_ORDER: readonly Flip[] = ['regressed', 'flaky', 'changed', 'added', 'fixed', 'removed', 'unfinished', 'unchanged', 'none']

/** Text for HTML content or a quoted attribute. */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch]!)
}

/**
 * JSON that can sit inside a <script> element: no "<" (which could close it
 * or open a comment), ">" or "&"; U+2028/2029 escaped for older parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value))
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}\n… (${formatCount(text.length - max)} more characters in the run record)`
}

function assertionView(a: AssertionResult, clip: (t: string) => string): AssertionView {
  const j = a.judge
  const judge = j
    ? [
        `judge ${j.model} scored ${formatScore(j.score)}${j.reused ? ' (reused)' : ''}`,
        j.reason && j.reason !== a.reason ? j.reason : '',
        j.error ? `error: ${j.error}` : ''
      ]
        .filter(Boolean)
        .join(' — ')
    : null
  return { type: a.type, passed: a.passed, score: a.score, reason: clip(a.reason), judge: judge === null ? null : clip(judge) }
}

function statusOf(c: CaseResult): Status {
  if (c.passed) return 'pass'
  return c.output === null && c.error !== null ? 'error' : 'fail'
}

const FLIP_NOTES: Partial<Record<Flip, string>> = {
  changed: 'The case itself changed (its input, assertions or judge settings): compared as a new case, not counted as a flip.',
  added: 'Not in the baseline: a new case.',
  removed: 'In the baseline, not in this run.',
  unfinished: 'This run was cut short before reaching the case.'
}

function flipNote(c: Comparison, key: string, flip: Flip): string | null {
  if (flip !== 'flaky') return FLIP_NOTES[flip] ?? null
  const evidence = c.flakyCases.find((f) => f.key === key)
  return `Flaky, not counted as a ${evidence?.flip === 'passed' ? 'fix' : 'regression'}${evidence ? `: ${flakyReason(evidence)}` : ''}.`
}

function flipsByKey(c: Comparison): Map<string, Flip> {
  const flips = new Map<string, Flip>()
  const lists: Array<[Flip, readonly string[]]> = [
    ['regressed', c.regressed],
    ['fixed', c.fixed],
    ['flaky', c.flaky],
    ['added', c.added],
    ['removed', c.removed],
    ['changed', c.changed],
    ['unfinished', c.unfinished]
  ]
  for (const [flip, keys] of lists) for (const key of keys) flips.set(key, flip)
  return flips
}

/** Every case of both runs as the table shows it. Pure; exported for tests. */
export function caseViews(input: ReportInput, options: Pick<HtmlOptions, 'maxTextChars'> = {}): CaseView[] {
  return [...viewsOf(input, options)]
}

/** A case with its strings redacted (keys are looked up before, on the case as the comparison knows it). */
const redactCase = (c: CaseResult, r: ((text: string) => string) | undefined): CaseResult => (r ? mapStrings(c, r) : c)

/** One row of the table: a case of this run (with its baseline twin, if any) or one only the baseline has. */
interface Row {
  now: CaseResult | null
  old: CaseResult | undefined
  flip: Flip
}

/** The table's rows in order: this run's cases, then those only the baseline has; each with its flip. */
function* rowsOf(input: ReportInput): Generator<Row> {
  const { comparison, baseline, current } = input
  const before = new Map((baseline?.cases ?? []).map((c) => [c.id, c]))
  const flips = flipsByKey(comparison)
  const fallback: Flip = comparison.baseline ? 'unchanged' : 'none'
  for (const now of current.cases) yield { now, old: before.get(now.id), flip: flips.get(now.id) ?? fallback }
  const present = new Set(current.cases.map((c) => c.id))
  for (const old of baseline?.cases ?? []) {
    if (!present.has(old.id)) yield { now: null, old, flip: flips.get(old.id) ?? 'removed' }
  }
}

/** The views of caseViews, one at a time: a page of 100,000 cases never holds all of them. */
function* viewsOf(input: ReportInput, options: Pick<HtmlOptions, 'maxTextChars' | 'redact'>): Generator<CaseView> {
  const r = options.redact
  const { comparison } = input
  const max = options.maxTextChars ?? DEFAULT_TEXT_CHARS
  const clip = (t: string) => cut(t, max)
  const baselineView = (old: CaseResult, output: string | null): CaseView['baseline'] => ({
    passed: old.passed,
    output,
    error: old.error === null ? null : clip(old.error),
    assertions: old.assertions.map((a) => assertionView(a, clip))
  })
  let index = 0
  for (const row of rowsOf(input)) {
    const key = (row.now ?? row.old)!.id
    const note = flipNote(comparison, key, row.flip)
    const shownNote = note && (r ? r(note) : note)
    const old = row.old && redactCase(row.old, r)
    const oldOutput = old?.output == null ? null : clip(old.output)
    if (row.now) {
      const now = redactCase(row.now, r)
      const output = now.output === null ? null : clip(now.output)
      yield {
        key: now.id,
        name: now.name,
        index: index++,
        status: statusOf(now),
        flip: row.flip,
        tags: now.tags,
        score: now.score,
        baselineScore: old?.score ?? null,
        trials: now.trials && now.trials.length > 1 ? `${now.trials.filter((t) => t.passed).length}/${now.trials.length}` : null,
        note: shownNote,
        durationMs: now.durationMs,
        costUsd: now.usage?.costUsd ?? null,
        latencyMs: now.latencyMs ?? null,
        baselineCostUsd: old?.usage?.costUsd ?? null,
        baselineLatencyMs: old?.latencyMs ?? null,
        trajectory: trajectoryView(old, now),
        input: clip(show(now.input)),
        expected: now.expected === undefined ? null : clip(show(now.expected)),
        output,
        error: now.error === null ? null : clip(now.error),
        baseline: old ? baselineView(old, oldOutput) : null,
        assertions: now.assertions.map((a) => assertionView(a, clip)),
        diff: output !== null && oldOutput !== null && output !== oldOutput ? withContext(lineDiff(oldOutput, output)) : null
      }
    } else {
      const gone = old!
      yield {
        key: gone.id,
        name: gone.name,
        index: index++,
        status: 'not run',
        flip: row.flip,
        tags: gone.tags,
        score: null,
        baselineScore: gone.score,
        trials: null,
        note: shownNote,
        durationMs: null,
        costUsd: null,
        latencyMs: null,
        baselineCostUsd: gone.usage?.costUsd ?? null,
        baselineLatencyMs: gone.latencyMs ?? null,
        trajectory: null,
        input: clip(show(gone.input)),
        expected: gone.expected === undefined ? null : clip(show(gone.expected)),
        output: null,
        error: null,
        baseline: baselineView(gone, oldOutput),
        assertions: [],
        diff: null
      }
    }
  }
}

/** The flips and statuses the table will show, for its filters: found without making the views. */
function filterValues(input: ReportInput): { flips: Flip[]; statuses: Status[] } {
  const flips = new Set<Flip>()
  const statuses = new Set<Status>()
  for (const row of rowsOf(input)) {
    flips.add(row.flip)
    statuses.add(row.now ? statusOf(row.now) : 'not run')
  }
  return {
    flips: FLIP_ORDER.filter((f) => f !== 'none' && flips.has(f)),
    statuses: (['error', 'fail', 'pass', 'not run'] as const).filter((st) => statuses.has(st))
  }
}

/** The input with every string outside the cases redacted: what the summary shows (it reads of the cases only counts). */
function redactedHeads(input: ReportInput, r: (text: string) => string): ReportInput {
  const head = (run: RunRecord): RunRecord => ({ ...mapStrings({ ...run, cases: [] }, r), cases: run.cases })
  return { comparison: mapStrings(input.comparison, r), baseline: input.baseline && head(input.baseline), current: head(input.current) }
}

/** Every string inside a JSON-like value passed through f. */
function mapStrings<T>(value: T, f: (text: string) => string): T {
  if (typeof value === 'string') return f(value) as T
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T
  }
  return value
}

const MINUS = '\u2212'

function signed(value: number, digits: number): string {
  const text = Math.abs(value).toFixed(digits)
  if (Number(text) === 0) return text
  return `${value < 0 ? MINUS : '+'}${text}`
}

function when(iso: string): string {
  const t = Date.parse(iso)
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` : iso
}

interface Card {
  label: string
  value: string
  detail?: string
  tone?: 'bad' | 'good' | 'warn'
}

/** "lookup_order {"order_id":"A18"}" per step. */
function steps(calls: readonly ToolCall[] | undefined): string[] {
  return (calls ?? []).map((call) => `${call.name} ${cut(JSON.stringify(call.args ?? {}) ?? '', 300)}`)
}

function trajectoryView(old: CaseResult | undefined, now: CaseResult): CaseView['trajectory'] {
  if (!old?.toolCalls && !now.toolCalls) return null
  return { baseline: steps(old?.toolCalls), current: steps(now.toolCalls), first: firstDifferingStep(old?.toolCalls ?? [], now.toolCalls ?? []) }
}

function summaryHtml(input: ReportInput, title: string): string {
  const { comparison: c, baseline, current } = input
  const e = escapeHtmlText
  const verdict = c.gate.passed ? '<span class="verdict pass">✓ gate passed</span>' : '<span class="verdict fail">✗ gate failed</span>'
  const failures = c.gate.failures.length ? `<ul class="failures">${c.gate.failures.map((f) => `<li>${e(f)}</li>`).join('')}</ul>` : ''
  const notes: string[] = []
  if (!c.baseline) notes.push('No baseline: comparison skipped, only the absolute floors were checked.')
  else if (!c.baseline.complete) notes.push('The baseline run is incomplete: the cases it lacks count as added.')
  if (!current.complete) notes.push(`This run was cut short: ${plural(current.cases.length, 'case')} finished.`)

  const cards: Card[] = [
    {
      label: 'pass rate',
      value: formatPercent(c.current.passRate),
      detail: c.baseline
        ? `${signed((c.passRateDelta ?? 0) * 100, 1)} pts from ${formatPercent(c.baseline.passRate)}`
        : `${formatCount(c.current.passed)} of ${formatCount(c.current.total)} cases`,
      tone: c.passRateDelta !== null && c.passRateDelta < 0 ? 'bad' : undefined
    }
  ]
  if (c.current.meanScore !== null || c.baseline?.meanScore != null) {
    cards.push({
      label: 'mean score',
      value: c.current.meanScore === null ? '—' : formatScore(c.current.meanScore),
      detail: c.baseline
        ? c.meanScoreDelta === null
          ? `baseline ${c.baseline.meanScore === null ? '—' : formatScore(c.baseline.meanScore)}`
          : `${signed(c.meanScoreDelta, 3)} from ${formatScore(c.baseline.meanScore!)}`
        : undefined,
      tone: c.meanScoreDelta !== null && c.meanScoreDelta < 0 ? 'bad' : undefined
    })
  }
  if (c.baseline) {
    cards.push(
      { label: 'regressed', value: formatCount(c.regressed.length), tone: c.regressed.length ? 'bad' : undefined },
      { label: 'fixed', value: formatCount(c.fixed.length), tone: c.fixed.length ? 'good' : undefined },
      { label: 'flaky', value: formatCount(c.flaky.length), tone: c.flaky.length ? 'warn' : undefined },
      { label: 'added · removed · changed', value: `${formatCount(c.added.length)} · ${formatCount(c.removed.length)} · ${formatCount(c.changed.length)}` }
    )
  }
  const errors = current.cases.filter((x) => x.error !== null).length
  if (errors) cards.push({ label: 'target errors', value: formatCount(errors), tone: 'bad' })
  const cardHtml = cards
    .map(
      (k) =>
        `<div class="card${k.tone ? ` ${k.tone}` : ''}"><div class="label">${escapeHtmlText(k.label)}</div><div class="value">${escapeHtmlText(k.value)}</div>${k.detail ? `<div class="detail">${escapeHtmlText(k.detail)}</div>` : ''}</div>`
    )
    .join('')

  const meta: string[] = [
    `run <b>${e(current.name)}</b> at ${e(when(current.createdAt))}${current.git.sha ? `, commit <code>${e(current.git.sha.slice(0, 7))}</code>` : ''}`
  ]
  if (baseline) {
    const age = relativeAge(baseline.createdAt, current.createdAt)
    const ref = baseline.git.ref ? ` on <code>${e(baseline.git.ref.replace(/^refs\/(heads|tags)\//, ''))}</code>` : ''
    meta.push(
      `baseline ${baseline.git.sha ? `commit <code>${e(baseline.git.sha.slice(0, 7))}</code>` : 'of unknown commit'}${ref}${age ? `, ${e(age)}` : ''}${baseline.git.runId ? `, workflow run ${e(baseline.git.runId)}` : ''}`
    )
  }
  const { judge, durationMs } = current.summary
  const footer = [`duration ${formatDuration(durationMs)}`, plural(current.cases.length, 'case')]
  if (judge.calls || judge.reused || judge.tokens)
    footer.push(
      `judge: ${plural(judge.calls, 'call')}, ${formatCount(judge.reused)} reused, ${plural(judge.errors, 'error')}, ${plural(judge.tokens, 'token')}`
    )
  footer.push(`evalgate ${e(current.tool.version)}`)

  const tags = c.tags.length
    ? `<details class="tags"><summary>By tag (${formatCount(c.tags.length)})</summary><table><thead><tr><th>tag</th>${c.baseline ? '<th>baseline</th>' : ''}<th>pass rate</th><th>cases</th>${c.baseline ? '<th>regressed</th>' : ''}</tr></thead><tbody>${c.tags
        .map(
          (t) =>
            `<tr><td>${e(t.tag)}</td>${c.baseline ? `<td>${t.baselinePassRate === null ? '—' : formatPercent(t.baselinePassRate)}</td>` : ''}<td>${formatPercent(t.currentPassRate)}</td><td>${formatCount(t.total)}</td>${c.baseline ? `<td>${formatCount(t.regressed)}</td>` : ''}</tr>`
        )
        .join('')}</tbody></table></details>`
    : ''

  return `<header><h1>${e(title)} ${verdict}</h1>${failures}${notes.map((n) => `<p class="note">${escapeHtmlText(n)}</p>`).join('')}
<p class="meta">${meta.join('<br>')}</p></header>
<section class="cards">${cardHtml}</section>
${tags}
<p class="meta small">${footer.join(' · ')}</p>`
}

const STYLE = `
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;--bad:#cf222e;--bad-bg:#ffebe9;--good:#1a7f37;--good-bg:#dafbe1;--warn:#9a6700;--warn-bg:#fff8c5;--info:#0969da;--info-bg:#ddf4ff;--mark-del:#ffcecb;--mark-ins:#aceebb}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;--bad:#ff7b72;--bad-bg:#3c1618;--good:#3fb950;--good-bg:#12261e;--warn:#d29922;--warn-bg:#2e2511;--info:#4493f8;--info-bg:#121d2f;--mark-del:#6e1b1b;--mark-ins:#1b4721}}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px 64px;font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:0 0 8px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
h2{font-size:16px;margin:24px 0 8px}
h3{font-size:13px;margin:16px 0 6px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace}
.verdict{font-size:13px;font-weight:600;padding:2px 10px;border-radius:999px}
.verdict.pass{color:var(--good);background:var(--good-bg)}.verdict.fail{color:var(--bad);background:var(--bad-bg)}
.failures{margin:4px 0 8px;color:var(--bad)}
.note{margin:4px 0;padding:6px 10px;border-left:3px solid var(--info);background:var(--info-bg)}
.meta{color:var(--muted);margin:8px 0}.small{font-size:12px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:140px;background:var(--panel)}
.card .label{color:var(--muted);font-size:12px}.card .value{font-size:22px;font-weight:600}.card .detail{color:var(--muted);font-size:12px}
.card.bad .value{color:var(--bad)}.card.good .value{color:var(--good)}.card.warn .value{color:var(--warn)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
.tags table{width:auto;margin-top:8px}
.controls{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:8px 0 12px}
.controls input,.controls select{font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
.controls input{min-width:380px}
#count{color:var(--muted)}
.cases th{position:sticky;top:0;background:var(--bg);z-index:1;white-space:nowrap}
.cases th button{all:unset;cursor:pointer;font-weight:600}
.cases th button::after{content:"";margin-left:4px;color:var(--muted)}
.cases th[aria-sort=ascending] button::after{content:"▲"}.cases th[aria-sort=descending] button::after{content:"▼"}
tr.case-row{cursor:pointer}tr.case-row:hover{background:var(--panel)}
tr.case-row.open{background:var(--panel)}
.toggle{all:unset;cursor:pointer;width:1em;display:inline-block;color:var(--muted)}
.key{color:var(--muted);font-size:12px;margin-left:6px}
.pill{display:inline-block;padding:0 8px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap}
.s-pass,.f-fixed{color:var(--good);background:var(--good-bg)}
.s-fail,.s-error,.f-regressed{color:var(--bad);background:var(--bad-bg)}
.f-flaky{color:var(--warn);background:var(--warn-bg)}
.f-added,.f-changed{color:var(--info);background:var(--info-bg)}
.s-not-run,.f-removed,.f-unfinished,.f-unchanged{color:var(--muted);background:var(--panel)}
.tag{display:inline-block;border:1px solid var(--line);border-radius:4px;padding:0 5px;margin:0 3px 2px 0;font-size:12px}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
tr.detail>td{background:var(--panel);padding:4px 16px 16px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:12px}
pre{margin:0;padding:8px 10px;border:1px solid var(--line);border-radius:6px;background:var(--bg);white-space:pre-wrap;word-break:break-word;max-height:360px;overflow:auto}
pre.error{color:var(--bad)}
.diff{padding:0}.diff div{padding:0 10px}
.diff .del{background:var(--bad-bg)}.diff .ins{background:var(--good-bg)}
.diff .del::before{content:"− ";color:var(--bad)}.diff .ins::before{content:"+ ";color:var(--good)}.diff .eq::before{content:"  "}
.diff .skip{color:var(--muted);font-style:italic}
.diff .del mark{background:var(--mark-del);color:inherit}.diff .ins mark{background:var(--mark-ins);color:inherit}
.assertions td{font-size:13px}.assertions td:nth-child(-n+3){white-space:nowrap;width:1%}
.case-note{margin:8px 0 0;padding:6px 10px;border-left:3px solid var(--warn);background:var(--warn-bg)}.assertions .ok{color:var(--good)}.assertions .no{color:var(--bad)}
.muted{color:var(--muted)}
.steps{margin:0;padding-left:22px;font:12px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}.steps .first-diff{background:var(--warn-bg);font-weight:600}
`

/** The page script: builds the table from the embedded JSON, with textContent only. */
const SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('evalgate-data').textContent);
  var cases = data.cases;
  var FLIPS = __FLIPS__;
  var STATUS = ['error', 'fail', 'not run', 'pass'];
  var body = document.getElementById('cases-body');
  var filter = document.getElementById('filter');
  var flipFilter = document.getElementById('flip-filter');
  var statusFilter = document.getElementById('status-filter');
  var count = document.getElementById('count');
  var headers = Array.prototype.slice.call(document.querySelectorAll('th[data-sort]'));
  var sort = { key: 'flip', dir: 1 };
  var open = {};

  cases.forEach(function (c) {
    c.search = [c.key, c.name, c.status, c.flip, c.tags.join(' '), c.input, c.output || '', c.error || ''].join('\n').toLowerCase();
  });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function score(s) { return s === null || s === undefined ? '—' : s.toFixed(3); }
  function usd(x) { return x === null || x === undefined ? '—' : '$' + (x >= 1 ? x.toFixed(2) : x.toFixed(4)); }
  function pair(before, now, f) { return before !== null && before !== now ? f(before) + ' → ' + f(now) : f(now); }
  function trajectoryBlock(t) {
    var grid = el('div', 'cols trajectory');
    [['Baseline tool calls', t.baseline], ['Current tool calls', t.current]].forEach(function (side) {
      var list = el('ol', 'steps');
      side[1].forEach(function (step, i) { list.appendChild(el('li', i === t.first ? 'first-diff' : null, step)); });
      if (!side[1].length) list.appendChild(el('li', 'muted', 'no tool calls'));
      grid.appendChild(block(side[0], list));
    });
    if (t.first !== -1) grid.appendChild(el('p', 'muted small', 'first difference at step ' + (t.first + 1)));
    return grid;
  }
  function ms(d) { return d === null ? '—' : d < 1000 ? Math.round(d) + ' ms' : (d / 1000).toFixed(1) + ' s'; }
  function flipLabel(f) { return f === 'none' ? '—' : f; }

  var sorters = {
    'case': function (c) { return c.name.toLowerCase(); },
    status: function (c) { return STATUS.indexOf(c.status); },
    flip: function (c) { return FLIPS.indexOf(c.flip); },
    tags: function (c) { return c.tags.join(', ').toLowerCase(); },
    score: function (c) { return c.score; },
    duration: function (c) { return c.durationMs; },
    cost: function (c) { return c.costUsd; },
    latency: function (c) { return c.latencyMs; }
  };
  function compare(a, b) {
    var f = sorters[sort.key];
    var x = f(a), y = f(b);
    var xNone = x === null || x === '', yNone = y === null || y === '';
    // rows without a value stay last whichever the direction
    if (xNone !== yNone) return xNone ? 1 : -1;
    if (!xNone && x !== y) return (x < y ? -1 : 1) * sort.dir;
    return a.index - b.index;
  }

  function visible(c) {
    var q = filter.value.trim().toLowerCase();
    if (flipFilter.value && c.flip !== flipFilter.value) return false;
    if (statusFilter.value && c.status !== statusFilter.value) return false;
    if (!q) return true;
    return q.split(/\s+/).every(function (term) { return c.search.indexOf(term) !== -1; });
  }

  function pre(text, cls) { return el('pre', cls, text); }
  function block(title, content) {
    var d = el('div');
    d.appendChild(el('h3', null, title));
    d.appendChild(content);
    return d;
  }
  function outputBlock(title, output, error) {
    if (output !== null) return block(title, pre(output));
    return block(title, error !== null ? pre('no output; the target failed:\n' + error, 'error') : el('p', 'muted', 'no output'));
  }
  function diffBlock(diff) {
    var p = el('pre', 'diff');
    diff.forEach(function (line) {
      if (line.op === 'skip') { p.appendChild(el('div', 'skip', '… ' + line.count + ' unchanged lines')); return; }
      var d = el('div', line.op === 'equal' ? 'eq' : line.op === 'delete' ? 'del' : 'ins');
      if (line.segments) {
        line.segments.forEach(function (s) { d.appendChild(s.changed ? el('mark', null, s.text) : document.createTextNode(s.text)); });
      } else {
        d.textContent = line.text;
      }
      p.appendChild(d);
    });
    return p;
  }
  function assertionTable(list) {
    var t = el('table', 'assertions');
    list.forEach(function (a) {
      var tr = el('tr');
      tr.appendChild(el('td', a.passed ? 'ok' : 'no', a.passed ? '✓' : '✗'));
      tr.appendChild(el('td', null, a.type));
      tr.appendChild(el('td', 'num', a.score.toFixed(2)));
      var reason = el('td', null, a.reason);
      if (a.judge) { reason.appendChild(el('br')); reason.appendChild(el('span', 'muted', a.judge)); }
      tr.appendChild(reason);
      t.appendChild(tr);
    });
    return t;
  }

  function detail(c) {
    var wrap = el('div', 'case-detail');
    if (c.note) wrap.appendChild(el('p', 'case-note', c.note));
    var top = el('div', 'cols');
    top.appendChild(block('Input', pre(c.input)));
    top.appendChild(c.expected !== null ? block('Expected', pre(c.expected)) : el('div'));
    wrap.appendChild(top);
    var outs = el('div', 'cols');
    if (c.baseline) outs.appendChild(outputBlock('Baseline output (' + (c.baseline.passed ? 'passed' : 'failed') + ')', c.baseline.output, c.baseline.error));
    else outs.appendChild(block('Baseline output', el('p', 'muted', data.hasBaseline ? 'not in the baseline' : 'no baseline')));
    if (c.status === 'not run') outs.appendChild(block('Current output', el('p', 'muted', 'not run in this run')));
    else outs.appendChild(outputBlock('Current output (' + (c.status === 'pass' ? 'passed' : 'failed') + (c.trials ? ', ' + c.trials + ' trials' : '') + ')', c.output, c.error));
    wrap.appendChild(outs);
    if (c.diff) wrap.appendChild(block('Diff, baseline → current', diffBlock(c.diff)));
    if (c.trajectory) wrap.appendChild(trajectoryBlock(c.trajectory));
    if (c.assertions.length) wrap.appendChild(block('Assertions', assertionTable(c.assertions)));
    if (c.baseline && c.baseline.assertions.length && (c.flip === 'regressed' || c.flip === 'fixed' || c.flip === 'flaky' || c.status === 'not run')) {
      wrap.appendChild(block('Baseline assertions', assertionTable(c.baseline.assertions)));
    }
    return wrap;
  }

  function row(c) {
    var tr = el('tr', 'case-row' + (open[c.key] ? ' open' : ''));
    tr.setAttribute('data-key', c.key);
    var name = el('td');
    var toggle = el('button', 'toggle', open[c.key] ? '▾' : '▸');
    toggle.setAttribute('aria-expanded', open[c.key] ? 'true' : 'false');
    toggle.setAttribute('aria-label', 'show case ' + c.name);
    name.appendChild(toggle);
    name.appendChild(document.createTextNode(' ' + c.name));
    if (c.key !== c.name) name.appendChild(el('span', 'key', c.key));
    tr.appendChild(name);
    var st = el('td'); st.appendChild(el('span', 'pill s-' + c.status.replace(' ', '-'), c.status + (c.trials ? ' ' + c.trials : ''))); tr.appendChild(st);
    var fl = el('td'); if (c.flip !== 'none') fl.appendChild(el('span', 'pill f-' + c.flip, flipLabel(c.flip))); else fl.textContent = '—'; tr.appendChild(fl);
    var tg = el('td'); c.tags.forEach(function (t) { tg.appendChild(el('span', 'tag', t)); }); tr.appendChild(tg);
    var sc = score(c.score);
    if (c.baselineScore !== null && c.baselineScore !== c.score) sc = score(c.baselineScore) + ' → ' + sc;
    tr.appendChild(el('td', 'num', sc));
    tr.appendChild(el('td', 'num', ms(c.durationMs)));
    if (data.hasAgentColumns) {
      tr.appendChild(el('td', 'num', pair(c.baselineCostUsd, c.costUsd, usd)));
      tr.appendChild(el('td', 'num', pair(c.baselineLatencyMs, c.latencyMs, ms)));
    }
    tr.addEventListener('click', function () {
      open[c.key] = !open[c.key];
      render();
    });
    return tr;
  }

  function render() {
    var shown = cases.filter(visible).sort(compare);
    var frag = document.createDocumentFragment();
    shown.forEach(function (c) {
      frag.appendChild(row(c));
      if (open[c.key]) {
        var tr = el('tr', 'detail');
        var td = el('td');
        td.colSpan = data.hasAgentColumns ? 8 : 6;
        td.appendChild(detail(c));
        tr.appendChild(td);
        frag.appendChild(tr);
      }
    });
    body.textContent = '';
    body.appendChild(frag);
    count.textContent = shown.length === cases.length ? cases.length + ' cases' : shown.length + ' of ' + cases.length + ' cases';
    headers.forEach(function (th) {
      if (th.getAttribute('data-sort') === sort.key) th.setAttribute('aria-sort', sort.dir === 1 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    });
  }

  headers.forEach(function (th) {
    th.querySelector('button').addEventListener('click', function () {
      var key = th.getAttribute('data-sort');
      sort = { key: key, dir: sort.key === key ? -sort.dir : 1 };
      render();
    });
  });
  [filter, flipFilter, statusFilter].forEach(function (input) { input.addEventListener('input', render); });
  document.getElementById('expand').addEventListener('click', function () {
    var any = cases.filter(visible).some(function (c) { return !open[c.key]; });
    cases.filter(visible).forEach(function (c) { open[c.key] = any; });
    render();
  });
  // open the regressions by default: they are what the reader came for
  cases.forEach(function (c) { if (c.flip === 'regressed' && cases.length <= 200) open[c.key] = true; });
  render();
})();
`.replace('__FLIPS__', () => JSON.stringify(FLIP_ORDER))

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64')
}

function selectOptions(values: readonly string[], all: string): string {
  return [`<option value="">${all}</option>`, ...values.map((v) => `<option value="${escapeHtmlText(v)}">${escapeHtmlText(v)}</option>`)].join('')
}

/**
 * The whole report as one HTML document, a piece at a time (to write with
 * writeTextAtomic): at 100,000 cases the page is ~60 MB, and neither it, nor
 * its data as one JSON string, nor a view of every case is ever held whole.
 */
export function* htmlPieces(input: ReportInput, options: HtmlOptions = {}): Generator<string> {
  const r = options.redact ?? ((t: string) => t)
  // masked in the values themselves, before any of them is shown or made JSON
  const safe = options.redact ? redactedHeads(input, r) : input
  const title = r(options.title ?? `evalgate · ${safe.current.name}`)
  const { flips, statuses } = filterValues(input)
  // cost and latency columns for agents: runs whose target reported usage or tool calls
  const agentColumns = [input.current, input.baseline].some((run) => run?.cases.some((c) => c.usage !== undefined || c.toolCalls !== undefined) ?? false)
  const csp = `default-src 'none'; script-src 'sha256-${sha256(SCRIPT)}'; style-src 'sha256-${sha256(STYLE)}'; base-uri 'none'; form-action 'none'`
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtmlText(title)} — ${input.comparison.gate.passed ? 'gate passed' : 'gate failed'}</title>
<style>${STYLE}</style>
</head>
<body>
${summaryHtml(safe, title)}
<h2>Cases</h2>
<div class="controls">
<input id="filter" type="search" placeholder="Filter: words in the name, key, tags, input or output" aria-label="filter cases">
<select id="flip-filter" aria-label="flip">${selectOptions(flips, 'every flip')}</select>
<select id="status-filter" aria-label="status">${selectOptions(statuses, 'every status')}</select>
<button id="expand" type="button">open / close all</button>
<span id="count"></span>
</div>
<noscript><p class="note">The case table needs JavaScript; the summary above is complete without it.</p></noscript>
<table class="cases">
<thead><tr><th data-sort="case"><button type="button">case</button></th><th data-sort="status"><button type="button">status</button></th><th data-sort="flip"><button type="button">flip</button></th><th data-sort="tags"><button type="button">tags</button></th><th data-sort="score" class="num"><button type="button">score</button></th><th data-sort="duration" class="num"><button type="button">duration</button></th>${agentColumns ? '<th data-sort="cost" class="num"><button type="button">cost</button></th><th data-sort="latency" class="num"><button type="button">latency</button></th>' : ''}</tr></thead>
<tbody id="cases-body"></tbody>
</table>
<script type="application/json" id="evalgate-data">{"hasBaseline":${input.comparison.baseline !== null},"hasAgentColumns":${agentColumns},"cases":[`
  let first = true
  for (const view of viewsOf(input, options)) {
    yield `${first ? '' : ','}${jsonForScript(view)}`
    first = false
  }
  yield `]}</script>
<script>${SCRIPT}</script>
</body>
</html>
`
}
