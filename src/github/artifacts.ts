/**
 * The run record as an artifact: uploading this run's, finding, downloading
 * and validating the baseline's (SPEC §7 "Baseline lookup"), and collecting
 * the shard records of this run for mode: merge.
 *
 * Artifacts of other runs are untrusted input. The baseline is only taken from
 * runs of the same workflow file on the baseline branch, triggered by push,
 * schedule or workflow_dispatch, whose head repository is this repository — a
 * fork's run can upload any artifact it likes (artifact poisoning). What is
 * downloaded is read in memory out of the zip (see zip.ts) and validated with
 * parseRunRecord. Nothing here throws for a missing or bad baseline: the caller
 * gets null and a notice saying why. A missing or bad shard does throw: a merge
 * cannot stand in for the run without it.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { ArtifactClient } from '@actions/artifact'
import { parseRunRecord, recordFromChunks, type RecordOptions } from '../config/record.js'
import type { Shard } from '../engine.js'
import { errorMessage, RecordError } from '../errors.js'
import type { ShardRecord } from '../run/merge.js'
import type { RunRecord } from '../types.js'
import { httpStatus, resolveBaselineBranch, resolveWorkflow, type ActionContext, type Octokit } from './context.js'
import type { ActionInputs } from './inputs.js'
import { listZip, zipEntryChunks, ZipError } from './zip.js'

/** The files of the uploaded artifact. */
export const RECORD_FILE = 'run.json'
export const REPORT_FILE = 'report.md'

/** Events whose runs on the baseline branch describe the branch itself. */
export const BASELINE_EVENTS = ['push', 'schedule', 'workflow_dispatch'] as const

const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024
const MAX_RECORD_BYTES = 128 * 1024 * 1024

// ---------------------------------------------------------------------------
// Upload

export interface UploadOptions {
  client: Pick<ArtifactClient, 'uploadArtifact'>
  name: string
  /** absolute paths of the files to upload, all inside rootDir */
  files: string[]
  rootDir: string
  /** GITHUB_RUN_ATTEMPT: a re-run finds the name taken by its earlier attempt */
  runAttempt: number
}

export interface UploadResult {
  name: string
  id: number | null
  /** set when the artifact had to take another name */
  notice: string | null
}

function isNameConflict(err: unknown): boolean {
  // the results service answers 409 Conflict "an artifact with this name already exists on the workflow run"
  return /\(409\)|already exists/i.test(errorMessage(err))
}

/** The name an artifact takes on a later attempt of the same run when `name` is taken. */
export function attemptName(name: string, attempt: number): string {
  return `${name}-attempt-${attempt}`
}

/** Does an artifact called `candidate` hold the run record published as `name`? */
export function isRecordArtifactName(candidate: string, name: string): boolean {
  return candidate === name || (candidate.startsWith(`${name}-attempt-`) && /^\d+$/.test(candidate.slice(name.length + '-attempt-'.length)))
}

/**
 * Upload the run's files as artifact `name`. Artifacts cannot be replaced within
 * a run, and a re-run keeps the earlier attempt's: then the name gets the suffix
 * `-attempt-<n>` (the baseline lookup takes the newest of these). Another job of
 * the same run holding the name is a usage error the message explains.
 */
export async function uploadRunArtifact(options: UploadOptions): Promise<UploadResult> {
  const { client, name, files, rootDir, runAttempt } = options
  try {
    const { id } = await client.uploadArtifact(name, files, rootDir)
    return { name, id: id ?? null, notice: null }
  } catch (err) {
    if (!isNameConflict(err)) throw err
    if (runAttempt <= 1) {
      throw new Error(
        `artifact "${name}" already exists in this workflow run: two jobs evaluate a config with the same name; give each job its own artifact-name (${errorMessage(err)})`
      )
    }
  }
  const retried = attemptName(name, runAttempt)
  const { id } = await client.uploadArtifact(retried, files, rootDir)
  return { name: retried, id: id ?? null, notice: `artifact "${name}" exists from an earlier attempt of this run; this attempt's run record is uploaded as "${retried}"` }
}

// ---------------------------------------------------------------------------
// Download

export interface DownloadTarget {
  octokit: Octokit
  client: Pick<ArtifactClient, 'downloadArtifact'>
  token: string
  owner: string
  repo: string
  /** a fresh folder is made inside it for each download */
  tempDir: string
}

interface RestArtifact {
  id: number
  name: string
  expired: boolean
  created_at?: string | null
  digest?: string | null
}

export type RecordFetch =
  | { status: 'ok'; record: RunRecord; artifactName: string }
  | { status: 'missing' | 'expired' | 'unreadable'; message: string }

