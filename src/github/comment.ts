/**
 * The sticky PR comment (SPEC §7): one per workflow file and config name, found
 * by a hidden marker among the comments the token's own identity wrote, and
 * updated in place.
 */
import { errorMessage } from '../errors.js'
import { httpStatus, type Octokit } from './context.js'
import type { CommentPolicy } from './inputs.js'

/** GitHub refuses comment bodies over 65,536 characters; the report stays well under. */
export const MAX_COMMENT_LENGTH = 60_000

export type Verdict = 'pass' | 'fail'

export const FORK_NOTICE = "comment skipped: the token cannot write to this pull request (fork?) — see README's workflow_run pattern"

function markerText(text: string): string {
  // nothing that could end the HTML comment early or start a new line
  return text.replace(/--+|>|[\r\n]/g, '_')
}

export function commentMarker(workflowFile: string, configName: string): string {
  return `<!-- evalgate:${markerText(workflowFile)}:${markerText(configName)} -->`
}

const VERDICT = /<!-- evalgate-verdict:(pass|fail) -->/

export function verdictMarker(verdict: Verdict): string {
  return `<!-- evalgate-verdict:${verdict} -->`
}

export function verdictOf(body: string): Verdict | null {
  return (VERDICT.exec(body)?.[1] as Verdict | undefined) ?? null
}

/** The comment body: the marker first, the report, the verdict last; never over `max` characters. */
export function commentBody(marker: string, report: string, verdict: Verdict, max = MAX_COMMENT_LENGTH): string {
  const head = `${marker}\n`
  const tail = `\n${verdictMarker(verdict)}\n`
  const room = max - head.length - tail.length
  let text = report.split(marker).join('').trim()
  if (text.length > room) {
    // renderReport keeps within its maxLength; this only guards against a miscount
    const note = '\n\n_(report truncated to fit a comment; the full report is in the job summary)_'
    const cut = text.lastIndexOf('\n', room - note.length)
    text = text.slice(0, cut > 0 ? cut : room - note.length) + note
  }
  return `${head}${text}${tail}`
}

export interface CommentAuthor {
  login?: string
  type?: string
}

export interface ExistingComment {
  id: number
  body?: string
  html_url?: string
  user?: CommentAuthor | null
}

/**
 * Who the token writes as. A personal token can ask GET /user; the workflow's
 * GITHUB_TOKEN (an app installation) cannot, and its comments are a Bot's.
 */
export async function tokenIdentity(octokit: Octokit): Promise<{ login: string | null }> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated()
    return { login: data.login }
  } catch {
    return { login: null }
  }
}

export function isOurs(comment: ExistingComment, marker: string, identity: { login: string | null }): boolean {
  if (!comment.body?.includes(marker)) return false
  const user = comment.user ?? {}
  return identity.login !== null ? user.login === identity.login : user.type === 'Bot'
}

export interface CommentOptions {
  octokit: Octokit
  owner: string
  repo: string
  issueNumber: number
  marker: string
  /** from commentBody */
  body: string
  policy: CommentPolicy
  verdict: Verdict
  /** any case flipped (regressed or fixed) */
  changed: boolean
}

export interface CommentResult {
  action: 'created' | 'updated' | 'unchanged' | 'skipped'
  id: number | null
  url: string | null
  notice: string | null
}

/** Find our comment among all of the PR's comments, page by page. */
export async function findComment(options: Pick<CommentOptions, 'octokit' | 'owner' | 'repo' | 'issueNumber' | 'marker'>, identity: { login: string | null }): Promise<ExistingComment | null> {
  const { octokit, owner, repo, issueNumber, marker } = options
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, { owner, repo, issue_number: issueNumber, per_page: 100 })
  for await (const page of pages) {
    const found = (page.data as ExistingComment[]).find((c) => isOurs(c, marker, identity))
    if (found) return found
  }
  return null
}

function skipped(notice: string | null): CommentResult {
  return { action: 'skipped', id: null, url: null, notice }
}

/**
 * Create or update the sticky comment. `on-change` stays quiet while nothing
 * flipped and the verdict is the one already shown (no comment counts as a
 * shown pass); `never` does nothing. A token that cannot write (a fork's PR)
 * gives a notice, not an error.
 */
export async function upsertComment(options: CommentOptions): Promise<CommentResult> {
  const { octokit, owner, repo, issueNumber, body, policy } = options
  if (policy === 'never') return skipped(null)
  try {
    const identity = await tokenIdentity(octokit)
    const existing = await findComment(options, identity)
    if (policy === 'on-change' && !options.changed && (existing ? verdictOf(existing.body ?? '') : 'pass') === options.verdict) {
      return { action: 'unchanged', id: existing?.id ?? null, url: existing?.html_url ?? null, notice: null }
    }
    if (existing) {
      const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body })
      return { action: 'updated', id: data.id, url: data.html_url, notice: null }
    }
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body })
    return { action: 'created', id: data.id, url: data.html_url, notice: null }
  } catch (err) {
    const status = httpStatus(err)
    if (status === 403 || status === 404) return skipped(`${FORK_NOTICE} (${status}: ${errorMessage(err).split('\n')[0]})`)
    throw err
  }
}
