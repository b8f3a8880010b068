/**
 * Reading a run record out of another run's artifact. Artifacts of other runs
 * are untrusted input: what is downloaded goes into a fresh folder of its own,
 * is read in memory out of the zip (see ../zip.ts), never extracted, and is
 * validated with parseRunRecord.
 */
import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { ArtifactClient } from '@actions/artifact'
import { parseRunRecord, recordFromChunks, type RecordOptions } from '../../config/record.js'
import { errorMessage } from '../../errors.js'
import type { RunRecord } from '../../types.js'
import { makeDir } from '../../util/dirs.js'
import { apiMessage, httpStatus, type Octokit } from '../context.js'
import { listZip, zipEntryChunks, ZipError } from '../zip.js'
import { isRecordArtifactName, RECORD_FILE } from './names.js'

const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024
const MAX_RECORD_BYTES = 128 * 1024 * 1024

export interface DownloadTarget {
  octokit: Octokit
  client: Pick<ArtifactClient, 'downloadArtifact'>
  token: string
  owner: string
  repo: string
  /** a fresh folder is made inside it for each download */
  tempDir: string
}

/** An artifact as the REST API lists it. */
export interface RestArtifact {
  id: number
  name: string
  expired: boolean
  created_at?: string | null
  digest?: string | null
}

/** The artifacts of a run whose names pass `keep`, every page of them. */
export async function listRunArtifacts(target: DownloadTarget, runId: number, keep: (name: string) => boolean): Promise<RestArtifact[]> {
  const { octokit, owner, repo } = target
  const matches: RestArtifact[] = []
  const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 })
  for await (const page of pages) {
    for (const a of page.data as RestArtifact[]) if (keep(a.name)) matches.push(a)
  }
  return matches
}

/** The newest non-expired artifact of the run holding the record published as `name`, and whether expired ones were seen. Throws what the API throws. */
export async function findRecordArtifact(target: DownloadTarget, runId: number, name: string): Promise<{ artifact: RestArtifact | null; expired: boolean }> {
  const matches = await listRunArtifacts(target, runId, (candidate) => isRecordArtifactName(candidate, name))
  const live = matches.filter((a) => !a.expired).sort((a, b) => b.id - a.id)
  return { artifact: live[0] ?? null, expired: matches.some((a) => a.expired) }
}

/** The run record inside a downloaded artifact: a zip holding run.json (or, uploaded unzipped, the JSON itself). */
export async function recordFromArtifactBytes(bytes: Buffer, label: string, options?: RecordOptions): Promise<RunRecord> {
  if (bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]))) {
    const entries = listZip(bytes)
    const entry = entries.find((e) => e.name === RECORD_FILE)
    if (!entry)
      throw new ZipError(
        `it holds no ${RECORD_FILE} (found: ${
          entries
            .map((e) => e.name)
            .slice(0, 5)
            .join(', ') || 'nothing'
        })`
      )
    // inflated and read a piece at a time: the record's text is never whole in memory
    return recordFromChunks(zipEntryChunks(bytes, entry, MAX_RECORD_BYTES), label, options)
  }
  return parseRunRecord(bytes, label, options)
}

/** Download one artifact into a fresh folder and read the run record out of it; throws when it cannot (a 410 when it expired meanwhile). */
export async function downloadRecord(target: DownloadTarget, runId: number, artifact: RestArtifact, options?: RecordOptions): Promise<RunRecord> {
  const bytes = await downloadArtifactBytes(target, runId, artifact)
  return recordFromArtifactBytes(bytes, `artifact "${artifact.name}" of run ${runId}`, options)
}

/**
 * One artifact's bytes, downloaded into a fresh folder (removed after) and
 * read in memory; checked against the digest GitHub recorded as they arrive,
 * and again as read, so that nothing that changed the file in between goes
 * unseen. Throws when it cannot (a 410 when it expired meanwhile).
 */
export async function downloadArtifactBytes(target: DownloadTarget, runId: number, artifact: RestArtifact): Promise<Buffer> {
  await makeDir(target.tempDir)
  const dir = await mkdtemp(path.join(target.tempDir, 'evalgate-download-'))
  try {
    const { digestMismatch } = await target.client.downloadArtifact(artifact.id, {
      path: dir,
      // the zip is read in memory (zip.ts), never extracted by the client
      skipDecompress: true,
      expectedHash: artifact.digest ?? undefined,
      findBy: { token: target.token, workflowRunId: runId, repositoryOwner: target.owner, repositoryName: target.repo }
    })
    if (digestMismatch) throw new ZipError('its content does not match the digest GitHub recorded')
    const files = await readdir(dir)
    if (files.length !== 1) throw new ZipError(`expected one downloaded file, found ${files.length}`)
    const file = path.join(dir, files[0]!)
    const info = await stat(file)
    if (!info.isFile()) throw new ZipError('the download is not a file')
    if (info.size > MAX_ARTIFACT_BYTES) throw new ZipError(`it is ${info.size} bytes, more than the ${MAX_ARTIFACT_BYTES} allowed`)
    const bytes = await readFile(file)
    if (artifact.digest && artifact.digest !== `sha256:${createHash('sha256').update(bytes).digest('hex')}`)
      throw new ZipError('the downloaded file changed before it was read: it no longer matches the digest GitHub recorded')
    return bytes
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Did the download fail because the artifact expired after it was listed (410 Gone)? */
export function isExpiredOnDownload(err: unknown): boolean {
  return httpStatus(err) === 410
}

export type RecordFetch = { status: 'ok'; record: RunRecord; artifactName: string } | { status: 'missing' | 'expired' | 'unreadable'; message: string }

/** Fetch the run record a run published as artifact `name`; never throws for a missing or bad artifact. */
export async function fetchRunRecord(target: DownloadTarget, runId: number, name: string, options?: RecordOptions): Promise<RecordFetch> {
  let found: { artifact: RestArtifact | null; expired: boolean }
  try {
    found = await findRecordArtifact(target, runId, name)
  } catch (err) {
    return { status: 'unreadable', message: `cannot list the artifacts of run ${runId}: ${apiMessage(err)}` }
  }
  if (!found.artifact) {
    return found.expired
      ? { status: 'expired', message: `the artifact "${name}" of run ${runId} has expired` }
      : { status: 'missing', message: `run ${runId} has no artifact "${name}"` }
  }
  try {
    const record = await downloadRecord(target, runId, found.artifact, options)
    return { status: 'ok', record, artifactName: found.artifact.name }
  } catch (err) {
    if (isExpiredOnDownload(err)) return { status: 'expired', message: `the artifact "${found.artifact.name}" of run ${runId} has expired` }
    return { status: 'unreadable', message: `the artifact "${found.artifact.name}" of run ${runId} is unreadable: ${errorMessage(err)}` }
  }
}
