/**
 * The report model: built once, after the verdict is final, from the
 * comparison, the verdict and the run's context. The comment, the job
 * summary, the HTML report, annotations, the action's outputs, `--json`, the
 * CLI's lines and JUnit all read it, so none of them can say another verdict.
 * Pure.
 */
import { conclude } from '../compare/conclude.js'
import type { Comparison, Verdict } from '../compare/types.js'
import { gateSchema, type GateConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'
import { acceptedNotice, advisoryNotice, failureSentence, headline, noticeText, reasonCode, reasonMessage, statusWords } from './words.js'

export interface ReportLinks {
  /** the page of the workflow run that made the baseline */
  baselineRun?: string | null
  /** the page of this workflow run */
  currentRun?: string | null
  /** what a run is called where it ran: "workflow run" (GitHub, the default), "job" (GitLab) */
  runNoun?: string
}

/** What the report needs besides the comparison: the verdict and where the runs are. */
export interface ReportInput {
  comparison: Comparison
  baseline: RunRecord | null
  current: RunRecord
  /** the verdict (compare/conclude.ts); without it, the comparison's own (no context: a baseline found, or none) */
  verdict?: Verdict
  links?: ReportLinks
  /** the gate the run was held to: which floors and limits are set (default: the default gate) */
  gate?: GateConfig
  /** default "evalgate · <run name>" */
  title?: string
}

/** How the comment shows the verdict (a GitHub alert): red when the check fails, yellow when it passes with a caveat. */
export type AlertKind = 'CAUTION' | 'WARNING' | 'NOTE' | 'TIP'

export interface ReasonView {
  /** the gate's check name ("maxRegressions") or the reason's code ("judge-failed") */
  code: string
  message: string
  /** the cases behind it, in dataset order */
  keys: string[]
}

export interface ReportModel {
  title: string
  comparison: Comparison
  baseline: RunRecord | null
  current: RunRecord
  verdict: Verdict
  links: ReportLinks
  /** the gate the run was held to */
  gateConfig: GateConfig
  /** the verdict in a few words: "gate failed", "evalgate could not tell" */
  status: string
  /** the verdict in one line: the status and its first reason (or, for a pass, the counts) */
  headline: string
  /**
   * why the verdict is not a pass; for an accepted or advisory verdict, what
   * was accepted or let through. The gate's failures are here whatever the
   * label does.
   */
  reasons: ReasonView[]
  /** everything else worth saying beside the verdict, once each */
  notices: string[]
  alert: AlertKind
  /** the action's `gate` output */
  gate: 'pass' | 'fail' | 'accepted'
  /** the level of the regressed cases' annotations: errors only when the check fails */
  annotationLevel: 'error' | 'warning'
}

/** The model of a report. Without a verdict, the comparison's own is concluded (library and test use). */
export function buildReport(input: ReportInput): ReportModel {
  const { comparison: c, baseline, current } = input
  const verdict = input.verdict ?? conclude(c, current, { baselineStatus: baseline ? 'found' : 'none' })
  const reasons = verdict.reasons.map((r) => ({
    code: reasonCode(r),
    message: reasonMessage(r),
    keys: r.code === 'gate' ? r.failure.keys : []
  }))
  const gateConfig = input.gate ?? gateSchema.parse({})
  const notices = verdict.notices.map(noticeText)
  // the lookup's notice says why there is no baseline; the generic one only when none does and a pass's headline does not
  if (!c.baseline && verdict.baselineStatus === 'none' && verdict.status !== 'pass' && !notices.some((n) => /no baseline/i.test(n)))
    notices.push('no baseline: comparison skipped, only absolute floors checked')
  if (c.baseline && !c.baseline.complete) notices.push('the baseline run is incomplete: cases it lacks count as added')
  if (verdict.advisory) notices.unshift(advisoryNotice(verdict))
  if (verdict.acceptedBy) notices.unshift(acceptedNotice(verdict.acceptedBy))
  return {
    title: input.title ?? `evalgate · ${current.name}`,
    comparison: c,
    baseline,
    current,
    verdict,
    links: input.links ?? {},
    gateConfig,
    status: statusWords(verdict) + (verdict.advisory ? ' (advisory)' : ''),
    headline: headline(verdict, c, gateConfig),
    reasons,
    notices: [...new Set(notices)],
    alert: alertKind(verdict, c),
    gate: verdict.status === 'pass' ? 'pass' : verdict.status === 'accepted' ? 'accepted' : 'fail',
    annotationLevel: verdict.exitCode === 1 ? 'error' : 'warning'
  }
}

/**
 * CAUTION whenever the check fails; WARNING when a failing verdict passes it
 * (accepted by label, advisory) or a passing run has a caveat (a baseline
 * ignored on purpose, an incomplete or stale baseline); NOTE without a baseline; TIP
 * for a clean pass.
 */
function alertKind(v: Verdict, c: Comparison): AlertKind {
  if (v.exitCode === 1) return 'CAUTION'
  if (v.status !== 'pass') return 'WARNING'
  if (v.notices.some((n) => n.code === 'baseline-ignored' || n.code === 'stale-baseline') || (c.baseline !== null && !c.baseline.complete)) return 'WARNING'
  return c.baseline ? 'TIP' : 'NOTE'
}

/** The gate's failures as sentences (`--json` gate.failures). */
export function gateFailures(model: Pick<ReportModel, 'verdict'>): string[] {
  return model.verdict.gate.checks.map(failureSentence)
}
