/**
 * The action's run(): wiring only. Inputs → baseline → the engine → artifact →
 * comment, summary, annotations, outputs → gate. The one place, with cli.ts,
 * that turns errors into a verdict: `core.setFailed` is called here only, and
 * only after everything the run leaves behind has been written.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { DefaultArtifactClient } from '@actions/artifact'
import * as core from '@actions/core'
import { compareRuns } from './compare/index.js'
import type { Comparison } from './compare/types.js'
import { readRunRecord } from './config/record.js'
import { gateSchema, type GateConfig } from './config/schema.js'
import { evaluate, loadEvalConfig } from './engine.js'
import { errorMessage, isUserError, UsageError } from './errors.js'
import { apiMessage, fetchRunRecord, findBaseline, RECORD_FILE, REPORT_FILE, uploadRunArtifact, type BaselineResult, type DownloadTarget } from './github/artifacts.js'
import { badgeSvg } from './github/badge.js'
import { commentBody, commentMarker, MAX_COMMENT_LENGTH, upsertComment } from './github/comment.js'
import { createOctokit, readContext, resolveBaselineBranch, resolveWorkflow, type ActionContext, type Octokit } from './github/context.js'
import { readInputs, type ActionInputs, type GateOverrides } from './github/inputs.js'
import { annotate, fitBytes, logUntrusted, MAX_SUMMARY_BYTES, outputValues, regressionAnnotations, setOutputs, writeJobSummary } from './github/summary.js'
import { findPullRequest, triggeringRun, workflowFileName } from './github/workflow-run.js'
import { renderReport } from './report/index.js'
import { escapeInline } from './report/escape.js'
import { createProgress } from './run/progress.js'
import type { RunRecord } from './types.js'
import { redact } from './util/env.js'
import { toJson, writeFileAtomic } from './util/files.js'

export async function run(): Promise<void> {
  try {
    const inputs = readInputs()
    const ctx = readContext(process.env)
    const failure = inputs.mode === 'comment' ? await commentMode(inputs, ctx) : await runMode(inputs, ctx)
    if (failure) core.setFailed(failure)
  } catch (err) {
    if (isUserError(err)) core.setFailed(`evalgate: ${err.message}`)
    else core.setFailed(`evalgate: internal error (please report it): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
  }
}

// ---------------------------------------------------------------------------

/** What the report and comment say besides the comparison: notices, as escaped quote lines. */
function notesMarkdown(notices: string[]): string {
  return notices.map((n) => `\n\n> ℹ️ ${escapeInline(n, 1_000)}`).join('')
}

function withOverrides(gate: GateConfig, overrides: GateOverrides): GateConfig {
  return { ...gate, ...overrides }
}

interface Published {
  comparison: Comparison
  baseline: RunRecord | null
  current: RunRecord
  secrets: Set<string>
  notices: string[]
  /** where the full report lives, for the comment's "did not fit" line */
  fullReportHint: string
  outDir: string
  baselineRunId: number | null
  /** the gate as reported: an incomplete run never passes */
  gatePassed: boolean
}

interface Rendered {
  render: (maxLength: number) => string
  notes: string
  /** the full report (summary, report.md), within the summary's byte budget */
  full: string
  resultsPath: string
  reportPath: string
}

/** The report, rendered once per size it is shown at; report.md written beside the record. */
async function writeReport(p: Published): Promise<Rendered> {
  const render = (maxLength: number) => redact(renderReport({ comparison: p.comparison, baseline: p.baseline, current: p.current }, { maxLength, fullReportHint: p.fullReportHint }), p.secrets)
  const notes = notesMarkdown(p.notices)
  const full = fitBytes((max) => render(max - notes.length) + notes, MAX_SUMMARY_BYTES)
  const reportPath = path.join(p.outDir, REPORT_FILE)
  await writeFileAtomic(reportPath, full)
  return { render, notes, full, resultsPath: path.join(p.outDir, RECORD_FILE), reportPath }
}

