/**
 * The action's run(): wiring only. Inputs → baseline → the engine (mode run) or
 * this run's shard artifacts (mode merge) → artifact → comment, summary,
 * annotations, outputs → gate. The one place, with cli.ts, that turns errors
 * into a verdict: `core.setFailed` is called here only, and only after
 * everything the run leaves behind has been written.
 */
import { existsSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import path from 'node:path'
import * as core from '@actions/core'
import { compareIfCompatible } from './compare/compatibility.js'
import type { ConcludeContext } from './compare/conclude.js'
import type { StaleBaseline } from './compare/staleness.js'
import type { Comparison, VerdictReason } from './compare/types.js'
import type { LoadedConfig } from './config/load.js'
import { readRunRecord, type RecordOptions } from './config/record.js'
import { gateSchema, type GateConfig, type ParsedConfig } from './config/schema.js'
import { refuseNewCredentialFlows } from './config/credentials.js'
import type { ConfigChange } from './config/trusted.js'
import { evaluate, loadEvalConfig, loadTrustedConfig, selectCases, type Evaluation, type Shard } from './engine.js'
import { baselineStaleness, readBaseConfig, type CiHost, type HostBaseline } from './ci/host.js'
import { errorMessage, isUserError, RecordError, UsageError } from './errors.js'
import { finishRun, type Finishing } from './finish.js'
import { loadBadgeMaker } from './badge/index.js'
import { artifactClient } from './github/artifacts/client.js'
import { fetchRunRecord, type DownloadTarget } from './github/artifacts/download.js'
import { RECORD_FILE, shardArtifactName, unverifiedArtifactName } from './github/artifacts/names.js'
import { fetchShardRecords } from './github/artifacts/shards.js'
import { uploadRunArtifact, type UploadResult } from './github/artifacts/upload.js'
import { verifyUploadedRecord } from './github/artifacts/verify.js'
import { commentMarker } from './github/comment.js'
import { repositoryPath } from './github/contents.js'
import { trustedCopies, trustedJudgeFiles, type TrustedFilesSource } from './github/trusted-files.js'
import { createOctokit, readContext, runUrl, type ActionContext, type Octokit } from './github/context.js'
import { gitHubHost } from './github/host.js'
import { readInputs, type ActionInputs, type GateOverrides, type Mode } from './github/inputs.js'
import { publish } from './github/publish.js'
import { setOutputs, shardOutputValues, writeJobSummary } from './github/summary.js'
import { findPullRequest, triggeringRun, workflowFileName } from './github/workflow-run.js'
import { renderShardSummary, type ReportModel } from './report/index.js'
import { configChangesNotice, reasonMessage } from './report/words.js'
import { mergeRecords } from './run/merge.js'
import { createProgress } from './run/progress.js'
import { changedAgainst, filesNamed } from './run/as-baseline.js'
import { datasetSharer } from './run/share.js'
import type { RunRecord } from './types.js'
import { makeDir } from './util/dirs.js'
import { writeFileAtomic } from './util/files.js'
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
  /** the config the run uses: in a pull request, the trusted settings are the base commit's */
  config: ParsedConfig
  /** trusted settings this pull request changes; they apply after merge */
  configChanges: ConfigChange[]
  /** where the settings came from, when that is worth saying */
  notices: string[]
  /** the cases of the whole dataset */
  caseCount: number
  /** the run's artifact; a shard's is named after it */
  artifactName: string
  octokit: Octokit | null
  /** GitHub as the CI host (ci/host.ts); null without a token */
  host: CiHost<number> | null
}

/** The baseline found on GitHub: `id` is its workflow run's. */
type Baseline = HostBaseline<number>

/** A record of the whole run (or of a shard) and its comparison with the baseline. */
interface Evaluated {
  record: RunRecord
  comparison: Comparison
  secrets: Set<string>
  /** the cases the run set out to finish */
  expected: number
}

/**
 * The trusted settings of a pull-request run: the config file at the PR's base
 * commit, read through the contents API — never the PR's own copy, which the
 * change under review controls. Null outside pull requests, with gate-from:
 * head, or when the base commit has no config yet (first adoption, a notice).
 */
