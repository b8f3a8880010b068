/**
 * The HTML report's view model: every case of both runs as one row of the
 * case table and what opens under it, with each figure already formatted
 * (compare/format.ts), so the page script only sorts, filters and shows text.
 * Pure; views are made one at a time, so a page of 100,000 cases never holds
 * all of them.
 */
import { formatCount, formatDuration, formatScore, formatUsd, formatValue } from '../format.js'
import type { Comparison } from '../../compare/types.js'
import type { AssertionResult, CaseResult, ToolCall } from '../../types.js'
import { lineDiff, withContext, type DiffLine, type DiffSkip } from '../diff.js'
import { isNotGraded } from '../../compare/judged.js'
import { flakyReason } from '../markdown/outcomes.js'
import type { ReportModel } from '../model.js'
import { firstDifferingStep, unreportedSide } from '../metrics.js'
import { firstDifferingTurn } from '../../compare/conversation.js'
import { differenceWords } from '../conversation.js'
import { redactCase, type Redact } from './redact.js'

/** The runs a report shows, and their comparison. */
export type Runs = Pick<ReportModel, 'comparison' | 'baseline' | 'current'>

export type Flip = 'regressed' | 'flaky' | 'not graded' | 'changed' | 'added' | 'fixed' | 'removed' | 'unfinished' | 'unchanged' | 'none'
export type Status = 'error' | 'fail' | 'not graded' | 'pass' | 'not run'

/** The order of the flip column, worst first: also the table's initial order. */
export const FLIP_ORDER: readonly Flip[] = ['regressed', 'flaky', 'not graded', 'changed', 'added', 'fixed', 'removed', 'unfinished', 'unchanged', 'none']
const STATUS_ORDER: readonly Status[] = ['error', 'fail', 'not graded', 'pass', 'not run']

export interface ViewOptions {
  /** characters of one input, expectation, output or error kept; default 100,000 */
  maxTextChars?: number
  /** applied to every text taken from the records (e.g. to mask secrets), before anything is cut or diffed */
  redact?: Redact
}

export interface AssertionView {
  type: string
  passed: boolean
  /** formatted: "0.400" */
  score: string
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
  /** this run's figures, the number columns' sort keys (null sorts last) */
  score: number | null
  durationMs: number | null
  /** the target's cost (USD) and latency (ms); null when the run carries none */
  costUsd: number | null
  latencyMs: number | null
  /** the number columns as shown, with the baseline's figure where it reads differently: "0.900 → 0.400", "$0.0004", "—" */
  cells: { score: string; duration: string; cost: string; latency: string }
  /** "3/5" with repeated trials */
  trials: string | null
  /** what the flip means for this case: why it is flaky, that it changed, … */
  note: string | null
  /**
   * both runs' tool calls as "name {args}" steps (baseline null when it lacks the case) and the index of
   * the first step that differs (-1: none); null when neither run called a tool
   */
  /** `unreported`: the side whose target reported no toolCalls at all (not "called none"): no step differs from it */
  trajectory: { baseline: string[] | null; current: string[]; first: number; unreported?: 'baseline' | 'current' } | null
  input: string
  expected: string | null
  output: string | null
  error: string | null
  /**
   * null when the baseline lacks the case (or there is no baseline); its assertions only where they
   * explain something (a flip, a case this run did not reach), else none: at 100,000 unchanged cases
   * they were a sixth of the page
   */
  baseline: { passed: boolean; output: string | null; error: string | null; assertions: AssertionView[] } | null
  assertions: AssertionView[]
  /** baseline output → current output, long equal runs cut; null when either is missing or they are equal */
  diff: Array<DiffLine | DiffSkip> | null
  /**
   * a conversation's transcripts side by side: the baseline's (null when it lacks the case)
   * and this run's, the first turn where they part (1-based; null: none) and why it is that turn, and
   * the turn where they first read differently when that comes sooner
   */
  conversation: { baseline: TurnView[] | null; current: TurnView[]; first: number | null; diverged: number | null; why: string | null } | null
}

/** One turn of a conversation: what the user said, the reply (or why there was none), its failed checks. */
export interface TurnView {
  user: string
  output: string | null
  error: string | null
  passed: boolean
  failed: AssertionView[]
}

/** The flips whose case shows the baseline's assertions beside this run's. */
const BASELINE_ASSERTIONS_SHOWN: ReadonlySet<Flip> = new Set(['regressed', 'fixed', 'flaky'])

