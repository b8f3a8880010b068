/**
 * What the action knows about the run it is part of, read from the runner's
 * environment and event payload when `run()` starts (never at import time:
 * @actions/github's `context` is built on import, so it is not used).
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { getOctokit } from '@actions/github'
import { errorMessage, UsageError } from '../errors.js'

export type Octokit = ReturnType<typeof getOctokit>

export interface PullRequestRef {
  number: number
  headSha: string | null
  baseRef: string | null
  baseSha: string | null
  /** the names of the pull request's labels as the event saw them */
  labels: string[]
}

export interface ActionContext {
  owner: string
  repo: string
  /** "owner/repo" */
  repository: string
  eventName: string
  payload: Record<string, unknown>
  runId: number | null
  runAttempt: number
  /** ".github/workflows/evals.yml", from GITHUB_WORKFLOW_REF; null when the runner did not say */
  workflowPath: string | null
  /** the workflow's display name (GITHUB_WORKFLOW) */
  workflowName: string | null
  sha: string | null
  ref: string | null
  apiUrl: string
  serverUrl: string
  workspace: string
  /** where the action writes its files */
  tempDir: string
  pullRequest: PullRequestRef | null
  /** the repository's default branch when the payload names it */
  defaultBranch: string | null
}

/** The value as a plain object, when it is one: the event payload is read field by field through this. */
export function objectOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

function readPayload(file: string | undefined): Record<string, unknown> {
  if (!file) return {}
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch {
    return {}
  }
  try {
    return objectOf(JSON.parse(raw)) ?? {}
  } catch {
    throw new UsageError(`GITHUB_EVENT_PATH ${file}: the event payload is not valid JSON`)
  }
}

/** ".github/workflows/evals.yml" out of "owner/repo/.github/workflows/evals.yml@refs/heads/main". */
export function workflowPathFromRef(ref: string | undefined, repository: string): string | null {
  if (!ref) return null
  const at = ref.lastIndexOf('@')
  const withoutRef = at === -1 ? ref : ref.slice(0, at)
  const prefix = `${repository}/`
  const file = withoutRef.startsWith(prefix) ? withoutRef.slice(prefix.length) : withoutRef.split('/').slice(2).join('/')
  return file || null
}

function pullRequestOf(payload: Record<string, unknown>): PullRequestRef | null {
  const pr = objectOf(payload.pull_request)
  if (!pr || typeof pr.number !== 'number') return null
  const head = objectOf(pr.head)
  const base = objectOf(pr.base)
  const labels = Array.isArray(pr.labels) ? pr.labels.map((l) => text(objectOf(l)?.name)).filter((l): l is string => l !== null) : []
  return { number: pr.number, headSha: text(head?.sha), baseRef: text(base?.ref), baseSha: text(base?.sha), labels }
}

export function readContext(env: NodeJS.ProcessEnv): ActionContext {
  const repository = env.GITHUB_REPOSITORY ?? ''
  const [owner, repo] = repository.split('/')
  if (!owner || !repo) throw new UsageError('GITHUB_REPOSITORY is not set (owner/repo); is this running in GitHub Actions?')
  const payload = readPayload(env.GITHUB_EVENT_PATH)
  const runId = Number(env.GITHUB_RUN_ID)
  const runAttempt = Number(env.GITHUB_RUN_ATTEMPT)
  return {
    owner,
    repo,
    repository,
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    runId: Number.isSafeInteger(runId) && runId > 0 ? runId : null,
    runAttempt: Number.isSafeInteger(runAttempt) && runAttempt > 0 ? runAttempt : 1,
    workflowPath: workflowPathFromRef(env.GITHUB_WORKFLOW_REF, repository),
    workflowName: env.GITHUB_WORKFLOW || null,
    sha: env.GITHUB_SHA ?? null,
    ref: env.GITHUB_REF ?? null,
    apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
    serverUrl: env.GITHUB_SERVER_URL || 'https://github.com',
    workspace: env.GITHUB_WORKSPACE || process.cwd(),
    tempDir: env.RUNNER_TEMP || path.join(env.GITHUB_WORKSPACE || process.cwd(), '.evalgate'),
    pullRequest: pullRequestOf(payload),
    defaultBranch: text(objectOf(payload.repository)?.default_branch)
  }
}

/** The page of a workflow run, `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/<id>`; null without an id. */
export function runUrl(ctx: Pick<ActionContext, 'serverUrl' | 'repository'>, runId: number | string | null): string | null {
  if (runId === null || !/^\d+$/.test(String(runId))) return null
  return `${ctx.serverUrl.replace(/\/+$/, '')}/${ctx.repository}/actions/runs/${runId}`
}

export function createOctokit(token: string, ctx: Pick<ActionContext, 'apiUrl'>): Octokit {
  return getOctokit(token, { baseUrl: ctx.apiUrl })
}

/** The HTTP status of an Octokit RequestError, else undefined. */
export function httpStatus(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : undefined
}

/** Octokit's message, with a hint for the statuses a workflow's permissions cause. */
export function apiMessage(err: unknown, permission = 'actions: read'): string {
  const status = httpStatus(err)
  const hint = status === 403 || status === 404 ? ` (does the token have ${permission}?)` : ''
  return `${errorMessage(err)}${hint}`
}

/** The branch whose runs give the baseline: the input, else the repository's default branch. */
export async function resolveBaselineBranch(octokit: Octokit, ctx: ActionContext, input: string | null): Promise<string> {
  if (input) return input
  if (ctx.defaultBranch) return ctx.defaultBranch
  const { data } = await octokit.rest.repos.get({ owner: ctx.owner, repo: ctx.repo })
  return data.default_branch
}

/** This run's workflow: its file name from GITHUB_WORKFLOW_REF, else its id from the run itself. */
export async function resolveWorkflow(octokit: Octokit, ctx: ActionContext): Promise<string | number | null> {
  if (ctx.workflowPath) return path.posix.basename(ctx.workflowPath)
  if (ctx.runId === null) return null
  const { data } = await octokit.rest.actions.getWorkflowRun({ owner: ctx.owner, repo: ctx.repo, run_id: ctx.runId })
  return data.workflow_id
}
