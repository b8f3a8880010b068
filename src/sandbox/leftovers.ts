/**
 * Ending what the code under test left running. A target's process group is killed when its trial
 * ends, but a child that calls `setsid` (Node's `detached: true`) leaves the
 * group, and a `module` agent's children are evalgate's own. Before the
 * record is written, every process that descends from evalgate's (by parent
 * id, from /proc), and every process that still carries the run's mark in its
 * environment (a child of a child that exited, reparented away), is killed.
 * Linux only (/proc); elsewhere nothing is found.
 */
import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { RUN_MARK } from '../util/env.js'

/** A fresh mark for one run: unguessable, so that no other process is taken for one of this run's. */
export function newRunMark(): string {
  return randomBytes(12).toString('hex')
}

interface ProcessInfo {
  pid: number
  ppid: number
}

/** `/proc/<pid>/stat`: the parent id is the second field after the command name, which is in parentheses and may hold anything. */
function parseStat(pid: number, text: string): ProcessInfo | null {
  const close = text.lastIndexOf(')')
  if (close === -1) return null
  const fields = text.slice(close + 2).split(' ')
  const ppid = Number(fields[1])
  return Number.isInteger(ppid) ? { pid, ppid } : null
}

async function processes(): Promise<ProcessInfo[]> {
  let names: string[]
  try {
    names = await readdir('/proc')
  } catch {
    return []
  }
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        try {
          return parseStat(Number(name), await readFile(`/proc/${name}/stat`, 'utf8'))
        } catch {
          // gone meanwhile
          return null
        }
      })
  )
  return found.filter((p): p is ProcessInfo => p !== null)
}

async function carriesMark(pid: number, mark: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/environ`, 'latin1')).split('\0').includes(`${RUN_MARK}=${mark}`)
  } catch {
    return false
  }
}

/** The processes below `root` (its children, theirs, …) now. */
export async function descendants(root = process.pid): Promise<Set<number>> {
  return below(await processes(), root)
}

function below(all: ProcessInfo[], root: number): Set<number> {
  const children = new Map<number, number[]>()
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid])
  const found = new Set<number>()
  const queue = [...(children.get(root) ?? [])]
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (found.has(pid)) continue
    found.add(pid)
    queue.push(...(children.get(pid) ?? []))
  }
  return found
}

/**
 * What this run left behind: the processes below `root` that were not there
 * when it began (`before`), and every other one that carries `mark` — never
 * `root` itself or its ancestors.
 */
export async function leftovers(mark: string, before: ReadonlySet<number>, root = process.pid): Promise<number[]> {
  const all = await processes()
  const started = [...below(all, root)].filter((pid) => !before.has(pid))
  const ancestors = new Set<number>()
  const parentOf = new Map(all.map((p) => [p.pid, p.ppid]))
  for (let pid: number | undefined = root; pid !== undefined && pid > 0 && !ancestors.has(pid); pid = parentOf.get(pid)) ancestors.add(pid)
  const others = all.filter((p) => !started.includes(p.pid) && !ancestors.has(p.pid) && !before.has(p.pid))
  const marked = await Promise.all(others.map(async (p) => ((await carriesMark(p.pid, mark)) ? p.pid : null)))
  return [...started, ...marked.filter((pid): pid is number => pid !== null)].sort((a, b) => a - b)
}

/** Kills every leftover of this run (SIGKILL: the run is over, nothing of theirs is waited for); the pids killed. */
export async function endLeftovers(mark: string, before: ReadonlySet<number>, root = process.pid): Promise<number[]> {
  const pids = await leftovers(mark, before, root)
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
  return pids
}
