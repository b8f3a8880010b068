/**
 * `evalgate gitlab`: inside a GitLab CI job, what the action does
 * on GitHub, from GitLab's predefined variables — the trusted settings read
 * at the merge request's diff base, the run (or one slice of it in a job with
 * `parallel: N`, or the merge of the slices), the baseline from the target
 * project's default branch, the comparison and the one verdict, then the
 * record (`evalgate-run.json`, for `artifacts:`, the next baseline), JUnit
 * (for `artifacts:reports:junit`), the report, and one sticky note on the
 * merge request. The tail is finish.ts's, as for the action and the CLI.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { compareIfCompatible } from '../compare/compatibility.js'
import type { ConcludeContext } from '../compare/conclude.js'
import { baselineStaleness, readBaseConfig, type CiHost, type HostBaseline } from '../ci/host.js'
import { refuseNewCredentialFlows } from '../config/credentials.js'
import type { LoadedConfig } from '../config/load.js'
import { readRunRecord } from '../config/record.js'
import type { ParsedConfig } from '../config/schema.js'
import { evaluate, loadEvalConfig, loadTrustedConfig, selectCases } from '../engine.js'
import { errorMessage, isUserError, RecordError, UsageError } from '../errors.js'
import { finishRun } from '../finish.js'
import { prepareOutputs, writeOutput, writeReports, type ReportIO } from '../outputs.js'
import { renderReport } from '../report/index.js'
import { configChangesNotice } from '../report/words.js'
import { commentBody, commentMarker, MAX_COMMENT_LENGTH } from '../report/sticky.js'
import { mergeRecords } from '../run/merge.js'
import { createProgress } from '../run/progress.js'
import { datasetSharer } from '../run/share.js'
import type { RunRecord } from '../types.js'
import { redact } from '../util/env.js'
import { writeJsonAtomic } from '../util/json-writer.js'
import { projectDefaultBranch, RECORD_FILE } from './baseline.js'
import { GitLabClient, type GitLabClientOptions } from './client.js'
import { readGitLabContext, type GitLabContext } from './context.js'
import { gitLabHost } from './host.js'
import { upsertNote } from './notes.js'

export const GITLAB_USAGE = `  gitlab [-c evalgate.yml] [--junit ${'evalgate-junit.xml'}] [--out ${RECORD_FILE}] [--report evalgate-report.md]
      [--merge SHARD.json…] [--baseline-job NAME] [--accept-label LABEL] [--quiet]
                          inside a GitLab CI job: run (in a parallel: N job, its slice; with --merge, join the
                          slices), compare with the default branch's baseline, one sticky merge-request note,
                          gate (token: EVALGATE_GITLAB_TOKEN or GITLAB_TOKEN, else CI_JOB_TOKEN to read only)`

export interface GitLabIO extends ReportIO {
  process?: Pick<NodeJS.Process, 'on' | 'off'>
}

/** What tests set about the client: the fake server's deadline and no waiting between retries. */
export type GitLabClientSettings = Pick<GitLabClientOptions, 'timeoutMs' | 'retries' | 'backoffMs' | 'fetch'>

const DEFAULT_ACCEPT_LABEL = 'evalgate:accept'
const DEFAULT_JUNIT = 'evalgate-junit.xml'
const DEFAULT_REPORT = 'evalgate-report.md'

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string', short: 'c' },
        junit: { type: 'string' },
        out: { type: 'string', short: 'o' },
        report: { type: 'string' },
        merge: { type: 'boolean', default: false },
        'baseline-job': { type: 'string' },
        'accept-label': { type: 'string' },
        quiet: { type: 'boolean', short: 'q', default: false },
        help: { type: 'boolean', short: 'h', default: false }
      }
    })
  } catch (err) {
    throw new UsageError(`${errorMessage(err)}\n\n${GITLAB_USAGE}`)
  }
}

/** The baseline found on GitLab: `id` is its job's. */
type Baseline = HostBaseline<string>

