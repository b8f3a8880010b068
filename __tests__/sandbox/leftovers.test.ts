/**
 * What the code under test leaves running is ended before the record is
 * written (SPEC §9): processes started below this one during the run, and
 * those that carry the run's mark after their parent exited. Real processes,
 * found through /proc (Linux).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { descendants, endLeftovers, leftovers, newRunMark } from '../../src/sandbox/leftovers.js'
import { RUN_MARK } from '../../src/util/env.js'
import { tempProject } from '../__fixtures__/cli.js'

const linux = existsSync('/proc/self/stat')
const maybe = linux ? it : it.skip

const started: number[] = []
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // ended by the test
    }
  }
})

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')
  } catch {
    return false
  }
}

/** A process that sleeps, detached from this one's group; its pid. */
function sleeper(env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH, ...env } })
  child.unref()
  started.push(child.pid!)
  return child
}

/** A process started by a shell that exits at once, so that it is no longer below this one; `mark` in its environment. */
async function orphanWith(mark: string): Promise<number> {
  const pidFile = path.join(tempProject({}), 'orphan.pid')
  const script = `require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)`
  const shell = spawn('sh', ['-c', `${JSON.stringify(process.execPath)} -e "${script}" ${JSON.stringify(pidFile)} &`], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH, [RUN_MARK]: mark }
  })
  await new Promise((resolve) => shell.on('exit', resolve))
  return pidIn(pidFile)
}

/** Polls until `condition` holds, for as long as a loaded machine may need (the test's own timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** Waits for a file a process writes its pid to (written whole: not just created). */
async function pidIn(file: string): Promise<number> {
  await until(() => existsSync(file) && readFileSync(file, 'utf8') !== '')
  const pid = Number(readFileSync(file, 'utf8'))
  started.push(pid)
  return pid
}

describe('leftovers', () => {
  maybe('are the processes started below this one since `before`, and marked ones that left it; not older ones', async () => {
    const old = sleeper()
    const before = await descendants()
    expect(before.has(old.pid!)).toBe(true)
    const mark = newRunMark()
    const child = sleeper()
    // a child of a shell that exits at once: reparented away, found by the mark it inherited
    const orphan = await orphanWith(mark)
    // an orphan with another run's mark is not this run's
    const stranger = await orphanWith(newRunMark())
    const found = await leftovers(mark, before)
    expect(found).toEqual(expect.arrayContaining([child.pid!, orphan]))
    expect(found).not.toContain(old.pid!)
    expect(found).not.toContain(process.pid)
    const ended = await endLeftovers(mark, before)
    expect(ended).toEqual(expect.arrayContaining([child.pid!, orphan]))
    await until(() => !alive(child.pid!) && !alive(orphan))
    expect(alive(child.pid!)).toBe(false)
    expect(alive(orphan)).toBe(false)
    expect(alive(old.pid!)).toBe(true)
    // started after `before`, but outside this process's tree and without this run's mark
    expect(alive(stranger)).toBe(true)
  })

  maybe('evaluate ends what a module agent left running, detached, before it writes the record', async () => {
    const dir = tempProject({
      'evalgate.yml': 'version: 1\nname: t\ncases: [{input: q, expected: q}]\ntarget:\n  module: ./agent.mjs\n',
      'agent.mjs': `import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
export default (input) => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' })
  child.unref()
  writeFileSync(new URL('left.pid', import.meta.url), String(child.pid))
  return input
}
`
    })
    const result = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { PATH: process.env.PATH } })
    const pid = await pidIn(path.join(dir, 'left.pid'))
    expect(result.leftovers).toBe(1)
    await until(() => !alive(pid))
    expect(alive(pid)).toBe(false)
  })
})
