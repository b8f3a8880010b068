/** Uploading this run's record (and report) as an artifact: on the baseline branch it is the next baseline. */
import type { ArtifactClient } from '@actions/artifact'
import { errorMessage } from '../../errors.js'
import { attemptName } from './names.js'

export interface UploadOptions {
  client: Pick<ArtifactClient, 'uploadArtifact'>
  name: string
  /** absolute paths of the files to upload, all inside rootDir */
  files: string[]
  rootDir: string
  /** GITHUB_RUN_ATTEMPT: a re-run finds the name taken by its earlier attempt */
  runAttempt: number
}

export interface UploadResult {
  name: string
  id: number | null
  /** the SHA-256 (hex) of the zip uploaded, as the client computed it while uploading */
  digest: string | null
  /** set when the artifact had to take another name */
  notice: string | null
}

function isNameConflict(err: unknown): boolean {
  // the results service answers 409 Conflict "an artifact with this name already exists on the workflow run"
  return /\(409\)|already exists/i.test(errorMessage(err))
}

/**
 * Upload the run's files as artifact `name`. Artifacts cannot be replaced within
 * a run, and a re-run keeps the earlier attempt's: then the name gets the suffix
 * `-attempt-<n>` (the baseline lookup takes the newest of these). Another job of
 * the same run holding the name is a usage error the message explains.
 */
export async function uploadRunArtifact(options: UploadOptions): Promise<UploadResult> {
  const { client, name, files, rootDir, runAttempt } = options
  try {
    const { id, digest } = await client.uploadArtifact(name, files, rootDir)
    return { name, id: id ?? null, digest: digest ?? null, notice: null }
  } catch (err) {
    if (!isNameConflict(err)) throw err
    if (runAttempt <= 1) {
      throw new Error(
        `artifact "${name}" already exists in this workflow run: two jobs evaluate a config with the same name; give each job its own artifact-name (${errorMessage(err)})`
      )
    }
  }
  const retried = attemptName(name, runAttempt)
  const { id, digest } = await client.uploadArtifact(retried, files, rootDir)
  return {
    name: retried,
    id: id ?? null,
    digest: digest ?? null,
    notice: `artifact "${name}" exists from an earlier attempt of this run; this attempt's run record is uploaded as "${retried}"`
  }
}
