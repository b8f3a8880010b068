/**
 * The words of the verdict: every sentence that says a gate failure, a
 * reason, a notice or the headline is written here once, and every surface
 * (the comment, the job summary, the HTML report, annotations, the CLI,
 * `--json`, JUnit) shows these. Pure: values in, text out.
 */
import type { Sensitivity } from '../compare/sensitivity.js'
import type { GateConfig } from '../config/schema.js'
import type {
  Comparison,
  GateFailure,
  MetricKind,
  MetricLimit,
  UncheckedLimit,
  Verdict,
  VerdictNotice,
  VerdictReason,
  VerdictStatus
} from '../compare/types.js'
import type { StaleBaseline } from '../compare/staleness.js'
import { formatCount, formatKeys, formatList, formatMetric, formatPercent, formatPoints, formatScore, formatUsd, plural } from './format.js'

/** How each relative metric limit names its figure. */
const METRIC_WORDS: Record<MetricLimit, { label: string; what: string; why: string }> = {
  maxCostIncrease: {
    label: 'total cost',
    what: 'a cost',
    why: 'the target reports no usage, or names a model missing from pricing, or the baseline was made before it did'
  },
  maxTokensIncrease: {
    label: 'total tokens',
    what: 'a token count',
    why: 'the target reports no usage, or the baseline was made before it did'
  },
  maxLatencyIncrease: {
    label: 'p95 latency',
    what: 'a latency',
    why: 'the baseline was made by an evalgate that did not record latency'
  }
}

/** "; largest rises: greeting (+$0.0004), … of 7 cases that rose". */
function risesText(kind: MetricKind, rises: { keys: string[]; by: number[]; total: number } | null): string {
  if (!rises || !rises.keys.length) return ''
  const named = rises.keys.map((key, i) => `${key} (+${formatMetric(kind, rises.by[i]!)})`)
  const of = rises.total > rises.keys.length ? `, of ${formatCount(rises.total)} cases that rose` : ''
  return `; largest ${rises.keys.length === 1 ? 'rise' : 'rises'}: ${formatList(named)}${of}`
}

/** Unreported cases named before "and N more", as for rises. */
const UNREPORTED_NAMED = 3

/** " (they changed in this pull request and fail as the baseline ran them)": regressions found by running changed cases as the baseline ran them */
function changedInPr(keys: readonly string[], regressed: number): string {
  if (!keys.length) return ''
  const one = keys.length === 1
  const who = keys.length === regressed ? (one ? 'it' : 'they') : formatKeys(keys)
  return ` (${who} changed in this pull request and ${one ? 'fails' : 'fail'} as the baseline ran ${one ? 'it' : 'them'})`
}

