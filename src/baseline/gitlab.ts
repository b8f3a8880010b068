/**
 * The GitLab source of `evalgate baseline pull`: the lookup `evalgate gitlab`
 * makes for a merge request (gitlab/baseline.ts: `evalgate-run.json` of the
 * job in the default branch's latest successful pipeline, else the newest
 * successful job of that name), from a laptop.
 * Token: EVALGATE_GITLAB_TOKEN, else GITLAB_TOKEN (else CI_JOB_TOKEN), as `evalgate gitlab` reads it.
 * Server: CI_API_V4_URL, else CI_SERVER_URL, else GITLAB_HOST (glab's), else the origin remote's host.
 */
import { UsageError, errorMessage } from '../errors.js'
import { findGitLabBaseline, projectDefaultBranch } from '../gitlab/baseline.js'
import { GitLabClient, GitLabError } from '../gitlab/client.js'
import { tokenFrom } from '../gitlab/context.js'
import { originUrl } from '../util/git.js'
import type { BaselineRequest, BaselineSource, PulledBaseline } from './sources.js'

/** The job `docs/gitlab.md`'s `.gitlab-ci.yml` names. */
export const DEFAULT_JOB = 'evals'

/** Host (with port for http) and project path out of a remote URL: https, ssh or scp-like; nested groups kept. */
export function gitLabRemote(url: string): { scheme: 'http' | 'https'; host: string; project: string } | null {
  const m = /^(?:([a-z+]+):\/\/)?(?:[^@/]+@)?([^/:]+)(?::(\d+))?[/:](.+?)(?:\.git)?\/?$/i.exec(url.trim())
  if (!m || !m[4]!.includes('/')) return null
  const scheme = m[1]?.toLowerCase()
  // an ssh port is not the web server's; an http(s) one is
  const web = scheme === 'http' || scheme === 'https'
  return { scheme: scheme === 'http' ? 'http' : 'https', host: web && m[3] ? `${m[2]}:${m[3]}` : m[2]!, project: m[4]!.replace(/^\/+/, '') }
}

function value(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name]?.trim()
  return v ? v : null
}

/** The REST API root: the CI job's, else the server named in the environment, else the remote's host. */
function apiUrlOf(env: NodeJS.ProcessEnv, remote: ReturnType<typeof gitLabRemote>): string {
  const api = value(env, 'CI_API_V4_URL')
  if (api) return api
  const server = value(env, 'CI_SERVER_URL') ?? value(env, 'GITLAB_HOST')
  if (server) return `${/^https?:\/\//i.test(server) ? server : `https://${server}`}`.replace(/\/+$/, '') + '/api/v4'
  if (remote) return `${remote.scheme}://${remote.host}/api/v4`
  throw new UsageError('baseline pull: which GitLab server? there is no origin remote to tell: set GITLAB_HOST (e.g. https://gitlab.example.com)')
}

function projectOf(request: BaselineRequest, remote: ReturnType<typeof gitLabRemote>, url: string | null): string {
  const named = request.repo ?? value(request.env, 'CI_PROJECT_PATH')
  const project = named ?? remote?.project
  if (!project || !/^(\d+|[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+)$/.test(project)) {
    const why = named
      ? `"${named}" is neither a project id nor group/name`
      : url
        ? `the remote origin (${url}) names no group/project`
        : `${request.cwd} has no git remote "origin"`
    throw new UsageError(`baseline pull: which GitLab project? ${why}; say it with --repo GROUP/PROJECT`)
  }
  return project
}

/** Why a request with the token failed, and what to do about it. */
function refused(err: unknown, from: string): string {
  const status = err instanceof GitLabError ? err.status : -1
  if (status === 401 || status === 403)
    return `${errorMessage(err)}: GitLab refused the token in ${from}; it must be a personal, project or group access token with the read_api scope that may read this project`
  return errorMessage(err)
}

export const gitlabSource: BaselineSource = {
  id: 'gitlab',
  async pull(request: BaselineRequest): Promise<PulledBaseline> {
    if (request.workflow !== undefined)
      throw new UsageError("baseline pull: --workflow names a GitHub workflow; on GitLab the baseline is a job's: say it with --job NAME")
    if (request.artifactNamed)
      throw new UsageError(`baseline pull: --artifact-name is GitHub's; a GitLab job keeps the record as evalgate-run.json in its artifacts`)
    const url = originUrl(request.cwd, request.env)
    const remote = url ? gitLabRemote(url) : null
    const projectId = projectOf(request, remote, url)
    const token = tokenFrom(request.env)
    if (!token)
      throw new UsageError(
        "baseline pull needs a GitLab token that can read the project's job artifacts: set GITLAB_TOKEN (or EVALGATE_GITLAB_TOKEN) to a personal access token with the read_api scope"
      )
    const client = new GitLabClient({ apiUrl: apiUrlOf(request.env, remote), token })
    let branch = request.branch ?? null
    if (!branch) {
      try {
        branch = await projectDefaultBranch(client, projectId)
      } catch (err) {
        const missing = err instanceof GitLabError && err.status === 404
        throw new UsageError(
          `baseline pull: cannot read project ${projectId}'s default branch at ${client.apiUrl}: ${missing ? `${errorMessage(err)} (no such project, or the token in ${token.from} may not see it; name it with --repo GROUP/PROJECT)` : refused(err, token.from)}`
        )
      }
      if (!branch) throw new UsageError(`baseline pull: project ${projectId} has no default branch (is it empty?); name one with --branch`)
    }
    const jobName = request.job ?? DEFAULT_JOB
    const found = await findGitLabBaseline(client, { projectId, branch, jobName })
    if (found.status !== 'found')
      throw new UsageError(
        found.status === 'none'
          ? `baseline pull: no baseline in ${projectId}: ${found.reason} (is the job that runs evalgate gitlab named otherwise? say it with --job NAME)`
          : `baseline pull: the baseline of ${projectId} could not be read: ${found.reason}`
      )
    const { record } = found
    const web = client.apiUrl.replace(/\/api\/v4$/, '')
    const pipeline = record.git.runId
    const job = found.jobId !== null && found.jobId !== pipeline ? found.jobId : null
    const page = /^\d+$/.test(projectId) ? null : job ? `${web}/${projectId}/-/jobs/${job}` : pipeline ? `${web}/${projectId}/-/pipelines/${pipeline}` : null
    const commit = record.git.sha ? `, commit ${record.git.sha.slice(0, 7)}` : ''
    return {
      record,
      from: `${projectId}, ${job ? `job ${job}` : `pipeline ${pipeline ?? '(unnamed)'}`} "${jobName}" on ${branch} (${record.createdAt}${commit})`,
      url: page,
      notices: found.notices
    }
  }
}