async function baseConfig(inputs: ActionInputs, ctx: ActionContext, host: CiHost<number> | null, notices: string[]): Promise<ParsedConfig | null> {
  const pr = ctx.pullRequest
  if (!pr || inputs.gateFrom === 'head') return null
  if (!host)
    throw new UsageError(
      "gate-from: base reads the config of the pull request's base commit, which needs a github-token (contents: read); set gate-from: head to use the pull request's own gate"
    )
  if (!pr.baseSha) throw new UsageError('gate-from: base: the pull_request event does not name its base commit (pull_request.base.sha)')
  return readBaseConfig(host, repositoryPath(inputs.config, ctx.workspace), pr.baseSha, notices)
}

/** Where the trusted judge's files are read: the base commit, the config's folder there and in the checkout. */
function trustedFilesSource(inputs: ActionInputs, ctx: ActionContext, octokit: Octokit): TrustedFilesSource {
  const configDir = path.posix.dirname(repositoryPath(inputs.config, ctx.workspace))
  return {
    octokit,
    repo: ctx,
    ref: ctx.pullRequest!.baseSha!,
    configDir: configDir === '.' ? '' : configDir,
    baseDir: path.dirname(path.resolve(inputs.config)),
    tempDir: ctx.tempDir
  }
}

async function prepareJob(inputs: ActionInputs, ctx: ActionContext): Promise<{ job: Job; loaded: LoadedConfig }> {
  const octokit = inputs.token ? createOctokit(inputs.token, ctx) : null
  const query = { workflow: null, branch: null, baseSha: ctx.pullRequest?.baseSha ?? null, currentRunId: ctx.runId }
  const host = octokit ? gitHubHost(octokit, ctx, inputs, query) : null
  const notices: string[] = []
  const base = await baseConfig(inputs, ctx, host, notices)
  // a command judge's program runs as the base commit has it
  const judgeFiles = base && octokit ? await trustedJudgeFiles(base.judge, trustedFilesSource(inputs, ctx, octokit)) : null
  const { loaded, changes: configChanges } = await loadTrustedConfig(inputs.config, base, judgeFiles)
  if (base)
    refuseNewCredentialFlows(loaded.config, base, process.env, {
      file: inputs.config,
      where: `${repositoryPath(inputs.config, ctx.workspace)} at the base commit ${ctx.pullRequest!.baseSha!.slice(0, 7)}`,
      change: 'pull request',
      optOut: 'set gate-from: head'
    })
  if (configChanges.length) notices.push(configChangesNotice(configChanges, 'pull request', 'base commit'))
  // the inputs come from the workflow file: overrides on top of the trusted settings
  const config: ParsedConfig = { ...loaded.config, gate: withOverrides(loaded.config.gate, inputs.gate) }
  const artifactName = inputs.artifactName ?? `evalgate-${config.name}`
  for (const notice of notices) core.notice(notice)
  const job: Job = { inputs, ctx, config, configChanges, notices, caseCount: loaded.cases.length, artifactName, octokit, host }
  return { job, loaded: { ...loaded, config } }
}

/**
 * The baseline: the local record given, else the default branch's run found
 * the usual way. With the dataset at hand, its cases share equal values with
 * the dataset's as they are read (run/share.ts).
 */
async function baselineOf(job: Job, dataset?: LoadedConfig): Promise<Baseline> {
  const { inputs, host, artifactName } = job
  const read: RecordOptions = dataset ? { onCase: datasetSharer(dataset.cases) } : {}
  if (inputs.baseline) return { record: await readRunRecord(inputs.baseline, read), id: null, status: 'found', problem: null, notices: [] }
  const baseline: Baseline = host
    ? await host.findBaseline(artifactName, read)
    : {
        record: null,
        id: null,
        status: 'none',
        problem: null,
        notices: ['no baseline: no github-token to look one up; comparison skipped, only the absolute floors are gated']
      }
  for (const notice of baseline.notices) core.notice(notice)
  return baseline
}

/** A baseline made with other fingerprints is not compared: status incompatible, with the reason. */
function withCompatibility(baseline: Baseline, incompatible: string | null): Baseline {
  if (!incompatible) return baseline
  core.warning(`evalgate: the baseline cannot be compared: ${incompatible}`)
  return { ...baseline, record: null, status: 'incompatible', problem: incompatible }
}

