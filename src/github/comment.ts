/**
 * The sticky PR comment: one per workflow file and config name. A
 * comment is ours only when its FIRST line is our marker (with the verdict we
 * showed) and its author is the token's own identity, by user id: the body
 * below that line shows model output, which can quote any marker, and other
 * bots (or people) can post a comment that starts with it.
 */
import { errorMessage } from '../errors.js'
import { readHeader, type CommentVerdict } from '../report/sticky.js'
import { httpStatus, type Octokit } from './context.js'
import type { CommentPolicy } from './inputs.js'

export const FORK_NOTICE =
  'comment skipped: the token cannot write to this pull request (fork?) — the workflow_run comment workflow comments for forks (evalgate init --fork-safe writes it; docs/action.md)'

export interface CommentAuthor {
  id?: number
  login?: string
  type?: string
}

export interface ExistingComment {
  id: number
  body?: string
  html_url?: string
  user?: CommentAuthor | null
}

/** Who the token writes comments as. */
export interface TokenIdentity {
  id: number
  login: string
}

/**
 * The user id of github-actions[bot] on github.com: the author of every
 * comment the workflow's GITHUB_TOKEN writes (public, and the same for every
 * repository: it is also in the bot's noreply address 41898282+github-actions[bot]@…).
 */
export const GITHUB_ACTIONS_BOT_ID = 41898282

/**
 * Who the token writes as, by user id (a login can be renamed and then taken
 * by someone else; an id cannot).
 * - A personal token (classic or fine-grained) may ask GET /user.
 * - An app installation token, and the workflow's GITHUB_TOKEN is one (of the
 *   GitHub Actions app), is refused GET /user (403 "Resource not accessible by
 *   integration"), and GET /app needs the app's JWT, not an installation
 *   token. The GraphQL `viewer` of an installation token is the app's bot user
 *   (github-actions[bot], or <slug>[bot] for a token of another app), with its
 *   id as `databaseId`.
 * - Where neither answers (a server without GraphQL), the GITHUB_TOKEN's bot
 *   id is assumed: a wrong guess costs a second comment, never someone else's
 *   comment overwritten.
 */
export async function tokenIdentity(octokit: Octokit): Promise<TokenIdentity> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated()
    return { id: data.id, login: data.login }
  } catch {
    // an installation token: ask GraphQL
  }
  try {
    const { viewer } = await octokit.graphql<{ viewer: { databaseId: number | null; login: string } }>('query { viewer { databaseId login } }')
    if (typeof viewer.databaseId === 'number') return { id: viewer.databaseId, login: viewer.login }
  } catch {
    // no GraphQL here: fall through to the workflow token's bot
  }
  return { id: GITHUB_ACTIONS_BOT_ID, login: 'github-actions[bot]' }
}

export function isOurs(comment: ExistingComment, marker: string, identity: TokenIdentity): boolean {
  return comment.user?.id === identity.id && readHeader(comment.body ?? '', marker) !== null
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
  verdict: CommentVerdict
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
export async function findComment(
  options: Pick<CommentOptions, 'octokit' | 'owner' | 'repo' | 'issueNumber' | 'marker'>,
  identity: TokenIdentity
): Promise<ExistingComment | null> {
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
 * flipped and the verdict is the one already shown, as our first line says
 * (no comment counts as a shown pass); `never` does nothing. A token that
 * cannot write (a fork's PR) gives a notice, not an error.
 */
export async function upsertComment(options: CommentOptions): Promise<CommentResult> {
  const { octokit, owner, repo, issueNumber, body, policy } = options
  if (policy === 'never') return skipped(null)
  try {
    const identity = await tokenIdentity(octokit)
    const existing = await findComment(options, identity)
    const shown = existing ? readHeader(existing.body ?? '', options.marker)!.verdict : 'pass'
    if (policy === 'on-change' && !options.changed && shown === options.verdict) {
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

export { commentBody, commentMarker, MAX_COMMENT_LENGTH, readHeader, type CommentVerdict } from '../report/sticky.js'
