/**
 * `evalgate init`: writes the starter files into a folder. Asks nothing, and
 * overwrites nothing: when any of the files exists, none is written.
 */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { UsageError } from '../errors.js'
import { makeDir } from '../util/dirs.js'
import { BRANCH_PATTERN, initFiles } from './templates.js'

export {
  ACTION_REF,
  AGENT_FILE,
  COMMENT_WORKFLOW_FILE,
  CONFIG_FILE,
  DATASET_FILE,
  PACKAGE_SPEC,
  PR_EVENT_TYPES,
  SCHEMA_URL,
  WORKFLOW_FILE,
  WORKFLOW_NAME,
  initFiles
} from './templates.js'

export interface InitOptions {
  /** the branch whose runs are the baseline; default "main" */
  branch?: string
  /** also write the workflow_run workflow that comments on fork PRs */
  forkSafe?: boolean
}

/** Write the starter files into dir; returns the paths written, relative to dir. */
export async function initProject(dir: string, options: InitOptions = {}): Promise<string[]> {
  const branch = options.branch ?? 'main'
  if (!BRANCH_PATTERN.test(branch)) throw new UsageError(`--branch "${branch}": give a branch name (letters, digits, ".", "_", "-", "/")`)
  const files = initFiles({ branch, forkSafe: options.forkSafe })
  const existing = files.filter((f) => existsSync(path.join(dir, f.path))).map((f) => f.path)
  if (existing.length > 0) {
    throw new UsageError(`init writes nothing over existing files; already in ${dir}: ${existing.join(', ')} (move them away, or use --dir to start elsewhere)`)
  }
  for (const f of files) {
    const file = path.join(dir, f.path)
    await makeDir(path.dirname(file))
    // "wx": should a file appear since the check above, fail instead of replacing it
    await writeFile(file, f.content, { flag: 'wx' })
  }
  return files.map((f) => f.path)
}