/** One exceeded limit as a sentence: the limit, the measured value and the cases behind it. */
export function failureSentence(f: GateFailure): string {
  switch (f.check) {
    case 'maxRegressions':
      return `${plural(f.measured, 'case')} regressed (limit: maxRegressions ${f.limit}): ${formatKeys(f.keys)}${changedInPr(f.changedInPr ?? [], f.measured)}`
    case 'maxRemoved':
      return `${plural(f.measured, 'baseline case')} ${f.measured === 1 ? 'is' : 'are'} missing from this run (limit: maxRemoved ${f.limit}): ${formatKeys(f.keys)}`
    case 'maxChanged':
      return `${plural(f.measured, 'case')} changed (input, assertions or judge settings differ from the baseline's; limit: maxChanged ${f.limit}): ${formatKeys(f.keys)}`
    case 'minComparable':
      return (
        `only ${f.compared} of ${plural(f.baseline, 'baseline case')} could be compared (${formatPercent(f.measured)}; limit: minComparable ${formatPercent(f.limit)}): ` +
        `the others are removed or changed, so the baseline says little about this run`
      )
    case 'maxPassRateDrop': {
      const rates = `${formatPercent(f.baselineRate)} → ${formatPercent(f.currentRate)}`
      const flakyAside = f.flakyFlips ? `, ${plural(f.flakyFlips, 'flaky case')} counted as in the baseline` : ''
      const where = `on the ${plural(f.cases, 'case')} in both runs with the same fingerprint${flakyAside}`
      const cases = f.keys.length ? `; passed before, fail now: ${formatKeys(f.keys)}` : ''
      const limit = `maxPassRateDrop ${formatPoints(f.limit)} points`
      return f.bound
        ? `pass rate dropped by at least ${formatPoints(f.measured)} points ${where}, ${rates} (the optimistic end of its 95% confidence interval; limit: ${limit}, applied to that bound)${cases}`
        : `pass rate dropped ${formatPoints(f.measured)} points ${where}, ${rates} (limit: ${limit}${f.unbounded ? `; with ${plural(f.cases, 'case')} no 95% confidence interval could exceed the limit, so applied to the drop itself` : ''})${cases}`
    }
    case 'maxMeanScoreDrop': {
      const scores = `${formatScore(f.baselineScore)} → ${formatScore(f.currentScore)}`
      const cases = f.keys.length ? `; scored lower: ${formatKeys(f.keys)}` : ''
      const where = 'on the cases scored in both runs with the same fingerprint'
      const limit = `maxMeanScoreDrop ${formatScore(f.limit)}`
      return f.bound
        ? `mean judge score dropped by at least ${formatScore(f.measured)} ${where}, ${scores} (the optimistic end of its 95% confidence interval; limit: ${limit}, applied to that bound)${cases}`
        : `mean judge score dropped ${formatScore(f.measured)} ${where}, ${scores} (limit: ${limit})${cases}`
    }
    case 'maxCostIncrease':
    case 'maxTokensIncrease':
    case 'maxLatencyIncrease': {
      const { label, what } = METRIC_WORDS[f.check]
      const limit = `${f.check} ${formatPercent(f.limit)}`
      if (f.how === 'unreported') {
        const has = f.cases === 1 ? 'has' : 'have'
        const where = `${plural(f.cases, 'compared case')} had ${what} in the baseline and ${has} none in this run (${formatKeys(f.keys, UNREPORTED_NAMED, f.cases)})`
        const hint = f.metric === 'cost' ? 'does the target still report usage, and is every model it names in pricing?' : 'does the target still report usage?'
        return `${limit} cannot be checked: ${where}; ${hint}`
      }
      const [baseline, current] = [formatMetric(f.metric, f.baseline ?? 0), formatMetric(f.metric, f.current ?? 0)]
      const where = `on the ${plural(f.cases, 'case')} compared`
      const cases = risesText(f.metric, f.rises)
      if (f.how === 'fromZero')
        return `${label} rose from ${baseline} to ${current} ${where}: a rise from zero is over any relative limit (limit: ${limit})${cases}`
      if (f.how === 'bound')
        return `${label} rose by at least ${formatPercent(f.measured ?? 0)} ${where}, ${baseline} → ${current} (the optimistic end of its 95% confidence interval; limit: ${limit}, applied to that bound)${cases}`
      const unbounded = f.unbounded ? `; no confidence interval (too few cases, or a baseline mostly at zero), so applied to the rise itself` : ''
      return `${label} rose ${formatPercent(f.measured ?? 0)} ${where}, ${baseline} → ${current} (limit: ${limit}${unbounded})${cases}`
    }
    case 'minPassRate': {
      const flakyNote = f.flakyFailing
        ? `; ${f.flakyFailing} of the failing cases ${f.flakyFailing === 1 ? 'is' : 'are'} flaky and count${f.flakyFailing === 1 ? 's' : ''} as failed: minPassRate is a floor of this run`
        : ''
      return (
        `pass rate ${formatPercent(f.measured)} is below minPassRate ${formatPercent(f.limit)} (${f.passed} of ${plural(f.total, 'case')} passed)` +
        (f.keys.length ? `; failing: ${formatKeys(f.keys)}` : '') +
        flakyNote
      )
    }
    case 'minMeanScore':
      if (f.measured === null) return `mean judge score is unavailable (no case has an llm-rubric score) but minMeanScore is ${formatScore(f.limit)}`
      return (
        `mean judge score ${formatScore(f.measured)} is below minMeanScore ${formatScore(f.limit)}` +
        (f.keys.length ? `; scored below it: ${formatKeys(f.keys)}` : '')
      )
    case 'failOnMissingBaseline':
      return 'no baseline run to compare against (failOnMissingBaseline is true)'
    case 'incomplete':
      return incompleteSentence(f.measured, f.limit, f.budget)
  }
}

function incompleteSentence(finished: number, planned: number, budget: { spentUsd: number; maxCostUsd: number } | null): string {
  const reached = planned > finished ? `${finished} of ${plural(planned, 'case')} finished` : `it stopped after ${plural(finished, 'case')} finished`
  return budget
    ? `the run stopped at its budget: ${formatUsd(budget.spentUsd)} spent of budget.maxCostUsd ${formatUsd(budget.maxCostUsd)} (target plus judge); ${reached}, and a run cut short is never a pass`
    : `the run is incomplete: ${reached}`
}

