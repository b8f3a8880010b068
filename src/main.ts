/**
 * The action's run(): wiring only. Inputs → baseline → the engine (mode run) or
 * this run's shard artifacts (mode merge) → artifact → comment, summary,
 * annotations, outputs → gate. The one place, with cli.ts, that turns errors
 * into a verdict: `core.setFailed` is called here only, and only after
 * everything the run leaves behind has been written.
 */
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import * as core from '@actions/core'
import { compareRuns } from './compare/index.js'
import type { Comparison } from './compare/types.js'
import type { LoadedConfig } from './config/load.js'
import { readRunRecord, type RecordOptions } from './config/record.js'
import { gateSchema, type GateConfig, type ParsedConfig } from './config/schema.js'
import { evaluate, loadEvalConfig, selectCases, type Evaluation, type Shard } from './engine.js'
import { errorMessage, isUserError, RecordError, UsageError } from './errors.js'
import { artifactClient, fetchRunRecord, fetchShardRecords, lookUpBaseline, RECORD_FILE, shardArtifactName, uploadRunArtifact, type DownloadTarget } from './github/artifacts.js'
import { commentMarker } from './github/comment.js'
import { createOctokit, readContext, type ActionContext, type Octokit } from './github/context.js'
import { readInputs, type ActionInputs, type GateOverrides, type Mode } from './github/inputs.js'
import { publish, writeReport, type Published } from './github/publish.js'
import { setOutputs, shardOutputValues, writeJobSummary } from './github/summary.js'
import { findPullRequest, triggeringRun, workflowFileName } from './github/workflow-run.js'
import { renderShardSummary } from './report/index.js'
import { mergeRecords } from './run/merge.js'
import { createProgress } from './run/progress.js'
import { datasetSharer } from './run/share.js'
import type { RunRecord } from './types.js'
import { writeJsonAtomic } from './util/json-writer.js'
import { collectGarbage } from './util/memory.js'

const MODES: Record<Mode, (inputs: ActionInputs, ctx: ActionContext) => Promise<string | null>> = {
  run: runMode,
  merge: mergeMode,
  comment: commentMode
}

