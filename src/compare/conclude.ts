/**
 * The verdict of a run (SPEC §6, §7, §9): one pure function from the
 * comparison and what the entry point knows (the baseline's fate, the accept
 * label, trusted-config changes, what failed while publishing) to one value.
 * The action and the CLI only carry it out.
 */
import type { RunRecord } from '../types.js'
import { formatList, formatUsd, plural } from './format.js'
import { sharedTargetError } from './target-errors.js'
import type { BaselineStatus, Comparison, ConfigChange, Verdict } from './types.js'

export interface ConcludeContext {
  baselineStatus: BaselineStatus
  /** why the baseline is in error or incompatible (for `error` and `incompatible`) */
  baselineProblem?: string | null
  /** notices to show: no baseline, config taken from the base commit, … */
  notices?: string[]
  /** the cases the run set out to finish; an incomplete run names it */
  expected?: number
  /** trusted settings the pull request changes; they apply after merge */
  configChanges?: ConfigChange[]
  /** the accept label, when the pull request carries it */
  acceptLabel?: string | null
  /** false: a failing gate is reported but does not fail the check (input fail-on-regression) */
  failOnRegression?: boolean
  /** warn: a baseline in error is a notice, not a failure (input on-baseline-error) */
  onBaselineError?: 'fail' | 'warn'
  /** what evalgate could not do (upload, badge): the check fails with these too */
  problems?: readonly string[]
}

/** A baseline status that leaves evalgate unable to tell whether the change regressed. */
function baselineUnusable(status: BaselineStatus): boolean {
  return status === 'error' || status === 'incompatible'
}

export function conclude(comparison: Comparison, record: RunRecord, context: ConcludeContext): Verdict {
  const { gate } = comparison
  const notices = [...(context.notices ?? [])]
  const problems = context.problems ?? []
  const status = context.baselineStatus
  const reasons: string[] = []

  // Fail closed: a baseline that exists but cannot be used is not "no baseline".
  let baselineReason: string | null = null
  if (baselineUnusable(status)) {
    const why = context.baselineProblem ?? 'the baseline could not be used'
    baselineReason =
      status === 'error'
        ? `the baseline exists but could not be read, so regressions cannot be ruled out: ${why}`
        : `the baseline cannot be compared with this run: ${why}`
    if (context.onBaselineError === 'warn') notices.push(`${baselineReason} (on-baseline-error: warn: only the absolute floors are gated)`)
    else reasons.push(baselineReason)
  }

  // an incomplete run (cut short, budget) is never a pass, whatever fail-on-regression or a label says;
  // the gate of this same record has the check exactly when the record is incomplete
  const incomplete = gate.checks.find((f) => f.check === 'incomplete')
  const limits = gate.checks.filter((f) => f.check !== 'incomplete')
  if (incomplete) {
    const finished = record.cases.length
    const expected = context.expected ?? 0
    // the gate's sentence says why it stopped (a budget); else the count of the cases this run set out to run
    reasons.push(
      record.stopReason !== 'budget' && expected > finished ? `the run is incomplete: ${finished} of ${plural(expected, 'case')} finished` : incomplete.sentence
    )
  }

  const accepted = limits.length > 0 && reasons.length === 0 && Boolean(context.acceptLabel)
  const gateFails = context.failOnRegression !== false && !accepted
  if (gateFails) reasons.push(...limits.map((f) => f.sentence))
  else if (limits.length && !accepted) notices.push(`the gate failed, but fail-on-regression is false: ${limits.map((f) => f.sentence).join(' ')}`)
  reasons.push(...problems)
  const uncounted = budgetUncounted(record)
  if (uncounted) notices.push(uncounted)
  notices.push(...(gate.unchecked ?? []))

  const outcome: Verdict['outcome'] =
    baselineReason && reasons.includes(baselineReason) ? 'error' : accepted ? 'accepted' : limits.length || reasons.length ? 'fail' : 'pass'
  return {
    outcome,
    headline: headlineOf(outcome, comparison, record, { reasons, limits: limits.map((f) => f.sentence), acceptLabel: context.acceptLabel ?? null }),
    reasons: dedupe(reasons),
    gate,
    baselineStatus: status,
    notices: dedupe(notices),
    configChanges: context.configChanges ?? []
  }
}

/** "budget.maxCostUsd $1.00 could not count 10 trials …": what a budget could not see, which it therefore cannot stop. */
function budgetUncounted(record: RunRecord): string | null {
  const budget = record.budget
  if (!budget || (!budget.uncountedTrials && !budget.uncountedJudgeTokens)) return null
  const parts: string[] = []
  if (budget.uncountedTrials) parts.push(`${plural(budget.uncountedTrials, 'trial')} that reported no cost (no usage, or a model missing from pricing)`)
  if (budget.uncountedJudgeTokens) parts.push(`${plural(budget.uncountedJudgeTokens, 'judge token')} (the judge's model has no price in pricing)`)
  return `budget.maxCostUsd ${formatUsd(budget.maxCostUsd)} counted ${formatUsd(budget.spentUsd)} but could not count ${formatList(parts)}: a budget cannot stop what it cannot count`
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)]
}

function headlineOf(
  outcome: Verdict['outcome'],
  c: Comparison,
  record: RunRecord,
  v: { reasons: string[]; limits: string[]; acceptLabel: string | null }
): string {
  const cases = `${c.current.passed} of ${plural(c.current.total, 'case')} passed`
  // one broken target is one problem, not N regressions (SPEC §6): said first, also when the gate has nothing to hold against it
  const shared = sharedTargetError(record)
  const broken = shared ? `the target failed on ${shared.failed} of ${plural(shared.total, 'case')}: ${shared.message}` : null
  switch (outcome) {
    case 'pass': {
      const but = broken ? `, but ${broken}` : ''
      return c.baseline
        ? `gate passed: ${cases}, ${plural(c.regressed.length, 'regression')}${but}`
        : `gate passed: ${cases}${but} (no baseline to compare against)`
    }
    case 'accepted':
      return `gate failed, accepted by the label "${v.acceptLabel}": ${v.limits[0]}`
    case 'error':
      return `evalgate could not tell: ${v.reasons[0]}`
    case 'fail': {
      if (broken) return `gate failed: ${broken}`
      return record.complete === false && v.reasons[0] ? v.reasons[0] : `gate failed: ${v.reasons[0] ?? v.limits[0] ?? cases}`
    }
  }
}