/** The artifacts of a run whose names pass `keep`, every page of them. */
async function listRunArtifacts(target: DownloadTarget, runId: number, keep: (name: string) => boolean): Promise<RestArtifact[]> {
  const { octokit, owner, repo } = target
  const matches: RestArtifact[] = []
  const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 })
  for await (const page of pages) {
    for (const a of page.data as RestArtifact[]) if (keep(a.name)) matches.push(a)
  }
  return matches
}

/** The newest non-expired artifact of the run holding the record published as `name` (and whether expired ones were seen). */
async function findRecordArtifact(target: DownloadTarget, runId: number, name: string): Promise<{ artifact: RestArtifact | null; expired: boolean }> {
  const matches = await listRunArtifacts(target, runId, (candidate) => isRecordArtifactName(candidate, name))
  const live = matches.filter((a) => !a.expired).sort((a, b) => b.id - a.id)
  return { artifact: live[0] ?? null, expired: matches.some((a) => a.expired) }
}

/** The run record inside a downloaded artifact: a zip holding run.json (or, uploaded unzipped, the JSON itself). */
export async function recordFromArtifactBytes(bytes: Buffer, label: string, options?: RecordOptions): Promise<RunRecord> {
  if (bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]))) {
    const entries = listZip(bytes)
    const entry = entries.find((e) => e.name === RECORD_FILE)
    if (!entry) throw new ZipError(`it holds no ${RECORD_FILE} (found: ${entries.map((e) => e.name).slice(0, 5).join(', ') || 'nothing'})`)
    // inflated and read a piece at a time: the record's text is never whole in memory
    return recordFromChunks(zipEntryChunks(bytes, entry, MAX_RECORD_BYTES), label, options)
  }
  return parseRunRecord(bytes, label, options)
}

