/**
 * Trusted files: a file a trusted setting names — a command judge's
 * program, and the modules it imports by relative path — is read at the pull
 * request's base commit (contents API), not from the pull request's checkout,
 * and written to a folder of its own that mirrors the config's folder. The
 * judge runs that copy; the pull request's own version never grades and never
 * gets the judge's environment. What differs is listed as a config change.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { impliedPaths, isModulePath, MAX_MODULES, relativeImports } from '../config/fingerprint.js'
import type { JudgeConfig } from '../config/schema.js'
import type { ConfigChange } from '../config/trusted.js'
import { UsageError } from '../errors.js'
import { splitArgv } from '../util/argv.js'
import { apiMessage, type Octokit } from './context.js'
import { readFileAt } from './contents.js'

export interface TrustedFiles {
  /** the folder holding the base commit's copies, laid out as the config's folder is */
  dir: string
  /** their paths relative to the config's folder ("judge.mjs", "lib/score.mjs") */
  files: string[]
  /** the files whose copy in the pull request differs from the base commit's: "Config changes (apply after merge)" */
  changes: ConfigChange[]
}

export interface TrustedFilesSource {
  octokit: Octokit
  repo: { owner: string; repo: string }
  /** the base commit */
  ref: string
  /** the config's folder relative to the repository root ('' at the root) */
  configDir: string
  /** the config's folder in the pull request's checkout */
  baseDir: string
  /** where the copies go (RUNNER_TEMP) */
  tempDir: string
}

/** The argv words of a command judge that may name a file of the repository (no flags, no `${VAR}`, no absolute paths). */
function fileWords(judge: JudgeConfig): string[] {
  if (judge.provider !== 'command' || judge.command === undefined) return []
  const argv = typeof judge.command === 'string' ? splitArgv(judge.command, 'judge.command') : judge.command
  return argv.filter((word) => word !== '' && !word.startsWith('-') && !word.includes('${') && !path.isAbsolute(word))
}

/** `rel` (relative to the config's folder, POSIX) inside the config's folder, or null when it climbs out of it. */
function inside(rel: string): string | null {
  const normal = path.posix.normalize(rel)
  return normal === '.' || normal.startsWith('../') || normal === '..' ? null : normal
}

function digest(text: string | null): string {
  return text === null ? 'missing' : `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`
}

function readLocal(file: string): string | null {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

/** The base commit's copies of files named relative to the config's folder, and of the modules they import by relative path. */
export interface TrustedCopies {
  dir: string
  /** relative path → text, of every file copied */
  texts: Map<string, string>
}

/**
 * Reads `names` (relative to the config's folder) at the base commit, with the
 * modules they import by relative path (as the fingerprint follows them), and
 * copies them to a fresh folder under `tempDir`; null when none exists there.
 * `what` names them in an error ("the trusted judge").
 */
export async function trustedCopies(names: readonly string[], source: TrustedFilesSource, what: string): Promise<TrustedCopies | null> {
  const read = async (rel: string): Promise<string | null> => {
    const repoPath = source.configDir ? `${source.configDir}/${rel}` : rel
    try {
      return await readFileAt(source.octokit, source.repo, repoPath, source.ref)
    } catch (err) {
      // a folder named in argv (a cwd-like word) is no file
      if (err instanceof UsageError) return null
      throw new UsageError(`cannot read ${repoPath} at the base commit ${source.ref.slice(0, 7)}, which ${what} runs: ${apiMessage(err, 'contents: read')}`)
    }
  }
  const found = new Map<string, string>()
  const queue: string[] = []
  for (const name of names) {
    const rel = inside(name)
    if (rel === null || found.has(rel)) continue
    const text = await read(rel)
    if (text === null) continue
    found.set(rel, text)
    queue.push(rel)
  }
  if (found.size === 0) return null
  // the modules they import by relative path, as the fingerprint follows them
  for (let rel = queue.shift(); rel !== undefined && found.size < MAX_MODULES; rel = queue.shift()) {
    if (!isModulePath(rel)) continue
    for (const specifier of relativeImports(found.get(rel)!)) {
      for (const candidate of impliedPaths(path.posix.join(path.posix.dirname(rel), specifier))) {
        const target = inside(candidate)
        if (target === null || found.has(target)) break
        const text = await read(target)
        if (text === null) continue
        found.set(target, text)
        queue.push(target)
        break
      }
    }
  }
  await mkdir(source.tempDir, { recursive: true })
  const dir = await mkdtemp(path.join(source.tempDir, 'evalgate-trusted-'))
  for (const [rel, text] of found) {
    const file = path.join(dir, ...rel.split('/'))
    await mkdir(path.dirname(file), { recursive: true })
    await writeFile(file, text)
  }
  return { dir, texts: found }
}

/**
 * The base commit's copies of the files the judge's command names and the
 * modules they import, or null when the judge is no command or names none of
 * the repository's files.
 */
export async function trustedJudgeFiles(judge: JudgeConfig | undefined, source: TrustedFilesSource): Promise<TrustedFiles | null> {
  if (!judge) return null
  const copies = await trustedCopies(fileWords(judge), source, 'the trusted judge')
  if (!copies) return null
  const files = [...copies.texts.keys()].sort()
  const changes: ConfigChange[] = []
  for (const rel of files) {
    const text = copies.texts.get(rel)!
    const head = readLocal(path.join(source.baseDir, ...rel.split('/')))
    if (head !== text) changes.push({ key: `judge.command file ${rel}`, base: digest(text), head: digest(head) })
  }
  return { dir: copies.dir, files, changes }
}