export async function run(): Promise<void> {
  try {
    const inputs = readInputs()
    const ctx = readContext(process.env)
    const failure = await MODES[inputs.mode](inputs, ctx)
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

/**
 * What mode run and mode merge share: the inputs, the run, the config and the
 * clients. Not the dataset: that is needed only while the cases run (at 100,000
 * cases it is ~40 MB the upload and the comment do not need).
 */
interface Job {
  inputs: ActionInputs
  ctx: ActionContext
  config: ParsedConfig
  /** the cases of the whole dataset */
  caseCount: number
  /** the run's artifact; a shard's is named after it */
  artifactName: string
  octokit: Octokit | null
}

interface Baseline {
  record: RunRecord | null
  runId: number | null
  /** why there is none, what was skipped: shown in the log and the report */
  notices: string[]
}

/** A record of the whole run (or of a shard) and its comparison with the baseline. */
interface Outcome {
  record: RunRecord
  comparison: Comparison
  secrets: Set<string>
  /** the cases the run set out to finish */
  expected: number
}

async function prepareJob(inputs: ActionInputs, ctx: ActionContext): Promise<{ job: Job; loaded: LoadedConfig }> {
  const loaded = await loadEvalConfig(inputs.config)
  const { config } = loaded
  config.gate = withOverrides(config.gate, inputs.gate)
  const artifactName = inputs.artifactName ?? `evalgate-${config.name}`
  const job = { inputs, ctx, config, caseCount: loaded.cases.length, artifactName, octokit: inputs.token ? createOctokit(inputs.token, ctx) : null }
  return { job, loaded }
}

/**
 * The baseline: the local record given, else the default branch's run found
 * the usual way. With the dataset at hand, its cases share equal values with
 * the dataset's as they are read (run/share.ts).
 */
async function baselineOf(job: Job, dataset?: LoadedConfig): Promise<Baseline> {
  const { inputs, ctx, octokit, artifactName } = job
  const read: RecordOptions = dataset ? { onCase: datasetSharer(dataset.cases) } : {}
  if (inputs.baseline) return { record: await readRunRecord(inputs.baseline, read), runId: null, notices: [] }
  const baseline: Baseline = { record: null, runId: null, notices: [] }
  if (!octokit) {
    baseline.notices.push('no baseline: no github-token to look one up; comparison skipped, only the absolute floors are gated')
  } else {
    const found = await lookUpBaseline(octokit, ctx, inputs, { artifactName, workflow: null, branch: null, baseSha: ctx.pullRequest?.baseSha ?? null, currentRunId: ctx.runId, read })
    Object.assign(baseline, { record: found.record, runId: found.run?.id ?? null, notices: found.notices })
    if (found.run) core.info(`evalgate: baseline: run ${found.run.id} (commit ${found.run.sha.slice(0, 7)}, ${found.run.createdAt}), artifact "${found.artifactName}"`)
  }
  for (const notice of baseline.notices) core.notice(notice)
  return baseline
}

/** The record in a folder of its own under RUNNER_TEMP, streamed: a large run's text is never held whole. */
async function writeRecord(ctx: ActionContext, folder: string, record: RunRecord): Promise<{ outDir: string; resultsPath: string }> {
  const outDir = path.join(ctx.tempDir, `evalgate-${folder}`)
  await mkdir(outDir, { recursive: true })
  const resultsPath = path.join(outDir, RECORD_FILE)
  await writeJsonAtomic(resultsPath, record)
  return { outDir, resultsPath }
}

/** Upload the run's files as artifact `name`; a failure is a problem for the verdict, not a stop. */
async function uploadRecord(ctx: ActionContext, name: string, files: string[], rootDir: string, problems: string[]): Promise<void> {
  try {
    const uploaded = await uploadRunArtifact({ client: await artifactClient(), name, files, rootDir, runAttempt: ctx.runAttempt })
    if (uploaded.notice) core.notice(uploaded.notice)
    core.info(`evalgate: run record uploaded as artifact "${uploaded.name}"`)
  } catch (err) {
    problems.push(`the run record could not be uploaded as artifact "${name}": ${errorMessage(err)}`)
  }
}

function verdict(failures: string[]): string | null {
  if (failures.length === 0) return null
  return `evalgate: ${failures.length === 1 ? failures[0] : `\n- ${[...new Set(failures)].join('\n- ')}`}`
}

/** mode: run — evaluate this commit (or one shard of it), publish, gate. */
async function runMode(inputs: ActionInputs, ctx: ActionContext): Promise<string | null> {
  const shard = inputs.shard ?? undefined
  const { job, baseline, outcome } = await evaluateJob(inputs, ctx, shard)
  return shard ? concludeShard(job, baseline, outcome, shard) : conclude(job, baseline, outcome)
}

/** Load, find the baseline, run: the dataset is let go once its cases have run (see Job). */
async function evaluateJob(inputs: ActionInputs, ctx: ActionContext, shard: Shard | undefined): Promise<{ job: Job; baseline: Baseline; outcome: Outcome }> {
  const { job, loaded } = await prepareJob(inputs, ctx)
  const baseline = await baselineOf(job, loaded)
  // a shard sets out to finish only its slice
  const expected = shard ? selectCases(loaded.cases, { shard }).length : loaded.cases.length
  const evaluation = await evaluateCases(loaded, { baseline: baseline.record, shard, expected })
  return { job, baseline, outcome: { ...evaluation, expected } }
}

/** The engine over the cases, stopped cleanly by the runner's SIGINT/SIGTERM: what finished is published. */
async function evaluateCases(loaded: LoadedConfig, options: { baseline: RunRecord | null; shard: Shard | undefined; expected: number }): Promise<Evaluation> {
  const controller = new AbortController()
  const stop = (signal: string) => {
    core.warning(`evalgate: ${signal} received: stopping; the cases that finished are published`)
    controller.abort()
  }
  const onInt = () => stop('SIGINT')
  const onTerm = () => stop('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  let evaluation: Evaluation
  try {
    const progress = createProgress(options.expected, { write: (text) => process.stdout.write(text) })
    // untrusted code (module agents, javascript checks) runs in the sandbox, whose environment has none of the runner's secrets
    evaluation = await evaluate(loaded, { baseline: options.baseline, shard: options.shard, env: process.env, signal: controller.signal, progress })
  } finally {
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
  }
  for (const secret of evaluation.secrets) core.setSecret(secret)
  return evaluation
}

/**
 * mode: merge — the shard records this run's shard jobs uploaded, joined into
 * the record one unsharded run would have written, then everything mode run
 * does after evaluating. The baseline is found first: merging carries each
 * case's flake history forward from it.
 */
async function mergeMode(inputs: ActionInputs, ctx: ActionContext): Promise<string | null> {
  if (ctx.runId === null) throw new UsageError('mode: merge joins the shard artifacts of this workflow run, but GITHUB_RUN_ID is not set')
  const { job } = await prepareJob(inputs, ctx)
  // readInputs refuses mode: merge without a token
  const octokit = job.octokit!
  const baseline = await baselineOf(job)
  const target: DownloadTarget = { octokit, client: await artifactClient(), token: inputs.token, owner: ctx.owner, repo: ctx.repo, tempDir: ctx.tempDir }
  const shards = await fetchShardRecords(target, ctx.runId, job.artifactName)
  let merged: RunRecord
  try {
    merged = mergeRecords(shards, { baseline: baseline.record })
  } catch (err) {
    if (!isUserError(err)) throw err
    throw new RecordError(`cannot merge the shards of run ${ctx.runId}: ${err.message}`, err.file)
  }
  const { config } = job
  if (merged.name !== config.name) throw new RecordError(`the shards are of "${merged.name}" but ${inputs.config} is the config of "${config.name}"`)
  core.info(`evalgate: merged ${shards.length} shard artifacts of run ${ctx.runId}: ${merged.cases.length} cases`)
  const comparison = compareRuns(baseline.record, merged, config.gate)
  return conclude(job, baseline, { record: merged, comparison, secrets: new Set(), expected: job.caseCount })
}

/**
 * After evaluation, the same for mode run and mode merge: the record written
 * and uploaded, the report published (comment, summary, annotations, outputs,
 * badge), then the verdict.
 */
async function conclude(job: Job, baseline: Baseline, outcome: Outcome): Promise<string | null> {
  const { inputs, ctx, config, artifactName, octokit } = job
  const { record, comparison, secrets } = outcome
  const problems: string[] = []
  const { outDir, resultsPath } = await writeRecord(ctx, artifactName, record)
  const gatePassed = comparison.gate.passed && record.complete !== false
  const marker = commentMarker(workflowFileName(ctx.workflowPath) ?? ctx.workflowName ?? 'workflow', config.name)
  const published: Published = {
    comparison,
    baseline: baseline.record,
    current: record,
    secrets,
    notices: baseline.notices,
    fullReportHint: `the job summary and the artifact \`${artifactName}\``,
    outDir,
    baselineRunId: baseline.runId,
    gatePassed,
    badgeConfig: config.badge
  }
  const rendered = await writeReport(published)

  // the dataset and the run's temporaries are garbage now: freed before the upload's buffers are added
  collectGarbage()
  // The artifact first: on the default branch it is the next baseline, pass or fail.
  await uploadRecord(ctx, artifactName, [resultsPath, rendered.reportPath], outDir, problems)
  await publish(inputs, ctx, octokit, marker, published, rendered, problems)

  const failures: string[] = []
  if (!comparison.gate.passed) {
    if (inputs.failOnRegression) failures.push(...comparison.gate.failures)
    else core.warning(`evalgate: the gate failed, but fail-on-regression is false: ${comparison.gate.failures.join(' ')}`)
  }
  // whatever fail-on-regression says: a run cut short is never a pass
  if (record.complete === false && !failures.some((f) => f.includes('incomplete'))) {
    failures.unshift(`the run is incomplete: ${record.cases.length} of ${outcome.expected} cases finished`)
  }
  failures.push(...problems)
  return verdict(failures)
}

/**
 * After evaluating one shard: its record uploaded as `<artifact>-shard-i-of-n`
 * for the merge job, a short summary and the outputs. No comment and no gate:
 * the shard's cases are judged with the others once the merge job has them
 * all. The step fails only when the merge job will not find the record.
 */
async function concludeShard(job: Job, baseline: Baseline, outcome: Outcome, shard: Shard): Promise<string | null> {
  const { ctx } = job
  const { record, comparison } = outcome
  const name = shardArtifactName(job.artifactName, shard)
  const problems: string[] = []
  const { outDir, resultsPath } = await writeRecord(ctx, name, record)
  await uploadRecord(ctx, name, [resultsPath], outDir, problems)
  if (record.complete === false) core.warning(`evalgate: shard ${shard.index}/${shard.count} was cut short: ${record.cases.length} of ${outcome.expected} cases finished; the merged run will be incomplete`)
  try {
    await writeJobSummary(renderShardSummary({ current: record, shard, comparison: baseline.record ? comparison : null, expected: outcome.expected, artifactName: name }))
  } catch (err) {
    core.warning(`evalgate: could not write the job summary: ${errorMessage(err)}`)
  }
  setOutputs(shardOutputValues({ current: record, comparison, resultsPath, baselineRunId: baseline.runId }))
  return verdict(problems)
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
  const target: DownloadTarget = { octokit, client: await artifactClient(), token: inputs.token, owner: ctx.owner, repo: ctx.repo, tempDir: ctx.tempDir }
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

  const { outDir } = await writeRecord(ctx, `${artifactName}-run-${trigger.id}`, current)
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
