/**
 * A file of the repository at a commit, through the contents API
 * (`GET /repos/{owner}/{repo}/contents/{path}?ref={sha}`): how a pull-request
 * run reads the config of its base commit, whose gate the change cannot weaken.
 */
import path from 'node:path'
import { UsageError } from '../errors.js'
import { httpStatus, type Octokit } from './context.js'

/** The path of `file` relative to the repository root, in the API's form; refused when it lies outside. */
export function repositoryPath(file: string, workspace: string): string {
  const relative = path.relative(path.resolve(workspace), path.resolve(file))
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new UsageError(`config: ${file} is outside the repository checkout (${workspace}); the base commit's copy of it cannot be read`)
  }
  return relative.split(path.sep).join('/')
}

/** The text of `filePath` at `ref`, or null when the file does not exist there. Other failures throw. */
export async function readFileAt(octokit: Octokit, repo: { owner: string; repo: string }, filePath: string, ref: string): Promise<string | null> {
  let data: unknown
  try {
    ;({ data } = await octokit.rest.repos.getContent({ owner: repo.owner, repo: repo.repo, path: filePath, ref }))
  } catch (err) {
    if (httpStatus(err) === 404) return null
    throw err
  }
  const file = data as { type?: string; encoding?: string; content?: string }
  if (Array.isArray(data) || file.type !== 'file' || typeof file.content !== 'string') {
    throw new UsageError(`config: ${filePath} at ${ref.slice(0, 7)} is not a file`)
  }
  if (file.encoding !== 'base64') throw new UsageError(`config: ${filePath} at ${ref.slice(0, 7)} came in encoding "${file.encoding}", expected base64`)
  return Buffer.from(file.content, 'base64').toString('utf8')
}

/**
 * When a commit was committed (`GET /repos/{owner}/{repo}/commits/{sha}`): what
 * a baseline's age is measured against. Null when it cannot be
 * read: the age is then measured against the run, which is no less strict.
 */
export async function commitDate(octokit: Octokit, repo: { owner: string; repo: string }, sha: string): Promise<string | null> {
  try {
    const { data } = await octokit.rest.repos.getCommit({ owner: repo.owner, repo: repo.repo, ref: sha, per_page: 1 })
    return data.commit.committer?.date ?? data.commit.author?.date ?? null
  } catch {
    return null
  }
}