/** The path of the config relative to the checkout, as the repository files API names it. */
function repositoryPath(file: string, projectDir: string): string {
  const relative = path.relative(projectDir, path.resolve(file))
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
    throw new UsageError(`${file} is outside the checkout (${projectDir}); the merge request's diff base copy of it cannot be read`)
  return relative.split(path.sep).join('/')
}

/**
 * The trusted settings of a merge request: the config
 * file at CI_MERGE_REQUEST_DIFF_BASE_SHA in the target project, through the
 * repository files API (ci/host.ts readBaseConfig).
 */
async function baseConfig(
  ctx: GitLabContext,
  client: GitLabClient | null,
  host: CiHost<string> | null,
  configFile: string,
  notices: string[]
): Promise<ParsedConfig | null> {
  const mr = ctx.mergeRequest
  if (!mr) return null
  if (!mr.diffBaseSha)
    throw new UsageError('CI_MERGE_REQUEST_DIFF_BASE_SHA is not set: the merge request pipeline does not say its diff base, whose gate settings it must use')
  const file = repositoryPath(configFile, ctx.projectDir)
  const where = `${file} at the merge request's diff base ${mr.diffBaseSha.slice(0, 7)}`
  if (!client?.canWrite && mr.fork) {
    // a fork's pipeline runs the fork's own .gitlab-ci.yml: nothing in it could hold a gate anyway
    notices.push(
      `no token to read ${where} (a fork's merge request): the merge request's own gate settings apply; run the pipeline in the parent project with EVALGATE_GITLAB_TOKEN for a gate it cannot change`
    )
    return null
  }
  if (!client?.canWrite || !host)
    throw new UsageError(
      `cannot read ${where}, whose gate settings a merge request must use: set EVALGATE_GITLAB_TOKEN (a project access token with read_api, or api to post the note) in the project's CI/CD variables`
    )
  return readBaseConfig(host, file, mr.diffBaseSha, notices)
}

/**
 * The default branch of the project baselines come from: the target
 * project's, asked (a fork's pipeline knows only its own CI_DEFAULT_BRANCH);
 * where it cannot be asked (a job token), the pipeline's own, said so.
 */
async function defaultBranchOf(ctx: GitLabContext, client: GitLabClient | null, projectId: string, notices: string[]): Promise<string | null> {
  if (client && (projectId !== ctx.projectId || !ctx.defaultBranch)) {
    try {
      const branch = await projectDefaultBranch(client, projectId)
      if (branch) return branch
    } catch (err) {
      if (ctx.defaultBranch)
        notices.push(`cannot ask project ${projectId} for its default branch (${errorMessage(err)}): taking CI_DEFAULT_BRANCH, ${ctx.defaultBranch}`)
    }
  }
  return ctx.defaultBranch
}

async function lookUp(host: CiHost<string> | null, jobName: string, loaded: LoadedConfig): Promise<Baseline> {
  if (!host)
    return {
      record: null,
      id: null,
      status: 'none',
      problem: null,
      notices: [
        'no baseline: no token to look one up (EVALGATE_GITLAB_TOKEN, GITLAB_TOKEN or CI_JOB_TOKEN); comparison skipped, only the absolute floors are gated'
      ]
    }
  return host.findBaseline(jobName, { onCase: datasetSharer(loaded.cases) })
}

/** SIGINT/SIGTERM (a cancelled job) cut the run short: what finished is recorded and reported. */
function interruptions(io: GitLabIO): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController()
  const onSignal = () => {
    io.stderr.write('\nevalgate: stopping (signal received); the cases that finished are recorded\n')
    controller.abort()
  }
  io.process?.on('SIGINT', onSignal)
  io.process?.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    stop() {
      io.process?.off('SIGINT', onSignal)
      io.process?.off('SIGTERM', onSignal)
    }
  }
}

