/**
 * The comment's other sections: cases scored lower, fixes, the counts and ids
 * of every other outcome, re-runs, flaky cases, the per-tag table, errors,
 * judge noise and the footer.
 */
import { simulatedUserText } from '../conversation.js'
import type { Comparison, FlakyCase } from '../../compare/types.js'
import type { RunRecord } from '../../types.js'
import { escapeHtml, escapeInline, inlineCode } from '../escape.js'
import { formatCount, formatPercent, formatScore, plural, formatDuration } from '../format.js'
import type { ReportModel } from '../model.js'
import { ROW_REASON_CHARS, REASON_CHARS } from './cases.js'
import { byKey, caseLabel, idList, percentOrDash, table } from './cells.js'
import type { Block } from './fit.js'

const ERRORS_LISTED = 20
const FLAKY_LISTED = 20
const SCORED_LOWER_LISTED = 20
/** Case ids named per list of removed, changed, added or not graded cases. */
const COVERAGE_LISTED = 100

/** Cases that still pass but the judge scored lower than in the baseline, largest drop first. */
export function scoredLower(model: ReportModel): Block[] {
  const { comparison: c, baseline, current } = model
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

export function fixes(c: Comparison, current: RunRecord): Block[] {
  if (!c.fixed.length) return []
  const cases = byKey(current.cases)
  const lines = c.fixed.map((key) => `- ${caseLabel(key, cases.get(key))}`)
  return [{ text: [`#### Fixed (${formatCount(c.fixed.length)})`, ...lines].join('\n'), optional: 'fixes' }]
}

/** The counts of every outcome, then the ids of removed, changed and added cases: a pull request cannot hide a case by renaming it. */
export function otherOutcomes(c: Comparison): Block[] {
  if (!c.baseline) return notGradedOnly(c)
  const counts = [
    `${formatCount(c.flaky.length)} flaky`,
    `${formatCount(c.added.length)} added`,
    `${formatCount(c.removed.length)} removed`,
    `${formatCount(c.changed.length)} changed (fingerprint differs, not compared)`,
    ...(c.notGraded.length ? [`${formatCount(c.notGraded.length)} not graded (the judge failed, not compared)`] : []),
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
      ['Added', c.added],
      ['Not graded', c.notGraded]
    ] as const
  ).flatMap(([label, keys]) => (keys.length ? [`- ${label}: ${idList(keys, COVERAGE_LISTED)}`] : []))
  return [{ text: lines.join('\n\n') }, ...(lists.length ? [{ text: lists.join('\n'), optional: 'coverage' as const }] : [])]
}

/** Without a baseline, the only other outcome: cases the judge could not grade. */
function notGradedOnly(c: Comparison): Block[] {
  if (!c.notGraded.length) return []
  return [{ text: `Not graded (the judge failed, left out of the figures): ${idList(c.notGraded, COVERAGE_LISTED)}` }]
}

/** "3 flipped cases re-run 5 times each to confirm: 2 confirmed, 1 flaky." */
export function rerunLine(c: Comparison, current: RunRecord): Block[] {
  const rerun = current.cases.filter((k) => (k.reruns ?? 0) > 0)
  if (!c.baseline || !rerun.length) return []
  const times = [...new Set(rerun.map((k) => k.reruns!))].sort((a, b) => a - b)
  const timesText = times.length === 1 ? plural(times[0]!, 'time') : `${formatCount(times[0]!)} to ${plural(times.at(-1)!, 'time')}`
  const keys = new Set(rerun.map((k) => k.id))
  // against a single baseline trial, or with too few trials on both sides, the re-runs cannot confirm anything:
  // no result would be significant
  const untestable = new Set([...c.notTestable, ...(c.tooFewTrials ?? [])])
  const confirmed = [...c.regressed, ...c.fixed].filter((k) => keys.has(k) && !untestable.has(k)).length
  const notTestable = c.notTestable.filter((k) => keys.has(k)).length
  const tooFew = (c.tooFewTrials ?? []).filter((k) => keys.has(k)).length
  const flaky = c.flaky.filter((k) => keys.has(k)).length
  return [
    {
      text:
        `${plural(rerun.length, 'flipped case')} re-run ${timesText} each to confirm: ` +
        `${formatCount(confirmed)} confirmed, ${formatCount(flaky)} flaky` +
        (notTestable ? `, ${formatCount(notTestable)} not testable (a single baseline trial: counted as flipped)` : '') +
        (tooFew ? `, ${formatCount(tooFew)} with too few trials to test (every trial flipped: counted as flipped)` : '') +
        '.'
    }
  ]
}

/** The flaky cases, one line each saying in plain words why the flip was not counted. */
export function flakyList(c: Comparison, baseline: RunRecord | null): Block[] {
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
export function judgeSpread(current: RunRecord): Block[] {
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

export function tagsTable(c: Comparison): Block[] {
  if (!c.tags.length) return []
  const header = c.baseline ? ['tag', 'baseline', 'current', 'cases', 'regressed'] : ['tag', 'pass rate', 'cases']
  const rows = c.tags.map((t) => {
    const tag = escapeInline(t.tag, 100)
    const current = formatPercent(t.currentPassRate)
    return c.baseline ? [tag, percentOrDash(t.baselinePassRate), current, formatCount(t.total), formatCount(t.regressed)] : [tag, current, formatCount(t.total)]
  })
  return [{ text: `#### By tag\n\n${table(header, rows)}`, optional: 'tags' }]
}

export function errors(current: RunRecord): Block[] {
  const errored = current.cases.filter((c) => c.error !== null)
  if (!errored.length) return []
  const lines = errored.slice(0, ERRORS_LISTED).map((c) => `- ${inlineCode(c.id)}: ${escapeInline(c.error!, REASON_CHARS)}`)
  if (errored.length > ERRORS_LISTED) lines.push(`- and ${formatCount(errored.length - ERRORS_LISTED)} more`)
  return [{ text: [`#### Errors (${formatCount(errored.length)})`, ...lines].join('\n'), optional: 'errors' }]
}

export function runFooter(current: RunRecord): string {
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
