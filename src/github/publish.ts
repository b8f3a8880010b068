/**
 * Publishing a comparison: report.md beside the record, the sticky comment, the
 * job summary, annotations, outputs and the badge — shared by mode run and
 * mode comment. Failures to publish are warnings or collected problems; the
 * verdict is main.ts's.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import * as core from '@actions/core'
import type { Comparison, Verdict } from '../compare/types.js'
import { errorMessage } from '../errors.js'
import { renderReport, type ReportInput } from '../report/index.js'
import type { RunRecord } from '../types.js'
import { makeDir } from '../util/dirs.js'
import { redact } from '../util/env.js'
import { writeFileAtomic } from '../util/files.js'
import { RECORD_FILE, REPORT_FILE } from './artifacts/names.js'
import { badgeFor, badgeSvg } from '../badge/index.js'
import { renderTrend, trendOf } from '../report/trend.js'
import type { BadgeConfig } from '../config/schema.js'
import { commentBody, MAX_COMMENT_LENGTH, upsertComment } from './comment.js'
import { apiMessage, runUrl, type ActionContext, type Octokit } from './context.js'
import type { ActionInputs } from './inputs.js'
import { annotate, fitBytes, logUntrusted, MAX_SUMMARY_BYTES, outputValues, regressionAnnotations, setOutputs, writeJobSummary } from './summary.js'

export interface Published {
  comparison: Comparison
  baseline: RunRecord | null
  current: RunRecord
  secrets: Set<string>
  /** the outcome, its reasons and notices (compare/conclude.ts) */
  verdict: Verdict
  /** where the full report lives, for the comment's "did not fit" line */
  fullReportHint: string
  outDir: string
  baselineRunId: number | null
  /** the config's `badge:` section (label, colour bands) */
  badgeConfig?: BadgeConfig
}

export interface Rendered {
  /** the comment's report within maxLength */
  render: (maxLength: number) => string
  /** the full report (summary, report.md), within the summary's byte budget */
  full: string
  resultsPath: string
  reportPath: string
}

/**
 * The report, rendered once per size it is shown at; report.md written beside
 * the record. The comment details the first regressions, the summary all of them.
 */
export async function writeReport(ctx: Pick<ActionContext, 'serverUrl' | 'repository'>, p: Published): Promise<Rendered> {
  const input: ReportInput = {
    comparison: p.comparison,
    baseline: p.baseline,
    current: p.current,
    verdict: p.verdict,
    // the record names the run that made it: in mode comment that is the triggering run, not this one
    links: { baselineRun: runUrl(ctx, p.baselineRunId ?? p.baseline?.git.runId ?? null), currentRun: runUrl(ctx, p.current.git.runId) }
  }
  const render = (maxLength: number, details?: number) => redact(renderReport(input, { maxLength, fullReportHint: p.fullReportHint, details }), p.secrets)
  // the summary (not the comment) also shows how the last runs on the baseline branch went
  const trend = renderTrend(trendOf(p.current))
  const tail = trend ? `\n\n${trend}\n` : ''
  const full = fitBytes((max) => render(max - tail.length, Infinity) + tail, MAX_SUMMARY_BYTES)
  const reportPath = path.join(p.outDir, REPORT_FILE)
  await writeFileAtomic(reportPath, full)
  return { render: (maxLength) => render(maxLength), full, resultsPath: path.join(p.outDir, RECORD_FILE), reportPath }
}

/** Comment, summary, annotations, outputs, badge; returns what failed (problems for the verdict) instead of stopping. */
export async function publish(inputs: ActionInputs, ctx: ActionContext, octokit: Octokit | null, marker: string, p: Published, r: Rendered): Promise<string[]> {
  const { render, full, resultsPath, reportPath } = r
  const problems: string[] = []
  if (ctx.pullRequest && octokit && inputs.comment !== 'never') {
    // the comment's wrapper (marker, verdict) takes a few hundred characters
    const body = commentBody(marker, render(MAX_COMMENT_LENGTH - 300), p.verdict.outcome)
    try {
      const result = await upsertComment({
        octokit,
        owner: ctx.owner,
        repo: ctx.repo,
        issueNumber: ctx.pullRequest.number,
        marker,
        body,
        policy: inputs.comment,
        // on-change compares it with the outcome the comment's first line shows
        verdict: p.verdict.outcome,
        changed: p.comparison.regressed.length + p.comparison.fixed.length > 0
      })
      if (result.notice) core.notice(result.notice)
      else core.info(`evalgate: PR comment ${result.action}${result.url ? `: ${result.url}` : ''}`)
    } catch (err) {
      core.warning(`evalgate: could not post the PR comment: ${apiMessage(err, 'pull-requests: write')}`)
    }
  }

  try {
    await writeJobSummary(full)
  } catch (err) {
    core.warning(`evalgate: could not write the job summary: ${errorMessage(err)}`)
  }
  annotate(regressionAnnotations(p.comparison, p.current, ctx.workspace, (s) => redact(s, p.secrets)))
  const badge = badgeFor(p.current, p.badgeConfig)
  setOutputs(outputValues({ current: p.current, comparison: p.comparison, verdict: p.verdict, resultsPath, reportPath, baselineRunId: p.baselineRunId, badge }))
  if (inputs.badgePath) {
    try {
      await makeDir(path.dirname(path.resolve(inputs.badgePath)))
      await writeFile(inputs.badgePath, await badgeSvg(badge))
    } catch (err) {
      problems.push(`cannot write the badge to ${inputs.badgePath}: ${errorMessage(err)}`)
    }
  }
  logUntrusted('evalgate report', full)
  return problems
}
