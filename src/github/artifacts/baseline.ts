/**
 * The baseline lookup, failing closed: the
 * newest run of the same workflow file on the baseline branch that published
 * a run record, the run at the PR's base commit first.
 *
 * A run qualifies only when all of these hold, because an artifact can be
 * uploaded by anyone who can make a run, and the baseline decides what counts
 * as a regression (artifact poisoning):
 * - it was triggered by push, schedule or workflow_dispatch (never by a pull
 *   request, whose code is the PR's),
 * - its head repository is this repository (a fork's run can claim any branch),
 * - its head branch is the baseline branch, and its head commit is in that
 *   branch's history: a workflow_dispatch on a *tag* named like the branch
 *   reports that name as its head_branch (compare API, `identical`/`behind`).
 *
 * The lookup fails closed: `none` only when no qualifying run has a live
 * artifact (a notice, the floors still gated); any failure to list, compare,
 * download, read or validate is `error` with the reason, never "no baseline".
 */
import type { BaselineStatus } from '../../compare/types.js'
import type { RecordOptions } from '../../config/record.js'
import { errorMessage } from '../../errors.js'
import type { RunRecord } from '../../types.js'
import { apiMessage, resolveBaselineBranch, resolveWorkflow, type ActionContext, type Octokit } from '../context.js'
import type { ActionInputs } from '../inputs.js'
import { artifactClient } from './client.js'
import { downloadRecord, findRecordArtifact, isExpiredOnDownload, type DownloadTarget, type RestArtifact } from './download.js'

/** Events whose runs on the baseline branch describe the branch itself. */
export const BASELINE_EVENTS = ['push', 'schedule', 'workflow_dispatch'] as const

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

/**
 * What the lookup found. `notices` are what the user should know either way
 * (expired artifacts skipped, runs that are not on the branch); `reason` says
 * why there is no baseline (`none`, and then it is also the last notice) or
 * why it could not be used (`error`: the caller fails the check with it).
 */
export type BaselineLookup =
  | { status: Extract<BaselineStatus, 'found'>; record: RunRecord; run: BaselineRun; artifactName: string; notices: string[] }
  | { status: Extract<BaselineStatus, 'none' | 'error'>; reason: string; notices: string[] }

interface RestRun {
  id: number
  head_sha: string
  head_branch: string | null
  event: string
  created_at: string
  html_url?: string
  head_repository?: { full_name?: string } | null
}

/** The run's trigger, branch and repository qualify; its commit is checked later, only if it has an artifact. */
function isCandidate(run: RestRun, query: BaselineQuery): boolean {
  return (
    (BASELINE_EVENTS as readonly string[]).includes(run.event) &&
    run.head_branch === query.branch &&
    run.id !== query.currentRunId &&
    // never a fork's run, whatever branch name it claims
    (run.head_repository?.full_name ?? '').toLowerCase() === query.repository.toLowerCase()
  )
}

/** A step of the lookup that could not be done: ends it with `error`. */
class LookupFailure extends Error {}

/** Which runs the lookup looks at, for messages. */
function runsDescription(query: BaselineQuery): string {
  const workflow = typeof query.workflow === 'number' ? `workflow ${query.workflow}` : query.workflow
  return `of ${workflow} on ${query.branch} (${BASELINE_EVENTS.join(', ')} from ${query.repository})`
}

/** Candidate runs, newest first, with the base commit's runs (if any) first of all. */
async function* candidateRuns(query: BaselineQuery): AsyncGenerator<RestRun> {
  const { octokit, owner, repo, workflow, branch } = query
  const seen = new Set<number>()
  const base = { owner, repo, workflow_id: workflow, branch, per_page: 100 }
  const cannotList = (err: unknown) => new LookupFailure(`cannot list the runs ${runsDescription(query)}: ${apiMessage(err)}`)
  if (query.baseSha) {
    const atBase = await octokit.rest.actions.listWorkflowRuns({ ...base, head_sha: query.baseSha }).catch((err: unknown) => {
      throw cannotList(err)
    })
    for (const run of atBase.data.workflow_runs as RestRun[]) {
      if (!isCandidate(run, query) || run.head_sha !== query.baseSha) continue
      seen.add(run.id)
      yield run
    }
  }
  let scanned = 0
  const maxRuns = query.maxRuns ?? 300
  const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRuns, base)[Symbol.asyncIterator]()
  while (true) {
    const page = await pages.next().catch((err: unknown) => {
      throw cannotList(err)
    })
    if (page.done) return
    for (const run of page.value.data as RestRun[]) {
      if (++scanned > maxRuns) return
      if (seen.has(run.id) || !isCandidate(run, query)) continue
      seen.add(run.id)
      yield run
    }
  }
}

/**
 * Is `sha` in the history of the baseline branch? `GET compare/{branch}...{sha}`
 * answers how the commit stands to the branch's head: `identical` or `behind`
 * means it is the head or one of its ancestors.
 */
async function isOnBranch(query: BaselineQuery, sha: string): Promise<{ onBranch: boolean; status: string }> {
  const { octokit, owner, repo, branch } = query
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${branch}...${sha}`, per_page: 1 })
    return { onBranch: data.status === 'identical' || data.status === 'behind', status: data.status }
  } catch (err) {
    throw new LookupFailure(
      `cannot tell whether commit ${sha.slice(0, 7)} is in ${branch}'s history (GET compare/${branch}...${sha.slice(0, 7)}): ${apiMessage(err, 'contents: read')}`
    )
  }
}