/** A reason of the verdict as a sentence. */
export function reasonMessage(r: VerdictReason): string {
  switch (r.code) {
    case 'gate':
      return failureSentence(r.failure)
    case 'baseline-error':
      return `the baseline exists but could not be read, so regressions cannot be ruled out: ${r.detail}`
    case 'baseline-incompatible':
      return `the baseline cannot be compared with this run: ${r.detail}`
    case 'incomplete':
      return incompleteSentence(r.finished, r.planned, r.budget)
    case 'target-failed':
      return `the target failed on ${r.shared.failed} of ${plural(r.shared.total, 'case')}: ${r.shared.message}`
    case 'judge-failed':
      return `the judge failed on ${r.shared.failed} of ${plural(r.shared.total, 'verdict')}: ${r.shared.message}; the cases it could not grade are not counted as regressions`
    case 'upload-failed':
      return `the run record could not be uploaded as artifact "${r.artifact}": ${r.error}`
    case 'record-mismatch':
      return r.found
        ? `the run record uploaded as artifact "${r.artifact}" is not the one evalgate computed (SHA-256 ${r.found.slice(0, 12)}… uploaded, ${r.written.slice(0, 12)}… written): ` +
            `it was changed between being written and being uploaded, by a process left running on the runner`
        : `the run record uploaded as artifact "${r.artifact}" could not be read back to check that it is the one evalgate computed: ${r.error}`
    case 'stale-baseline':
      return `${staleSentence(r.stale)} (limit: maxBaselineAgeDays ${r.stale.limitDays}, and failOnStaleBaseline is true)`
    case 'files-changed': {
      const shown = r.files.slice(0, 5).join(', ')
      const more = r.files.length > 5 ? ` and ${formatCount(r.files.length - 5)} more` : ''
      return (
        `${plural(r.files.length, 'file')} that grade${r.files.length === 1 ? 's' : ''} the cases changed while the run was in progress (${shown}${more}): ` +
        `the cases were graded by something other than what their fingerprints say, by code running on the runner`
      )
    }
    case 'problem':
      return r.text
  }
}

/** What a stale baseline is, in one sentence: its age, against what, and what it means. */
function staleSentence(s: StaleBaseline): string {
  const commit = s.baselineSha ? ` (commit ${s.baselineSha.slice(0, 7)})` : ''
  // the pull request's base commit (GitHub), the merge request's diff base (GitLab)
  const against = s.against === 'base-commit' ? 'the base commit' : 'this run'
  return (
    `the baseline${commit} is stale: it was made ${plural(s.ageDays, 'day')} before ${against}, so whatever changed on the branch since counts as this change's doing; ` +
    `run the evals on the default branch to refresh it`
  )
}

/** The code `--json` and JUnit give a reason: the gate's check name, else the reason's own. */
export function reasonCode(r: VerdictReason): string {
  return r.code === 'gate' ? r.failure.check : r.code
}

function uncheckedSentence(u: UncheckedLimit): string {
  const { what, why } = METRIC_WORDS[u.check]
  return `${u.check} ${formatPercent(u.limit)} was not checked: no compared case has ${what} in both runs (${why})`
}

/** Ids a notice names before "and N more". */
const NOTICE_KEYS = 10

/** A notice as a sentence. */
export function noticeText(n: VerdictNotice): string {
  switch (n.code) {
    case 'text':
      return n.text
    case 'baseline-ignored':
      return `${reasonMessage(n.reason)} (on-baseline-error: warn: only the absolute floors are gated)`
    case 'unchecked':
      return uncheckedSentence(n.limit)
    case 'budget-uncounted': {
      const parts: string[] = []
      if (n.trials) parts.push(`${plural(n.trials, 'trial')} that reported no cost (no usage, or a model missing from pricing)`)
      if (n.judgeTokens) parts.push(`${plural(n.judgeTokens, 'judge token')} (the judge's model has no price in pricing)`)
      return `budget.maxCostUsd ${formatUsd(n.maxCostUsd)} counted ${formatUsd(n.spentUsd)} but could not count ${formatList(parts)}: a budget cannot stop what it cannot count`
    }
    case 'stale-baseline':
      return `${staleSentence(n.stale)} (gate.maxBaselineAgeDays ${n.stale.limitDays}; gate.failOnStaleBaseline: true makes this a failure)`
    case 'not-graded':
      return `${plural(n.keys.length, 'case')} could not be graded (the judge failed on ${n.keys.length === 1 ? 'its verdict' : 'their verdicts'}) and ${n.keys.length === 1 ? 'is' : 'are'} left out of the comparison: ${formatKeys(n.keys, NOTICE_KEYS)}`
  }
}