/**
 * The record in a folder of its own under RUNNER_TEMP, streamed: a large run's
 * text is never held whole. `digest` is the SHA-256 of the bytes written,
 * computed in memory as they were written: what the upload is checked against.
 */
async function writeRecord(ctx: ActionContext, folder: string, record: RunRecord): Promise<{ outDir: string; resultsPath: string; digest: string }> {
  const outDir = path.join(ctx.tempDir, `evalgate-${folder}`)
  await makeDir(outDir)
  const resultsPath = path.join(outDir, RECORD_FILE)
  const digest = await writeJsonAtomic(resultsPath, record)
  return { outDir, resultsPath, digest }
}

/**
 * Upload the run's files as artifact `name`, then check that the record it
 * holds is the one written (`digest`). A failure of either is a
 * reason the run could not tell, not a stop. `onMismatch` runs when the check
 * finds another record: the shard job marks its artifact for the merge job.
 */
async function uploadRecord(
  job: Pick<Job, 'ctx' | 'inputs' | 'octokit'>,
  name: string,
  files: string[],
  rootDir: string,
  digest: string,
  onMismatch: (uploaded: string) => Promise<void> = async () => {}
): Promise<VerdictReason | null> {
  const { ctx, inputs, octokit } = job
  let uploaded: UploadResult
  const client = await artifactClient()
  try {
    uploaded = await uploadRunArtifact({ client, name, files, rootDir, runAttempt: ctx.runAttempt })
  } catch (err) {
    return { code: 'upload-failed', artifact: name, error: errorMessage(err) }
  }
  if (uploaded.notice) core.notice(uploaded.notice)
  core.info(`evalgate: run record uploaded as artifact "${uploaded.name}"`)
  if (uploaded.id === null || !octokit || ctx.runId === null) {
    core.notice(
      `evalgate: the record uploaded as "${uploaded.name}" could not be checked against the one written (it needs a github-token and the workflow run's id)`
    )
    return null
  }
  const target: DownloadTarget = { octokit, client, token: inputs.token, owner: ctx.owner, repo: ctx.repo, tempDir: ctx.tempDir }
  const mismatch = await verifyUploadedRecord(target, ctx.runId, { name: uploaded.name, id: uploaded.id, digest: uploaded.digest }, digest)
  if (!mismatch) return null
  if ('found' in mismatch) await onMismatch(uploaded.name)
  return { code: 'record-mismatch', artifact: uploaded.name, written: digest, ...mismatch }
}

/**
 * A shard whose uploaded record is not the one its job computed leaves an
 * artifact saying so (`<shard artifact>-unverified`), so that the merge job —
 * which runs even when a shard job failed — refuses that shard rather than
 * merging it.
 */
function markUnverified(ctx: ActionContext, outDir: string): (uploaded: string) => Promise<void> {
  return async (uploaded) => {
    const file = path.join(outDir, 'unverified.txt')
    await writeFileAtomic(file, `the record uploaded as "${uploaded}" is not the one this shard job computed\n`)
    try {
      await uploadRunArtifact({
        client: await artifactClient(),
        name: unverifiedArtifactName(uploaded),
        files: [file],
        rootDir: outDir,
        runAttempt: ctx.runAttempt
      })
    } catch (err) {
      core.warning(`evalgate: could not mark "${uploaded}" as unverified for the merge job: ${errorMessage(err)}`)
    }
  }
}

/** The message the check fails with, or null when it passes; the notices the log shows as warnings either way. */
function carryOut(model: ReportModel, said: readonly string[]): string | null {
  // what the entry point already said (the lookup's notices) is not said twice
  for (const notice of model.notices) if (!said.includes(notice)) core.warning(`evalgate: ${notice}`)
  if (model.verdict.exitCode === 0) return null
  const reasons = model.reasons.map((r) => r.message)
  return `evalgate: ${reasons.length === 1 ? reasons[0] : `${model.status}:\n- ${reasons.join('\n- ')}`}`
}

/** mode: run — evaluate this commit (or one shard of it), publish, gate. */
async function runMode(inputs: ActionInputs, ctx: ActionContext): Promise<string | null> {
  const shard = inputs.shard ?? undefined
  const { job, baseline, evaluated } = await evaluateJob(inputs, ctx, shard)
  return shard ? finishShard(job, baseline, evaluated, shard) : finishJob(job, baseline, evaluated)
}