/** Comment, summary, annotations, outputs, badge; collects what failed instead of stopping. */
async function publish(inputs: ActionInputs, ctx: ActionContext, octokit: Octokit | null, marker: string, p: Published, r: Rendered, problems: string[]): Promise<void> {
  const { render, notes, full, resultsPath, reportPath } = r
  if (ctx.pullRequest && octokit && inputs.comment !== 'never') {
    // the comment's wrapper (marker, verdict) takes a few hundred characters
    const body = commentBody(marker, render(MAX_COMMENT_LENGTH - 300 - notes.length) + notes, p.gatePassed ? 'pass' : 'fail')
    try {
      const result = await upsertComment({
        octokit,
        owner: ctx.owner,
        repo: ctx.repo,
        issueNumber: ctx.pullRequest.number,
        marker,
        body,
        policy: inputs.comment,
        verdict: p.gatePassed ? 'pass' : 'fail',
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
  const outputs = outputValues({ current: p.current, comparison: p.comparison, gatePassed: p.gatePassed, resultsPath, reportPath, baselineRunId: p.baselineRunId })
  setOutputs(outputs)
  if (inputs.badgePath) {
    try {
      await mkdir(path.dirname(path.resolve(inputs.badgePath)), { recursive: true })
      await writeFile(inputs.badgePath, badgeSvg('evals', outputs['badge-message'], outputs['badge-color']))
    } catch (err) {
      problems.push(`cannot write the badge to ${inputs.badgePath}: ${errorMessage(err)}`)
    }
  }
  logUntrusted('evalgate report', full)
}

async function lookUpBaseline(octokit: Octokit, ctx: ActionContext, inputs: ActionInputs, query: { artifactName: string; workflow: string | number | null; branch: string | null; baseSha: string | null; currentRunId: number | null }): Promise<BaselineResult> {
  const none = (reason: string): BaselineResult => ({ record: null, run: null, artifactName: null, notices: [`no baseline: ${reason}; comparison skipped, only the absolute floors are gated`] })
  let branch: string
  let workflow: string | number | null
  try {
    branch = query.branch ?? (await resolveBaselineBranch(octokit, ctx, inputs.baselineBranch))
    workflow = query.workflow ?? (await resolveWorkflow(octokit, ctx))
  } catch (err) {
    return none(`cannot read the repository's default branch or this run's workflow: ${apiMessage(err, 'contents: read and actions: read')}`)
  }
  if (workflow === null) return none('this run does not say which workflow it belongs to (no GITHUB_WORKFLOW_REF or GITHUB_RUN_ID)')
  return findBaseline({
    octokit,
    client: new DefaultArtifactClient(),
    token: inputs.token,
    owner: ctx.owner,
    repo: ctx.repo,
    repository: ctx.repository,
    tempDir: ctx.tempDir,
    workflow,
    branch,
    artifactName: query.artifactName,
    baseSha: query.baseSha,
    currentRunId: query.currentRunId
  })
}

/** mode: run — evaluate this commit, publish, gate. */
async function runMode(inputs: ActionInputs, ctx: ActionContext): Promise<string | null> {
  const loaded = await loadEvalConfig(inputs.config)
  loaded.config.gate = withOverrides(loaded.config.gate, inputs.gate)
  const { name } = loaded.config
  const artifactName = inputs.artifactName ?? `evalgate-${name}`
  const octokit = inputs.token ? createOctokit(inputs.token, ctx) : null
  const problems: string[] = []

  let baseline: RunRecord | null = null
  let baselineRunId: number | null = null
  const notices: string[] = []
  if (inputs.baseline) {
    baseline = await readRunRecord(inputs.baseline)
  } else if (!octokit) {
    notices.push('no baseline: no github-token to look one up; comparison skipped, only the absolute floors are gated')
  } else {
    const found = await lookUpBaseline(octokit, ctx, inputs, { artifactName, workflow: null, branch: null, baseSha: ctx.pullRequest?.baseSha ?? null, currentRunId: ctx.runId })
    baseline = found.record
    baselineRunId = found.run?.id ?? null
    notices.push(...found.notices)
    if (found.run) core.info(`evalgate: baseline: run ${found.run.id} (commit ${found.run.sha.slice(0, 7)}, ${found.run.createdAt}), artifact "${found.artifactName}"`)
  }
  for (const notice of notices) core.notice(notice)

  const controller = new AbortController()
  const stop = (signal: string) => {
    core.warning(`evalgate: ${signal} received: stopping; the cases that finished are published`)
    controller.abort()
  }
  const onInt = () => stop('SIGINT')
  const onTerm = () => stop('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  let evaluation
  try {
    const progress = createProgress(loaded.cases.length, { write: (text) => process.stdout.write(text) })
    evaluation = await evaluate(loaded, { baseline, env: process.env, signal: controller.signal, progress })
  } finally {
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
  }
  const { record, comparison, secrets } = evaluation
  for (const secret of secrets) core.setSecret(secret)

  const outDir = path.join(ctx.tempDir, `evalgate-${artifactName}`)
  await mkdir(outDir, { recursive: true })
  const resultsPath = path.join(outDir, RECORD_FILE)
  await writeFileAtomic(resultsPath, toJson(record))
  const gatePassed = comparison.gate.passed && record.complete !== false
  const marker = commentMarker(workflowFileName(ctx.workflowPath) ?? process.env.GITHUB_WORKFLOW ?? 'workflow', name)
  const published: Published = { comparison, baseline, current: record, secrets, notices, fullReportHint: `the job summary and the artifact \`${artifactName}\``, outDir, baselineRunId, gatePassed }
  const rendered = await writeReport(published)

  // The artifact first: on the default branch it is the next baseline, pass or fail.
  try {
    const uploaded = await uploadRunArtifact({ client: new DefaultArtifactClient(), name: artifactName, files: [resultsPath, rendered.reportPath], rootDir: outDir, runAttempt: ctx.runAttempt })
    if (uploaded.notice) core.notice(uploaded.notice)
    core.info(`evalgate: run record uploaded as artifact "${uploaded.name}"`)
  } catch (err) {
    problems.push(`the run record could not be uploaded as artifact "${artifactName}": ${errorMessage(err)}`)
  }
  await publish(inputs, ctx, octokit, marker, published, rendered, problems)

  const failures: string[] = []
  if (record.complete === false) failures.push(`the run is incomplete: ${record.cases.length} of ${loaded.cases.length} cases finished`)
  if (!comparison.gate.passed) {
    if (inputs.failOnRegression) failures.push(...comparison.gate.failures)
    else core.warning(`evalgate: the gate failed, but fail-on-regression is false: ${comparison.gate.failures.join(' ')}`)
  }
  failures.push(...problems)
  if (failures.length === 0) return null
  return `evalgate: ${failures.length === 1 ? failures[0] : `\n- ${[...new Set(failures)].join('\n- ')}`}`
}

/**
 * mode: comment — the workflow_run half of the fork-safe pattern: read the
 * triggering run's record (untrusted: validated, re-rendered, never its own
 * report), compare it with the baseline looked up here, and comment.
 */
async function commentMode(inputs: ActionInputs, ctx: ActionContext): Promise<string | null> {
  if (!inputs.token) throw new UsageError('mode: comment needs a github-token that can write pull requests')
  const octokit = createOctokit(inputs.token, ctx)
  const trigger = triggeringRun(ctx.payload)
  // The config of this (default-branch) checkout is trusted; the triggering run's is not.
  const loaded = existsSync(inputs.config) ? await loadEvalConfig(inputs.config) : null
  const gate = withOverrides(loaded?.config.gate ?? gateSchema.parse({}), inputs.gate)
  const configName = loaded?.config.name ?? null
  const artifactName = inputs.artifactName ?? (configName ? `evalgate-${configName}` : null)
  if (!artifactName) throw new UsageError(`mode: comment needs artifact-name, or the config (${inputs.config}) to derive it from`)

  const pr = await findPullRequest(octokit, ctx.owner, ctx.repo, trigger)
  if (!pr.found) {
    core.notice(pr.notice)
    return null
  }
  const target: DownloadTarget = { octokit, client: new DefaultArtifactClient(), token: inputs.token, owner: ctx.owner, repo: ctx.repo, tempDir: ctx.tempDir }
  await mkdir(ctx.tempDir, { recursive: true })
  const fetched = await fetchRunRecord(target, trigger.id, artifactName)
  if (fetched.status !== 'ok') {
    core.notice(`comment skipped: ${fetched.message}`)
    return null
  }
  const current = fetched.record
  const found = await lookUpBaseline(octokit, ctx, inputs, {
    artifactName,
    workflow: trigger.workflowId ?? workflowFileName(trigger.workflowPath),
    branch: inputs.baselineBranch ?? pr.found.baseRef,
    baseSha: pr.found.baseSha,
    currentRunId: trigger.id
  })
  for (const notice of found.notices) core.notice(notice)
  const comparison = compareRuns(found.record, current, gate)

  const outDir = path.join(ctx.tempDir, `evalgate-${artifactName}-run-${trigger.id}`)
  await mkdir(outDir, { recursive: true })
  await writeFileAtomic(path.join(outDir, RECORD_FILE), toJson(current))
  const marker = commentMarker(workflowFileName(trigger.workflowPath) ?? String(trigger.workflowId ?? 'workflow'), configName ?? current.name)
  const commentCtx: ActionContext = { ...ctx, pullRequest: { number: pr.found.number, headSha: trigger.headSha, baseRef: pr.found.baseRef, baseSha: pr.found.baseSha } }
  const problems: string[] = []
  const published: Published = {
    comparison,
    baseline: found.record,
    current,
    secrets: new Set(),
    notices: found.notices,
    fullReportHint: `the artifact \`${fetched.artifactName}\` of run ${trigger.id}`,
    outDir,
    baselineRunId: found.run?.id ?? null,
    gatePassed: comparison.gate.passed && current.complete !== false
  }
  await publish(inputs, commentCtx, octokit, marker, published, await writeReport(published), problems)
  // The gate is the triggering run's check; this job fails only when it could not do its own work.
  return problems.length ? `evalgate: ${problems.join('; ')}` : null
}
