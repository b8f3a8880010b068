/**
 * The GitHub source of `evalgate baseline pull`: the same lookup the action
 * makes for a pull request (github/artifacts/baseline.ts: the newest run of
 * the workflow on the branch, from push, schedule or workflow_dispatch of this
 * repository, its commit on the branch, its record validated), from a laptop.
 * Token: GITHUB_TOKEN, else GH_TOKEN, else `gh auth token`.
 */
import path from 'node:path'
import { UsageError } from '../errors.js'
import { findBaseline } from '../github/artifacts/baseline.js'
import { artifactClient } from '../github/artifacts/client.js'
import { apiMessage, createOctokit, httpStatus, type Octokit } from '../github/context.js'
import { WORKFLOW_FILE } from '../init/templates.js'
import { originUrl, outputOf } from '../util/git.js'
import type { BaselineRequest, BaselineSource, PulledBaseline } from './sources.js'

/** The token to read the repository's runs and artifacts with (actions: read), and where it came from. */
function tokenOf(request: BaselineRequest): string {
  const { env } = request
  const token = env.GITHUB_TOKEN || env.GH_TOKEN || outputOf('gh', ['auth', 'token'], request.cwd, env)
  if (!token)
    throw new UsageError(
      'baseline pull needs a GitHub token that can read the repository\'s Actions runs and artifacts: set GITHUB_TOKEN (a fine-grained token with "Actions: read" and "Contents: read"), or log in with the GitHub CLI (gh auth login)'
    )
  return token
}

/** "owner/name" out of a GitHub remote URL: https, ssh or scp-like. */
export function repositoryOfRemote(url: string): string | null {
  const m = /^(?:[a-z+]+:\/\/)?(?:[^@/]+@)?[^/:]+(?::\d+)?[/:]([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(url.trim())
  return m ? `${m[1]}/${m[2]}` : null
}

function repositoryOf(request: BaselineRequest): string {
  const named = request.repo ?? request.env.GITHUB_REPOSITORY
  const remote = named ? null : originUrl(request.cwd, request.env)
  const repository = named ?? (remote ? repositoryOfRemote(remote) : null)
  if (!repository || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) {
    const why = named
      ? `"${named}" is not owner/name`
      : remote
        ? `the remote origin (${remote}) names no owner/name`
        : `${request.cwd} has no git remote "origin"`
    throw new UsageError(`baseline pull: which repository? ${why}; say it with --repo OWNER/NAME`)
  }
  return repository
}

/** A workflow the repository does not have is named as such, with the ones it has, rather than as a run list that could not be read. */
async function checkWorkflow(octokit: Octokit, owner: string, repo: string, workflow: string): Promise<void> {
  try {
    await octokit.rest.actions.getWorkflow({ owner, repo, workflow_id: workflow })
  } catch (err) {
    if (httpStatus(err) !== 404) return
    let names: string[] = []
    try {
      const { data } = await octokit.rest.actions.listRepoWorkflows({ owner, repo, per_page: 100 })
      names = data.workflows.map((w) => path.posix.basename(w.path))
    } catch {
      names = []
    }
    throw new UsageError(
      `baseline pull: ${owner}/${repo} has no workflow ${workflow}${names.length ? ` (its workflows: ${names.join(', ')})` : ' that this token can see'}: name the one that runs evalgate with --workflow FILE`
    )
  }
}

/**
 * The artifact client logs through @actions/core to the process's stdout
 * (`::debug::` lines, download progress): a workflow log's business, not a
 * terminal's. What it would say of a failure is in the error it throws.
 */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stdout.write
  process.stdout.write = (() => true) as typeof process.stdout.write
  try {
    return await work()
  } finally {
    process.stdout.write = write
  }
}

export const githubSource: BaselineSource = {
  id: 'github',
  async pull(request: BaselineRequest): Promise<PulledBaseline> {
    if (request.job !== undefined)
      throw new UsageError("baseline pull: --job names a GitLab job; on GitHub the baseline is a workflow's: say it with --workflow FILE")
    const artifactName = await request.artifactName()
    const repository = repositoryOf(request)
    const [owner, repo] = repository.split('/') as [string, string]
    const token = tokenOf(request)
    const octokit = createOctokit(token, { apiUrl: request.env.GITHUB_API_URL || 'https://api.github.com' })
    let branch = request.branch
    if (!branch) {
      try {
        branch = (await octokit.rest.repos.get({ owner, repo })).data.default_branch
      } catch (err) {
        throw new UsageError(`baseline pull: cannot read ${repository}'s default branch: ${apiMessage(err, 'contents: read')}`)
      }
    }
    // a path such as .github/workflows/evalgate.yml names the same workflow as its file name
    const workflow = path.posix.basename((request.workflow ?? WORKFLOW_FILE).replaceAll('\\', '/'))
    await checkWorkflow(octokit, owner, repo, workflow)
    const client = await artifactClient()
    const lookup = await quietly(() =>
      findBaseline({
        octokit,
        client,
        token,
        owner,
        repo,
        repository,
        tempDir: request.tempDir,
        workflow,
        branch,
        artifactName,
        // the newest run, as a pull request opened now would be compared with
        baseSha: null,
        currentRunId: null
      })
    )
    if (lookup.status !== 'found')
      throw new UsageError(
        lookup.status === 'none'
          ? `baseline pull: no baseline in ${repository}: ${lookup.reason}`
          : `baseline pull: the baseline of ${repository} could not be read: ${lookup.reason}`
      )
    const { run } = lookup
    return {
      record: lookup.record,
      from: `${repository}, run ${run.id} of ${workflow} on ${branch} (commit ${run.sha.slice(0, 7)}, ${run.createdAt})`,
      url: run.url,
      notices: lookup.notices
    }
  }
}
