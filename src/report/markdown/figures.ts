/**
 * The comment's figures: the table of pass rate, mean score and the agent
 * metrics (baseline → current, change), which runs were compared, and the
 * trusted settings the pull request changes.
 */
import { escapeInline, inlineCode } from '../escape.js'
import { formatCount, formatPercent, formatScore, plural, relativeAge, signedPoints } from '../format.js'
import { metricRows } from '../metrics.js'
import { sensitivitySentence } from '../words.js'
import type { ReportModel } from '../model.js'
import { byKey, confidenceText, rateCell, scoreConfidenceText, scoreOrDash, signedScore, table } from './cells.js'
import type { Block } from './fit.js'

/** An interval is shown only over this many compared cases: below, it spans nearly everything. */
const CI_MIN_CASES = 10
/** A difference of rates or scores spans [−1, 1]; an interval wider than half of that says nothing. */
const CI_MAX_WIDTH = 1
/** Rows of the config-changes table; the rest are counted (the job summary has them all). */
const CONFIG_CHANGES_LISTED = 20

/**
 * Baseline → current, and the change. A confidence interval only on a figure
 * that a limit gates, and only where it says something: an interval on a
 * figure nothing gates reads as a finding (`--json` keeps them all).
 */
export function figuresTable(model: ReportModel): string {
  const c = model.comparison
  const gate = model.gateConfig
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
  const ci = gate.maxPassRateDrop !== undefined && telling(c.passRateDeltaCI, common?.total ?? 0) ? confidenceText(c.passRateDeltaCI) : ''
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
  const scoreCI = gate.maxMeanScoreDrop !== undefined && telling(c.meanScoreDeltaCI, scoredInBoth(model)) ? scoreConfidenceText(c.meanScoreDeltaCI) : ''
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
  rows.push(...metricRows(c, gate))
  return table(['', 'baseline', 'current', 'change'], rows)
}

/** Whether an interval over n compared cases says something: enough cases, and narrower than half the range. */
function telling(ci: [number, number] | null, n: number): ci is [number, number] {
  return ci !== null && n >= CI_MIN_CASES && ci[1] - ci[0] <= CI_MAX_WIDTH
}

/** The cases compared (same key and fingerprint) and scored in both runs: the mean-score interval's sample. */
function scoredInBoth(model: ReportModel): number {
  // most runs have no judge: no score to look up, no map of 100,000 cases to make
  if (!model.baseline || !model.current.cases.some((k) => k.score !== null)) return 0
  const before = byKey(model.baseline.cases)
  return model.current.cases.filter((k) => {
    const b = before.get(k.id)
    return b !== undefined && b.fingerprint === k.fingerprint && b.score !== null && k.score !== null
  }).length
}

/** "Baseline: commit `ba5e110` on `main`, 3 hours older than this run, workflow run 41. This run: commit `c0ffee0`, workflow run 42." */
export function runIdentity(model: ReportModel): Block[] {
  const { baseline, current, links } = model
  const sentences: string[] = []
  if (baseline) {
    const { sha, ref } = baseline.git
    const commit = sha ? `commit ${inlineCode(sha.slice(0, 7))}` : 'a run with no recorded commit'
    const branch = ref ? ` on ${inlineCode(ref.replace(/^refs\/(heads|tags)\//, ''))}` : ''
    const age = relativeAge(baseline.createdAt, current.createdAt)
    sentences.push(`Baseline: ${commit}${branch}${age ? `, ${age}` : ''}${runText(baseline.git.runId, links.baselineRun, links.runNoun)}.`)
  }
  const { sha } = current.git
  const run = runText(current.git.runId, links.currentRun, links.runNoun)
  if (sha || run) sentences.push(`This run: ${sha ? `commit ${inlineCode(sha.slice(0, 7))}` : 'no recorded commit'}${run}.`)
  return sentences.length ? [{ text: sentences.join(' ') }] : []
}

/** What the gate could have caught at this run's counts: one line, in small print unless it is coarse. */
export function sensitivityLine(model: ReportModel): Block[] {
  const s = model.comparison.sensitivity
  if (!s) return []
  const text = sensitivitySentence(s)
  return [{ text: s.coarse ? text : `<sub>${text}</sub>` }]
}

/** ", [workflow run 41](…)" when the page is known, else ", workflow run `41`". */
function runText(runId: string | null, url: string | null | undefined, noun = 'workflow run'): string {
  const label = `${noun} ${runId ? escapeInline(runId, 40) : ''}`.trim()
  if (url && /^https?:\/\/[^\s()<>[\]]+$/.test(url)) return `, [${label}](${url})`
  return runId ? `, ${noun} ${inlineCode(runId, 40)}` : ''
}

/**
 * The trusted settings the pull request changes, which this run did not
 * apply. Bounded: a pull request that changes hundreds of keys must not push
 * the regressed cases out of the comment.
 */
export function configChanges(model: ReportModel, whole = false): Block[] {
  const changes = model.verdict.configChanges
  if (!changes.length) return []
  const listed = whole ? Infinity : CONFIG_CHANGES_LISTED
  // a code span in a table cell: GFM splits cells at every pipe not escaped, even inside code
  const code = (text: string) => inlineCode(text, 200).replace(/\|/g, '\\|')
  const value = (v: unknown) => (v === undefined ? '_not set_' : code(JSON.stringify(v) ?? String(v)))
  const rows = changes.slice(0, listed).map((ch) => [code(ch.key), value(ch.base), value(ch.head)])
  const more = changes.length > listed ? `\n\nand ${formatCount(changes.length - listed)} more (in the job summary)` : ''
  return [
    {
      text:
        `#### Config changes (apply after merge)\n\n` +
        `This pull request changes trusted settings; this run used the base branch's values.\n\n` +
        table(['setting', 'applied (base branch)', 'this pull request'], rows, 'left') +
        more
    }
  ]
}
