/**
 * What a GitLab CI job knows about itself, from GitLab's predefined
 * variables, read once when `evalgate gitlab` starts.
 */
import path from 'node:path'
import { UsageError } from '../errors.js'
import type { GitLabToken } from './client.js'

export interface MergeRequestRef {
  /** CI_MERGE_REQUEST_IID: the merge request's number in its project */
  iid: string
  /** CI_MERGE_REQUEST_PROJECT_ID: the project the merge request is in (the target) */
  projectId: string
  /** CI_MERGE_REQUEST_SOURCE_PROJECT_ID: the project its branch is in (a fork's, for a fork) */
  sourceProjectId: string
  /** a fork's merge request: its source project is not the target */
  fork: boolean
  /** CI_MERGE_REQUEST_DIFF_BASE_SHA: where the merge request's diff starts on the target branch */
  diffBaseSha: string | null
  /** CI_MERGE_REQUEST_TARGET_BRANCH_NAME */
  targetBranch: string | null
  /** CI_MERGE_REQUEST_LABELS, split */
  labels: string[]
}

export interface GitLabContext {
  /** CI_API_V4_URL */
  apiUrl: string
  /** CI_SERVER_URL */
  serverUrl: string
  /** CI_PROJECT_ID: the project this pipeline runs in (a fork's pipeline runs in the fork) */
  projectId: string
  /** CI_PROJECT_PATH, for messages */
  projectPath: string
  /** CI_JOB_NAME: the job whose default-branch artifacts are the baseline */
  jobName: string
  jobId: string | null
  jobUrl: string | null
  /** CI_PIPELINE_ID: the run, as a record names it (the slices of a parallel job share it) */
  pipelineId: string | null
  pipelineUrl: string | null
  sha: string | null
  /** CI_COMMIT_REF_NAME */
  ref: string | null
  /** CI_COMMIT_BRANCH: set in branch pipelines only */
  branch: string | null
  /** CI_DEFAULT_BRANCH of the project the pipeline runs in */
  defaultBranch: string | null
  mergeRequest: MergeRequestRef | null
  /** CI_NODE_INDEX of CI_NODE_TOTAL, in a job with `parallel: N` (N > 1) */
  node: { index: number; count: number } | null
  /** CI_PROJECT_DIR: the checkout */
  projectDir: string
  token: GitLabToken | null
}

function value(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name]
  return v === undefined || v.trim() === '' ? null : v.trim()
}

/**
 * The token: EVALGATE_GITLAB_TOKEN, else GITLAB_TOKEN, sent as PRIVATE-TOKEN
 * (posting notes needs the `api` scope); without one, CI_JOB_TOKEN as
 * JOB-TOKEN, which reads artifacts only.
 */
export function tokenFrom(env: NodeJS.ProcessEnv): GitLabToken | null {
  for (const from of ['EVALGATE_GITLAB_TOKEN', 'GITLAB_TOKEN']) {
    const v = value(env, from)
    if (v) return { header: 'PRIVATE-TOKEN', value: v, from }
  }
  const job = value(env, 'CI_JOB_TOKEN')
  return job ? { header: 'JOB-TOKEN', value: job, from: 'CI_JOB_TOKEN' } : null
}

function node(env: NodeJS.ProcessEnv): GitLabContext['node'] {
  const index = Number(value(env, 'CI_NODE_INDEX'))
  const count = Number(value(env, 'CI_NODE_TOTAL'))
  if (!Number.isInteger(count) || count <= 1) return null
  if (!Number.isInteger(index) || index < 1 || index > count)
    throw new UsageError(`CI_NODE_INDEX "${env.CI_NODE_INDEX ?? ''}" is not a slice of CI_NODE_TOTAL ${count} (1 to ${count})`)
  return { index, count }
}

export function readGitLabContext(env: NodeJS.ProcessEnv, cwd = process.cwd()): GitLabContext {
  const apiUrl = value(env, 'CI_API_V4_URL')
  const projectId = value(env, 'CI_PROJECT_ID')
  const jobName = value(env, 'CI_JOB_NAME')
  if (env.GITLAB_CI !== 'true' || !apiUrl || !projectId || !jobName)
    throw new UsageError(
      'evalgate gitlab runs inside a GitLab CI job: GITLAB_CI, CI_API_V4_URL, CI_PROJECT_ID and CI_JOB_NAME are not all set (locally, use evalgate run)'
    )
  const iid = value(env, 'CI_MERGE_REQUEST_IID')
  const mrProject = value(env, 'CI_MERGE_REQUEST_PROJECT_ID')
  const sourceProject = value(env, 'CI_MERGE_REQUEST_SOURCE_PROJECT_ID') ?? mrProject
  const mergeRequest: MergeRequestRef | null =
    iid && mrProject
      ? {
          iid,
          projectId: mrProject,
          sourceProjectId: sourceProject!,
          fork: sourceProject !== mrProject,
          diffBaseSha: value(env, 'CI_MERGE_REQUEST_DIFF_BASE_SHA'),
          targetBranch: value(env, 'CI_MERGE_REQUEST_TARGET_BRANCH_NAME'),
          labels: (value(env, 'CI_MERGE_REQUEST_LABELS') ?? '')
            .split(',')
            .map((l) => l.trim())
            .filter(Boolean)
        }
      : null
  return {
    apiUrl,
    serverUrl: value(env, 'CI_SERVER_URL') ?? new URL(apiUrl).origin,
    projectId,
    projectPath: value(env, 'CI_PROJECT_PATH') ?? projectId,
    jobName,
    jobId: value(env, 'CI_JOB_ID'),
    jobUrl: value(env, 'CI_JOB_URL'),
    pipelineId: value(env, 'CI_PIPELINE_ID'),
    pipelineUrl: value(env, 'CI_PIPELINE_URL'),
    sha: value(env, 'CI_COMMIT_SHA'),
    ref: value(env, 'CI_COMMIT_REF_NAME'),
    branch: value(env, 'CI_COMMIT_BRANCH'),
    defaultBranch: value(env, 'CI_DEFAULT_BRANCH'),
    mergeRequest,
    node: node(env),
    projectDir: path.resolve(value(env, 'CI_PROJECT_DIR') ?? cwd),
    token: tokenFrom(env)
  }
}
