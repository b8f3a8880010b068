/**
 * The baseline on GitLab: the record (`evalgate-run.json`) that
 * the same job left in the target project's default branch's latest
 * successful pipeline — GitLab's job-artifacts-by-ref API — and, where that
 * pipeline lacks the job, the newest successful job of that name on the
 * branch, by job id (listing jobs needs a personal, project or group token).
 *
 * Fails closed like the action: a 404 is "no baseline" (a notice;
 * the floors still gate), anything else that stops the lookup — 401, 403,
 * 5xx, no answer, a record that does not read — is `error` with the reason.
 * The branch is resolved as a branch: a tag of the same name makes the ref
 * ambiguous, so the lookup stops.
 */
import type { RecordOptions } from '../config/record.js'
import { parseRunRecord } from '../config/record.js'
import { errorMessage } from '../errors.js'
import type { RunRecord } from '../types.js'
import { GitLabError, projectSegment, type GitLabClient } from './client.js'

/** The record's file in the job's artifacts. */
export const RECORD_FILE = 'evalgate-run.json'

export interface GitLabBaselineQuery {
  /** the merge request's target project (else the pipeline's own) */
  projectId: string
  branch: string
  jobName: string
  /** jobs of the branch looked through when its latest pipeline lacks the job */
  maxJobs?: number
  read?: RecordOptions
}

export type GitLabBaseline =
  { status: 'found'; record: RunRecord; jobId: string | null; notices: string[] } | { status: 'none' | 'error'; reason: string; notices: string[] }

interface RestJob {
  id: number
  name: string
  ref: string
  tag: boolean
  status: string
  artifacts?: { file_type: string; filename?: string }[]
  pipeline?: { ref?: string }
}

class LookupFailure extends Error {}

/** A GitLab failure of a lookup step, or null for a 404 (nothing there). */
function failure(err: unknown, what: string): LookupFailure | null {
  if (err instanceof GitLabError && err.status === 404) return null
  const hint =
    err instanceof GitLabError && (err.status === 401 || err.status === 403) ? ' (is the token valid, with read_api scope, and may it read this project?)' : ''
  return new LookupFailure(`${what}: ${errorMessage(err)}${hint}`)
}

async function readRecord(client: GitLabClient, path: string, what: string, read: RecordOptions | undefined): Promise<RunRecord | null> {
  let text: string
  try {
    text = await client.text(path)
  } catch (err) {
    const failed = failure(err, `cannot download ${what}`)
    if (failed) throw failed
    return null
  }
  try {
    return parseRunRecord(text, what, read)
  } catch (err) {
    throw new LookupFailure(`${what} could not be read: ${errorMessage(err)}`)
  }
}

/** Does a tag share the branch's name? Only an answer that it exists stops the lookup. */
async function tagShadowsBranch(client: GitLabClient, project: string, branch: string): Promise<boolean> {
  const response = await client.send('GET', `/projects/${project}/repository/tags/${encodeURIComponent(branch)}`).catch(() => null)
  await response?.body?.cancel()
  return response?.status === 200
}

/** A project's default branch, as GitLab names it; a GitLabError when the project cannot be read, null when it has none (an empty project). */
export async function projectDefaultBranch(client: GitLabClient, projectId: string): Promise<string | null> {
  const project = await client.json<{ default_branch?: string | null }>('GET', `/projects/${projectSegment(projectId)}`)
  return project.default_branch || null
}

export async function findGitLabBaseline(client: GitLabClient, query: GitLabBaselineQuery): Promise<GitLabBaseline> {
  const notices: string[] = []
  const project = projectSegment(query.projectId)
  const { branch, jobName } = query
  const where = `job "${jobName}" on ${branch} of project ${query.projectId}`
  try {
    if (await tagShadowsBranch(client, project, branch))
      throw new LookupFailure(
        `the project has a tag named "${branch}", so its artifacts "on ${branch}" cannot be told from the tag's; delete the tag (git push origin :refs/tags/${branch})`
      )
    const byRef = `/projects/${project}/jobs/artifacts/${encodeURIComponent(branch)}/raw/${RECORD_FILE}?job=${encodeURIComponent(jobName)}`
    const latest = await readRecord(client, byRef, `${RECORD_FILE} of the latest successful pipeline's ${where}`, query.read)
    if (latest) return { status: 'found', record: latest, jobId: latest.git.runId, notices }
    // the latest successful pipeline lacks the job (or its artifact): the newest successful job of that name
    if (!client.canWrite) {
      const reason = `the latest successful pipeline of ${branch} has no ${RECORD_FILE} from ${where} (evalgate looks at older jobs with a token in EVALGATE_GITLAB_TOKEN)`
      return { status: 'none', reason, notices: [...notices, `no baseline: ${reason}; comparison skipped, only the absolute floors are gated`] }
    }
    let looked = 0
    const maxJobs = query.maxJobs ?? 200
    try {
      for await (const page of client.pages<RestJob>(`/projects/${project}/jobs?scope[]=success`, Math.ceil(maxJobs / 100))) {
        for (const job of page) {
          if (++looked > maxJobs) break
          if (job.name !== jobName || job.ref !== branch || job.tag || job.status !== 'success') continue
          if (job.artifacts && !job.artifacts.some((a) => a.file_type === 'archive')) continue
          const record = await readRecord(client, `/projects/${project}/jobs/${job.id}/artifacts/${RECORD_FILE}`, `${RECORD_FILE} of job ${job.id}`, query.read)
          if (record) return { status: 'found', record, jobId: String(job.id), notices }
          notices.push(`baseline: job ${job.id} (${jobName} on ${branch}) has no ${RECORD_FILE} in its artifacts (expired?); looking at older jobs`)
        }
      }
    } catch (err) {
      if (err instanceof LookupFailure) throw err
      throw (
        failure(err, `cannot list the jobs of project ${query.projectId}`) ?? new LookupFailure(`cannot list the jobs of project ${query.projectId}: not found`)
      )
    }
    const reason = `no successful ${where} among the newest ${Math.min(looked, maxJobs)} successful jobs has ${RECORD_FILE} in its artifacts`
    return { status: 'none', reason, notices: [...notices, `no baseline: ${reason}; comparison skipped, only the absolute floors are gated`] }
  } catch (err) {
    if (err instanceof LookupFailure) return { status: 'error', reason: err.message, notices }
    throw err
  }
}
