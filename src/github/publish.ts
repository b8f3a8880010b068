/**
 * Publishing a run's report once its verdict is final: the sticky comment,
 * report.md beside the record, the job summary, annotations, outputs and the
 * badge — shared by mode run, mode merge and mode comment. Everything shown
 * is rendered from the one report model; what fails here is a warning (the
 * verdict is already what it is); mode comment, whose whole work is the
 * comment, fails on its failure.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import * as core from '@actions/core'
import { errorMessage } from '../errors.js'
import { renderReport, type ReportModel } from '../report/index.js'
import { makeDir } from '../util/dirs.js'
import { redact } from '../util/env.js'
import { writeFileAtomic } from '../util/files.js'
import { HTML_FILE, JSON_FILE, REPORT_FILE } from './artifacts/names.js'
import { htmlPieces } from '../report/html/index.js'
import { comparisonJson } from '../report/json.js'
import { renderJunit } from '../report/junit.js'
import { toJson } from '../util/files.js'
import { writeTextAtomic } from '../util/json-writer.js'
import { badgeFor, badgeSvg } from '../badge/index.js'
import { renderTrend, trendOf } from '../report/trend.js'
import type { BadgeConfig } from '../config/schema.js'
import { commentBody, MAX_COMMENT_LENGTH, upsertComment } from './comment.js'
import { apiMessage, type ActionContext, type Octokit } from './context.js'
import type { ActionInputs } from './inputs.js'
import { annotate, fitBytes, logUntrusted, MAX_SUMMARY_BYTES, outputValues, regressionAnnotations, setOutputs, writeJobSummary } from './summary.js'

export interface Publication {
  model: ReportModel
  secrets: Set<string>
  /** where the full report lives, for the comment's "did not fit" line */
  fullReportHint: string
  /** the folder of the run record; report.md is written beside it */
  outDir: string
  resultsPath: string
  baselineRunId: number | null
  /** the config's `badge:` section (label, colour bands) */
  badgeConfig?: BadgeConfig
  /** the sticky comment's marker, when this job comments */
  marker: string
}

/**
 * Comment, report.md, summary, annotations, outputs, badge. What cannot be
 * done is a warning, never a change of verdict; the comment's failure is
 * returned (mode comment fails on it).
 */
export async function publish(inputs: ActionInputs, ctx: ActionContext, octokit: Octokit | null, p: Publication): Promise<{ commentError: string | null }> {
  const { model } = p
  const render = (maxLength: number, details?: number) => redact(renderReport(model, { maxLength, fullReportHint: p.fullReportHint, details }), p.secrets)
  let commentError: string | null = null
  if (ctx.pullRequest && octokit && inputs.comment !== 'never') {
    // the comment's wrapper (marker, verdict) takes a few hundred characters
    const body = commentBody(p.marker, render(MAX_COMMENT_LENGTH - 300), model.verdict.status)
    try {
      const result = await upsertComment({
        octokit,
        owner: ctx.owner,
        repo: ctx.repo,
        issueNumber: ctx.pullRequest.number,
        marker: p.marker,
        body,
        policy: inputs.comment,
        // on-change compares it with the verdict the comment's first line shows
        verdict: model.verdict.status,
        changed: model.comparison.regressed.length + model.comparison.fixed.length > 0
      })
      if (result.notice) core.notice(result.notice)
      else core.info(`evalgate: PR comment ${result.action}${result.url ? `: ${result.url}` : ''}`)
    } catch (err) {
      commentError = `could not post the PR comment: ${apiMessage(err, 'pull-requests: write')}`
      core.warning(`evalgate: ${commentError} (the verdict stands; the job summary has the report)`)
    }
  }

  // the summary (not the comment) details every regression and shows how the last runs on the baseline branch went
  const trend = renderTrend(trendOf(model.current))
  const tail = trend ? `\n\n${trend}\n` : ''
  const full = fitBytes((max) => render(max - tail.length, Infinity) + tail, MAX_SUMMARY_BYTES)
  const reportPath = path.join(p.outDir, REPORT_FILE)
  await writeFileAtomic(reportPath, full)
  // the HTML report and --json's comparison beside it, for a workflow to keep (outputs html-path, json-path)
  const htmlPath = path.join(p.outDir, HTML_FILE)
  const jsonPath = path.join(p.outDir, JSON_FILE)
  const masked = p.secrets.size ? { redact: (text: string) => redact(text, p.secrets) } : {}
  await writeTextAtomic(htmlPath, htmlPieces(model, masked))
  await writeFileAtomic(jsonPath, redact(toJson(comparisonJson(model)), p.secrets))
  try {
    await writeJobSummary(full)
  } catch (err) {
    core.warning(`evalgate: could not write the job summary: ${errorMessage(err)}`)
  }
  annotate(regressionAnnotations(model, ctx.workspace, (s) => redact(s, p.secrets)))
  const badge = badgeFor(model.current, p.badgeConfig)
  setOutputs(outputValues({ model, resultsPath: p.resultsPath, reportPath, htmlPath, jsonPath, baselineRunId: p.baselineRunId, badge }))
  if (inputs.junit) {
    try {
      await makeDir(path.dirname(path.resolve(inputs.junit)))
      await writeFileAtomic(inputs.junit, renderJunit(model, masked))
    } catch (err) {
      core.warning(`evalgate: cannot write the JUnit XML to ${inputs.junit}: ${errorMessage(err)}`)
    }
  }
  if (inputs.badgePath) {
    try {
      await makeDir(path.dirname(path.resolve(inputs.badgePath)))
      await writeFile(inputs.badgePath, await badgeSvg(badge))
    } catch (err) {
      core.warning(`evalgate: cannot write the badge to ${inputs.badgePath}: ${errorMessage(err)}`)
    }
  }
  logUntrusted('evalgate report', full)
  return { commentError }
}