/** Load, find the baseline, run: the dataset is let go once its cases have run (see Job). */
async function evaluateJob(
  inputs: ActionInputs,
  ctx: ActionContext,
  shard: Shard | undefined
): Promise<{ job: Job; baseline: Baseline; evaluated: Evaluated }> {
  const { job, loaded } = await prepareJob(inputs, ctx)
  const baseline = await baselineOf(job, loaded)
  // a shard sets out to finish only its slice
  const expected = shard ? selectCases(loaded.cases, { shard }).length : loaded.cases.length
  const baselineFiles = await baselineCheckFiles(job, loaded, baseline.record)
  // what the action loads on demand after the run (the artifact client, badge-maker) is loaded before the code under
  // test runs: the bundle keeps it in chunk files a process of the runner's user could rewrite meanwhile (SECURITY.md)
  await artifactClient()
  if (inputs.badgePath) await loadBadgeMaker()
  const evaluation = await evaluateCases(loaded, { baseline: baseline.record, shard, expected, baselineFiles })
  return { job, baseline: withCompatibility(baseline, evaluation.incompatible), evaluated: { ...evaluation, expected } }
}

/**
 * In a pull-request run, the files the baseline's assertions name for the
 * cases this pull request changed, read at the base commit: a changed case is
 * run as the baseline ran it with the base commit's checks, never the pull
 * request's. Undefined elsewhere (the config's folder).
 */
async function baselineCheckFiles(job: Job, loaded: LoadedConfig, record: RunRecord | null): Promise<string | undefined> {
  const { inputs, ctx, octokit } = job
  if (!record || !octokit || !ctx.pullRequest?.baseSha || inputs.gateFrom === 'head') return undefined
  const names = filesNamed(changedAgainst(loaded.cases, record), record)
  if (names.length === 0) return undefined
  const copies = await trustedCopies(names, trustedFilesSource(inputs, ctx, octokit), "the baseline's checks")
  // none of them at the base commit: an empty folder, so that those checks fail rather than run the pull request's
  if (copies) return copies.dir
  await makeDir(ctx.tempDir)
  return mkdtemp(path.join(ctx.tempDir, 'evalgate-trusted-'))
}

/** The engine over the cases, stopped cleanly by the runner's SIGINT/SIGTERM: what finished is published. */
async function evaluateCases(
  loaded: LoadedConfig,
  options: { baseline: RunRecord | null; shard: Shard | undefined; expected: number; baselineFiles?: string }
): Promise<Evaluation> {
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
    evaluation = await evaluate(loaded, {
      baseline: options.baseline,
      shard: options.shard,
      env: process.env,
      signal: controller.signal,
      progress,
      log: (line) => core.info(line),
      ...(options.baselineFiles ? { baselineFiles: options.baselineFiles } : {})
    })
  } finally {
    process.off('SIGINT', onInt)
    process.off('SIGTERM', onTerm)
  }
  for (const secret of evaluation.secrets) core.setSecret(secret)
  if (evaluation.leftovers)
    core.notice(
      `evalgate: the code under test left ${evaluation.leftovers === 1 ? 'a process' : `${evaluation.leftovers} processes`} running (detached from its group); ended before the record was written`
    )
  for (const warning of evaluation.warnings) core.warning(`evalgate: ${warning}`)
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
  const { job, loaded } = await prepareJob(inputs, ctx)
  // readInputs refuses mode: merge without a token
  const octokit = job.octokit!
  const baseline = await baselineOf(job)
  const target: DownloadTarget = { octokit, client: await artifactClient(), token: inputs.token, owner: ctx.owner, repo: ctx.repo, tempDir: ctx.tempDir }
  const shards = await fetchShardRecords(target, ctx.runId, job.artifactName, ctx.runAttempt)
  let merged: RunRecord
  try {
    merged = mergeRecords(shards, { baseline: baseline.record, dataset: { fingerprint: loaded.dataset, file: inputs.config } })
  } catch (err) {
    if (!isUserError(err)) throw err
    throw new RecordError(`cannot merge the shards of run ${ctx.runId}: ${err.message}`, err.file)
  }
  const { config } = job
  if (merged.name !== config.name) throw new RecordError(`the shards are of "${merged.name}" but ${inputs.config} is the config of "${config.name}"`)
  core.info(`evalgate: merged ${shards.length} shard artifacts of run ${ctx.runId}: ${merged.cases.length} cases`)
  const { comparison, incompatible } = compareIfCompatible(baseline.record, merged, config.gate)
  return finishJob(job, withCompatibility(baseline, incompatible), { record: merged, comparison, secrets: new Set(), expected: job.caseCount })
}