/** The verdict in a few words: what the check's colour means. */
export function statusWords(v: Pick<Verdict, 'status' | 'acceptedBy' | 'reasons'>): string {
  // what was accepted: a failed gate, or a run that could not tell (any reason beside the gate's limits)
  const accepted = v.reasons.some((r) => r.code !== 'gate') ? 'evalgate could not tell' : 'gate failed'
  const words: Record<VerdictStatus, string> = {
    pass: 'gate passed',
    fail: 'gate failed',
    accepted: `${accepted}, accepted by the label "${v.acceptedBy ?? ''}"`,
    'could-not-tell': 'evalgate could not tell'
  }
  return words[v.status]
}

/** What an accepted verdict means for the check, and how to undo it. */
export function acceptedNotice(label: string): string {
  return `the check passes because this pull request carries the label "${label}"; remove the label to let the gate decide again`
}

/** Advisory mode's words after the status, and its notice: the check was left green on purpose. */
const ADVISORY = 'advisory: the check was left green'

export function advisoryNotice(v: Pick<Verdict, 'status' | 'acceptedBy' | 'reasons'>): string {
  return `${statusWords(v)}, but fail-on-regression is false: the check was left green on purpose, so pull requests are not blocked`
}

/** The floors a run without a baseline was held to, or that none is set. */
export function floorsText(gate: Pick<GateConfig, 'minPassRate' | 'minMeanScore'>): string {
  const floors: string[] = []
  if (gate.minPassRate > 0) floors.push(`minPassRate ${formatPercent(gate.minPassRate)}`)
  if (gate.minMeanScore > 0) floors.push(`minMeanScore ${formatScore(gate.minMeanScore)}`)
  return `no baseline yet: nothing compared; ${floors.length ? `floors checked: ${formatList(floors)}` : 'no floor set (gate.minPassRate, gate.minMeanScore)'}`
}

/**
 * The one-line verdict, as the log, the CLI and the comment's bold line
 * begin: "gate failed: 3 cases regressed …", "gate passed: 21 of 25 cases
 * passed, 0 regressions", "evalgate could not tell: the judge failed on …".
 */
export function headline(v: Verdict, c: Comparison, gate: Pick<GateConfig, 'minPassRate' | 'minMeanScore'>): string {
  const words = statusWords(v)
  const first = v.reasons[0]
  const advisory = v.advisory ? ` (${ADVISORY})` : ''
  if (v.status === 'pass') {
    const cases = `${c.current.passed} of ${plural(c.current.total, 'case')} passed`
    return c.baseline ? `${words}: ${cases}, ${plural(c.regressed.length, 'regression')}` : `${words}: ${cases}; ${floorsText(gate)}`
  }
  return `${words}${advisory}${first ? `: ${reasonMessage(first)}` : ''}`
}

/**
 * What the gate could have caught, in one line: "Sensitivity at 20
 * cases × 1 trial (alpha 0.05): a case that starts failing 80% of its trials
 * is caught 80% of the time; a pass-rate drop of 14.1 points trips
 * maxPassRateDrop 5.0 points 80% of the time." Where that is coarse, it says
 * so first.
 */
export function sensitivitySentence(s: Sensitivity): string {
  const trials = s.trials.baseline === s.trials.current ? plural(s.trials.current, 'trial') : `${s.trials.baseline} and ${plural(s.trials.current, 'trial')}`
  const odds = `${Math.round(s.detection * 100)}% of the time`
  const counts = `${plural(s.cases, 'case')} × ${trials} (alpha ${s.alpha})`
  const perCase =
    s.caseDrop === null
      ? 'not even a case that now fails every trial is caught'
      : `a case that starts failing ${formatPercent(s.caseDrop)} of its trials is caught ${odds}`
  const rate = s.passRateDrop
    ? s.passRateDrop.drop === null
      ? `; no pass-rate drop trips maxPassRateDrop ${formatPoints(s.passRateDrop.limit)} points ${odds}`
      : `; a pass-rate drop of ${formatPoints(s.passRateDrop.drop)} points trips maxPassRateDrop ${formatPoints(s.passRateDrop.limit)} points ${odds}${s.passRateDrop.useConfidenceBound ? ' (on its interval)' : ''}`
    : ''
  const coarse = s.coarse ? 'This check can see only large breaks. ' : ''
  return `${coarse}Sensitivity at ${counts}: ${perCase}${rate}.`
}

/** The notice of trusted settings a change alters: "this pull request changes 2 settings that decide its own verdict (gate, judge): …". */
export function configChangesNotice(changes: readonly { key: string }[], change: string, base: string): string {
  const settings = changes.length === 1 ? 'a setting' : `${changes.length} settings`
  return `this ${change} changes ${settings} that decide its own verdict (${changes.map((c) => c.key).join(', ')}): they apply after merge; this run uses the ${base}'s`
}
