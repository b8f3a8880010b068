/**
 * `mode: comment`, the fork-safe pattern: a `workflow_run` workflow, which has a
 * write token but runs the default branch's code, comments for a `pull_request`
 * run that had neither. Everything the triggering run produced is untrusted.
 */
import path from 'node:path'
import { UsageError } from '../errors.js'
import { apiMessage, httpStatus, objectOf, type Octokit } from './context.js'

export interface TriggeringRun {
  id: number
  workflowId: number | null
  /** ".github/workflows/evals.yml" */
  workflowPath: string | null
  event: string
  headSha: string
  headBranch: string | null
  /** the owner of the repository the PR comes from (a fork's owner for fork PRs) */
  headOwner: string | null
  pullRequestNumbers: number[]
}

export function triggeringRun(payload: Record<string, unknown>): TriggeringRun {
  const run = objectOf(payload.workflow_run)
  if (!run || typeof run.id !== 'number' || typeof run.head_sha !== 'string') {
    throw new UsageError('mode: comment runs in a workflow triggered by `on: workflow_run` (the event payload has no workflow_run)')
  }
  const headRepo = objectOf(run.head_repository)
  const numbers = Array.isArray(run.pull_requests) ? run.pull_requests.map((p) => objectOf(p)?.number).filter((n): n is number => typeof n === 'number') : []
  return {
    id: run.id,
    workflowId: typeof run.workflow_id === 'number' ? run.workflow_id : null,
    workflowPath: typeof run.path === 'string' && run.path ? run.path.replace(/@.*$/, '') : null,
    event: typeof run.event === 'string' ? run.event : '',
    headSha: run.head_sha,
    headBranch: typeof run.head_branch === 'string' ? run.head_branch : null,
    headOwner: typeof objectOf(headRepo?.owner)?.login === 'string' ? (objectOf(headRepo?.owner)!.login as string) : null,
    pullRequestNumbers: numbers
  }
}

export function workflowFileName(workflowPath: string | null): string | null {
  return workflowPath ? path.posix.basename(workflowPath) : null
}

export interface PullRequestFound {
  number: number
  baseRef: string
  baseSha: string
  /** the names of its labels now (the accept label) */
  labels: string[]
}

export type PullRequestLookup = { found: PullRequestFound; notice: null } | { found: null; notice: string }

interface RestPull {
  number: number
  state?: string
  head: { sha: string }
  base: { ref: string; sha: string }
  labels?: Array<{ name?: string } | string>
}

function labelNames(labels: RestPull['labels']): string[] {
  return (labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean)
}

/**
 * The open PR whose head is the triggering run's commit. A fork's runs list no
 * pull requests, so they are searched by the head branch; either way the PR's
 * current head must still be that commit, else the comment would describe code
 * the PR no longer has.
 */
export async function findPullRequest(octokit: Octokit, owner: string, repo: string, run: TriggeringRun): Promise<PullRequestLookup> {
  if (run.event !== 'pull_request' && run.event !== 'pull_request_target') {
    return { found: null, notice: `comment skipped: run ${run.id} was triggered by ${run.event || 'an unknown event'}, not by a pull request` }
  }
  try {
    let numbers = run.pullRequestNumbers
    if (numbers.length === 0 && run.headOwner && run.headBranch) {
      const pulls = await octokit.paginate(octokit.rest.pulls.list, { owner, repo, state: 'open', head: `${run.headOwner}:${run.headBranch}`, per_page: 100 })
      numbers = (pulls as RestPull[]).filter((p) => p.head.sha === run.headSha).map((p) => p.number)
    }
    if (numbers.length === 0)
      return { found: null, notice: `comment skipped: no open pull request has run ${run.id}'s commit ${run.headSha.slice(0, 7)} as its head` }
    for (const number of numbers) {
      const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number })
      const pull = data as RestPull
      if (pull.state === 'open' && pull.head.sha === run.headSha)
        return { found: { number, baseRef: pull.base.ref, baseSha: pull.base.sha, labels: labelNames(pull.labels) }, notice: null }
    }
    return {
      found: null,
      notice: `comment skipped: pull request #${numbers[0]} has moved on from ${run.headSha.slice(0, 7)} (or is closed); its newer run will comment`
    }
  } catch (err) {
    if (httpStatus(err) !== undefined)
      return { found: null, notice: `comment skipped: cannot find the pull request of run ${run.id}: ${apiMessage(err, 'pull-requests: read')}` }
    throw err
  }
}