export async function gitlabCommand(args: string[], io: GitLabIO, settings: GitLabClientSettings = {}): Promise<number> {
  const { values, positionals } = parse(args)
  if (values.help) {
    io.stdout.write(`${GITLAB_USAGE}\n`)
    return 0
  }
  const ctx = readGitLabContext(io.env)
  const configFile = values.config ?? 'evalgate.yml'
  const junit = values.junit ?? DEFAULT_JUNIT
  const out = values.out ?? RECORD_FILE
  const report = values.report ?? DEFAULT_REPORT
  if (values.merge && positionals.length === 0) throw new UsageError(`--merge takes the shard records: --merge evalgate-shard-*.json\n\n${GITLAB_USAGE}`)
  if (!values.merge && positionals.length) throw new UsageError(`unexpected ${positionals.join(' ')} (shard records go after --merge)\n\n${GITLAB_USAGE}`)
  const client = ctx.token ? new GitLabClient({ apiUrl: ctx.apiUrl, token: ctx.token, ...settings }) : null
  const mr = ctx.mergeRequest
  const targetProject = mr?.projectId ?? ctx.projectId
  // the run is the pipeline: the slices of a parallel job are of one
  const git = { sha: ctx.sha, ref: ctx.ref, runId: ctx.pipelineId ?? ctx.jobId }

  // a slice of a parallel job: its record, for the job that merges them
  if (ctx.node && !values.merge) {
    const shard = ctx.node
    const loaded = await loadEvalConfig(configFile)
    const file = values.out ?? `evalgate-shard-${shard.index}-of-${shard.count}.json`
    await prepareOutputs([['--out', file]])
    const expected = selectCases(loaded.cases, { shard }).length
    const stop = interruptions(io)
    try {
      const progress = createProgress(expected, io.stderr, { quiet: values.quiet })
      const result = await evaluate(loaded, { env: io.env, shard, signal: stop.signal, progress, git })
      await writeOutput('--out', file, (f) => writeJsonAtomic(f, result.record))
      const cut = result.record.complete ? '' : ` (cut short: ${result.record.cases.length} of ${expected} cases finished; the merged run will be incomplete)`
      io.stderr.write(
        `evalgate: slice ${shard.index} of ${shard.count} (CI_NODE_INDEX/CI_NODE_TOTAL): ${result.record.cases.length} cases written to ${file}${cut}\n`
      )
      return 0
    } finally {
      stop.stop()
    }
  }

  await prepareOutputs([
    ['--out', out],
    ['--junit', junit],
    ['--report', report]
  ])
  const notices: string[] = []
  const branch = await defaultBranchOf(ctx, client, targetProject, notices)
  const host = client ? gitLabHost(client, targetProject, branch) : null
  const base = await baseConfig(ctx, client, host, configFile, notices)
  const { loaded, changes: configChanges } = await loadTrustedConfig(configFile, base)
  // which credentials go where is the diff base's too
  if (base && mr?.diffBaseSha)
    refuseNewCredentialFlows(loaded.config, base, io.env, {
      file: configFile,
      where: `${repositoryPath(configFile, ctx.projectDir)} at the merge request's diff base ${mr.diffBaseSha.slice(0, 7)}`,
      change: 'merge request'
    })
  if (configChanges.length) notices.push(configChangesNotice(configChanges, 'merge request', 'diff base'))
  const { config } = loaded
  const onDefaultBranch = !mr && ctx.branch !== null && ctx.branch === branch
  const jobName = values['baseline-job'] ?? ctx.jobName
  let baseline = await lookUp(host, jobName, loaded)
  for (const n of [...notices, ...baseline.notices]) io.stderr.write(`evalgate: ${n}\n`)

  let record: RunRecord
  let secrets = new Set<string>()
  let expected = loaded.cases.length
  if (values.merge) {
    const shards: { file: string; record: RunRecord }[] = []
    for (const file of positionals) shards.push({ file, record: await readRunRecord(file) })
    try {
      record = mergeRecords(shards, { baseline: baseline.record, dataset: { fingerprint: loaded.dataset, file: configFile } })
    } catch (err) {
      if (!isUserError(err)) throw err
      throw new RecordError(`cannot merge the slices of this pipeline: ${err.message}`, err.file)
    }
    if (record.name !== config.name) throw new RecordError(`the slices are of "${record.name}" but ${configFile} is the config of "${config.name}"`)
    io.stderr.write(`evalgate: merged ${shards.length} slices: ${record.cases.length} cases\n`)
  } else {
    const stop = interruptions(io)
    try {
      const progress = createProgress(expected, io.stderr, { quiet: values.quiet })
      const result = await evaluate(loaded, { baseline: baseline.record, env: io.env, signal: stop.signal, progress, git })
      record = result.record
      secrets = result.secrets
    } finally {
      stop.stop()
    }
  }
  const { comparison, incompatible } = compareIfCompatible(baseline.record, record, config.gate)
  if (incompatible) baseline = { ...baseline, record: null, status: 'incompatible', problem: incompatible }
  if (values.merge) expected = loaded.cases.length

  const stale = await baselineStaleness(host, baseline.record, record, mr?.diffBaseSha ?? null, config.gate)
  const acceptLabel = values['accept-label'] === 'none' ? null : (values['accept-label'] ?? DEFAULT_ACCEPT_LABEL)
  const context: Omit<ConcludeContext, 'problems'> = {
    baselineStatus: baseline.status,
    baselineProblem: baseline.problem,
    notices: [...notices, ...baseline.notices],
    expected,
    configChanges,
    acceptLabel: acceptLabel && mr?.labels.includes(acceptLabel) ? acceptLabel : null,
    staleBaseline: stale
  }
  const projectUrl = io.env.CI_MERGE_REQUEST_PROJECT_URL ?? io.env.CI_PROJECT_URL ?? null
  const pipelinePage = (id: string | null) => (projectUrl && id && /^\d+$/.test(id) ? `${projectUrl.replace(/\/+$/, '')}/-/pipelines/${id}` : null)
  const marker = commentMarker(`gitlab:${jobName}`, config.name)
  const model = await finishRun(
    {
      record,
      comparison,
      baseline: baseline.record,
      context,
      report: {
        gate: config.gate,
        links: { baselineRun: pipelinePage(baseline.record?.git.runId ?? null), currentRun: ctx.pipelineUrl ?? pipelinePage(git.runId), runNoun: 'pipeline' }
      }
    },
    {
      keep: async (kept) => {
        try {
          await writeJsonAtomic(out, kept)
          return null
        } catch (err) {
          return { code: 'problem', text: `the run record could not be written to ${out} (the artifact the next baseline is read from): ${errorMessage(err)}` }
        }
      },
      publish: async (m) => {
        await writeReports(io, m, { report, junit, quiet: values.quiet }, secrets)
        if (!mr) return
        if (!client?.canWrite) {
          io.stderr.write(
            `evalgate: note skipped: no token that can post to the merge request${mr.fork ? " (a fork's merge request)" : ''}; set EVALGATE_GITLAB_TOKEN (api scope) to get the report as a note\n`
          )
          return
        }
        const hint = `the job's artifacts (${report}, ${out})`
        const body = commentBody(marker, redact(renderReport(m, { maxLength: MAX_COMMENT_LENGTH - 300, fullReportHint: hint }), secrets), m.verdict.status)
        try {
          const posted = await upsertNote(client, { projectId: mr.projectId, iid: mr.iid, marker }, body)
          io.stderr.write(`evalgate: ${posted.notice ?? `merge request note ${posted.action}`}\n`)
        } catch (err) {
          io.stderr.write(`evalgate: warning: could not post the merge request note (the verdict stands; ${report} has the report): ${errorMessage(err)}\n`)
        }
      }
    }
  )
  if (onDefaultBranch) {
    io.stderr.write(`evalgate: on the default branch (${branch}) evalgate records the run for the next baseline (${out}); the gate applies to merge requests\n`)
    return 0
  }
  return model.verdict.exitCode
}
