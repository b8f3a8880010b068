/**
 * The action's run(): wiring only. Inputs → baseline → the engine → artifact →
 * comment, summary, annotations, outputs → gate. The one place, with cli.ts,
 * that turns errors into a verdict: `core.setFailed` is called here only, and
 * only after everything the run leaves behind has been written.
 */
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { DefaultArtifactClient } from '@actions/artifact'
import * as core from '@actions/core'
import { compareRuns } from './compare/index.js'
import { readRunRecord } from './config/record.js'
import { gateSchema, type GateConfig } from './config/schema.js'
import { evaluate, loadEvalConfig } from './engine.js'
import { errorMessage, isUserError, UsageError } from './errors.js'
import { fetchRunRecord, lookUpBaseline, RECORD_FILE, uploadRunArtifact, type DownloadTarget } from './github/artifacts.js'
import { commentMarker } from './github/comment.js'
import { createOctokit, readContext, type ActionContext } from './github/context.js'
import { readInputs, type ActionInputs, type GateOverrides } from './github/inputs.js'
import { publish, writeReport, type Published } from './github/publish.js'
import { findPullRequest, triggeringRun, workflowFileName } from './github/workflow-run.js'
import { createProgress } from './run/progress.js'
import type { RunRecord } from './types.js'
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

function withOverrides(gate: GateConfig, overrides: GateOverrides): GateConfig {
  return { ...gate, ...overrides }
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
  const marker = commentMarker(workflowFileName(ctx.workflowPath) ?? ctx.workflowName ?? 'workflow', name)
  const published: Published = { comparison, baseline, current: record, secrets, notices, fullReportHint: `the job summary and the artifact \`${artifactName}\``, outDir, baselineRunId, gatePassed, badgeConfig: loaded.config.badge }
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
  if (!comparison.gate.passed) {
    if (inputs.failOnRegression) failures.push(...comparison.gate.failures)
    else core.warning(`evalgate: the gate failed, but fail-on-regression is false: ${comparison.gate.failures.join(' ')}`)
  }
  // whatever fail-on-regression says: a run cut short is never a pass
  if (record.complete === false && !failures.some((f) => f.includes('incomplete'))) {
    failures.unshift(`the run is incomplete: ${record.cases.length} of ${loaded.cases.length} cases finished`)
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