/** Does the pull request carry the accept label? Only people with triage or write access can label. */
function acceptedBy(inputs: ActionInputs, labels: readonly string[] | undefined): string | null {
  return inputs.acceptLabel && labels?.includes(inputs.acceptLabel) ? inputs.acceptLabel : null
}

/** Is the baseline stale? Measured against the pull request's base commit. */
function staleness(job: Job, baseline: Baseline, current: RunRecord, gate: GateConfig): Promise<StaleBaseline | null> {
  return baselineStaleness(job.host, baseline.record, current, job.ctx.pullRequest?.baseSha ?? null, gate)
}

/** What the verdict depends on besides the comparison. */
function concludeContext(job: Job, baseline: Baseline, expected: number, stale: StaleBaseline | null): Omit<ConcludeContext, 'problems'> {
  const { inputs, ctx } = job
  return {
    staleBaseline: stale,
    baselineStatus: baseline.status,
    baselineProblem: baseline.problem,
    notices: [...job.notices, ...baseline.notices],
    expected,
    configChanges: job.configChanges,
    acceptLabel: acceptedBy(inputs, ctx.pullRequest?.labels),
    failOnRegression: inputs.failOnRegression,
    onBaselineError: inputs.onBaselineError
  }
}

/** What the report shows besides the runs: the gate held to, both runs' pages. */
function reportContext(job: Job, baseline: Baseline, current: RunRecord): Finishing['report'] {
  const { ctx } = job
  // the record names the run that made it: in mode comment that is the triggering run, not this one
  const links = { baselineRun: runUrl(ctx, baseline.id ?? baseline.record?.git.runId ?? null), currentRun: runUrl(ctx, current.git.runId) }
  return { gate: job.config.gate, links }
}

/**
 * After evaluation, the same for mode run and mode merge: the record written
 * and uploaded (on the default branch it is the next baseline, pass or fail),
 * the verdict concluded with whatever failed, the report published from it,
 * then the verdict carried out.
 */
async function finishJob(job: Job, baseline: Baseline, evaluated: Evaluated): Promise<string | null> {
  const { inputs, ctx, config, artifactName, octokit } = job
  const { record, comparison } = evaluated
  const { outDir, resultsPath, digest } = await writeRecord(ctx, artifactName, record)
  const marker = commentMarker(workflowFileName(ctx.workflowPath) ?? ctx.workflowName ?? 'workflow', config.name)
  const model = await finishRun(
    {
      record,
      comparison,
      baseline: baseline.record,
      context: concludeContext(job, baseline, evaluated.expected, await staleness(job, baseline, record, config.gate)),
      report: reportContext(job, baseline, record)
    },
    {
      keep: async () => {
        // the dataset and the run's temporaries are garbage now: freed before the upload's buffers are added
        collectGarbage()
        return uploadRecord(job, artifactName, [resultsPath], outDir, digest)
      },
      publish: async (model) => {
        const fullReportHint = `the job summary and the run record in the artifact \`${artifactName}\``
        const publication = {
          model,
          secrets: evaluated.secrets,
          fullReportHint,
          outDir,
          resultsPath,
          baselineRunId: baseline.id,
          badgeConfig: config.badge,
          marker
        }
        await publish(inputs, ctx, octokit, publication)
      }
    }
  )
  return carryOut(model, [...job.notices, ...baseline.notices])
}

/**
 * After evaluating one shard: its record uploaded as `<artifact>-shard-i-of-n`
 * for the merge job, a short summary and the outputs. No comment and no gate:
 * the shard's cases are judged with the others once the merge job has them
 * all. The step fails only when the merge job will not find the record.
 */