/**
 * A tag named like the branch would make `compare/{branch}...` ambiguous (git
 * resolves a short name to a tag before a branch), and then a commit that is
 * only on the tag would look like the branch's head. Only a tag that exists
 * stops the lookup: any error here reads as "no such tag", as a 404 does, so
 * that a server without this endpoint does not stop every lookup.
 */
async function tagShadowsBranch(query: BaselineQuery): Promise<boolean> {
  const { octokit, owner, repo, branch } = query
  try {
    await octokit.rest.git.getRef({ owner, repo, ref: `tags/${branch}` })
    return true
  } catch {
    return false
  }
}

function noBaseline(notices: string[], reason: string): BaselineLookup {
  return { status: 'none', reason, notices: [...notices, `no baseline: ${reason}; comparison skipped, only the absolute floors are gated`] }
}

function lookupError(notices: string[], reason: string): BaselineLookup {
  return { status: 'error', reason, notices }
}

type Found = Extract<BaselineLookup, { status: 'found' }>

/**
 * The baseline a candidate run gives, or null to look at older runs (no live
 * artifact, or its commit is not on the branch: both said in `notices`).
 * Throws a LookupFailure when the run has an artifact that cannot be used.
 */
async function baselineOfRun(query: BaselineQuery, run: RestRun, notices: string[], checkTag: () => Promise<void>): Promise<Found | null> {
  const { branch, artifactName } = query
  let found: { artifact: RestArtifact | null; expired: boolean }
  try {
    found = await findRecordArtifact(query, run.id, artifactName)
  } catch (err) {
    throw new LookupFailure(`cannot list the artifacts of run ${run.id}: ${apiMessage(err)}`)
  }
  const { artifact } = found
  if (!artifact) {
    if (found.expired) notices.push(`baseline: the artifact "${artifactName}" of run ${run.id} has expired; looking at older runs`)
    return null
  }
  await checkTag()
  const history = await isOnBranch(query, run.head_sha)
  if (!history.onBranch) {
    notices.push(
      `baseline: run ${run.id} (${run.event}, commit ${run.head_sha.slice(0, 7)}) says it ran on ${branch}, but its commit is not in ${branch}'s history (compare: ${history.status}); skipped`
    )
    return null
  }
  let record: RunRecord
  try {
    record = await downloadRecord(query, run.id, artifact, query.read)
  } catch (err) {
    if (!isExpiredOnDownload(err)) throw new LookupFailure(`the baseline artifact "${artifact.name}" of run ${run.id} could not be read: ${errorMessage(err)}`)
    notices.push(`baseline: the artifact "${artifact.name}" of run ${run.id} has expired; looking at older runs`)
    return null
  }
  const baselineRun = { id: run.id, sha: run.head_sha, createdAt: run.created_at, url: run.html_url ?? null }
  return { status: 'found', record, run: baselineRun, artifactName: artifact.name, notices }
}

export async function findBaseline(query: BaselineQuery): Promise<BaselineLookup> {
  const notices: string[] = []
  const maxLookups = query.maxArtifactLookups ?? 30
  let lookups = 0
  // once per lookup, and only when some run has an artifact to compare
  let tagChecked = false
  const checkTag = async () => {
    if (tagChecked) return
    tagChecked = true
    if (await tagShadowsBranch(query)) {
      throw new LookupFailure(
        `the repository has a tag named "${query.branch}", so a run "on ${query.branch}" cannot be told from a run on that tag; delete the tag (git push origin :refs/tags/${query.branch})`
      )
    }
  }
  try {
    for await (const run of candidateRuns(query)) {
      if (++lookups > maxLookups)
        return noBaseline(notices, `none of the newest ${maxLookups} runs ${runsDescription(query)} has a non-expired artifact "${query.artifactName}"`)
      const found = await baselineOfRun(query, run, notices, checkTag)
      if (found) return found
    }
  } catch (err) {
    if (err instanceof LookupFailure) return lookupError(notices, err.message)
    throw err
  }
  return noBaseline(notices, `no run ${runsDescription(query)} has a non-expired artifact "${query.artifactName}"`)
}

/**
 * The baseline of a run of this repository: the branch (input, else the
 * default branch) and the workflow (this run's, unless given) resolved first.
 */
export async function lookUpBaseline(
  octokit: Octokit,
  ctx: ActionContext,
  inputs: Pick<ActionInputs, 'token' | 'baselineBranch'>,
  query: {
    artifactName: string
    workflow: string | number | null
    branch: string | null
    baseSha: string | null
    currentRunId: number | null
    read?: RecordOptions
  }
): Promise<BaselineLookup> {
  let branch: string
  let workflow: string | number | null
  try {
    branch = query.branch ?? (await resolveBaselineBranch(octokit, ctx, inputs.baselineBranch))
    workflow = query.workflow ?? (await resolveWorkflow(octokit, ctx))
  } catch (err) {
    return lookupError([], `cannot read the repository's default branch or this run's workflow: ${apiMessage(err, 'contents: read and actions: read')}`)
  }
  if (workflow === null)
    return lookupError([], 'this run does not say which workflow it belongs to (no GITHUB_WORKFLOW_REF or GITHUB_RUN_ID), so its baseline cannot be looked up')
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