const DEFAULT_TEXT_CHARS = 100_000
/** Characters of one step's arguments shown in the trajectory. */
const ARGS_CHARS = 300

function cut(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}\n… (${formatCount(text.length - max)} more characters in the run record)`
}

/** "0.900 → 0.400" when the baseline reads differently, else the current figure; "—" for none. */
function pair(before: number | null, now: number | null, format: (x: number) => string): string {
  const shown = (x: number | null) => (x === null ? '—' : format(x))
  return before !== null && shown(before) !== shown(now) ? `${shown(before)} → ${shown(now)}` : shown(now)
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
  return { type: a.type, passed: a.passed, score: formatScore(a.score), reason: clip(a.reason), judge: judge === null ? null : clip(judge) }
}

function statusOf(c: CaseResult): Status {
  if (c.passed) return 'pass'
  // failed for want of a verdict the judge could not give: neither a pass nor a failure
  if (isNotGraded(c)) return 'not graded'
  return c.output === null && c.error !== null ? 'error' : 'fail'
}

const FLIP_NOTES: Partial<Record<Flip, string>> = {
  changed: 'The case itself changed (its input, assertions or judge settings): compared as a new case, not counted as a flip.',
  added: 'Not in the baseline: a new case.',
  removed: 'In the baseline, not in this run.',
  unfinished: 'This run was cut short before reaching the case.',
  'not graded': 'The judge could not give a verdict (its error is below): not graded, left out of the comparison and the figures.'
}

/** Our own words and counts only: nothing in a note comes from the records' text. */
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
    ['unfinished', c.unfinished],
    ['not graded', c.notGraded]
  ]
  for (const [flip, keys] of lists) for (const key of keys) flips.set(key, flip)
  return flips
}

/** One row of the table: a case of this run (with its baseline twin, if any) or one only the baseline has. */
export interface Row {
  now: CaseResult | null
  old: CaseResult | undefined
  flip: Flip
}

/**
 * The table's rows in order: this run's cases, then those only the baseline
 * has; each with its flip. Found once for both the filters and the views (at
 * 100,000 cases, the two indexes of the runs cost ~75 ms each time).
 */
export function tableRows(input: Runs): Row[] {
  const { comparison, baseline, current } = input
  const before = new Map((baseline?.cases ?? []).map((c) => [c.id, c]))
  const flips = flipsByKey(comparison)
  const fallback: Flip = comparison.baseline ? 'unchanged' : 'none'
  const rows: Row[] = current.cases.map((now) => {
    const old = before.get(now.id)
    // what is left in `before` after this pass is what only the baseline has
    if (old) before.delete(now.id)
    return { now, old, flip: flips.get(now.id) ?? fallback }
  })
  // a baseline case this run's --filter or shard left out was not part of it: not a row (not "removed")
  for (const old of before.values()) {
    const flip = flips.get(old.id)
    if (flip) rows.push({ now: null, old, flip })
  }
  return rows
}

/** "lookup_order {"order_id":"A18"}" per step. */
function steps(calls: readonly ToolCall[] | undefined): string[] {
  return (calls ?? []).map((call) => `${call.name} ${cut(JSON.stringify(call.args ?? {}) ?? '', ARGS_CHARS)}`)
}

function trajectoryView(old: CaseResult | undefined, now: CaseResult): CaseView['trajectory'] {
  if (!old?.toolCalls && !now.toolCalls) return null
  // a case the baseline lacks has nothing to differ from
  if (!old) return { baseline: null, current: steps(now.toolCalls), first: -1 }
  const baseline = steps(old.toolCalls)
  const current = steps(now.toolCalls)
  const unreported = unreportedSide(old, now)
  if (unreported) return { baseline, current, first: -1, unreported }
  return { baseline, current, first: firstDifferingStep(old.toolCalls ?? [], now.toolCalls ?? []) }
}

function turnViews(c: CaseResult, clip: (t: string) => string): TurnView[] {
  return (c.turns ?? []).map((t) => {
    const failed = (t.assertions ?? []).filter((a) => !a.passed)
    return {
      user: clip(t.user),
      output: t.output === null ? null : clip(t.output),
      error: t.error === undefined ? null : clip(t.error),
      passed: t.output !== null && failed.every((a) => a.weight === 0),
      failed: failed.map((a) => assertionView(a, clip))
    }
  })
}

/** Both conversations of a case, the turn where they part marked; null when neither run's case is a conversation. */
function conversationView(old: CaseResult | undefined, now: CaseResult | null, clip: (t: string) => string): CaseView['conversation'] {
  if (!now?.turns && !old?.turns) return null
  const d = now?.turns ? firstDifferingTurn(old, now) : null
  const words = d ? differenceWords(d, old !== undefined) : null
  return {
    baseline: old?.turns ? turnViews(old, clip) : null,
    current: now ? turnViews(now, clip) : [],
    first: d?.turn ?? null,
    diverged: d?.divergedAt ?? null,
    why: words ? `${words.title}: ${words.why}.${d?.divergedAt ? ` The conversations first read differently at turn ${d.divergedAt}.` : ''}` : null
  }
}

/** Every case of both runs as the table shows it. Exported for tests. */
export function caseViews(input: Runs, options: ViewOptions = {}): CaseView[] {
  return [...viewsOf(input, tableRows(input), options)]
}

/**
 * The views of caseViews, one at a time. Keys and flips are looked up on the
 * cases as the comparison knows them; the texts shown are redacted first, so
 * no cut or diff can split a secret.
 */
export function* viewsOf(input: Runs, rows: readonly Row[], options: ViewOptions = {}): Generator<CaseView> {
  const { comparison } = input
  const max = options.maxTextChars ?? DEFAULT_TEXT_CHARS
  const clip = (t: string) => cut(t, max)
  const clipOrNull = (t: string | null) => (t === null ? null : clip(t))
  let index = 0
  for (const row of rows) {
    const key = (row.now ?? row.old)!.id
    const old = row.old && redactCase(row.old, options.redact)
    const now = row.now && redactCase(row.now, options.redact)
    const shown = (now ?? old)!
    const oldOutput = old ? clipOrNull(old.output) : null
    const output = now ? clipOrNull(now.output) : null
    const score = now?.score ?? null
    const costUsd = now?.usage?.costUsd ?? null
    const latencyMs = now?.latencyMs ?? null
    const durationMs = now?.durationMs ?? null
    yield {
      key: shown.id,
      name: shown.name,
      index: index++,
      status: now ? statusOf(now) : 'not run',
      flip: row.flip,
      tags: shown.tags,
      score,
      durationMs,
      costUsd,
      latencyMs,
      cells: {
        score: pair(old?.score ?? null, score, formatScore),
        duration: durationMs === null ? '—' : formatDuration(durationMs),
        cost: pair(old?.usage?.costUsd ?? null, costUsd, formatUsd),
        latency: pair(old?.latencyMs ?? null, latencyMs, formatDuration)
      },
      trials: now?.trials && now.trials.length > 1 ? `${now.trials.filter((t) => t.passed).length}/${now.trials.length}` : null,
      note: flipNote(comparison, key, row.flip),
      trajectory: now ? trajectoryView(old, now) : null,
      input: clip(formatValue(shown.input)),
      expected: shown.expected === undefined ? null : clip(formatValue(shown.expected)),
      output,
      error: now ? clipOrNull(now.error) : null,
      baseline: old
        ? {
            passed: old.passed,
            output: oldOutput,
            error: clipOrNull(old.error),
            assertions: BASELINE_ASSERTIONS_SHOWN.has(row.flip) || !now ? old.assertions.map((a) => assertionView(a, clip)) : []
          }
        : null,
      assertions: now ? now.assertions.map((a) => assertionView(a, clip)) : [],
      diff: output !== null && oldOutput !== null && output !== oldOutput ? withContext(lineDiff(oldOutput, output)) : null,
      conversation: conversationView(old, now, clip)
    }
  }
}

/** The flips and statuses the table will show, for its filters: found without making the views. */
export function filterValues(rows: readonly Row[]): { flips: Flip[]; statuses: Status[] } {
  const flips = new Set<Flip>()
  const statuses = new Set<Status>()
  for (const row of rows) {
    flips.add(row.flip)
    statuses.add(row.now ? statusOf(row.now) : 'not run')
  }
  return { flips: FLIP_ORDER.filter((f) => f !== 'none' && flips.has(f)), statuses: STATUS_ORDER.filter((st) => statuses.has(st)) }
}