/** Download one artifact into a fresh folder and read the run record out of it. */
async function downloadRecord(target: DownloadTarget, runId: number, artifact: RestArtifact, options?: RecordOptions): Promise<RunRecord> {
  await mkdir(target.tempDir, { recursive: true })
  const dir = await mkdtemp(path.join(target.tempDir, 'evalgate-download-'))
  try {
    const { digestMismatch } = await target.client.downloadArtifact(artifact.id, {
      path: dir,
      // the zip is read in memory (zip.ts), never extracted by the client
      skipDecompress: true,
      expectedHash: artifact.digest ?? undefined,
      findBy: { token: target.token, workflowRunId: runId, repositoryOwner: target.owner, repositoryName: target.repo }
    })
    if (digestMismatch) throw new ZipError('its content does not match the digest GitHub recorded')
    const files = await readdir(dir)
    if (files.length !== 1) throw new ZipError(`expected one downloaded file, found ${files.length}`)
    const file = path.join(dir, files[0]!)
    const info = await stat(file)
    if (!info.isFile()) throw new ZipError('the download is not a file')
    if (info.size > MAX_ARTIFACT_BYTES) throw new ZipError(`it is ${info.size} bytes, more than the ${MAX_ARTIFACT_BYTES} allowed`)
    // awaited here: a rejection left pending while `finally` awaits would count as unhandled
    return await recordFromArtifactBytes(await readFile(file), `artifact "${artifact.name}" of run ${runId}`, options)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Fetch the run record a run published as artifact `name`; never throws for a missing or bad artifact. */
export async function fetchRunRecord(target: DownloadTarget, runId: number, name: string, options?: RecordOptions): Promise<RecordFetch> {
  let found: { artifact: RestArtifact | null; expired: boolean }
  try {
    found = await findRecordArtifact(target, runId, name)
  } catch (err) {
    return { status: 'unreadable', message: `cannot list the artifacts of run ${runId}: ${apiMessage(err)}` }
  }
  if (!found.artifact) {
    return found.expired
      ? { status: 'expired', message: `the artifact "${name}" of run ${runId} has expired` }
      : { status: 'missing', message: `run ${runId} has no artifact "${name}"` }
  }
  try {
    const record = await downloadRecord(target, runId, found.artifact, options)
    return { status: 'ok', record, artifactName: found.artifact.name }
  } catch (err) {
    // 410 Gone: it expired between the listing and the download
    if (httpStatus(err) === 410) return { status: 'expired', message: `the artifact "${found.artifact.name}" of run ${runId} has expired` }
    return { status: 'unreadable', message: `the artifact "${found.artifact.name}" of run ${runId} is unreadable: ${errorMessage(err)}` }
  }
}

// ---------------------------------------------------------------------------
// Shards of this run

/** The artifact one shard of a sharded run uploads: `<name>-shard-<i>-of-<n>`. */
export function shardArtifactName(name: string, shard: Shard): string {
  return `${name}-shard-${shard.index}-of-${shard.count}`
}

/** Which shard an artifact called `candidate` holds, if it is one of `name`'s (a re-run's `-attempt-<k>` included). */
export function shardOfArtifactName(candidate: string, name: string): Shard | null {
  const prefix = `${name}-shard-`
  if (!candidate.startsWith(prefix)) return null
  const m = /^(\d+)-of-(\d+)(?:-attempt-\d+)?$/.exec(candidate.slice(prefix.length))
  if (!m) return null
  const shard = { index: Number(m[1]), count: Number(m[2]) }
  return shard.index >= 1 && shard.index <= shard.count ? shard : null
}

/**
 * The shard records the shard jobs of run `runId` uploaded for `name`: for
 * each shard the newest live artifact (a re-run job uploads under
 * `-attempt-<k>`), downloaded and validated like a baseline. Whether they are
 * all there, once, of one split, is mergeRecords' to check. Throws a
 * RecordError when there are none or one cannot be read: a merge without
 * every shard is no run.
 */
export async function fetchShardRecords(target: DownloadTarget, runId: number, name: string): Promise<ShardRecord[]> {
  let listed: RestArtifact[]
  try {
    listed = await listRunArtifacts(target, runId, (candidate) => shardOfArtifactName(candidate, name) !== null)
  } catch (err) {
    throw new RecordError(`cannot list the artifacts of run ${runId}: ${apiMessage(err)}`)
  }
  // one per shard: the newest, when a re-run job uploaded it again
  const newest = new Map<string, { shard: Shard; artifact: RestArtifact }>()
  for (const artifact of listed.filter((a) => !a.expired)) {
    const shard = shardOfArtifactName(artifact.name, name)!
    const key = shardArtifactName(name, shard)
    if ((newest.get(key)?.artifact.id ?? -1) < artifact.id) newest.set(key, { shard, artifact })
  }
  if (newest.size === 0) {
    throw new RecordError(
      `run ${runId} has no shard artifacts "${name}-shard-<i>-of-<n>"${listed.length ? ' that have not expired' : ''}: the shard jobs (shard: i/n, the same artifact-name) upload them; give the merge job needs: on them`
    )
  }
  const shards: ShardRecord[] = []
  for (const { shard, artifact } of [...newest.values()].sort((a, b) => a.shard.count - b.shard.count || a.shard.index - b.shard.index)) {
    let record: RunRecord
    try {
      record = await downloadRecord(target, runId, artifact)
    } catch (err) {
      const why = httpStatus(err) === 410 ? 'has expired' : `is unreadable: ${errorMessage(err)}`
      throw new RecordError(`the shard artifact "${artifact.name}" of run ${runId} ${why}`, artifact.name)
    }
    const says = record.config?.shard ?? null
    if (says !== `${shard.index}/${shard.count}`) {
      throw new RecordError(`the shard artifact "${artifact.name}" of run ${runId} holds ${says === null ? 'a record of no shard' : `the record of shard ${says}`}, not of shard ${shard.index}/${shard.count}`, artifact.name)
    }
    shards.push({ file: `artifact "${artifact.name}"`, record })
  }
  return shards
}

/** Octokit's message, with a hint for the statuses a workflow's permissions cause. */
export function apiMessage(err: unknown, permission = 'actions: read'): string {
  const status = httpStatus(err)
  const hint = status === 403 || status === 404 ? ` (does the token have ${permission}?)` : ''
  return `${errorMessage(err)}${hint}`
}

// ---------------------------------------------------------------------------
// Baseline lookup

export interface BaselineQuery extends DownloadTarget {
  /** "owner/repo": the only head repository a baseline may come from */
  repository: string
  /** the workflow's file name ("evals.yml") or numeric id */
  workflow: string | number
  branch: string
  artifactName: string
  /** the PR's base commit: its run is preferred when it has an artifact */
  baseSha: string | null
  /** this run: on a re-run it has its earlier attempt's artifact, which is no baseline */
  currentRunId: number | null
  /** how many runs of the branch to look through, and how many of them to list artifacts of */
  maxRuns?: number
  maxArtifactLookups?: number
  /** how the baseline's cases are read (see RecordOptions) */
  read?: RecordOptions
}

export interface BaselineRun {
  id: number
  sha: string
  createdAt: string
  url: string | null
}

export interface BaselineResult {
  record: RunRecord | null
  run: BaselineRun | null
  artifactName: string | null
  /** what the user should know: skipped expired artifacts, why there is no baseline */
  notices: string[]
}

interface RestRun {
  id: number
  head_sha: string
  head_branch: string | null
  event: string
  created_at: string
  html_url?: string
  head_repository?: { full_name?: string } | null
}

function isEligible(run: RestRun, query: BaselineQuery): boolean {
  return (
    (BASELINE_EVENTS as readonly string[]).includes(run.event) &&
    run.head_branch === query.branch &&
    run.id !== query.currentRunId &&
    // never a fork's run, whatever branch name it claims
    (run.head_repository?.full_name ?? '').toLowerCase() === query.repository.toLowerCase()
  )
}

/** Eligible runs, newest first, with the base commit's runs (if any) first of all. */
async function* candidateRuns(query: BaselineQuery): AsyncGenerator<RestRun> {
  const { octokit, owner, repo, workflow, branch } = query
  const seen = new Set<number>()
  const base = { owner, repo, workflow_id: workflow, branch, per_page: 100 }
  if (query.baseSha) {
    const { data } = await octokit.rest.actions.listWorkflowRuns({ ...base, head_sha: query.baseSha })
    for (const run of data.workflow_runs as RestRun[]) {
      if (!isEligible(run, query) || run.head_sha !== query.baseSha) continue
      seen.add(run.id)
      yield run
    }
  }
  let scanned = 0
  const maxRuns = query.maxRuns ?? 300
  for await (const page of octokit.paginate.iterator(octokit.rest.actions.listWorkflowRuns, base)) {
    for (const run of page.data as RestRun[]) {
      if (++scanned > maxRuns) return
      if (seen.has(run.id) || !isEligible(run, query)) continue
      seen.add(run.id)
      yield run
    }
  }
}

function noBaseline(notices: string[], reason: string): BaselineResult {
  return { record: null, run: null, artifactName: null, notices: [...notices, `no baseline: ${reason}; comparison skipped, only the absolute floors are gated`] }
}

export async function findBaseline(query: BaselineQuery): Promise<BaselineResult> {
  const notices: string[] = []
  const where = `of ${typeof query.workflow === 'number' ? `workflow ${query.workflow}` : query.workflow} on ${query.branch} (${BASELINE_EVENTS.join(', ')} from ${query.repository})`
  const maxLookups = query.maxArtifactLookups ?? 30
  let lookups = 0
  try {
    for await (const run of candidateRuns(query)) {
      if (++lookups > maxLookups) return noBaseline(notices, `none of the newest ${maxLookups} runs ${where} has a non-expired artifact "${query.artifactName}"`)
      const fetched = await fetchRunRecord(query, run.id, query.artifactName, query.read)
      if (fetched.status !== 'ok') {
        if (fetched.status === 'unreadable') return noBaseline(notices, fetched.message)
        if (fetched.status === 'expired') notices.push(`baseline: ${fetched.message}; looking at older runs`)
        continue
      }
      return {
        record: fetched.record,
        run: { id: run.id, sha: run.head_sha, createdAt: run.created_at, url: run.html_url ?? null },
        artifactName: fetched.artifactName,
        notices
      }
    }
  } catch (err) {
    return noBaseline(notices, `cannot list the runs ${where}: ${apiMessage(err)}`)
  }
  return noBaseline(notices, `no run ${where} has a non-expired artifact "${query.artifactName}"`)
}

/**
 * The baseline of a run of this repository: the branch (input, else the
 * default branch) and the workflow (this run's, unless given) resolved first.
 */
/**
 * The artifact client, loaded on first use: it is the largest part of the
 * bundle, and a run without a baseline to fetch should not wait for it.
 */
export async function artifactClient(): Promise<ArtifactClient> {
  const { DefaultArtifactClient } = await import('@actions/artifact')
  return new DefaultArtifactClient()
}

export async function lookUpBaseline(octokit: Octokit, ctx: ActionContext, inputs: Pick<ActionInputs, 'token' | 'baselineBranch'>, query: { artifactName: string; workflow: string | number | null; branch: string | null; baseSha: string | null; currentRunId: number | null; read?: RecordOptions }): Promise<BaselineResult> {
  let branch: string
  let workflow: string | number | null
  try {
    branch = query.branch ?? (await resolveBaselineBranch(octokit, ctx, inputs.baselineBranch))
    workflow = query.workflow ?? (await resolveWorkflow(octokit, ctx))
  } catch (err) {
    return noBaseline([], `cannot read the repository's default branch or this run's workflow: ${apiMessage(err, 'contents: read and actions: read')}`)
  }
  if (workflow === null) return noBaseline([], 'this run does not say which workflow it belongs to (no GITHUB_WORKFLOW_REF or GITHUB_RUN_ID)')
  return findBaseline({
    octokit,
    client: await artifactClient(),
    token: inputs.token,
    owner: ctx.owner,
    repo: ctx.repo,
    repository: ctx.repository,
    tempDir: ctx.tempDir,
    workflow,
    branch,
    artifactName: query.artifactName,
    baseSha: query.baseSha,
    currentRunId: query.currentRunId,
    read: query.read
  })
}
