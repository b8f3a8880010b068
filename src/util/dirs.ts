/** Making folders. */
import { mkdir, stat } from 'node:fs/promises'
import path from 'node:path'

function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code
}

/**
 * `mkdir -p` that cannot hang. Node's `mkdir(dir, {recursive: true})` spins
 * at full CPU for ever where a parent exists but cannot hold children (a
 * dangling symlink, a path under /proc): `--out /proc/x/run.json` never
 * returned. Here each missing folder is made on its own, from the nearest one
 * that exists, so such a parent fails with its own error, naming the path.
 */
export async function makeDir(dir: string): Promise<void> {
  const missing: string[] = []
  const wanted = path.resolve(dir)
  for (let at = wanted; ;) {
    try {
      const found = await stat(at)
      // the folder asked for exists: nothing to make, but it must be a folder
      if (at === wanted && !found.isDirectory()) throw notADirectory(wanted)
      break
    } catch (err) {
      if (codeOf(err) !== 'ENOENT') throw err
    }
    missing.push(at)
    const parent = path.dirname(at)
    if (parent === at) break
    at = parent
  }
  if (missing.length === 0) return
  for (const folder of missing.reverse()) {
    try {
      await mkdir(folder)
    } catch (err) {
      // made meanwhile, or a dangling symlink: the next folder down says whether it can hold one
      if (codeOf(err) !== 'EEXIST') throw err
    }
  }
  // the last folder made may be a file made meanwhile, or the dangling symlink (then it is still not there)
  if (!(await stat(wanted)).isDirectory()) throw notADirectory(wanted)
}

function notADirectory(dir: string): Error {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR' })
}
