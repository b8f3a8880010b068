/**
 * GitLab as a CI host (ci/host.ts): files at a merge request's diff base
 * through the repository files API, commit dates through the commits API,
 * and the baseline from the job artifacts of the project's default branch.
 */
import type { CiHost, HostBaseline } from '../ci/host.js'
import type { RecordOptions } from '../config/record.js'
import { findGitLabBaseline } from './baseline.js'
import { GitLabError, projectSegment, type GitLabClient } from './client.js'

/** `projectId`: the project changes are gated in (a merge request's target); `branch`: its default branch, null when it could not be told. */
export function gitLabHost(client: GitLabClient, projectId: string, branch: string | null): CiHost<string> {
  const project = `/projects/${projectSegment(projectId)}`
  return {
    words: { change: 'merge request', base: 'diff base' },
    async fileAt(file, sha) {
      try {
        return await client.text(`${project}/repository/files/${encodeURIComponent(file)}/raw?ref=${encodeURIComponent(sha)}`)
      } catch (err) {
        if (err instanceof GitLabError && err.status === 404) return null
        throw err
      }
    },
    async commitDate(sha) {
      try {
        const commit = await client.json<{ committed_date?: string; created_at?: string }>('GET', `${project}/repository/commits/${encodeURIComponent(sha)}`)
        return commit.committed_date ?? commit.created_at ?? null
      } catch {
        return null
      }
    },
    async findBaseline(jobName: string, read: RecordOptions): Promise<HostBaseline<string>> {
      if (!branch)
        return {
          record: null,
          id: null,
          status: 'error',
          problem: `cannot tell the default branch of project ${projectId}, where the baseline is`,
          notices: []
        }
      const found = await findGitLabBaseline(client, { projectId, branch, jobName, read })
      if (found.status === 'found') return { record: found.record, id: found.jobId, status: 'found', problem: null, notices: found.notices }
      return { record: null, id: null, status: found.status, problem: found.status === 'error' ? found.reason : null, notices: found.notices }
    }
  }
}
