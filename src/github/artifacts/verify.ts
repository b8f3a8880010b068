/**
 * What is uploaded is what was computed: the run record is written
 * to a file that the artifact client reads while it uploads, and a process the
 * code under test left behind could rewrite that file in between. So the
 * artifact just uploaded is downloaded again and its run.json compared with
 * the digest of the bytes evalgate wrote, computed in memory as it wrote them
 * (util/json-writer.ts) — kept where no other process can reach it.
 */
import { createHash } from 'node:crypto'
import { errorMessage } from '../../errors.js'
import { listZip, zipEntryChunks } from '../zip.js'
import { downloadArtifactBytes, type DownloadTarget } from './download.js'
import { RECORD_FILE } from './names.js'

/** An artifact as the upload returned it. */
export interface UploadedArtifact {
  name: string
  id: number
  /** the SHA-256 (hex) of the zip the client uploaded, when it says */
  digest: string | null
}

const MAX_RECORD_BYTES = 128 * 1024 * 1024

/** SHA-256 (hex) of the run record inside an artifact's zip. */
async function recordDigest(zip: Buffer): Promise<string> {
  const entry = listZip(zip).find((e) => e.name === RECORD_FILE)
  if (!entry) throw new Error(`it holds no ${RECORD_FILE}`)
  const hash = createHash('sha256')
  for await (const chunk of zipEntryChunks(zip, entry, MAX_RECORD_BYTES)) hash.update(chunk)
  return hash.digest('hex')
}

/** What the check found instead of the record written: another record's digest, or why it could not read one. */
export type RecordMismatch = { found: string } | { error: string }

/** Null when the artifact holds the record whose bytes hash to `written`; else what it holds instead. */
export async function verifyUploadedRecord(target: DownloadTarget, runId: number, uploaded: UploadedArtifact, written: string): Promise<RecordMismatch | null> {
  try {
    const zip = await downloadArtifactBytes(target, runId, {
      id: uploaded.id,
      name: uploaded.name,
      expired: false,
      digest: uploaded.digest ? `sha256:${uploaded.digest}` : null
    })
    const found = await recordDigest(zip)
    return found === written ? null : { found }
  } catch (err) {
    return { error: errorMessage(err) }
  }
}
