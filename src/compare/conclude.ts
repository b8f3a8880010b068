/**
 * The verdict of a run: one pure function from the comparison and what the
 * entry point knows (the baseline's fate, the accept label, trusted-config
 * changes, what failed while recording) to one value — pass, fail, accepted
 * or could-not-tell — with every reason as a value. Computed once, after
 * everything that can change it has happened; every surface shows it.
 */
import type { RunRecord } from '../types.js'
import { judgeOutage } from './judged.js'
import { sharedTargetError } from './shared-failure.js'
import type { StaleBaseline } from './staleness.js'
import type { BaselineStatus, Comparison, ConfigChange, Verdict, VerdictNotice, VerdictReason, VerdictStatus } from './types.js'

export interface ConcludeContext {
  baselineStatus: BaselineStatus
  /** why the baseline is in error or incompatible (for `error` and `incompatible`) */
  baselineProblem?: string | null
  /** notices the entry point has already worded: no baseline, config taken from the base commit, … */
  notices?: string[]
  /** the cases the run set out to finish; an incomplete run names it */
  expected?: number
  /** trusted settings the pull request changes; they apply after merge */
  configChanges?: ConfigChange[]
  /** the accept label, when the pull request carries it */
  acceptLabel?: string | null
  /** false (advisory): a failing gate is reported on every surface, but the check is left green (not a run that could not tell) */
  failOnRegression?: boolean
  /** warn: a baseline in error is a notice, not a failure (input on-baseline-error) */
  onBaselineError?: 'fail' | 'warn'
  /** what the run could not do that it must (the upload of the record): the run could not tell */
  problems?: readonly VerdictReason[]
  /** the baseline is older than gate.maxBaselineAgeDays (compare/staleness.ts): a notice, or a failure with failOnStaleBaseline */
  staleBaseline?: StaleBaseline | null
}

/** Why the run cannot support a verdict: the reasons that make it could-not-tell rather than fail. */
function unableToTell(comparison: Comparison, record: RunRecord, context: ConcludeContext, notices: VerdictNotice[]): VerdictReason[] {
  const reasons: VerdictReason[] = []
  const status = context.baselineStatus
  // a baseline that exists but cannot be used is not "no baseline"
  if (status === 'error' || status === 'incompatible') {
    const detail = context.baselineProblem ?? 'the baseline could not be used'
    const reason: VerdictReason = status === 'error' ? { code: 'baseline-error', detail } : { code: 'baseline-incompatible', detail }
    if (context.onBaselineError === 'warn') notices.push({ code: 'baseline-ignored', reason })
    else reasons.push(reason)
  }
  const incomplete = comparison.gate.checks.find((f) => f.check === 'incomplete')
  if (incomplete) {
    // the cases this run set out to run, when the entry point knows them better than the record (a shard, a filter)
    if (incomplete.check === 'incomplete')
      reasons.push({ code: 'incomplete', finished: record.cases.length, planned: context.expected ?? incomplete.limit, budget: incomplete.budget })
  }
  // one broken target (or judge) is one problem, not N regressions
  const target = sharedTargetError(record)
  if (target) reasons.push({ code: 'target-failed', shared: target })
  const judge = judgeOutage(record)
  if (judge) reasons.push({ code: 'judge-failed', shared: judge })
  // what graded is not what the fingerprints compared
  if (record.changedDuringRun?.length) reasons.push({ code: 'files-changed', files: record.changedDuringRun })
  reasons.push(...(context.problems ?? []))
  return reasons
}

export function conclude(comparison: Comparison, record: RunRecord, context: ConcludeContext): Verdict {
  const { gate } = comparison
  const notices: VerdictNotice[] = (context.notices ?? []).map((text) => ({ code: 'text', text }))
  const cannotTell = unableToTell(comparison, record, context, notices)
  const limits: VerdictReason[] = gate.checks.filter((f) => f.check !== 'incomplete').map((failure) => ({ code: 'gate', failure }))
  const stale = context.staleBaseline
  if (stale?.fail) limits.push({ code: 'stale-baseline', stale })
  else if (stale) notices.push({ code: 'stale-baseline', stale })
  const failing = cannotTell.length > 0 || limits.length > 0
  const acceptedBy = failing && context.acceptLabel ? context.acceptLabel : null
  const status: VerdictStatus = !failing ? 'pass' : acceptedBy ? 'accepted' : cannotTell.length ? 'could-not-tell' : 'fail'
  // advisory is about the gate's limits: a run that could not tell fails closed all the same
  const advisory = status === 'fail' && context.failOnRegression === false

  const budget = record.budget
  if (budget && (budget.uncountedTrials || budget.uncountedJudgeTokens))
    notices.push({
      code: 'budget-uncounted',
      maxCostUsd: budget.maxCostUsd,
      spentUsd: budget.spentUsd,
      trials: budget.uncountedTrials ?? 0,
      judgeTokens: budget.uncountedJudgeTokens ?? 0
    })
  for (const limit of gate.unchecked ?? []) notices.push({ code: 'unchecked', limit })
  if (comparison.notGraded.length && !cannotTell.some((r) => r.code === 'judge-failed')) notices.push({ code: 'not-graded', keys: comparison.notGraded })

  return {
    status,
    // what could not be told comes first: it is why the limits below cannot be trusted either
    reasons: [...cannotTell, ...limits],
    exitCode: status === 'pass' || status === 'accepted' || advisory ? 0 : 1,
    advisory,
    acceptedBy,
    notices: dedupe(notices),
    gate,
    baselineStatus: context.baselineStatus,
    configChanges: context.configChanges ?? []
  }
}

function dedupe(notices: VerdictNotice[]): VerdictNotice[] {
  const seen = new Set<string>()
  return notices.filter((n) => {
    const key = JSON.stringify(n)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
