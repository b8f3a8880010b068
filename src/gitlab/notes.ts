/**
 * The sticky merge-request note: one per CI job and config name,
 * found among all of the merge request's notes (page by page) by its first
 * line — the hidden marker and the verdict shown (report/sticky.ts) — and its
 * author, the token's own user by id; updated in place, else created. Notes
 * by anyone else that quote the marker are never touched.
 */
import { errorMessage } from '../errors.js'
import { readHeader } from '../report/sticky.js'
import { GitLabError, projectSegment, type GitLabClient } from './client.js'

interface RestNote {
  id: number
  body?: string
  system?: boolean
  author?: { id?: number; username?: string } | null
}

export interface NoteTarget {
  projectId: string
  iid: string
  marker: string
}

export interface NoteResult {
  action: 'created' | 'updated' | 'skipped'
  id: number | null
  /** why it was skipped (not an error: the verdict stands) */
  notice: string | null
}

/** Our note among the merge request's, or null. */
export async function findNote(client: GitLabClient, target: NoteTarget, userId: number): Promise<RestNote | null> {
  const path = `/projects/${projectSegment(target.projectId)}/merge_requests/${encodeURIComponent(target.iid)}/notes?sort=asc&order_by=created_at`
  for await (const page of client.pages<RestNote>(path)) {
    const found = page.find((n) => !n.system && n.author?.id === userId && readHeader(n.body ?? '', target.marker) !== null)
    if (found) return found
  }
  return null
}

/**
 * Create or update the note. A token that may not write notes (403, 404: a
 * fork's merge request, a token without `api` scope) is a notice; other
 * failures throw (the caller warns: a note that cannot be posted never
 * changes the verdict).
 */
export async function upsertNote(client: GitLabClient, target: NoteTarget, body: string): Promise<NoteResult> {
  const notes = `/projects/${projectSegment(target.projectId)}/merge_requests/${encodeURIComponent(target.iid)}/notes`
  try {
    const me = await client.json<{ id: number; username?: string }>('GET', '/user')
    const existing = await findNote(client, target, me.id)
    if (existing) {
      const updated = await client.json<{ id: number }>('PUT', `${notes}/${existing.id}`, { body })
      return { action: 'updated', id: updated.id, notice: null }
    }
    const created = await client.json<{ id: number }>('POST', notes, { body })
    return { action: 'created', id: created.id, notice: null }
  } catch (err) {
    if (err instanceof GitLabError && (err.status === 403 || err.status === 404))
      return { action: 'skipped', id: null, notice: `note skipped: the token cannot write to this merge request (${errorMessage(err)})` }
    throw err
  }
}