async function finishShard(job: Job, baseline: Baseline, evaluated: Evaluated, shard: Shard): Promise<string | null> {
  const { ctx } = job
  const { record, comparison } = evaluated
  const name = shardArtifactName(job.artifactName, shard)
  const { outDir, resultsPath, digest } = await writeRecord(ctx, name, record)
  const uploadFailure = await uploadRecord(job, name, [resultsPath], outDir, digest, markUnverified(ctx, outDir))
  if (record.complete === false)
    core.warning(
      `evalgate: shard ${shard.index}/${shard.count} was cut short: ${record.cases.length} of ${evaluated.expected} cases finished; the merged run will be incomplete`
    )
  try {
    await writeJobSummary(
      renderShardSummary({ current: record, shard, comparison: baseline.record ? comparison : null, expected: evaluated.expected, artifactName: name })
    )
  } catch (err) {
    core.warning(`evalgate: could not write the job summary: ${errorMessage(err)}`)
  }
  setOutputs({ ...shardOutputValues({ current: record, comparison, resultsPath, baselineRunId: baseline.id }), 'baseline-status': baseline.status })
  // the merge job would not find the shard: this step fails, naming why
  return uploadFailure ? `evalgate: shard ${shard.index}/${shard.count}: ${reasonMessage(uploadFailure)}` : null
}

/**
 * mode: comment — the workflow_run half of the fork-safe pattern: read the
 * triggering run's record (untrusted: validated, re-rendered, never its own
 * report), compare it with the baseline looked up here, and comment. The
 * config of this (default-branch) checkout is the trusted one.
 */
async function commentMode(inputs: ActionInputs, ctx: ActionContext): Promise<string | null> {
  if (!inputs.token) throw new UsageError('mode: comment needs a github-token that can write pull requests')
  const octokit = createOctokit(inputs.token, ctx)
  const trigger = triggeringRun(ctx.payload)
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
  const host = gitHubHost(octokit, ctx, inputs, {
    workflow: trigger.workflowId ?? workflowFileName(trigger.workflowPath),
    branch: inputs.baselineBranch ?? pr.found.baseRef,
    baseSha: pr.found.baseSha,
    currentRunId: trigger.id
  })
  const looked = await host.findBaseline(artifactName, {})
  for (const notice of looked.notices) core.notice(notice)
  const compared = compareIfCompatible(looked.record, current, gate)
  const { comparison } = compared
  const baseline = withCompatibility(looked, compared.incompatible)
  const job: Job = {
    inputs,
    ctx,
    config: loaded?.config ?? ({ name: current.name } as ParsedConfig),
    configChanges: [],
    notices: [],
    caseCount: current.cases.length,
    artifactName,
    octokit,
    host
  }

  const { outDir, resultsPath } = await writeRecord(ctx, `${artifactName}-run-${trigger.id}`, current)
  const marker = commentMarker(workflowFileName(trigger.workflowPath) ?? String(trigger.workflowId ?? 'workflow'), configName ?? current.name)
  const commentCtx: ActionContext = {
    ...ctx,
    pullRequest: { number: pr.found.number, headSha: trigger.headSha, baseRef: pr.found.baseRef, baseSha: pr.found.baseSha, labels: pr.found.labels }
  }
  const commentJob = { ...job, ctx: commentCtx }
  let commentError: string | null = null
  await finishRun(
    {
      record: current,
      comparison,
      baseline: baseline.record,
      context: concludeContext(commentJob, baseline, current.cases.length, await staleness(commentJob, baseline, current, gate)),
      report: { gate, links: reportContext(commentJob, baseline, current).links }
    },
    {
      // the record is the triggering run's own artifact already
      keep: async () => null,
      publish: async (model) => {
        const fullReportHint = `the artifact \`${fetched.artifactName}\` of run ${trigger.id}`
        const publication = {
          model,
          secrets: new Set<string>(),
          fullReportHint,
          outDir,
          resultsPath,
          baselineRunId: baseline.id,
          badgeConfig: job.config.badge,
          marker
        }
        ;({ commentError } = await publish(inputs, commentCtx, octokit, publication))
      }
    }
  )
  // The gate is the triggering run's check; this job fails only when it could not do its own work.
  return commentError ? `evalgate: ${commentError}` : null
}
