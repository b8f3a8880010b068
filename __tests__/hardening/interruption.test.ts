/**
 * SIGTERM to the real bundled CLI (dist/cli/index.js) in the middle of a run:
 * the record is written with `complete: false` and every finished case, the
 * exit code is 1 and the agents still running are stopped. The in-process
 * equivalent is in ../cli.test.ts; the action's in ../main.test.ts
 * ("never passes a run cut short by cancellation").
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { tempProject } from '../__fixtures__/cli.js'

const cli = path.resolve('dist/cli/index.js')
const agent = path.resolve('__tests__/__fixtures__/agents/faults-agent.mjs')

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('the bundled CLI interrupted', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s mid-run: writes complete: false with the finished cases, exits 1, leaves no agent behind',
    async (signal) => {
      const marker = `evalgate-interrupt-${randomBytes(6).toString('hex')}`
      const dir = tempProject({})
      const pidDir = path.join(dir, 'pids')
      mkdirSync(pidDir)
      const config = {
        name: 'interrupted',
        concurrency: 2,
        target: { command: ['node', agent, marker, pidDir], timeoutMs: 60_000 },
        cases: [
          { id: 'quick', input: 'ok:done', expected: 'done' },
          { id: 'stuck-1', input: 'hang' },
          { id: 'stuck-2', input: 'hang' }
        ]
      }
      const configFile = path.join(dir, 'evalgate.json')
      writeFileSync(configFile, JSON.stringify(config))
      const out = path.join(dir, 'run.json')
      // EVALGATE_NODE: CI runs the bundle under Node 24 too
      const child = spawn(process.env.EVALGATE_NODE ?? process.execPath, [cli, 'run', '-c', configFile, '--out', out, '--quiet'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      // the second hang starts only once "quick" has finished (two lanes, dataset order)
      await until(() => readdirSync(pidDir).filter((f) => f.startsWith('hang-')).length === 2, 60_000)
      const sent = Date.now()
      child.kill(signal)
      const code = await exited
      // stopping takes the kill grace (2 s); the bound only says it does not wait for the hanging agents
      expect(Date.now() - sent).toBeLessThan(30_000)
      expect(stderr).toContain(`${signal} received: stopping; finished cases will be written`)
      expect(stderr).toMatch(/run cut short: 1 of 3 cases finished/)
      expect(stderr).not.toMatch(/internal error|\n\s+at /)
      expect(code).toBe(1)
      expect(existsSync(out)).toBe(true)
      const record = JSON.parse(readFileSync(out, 'utf8'))
      expect(record.complete).toBe(false)
      expect(record.cases.map((c: { id: string; passed: boolean }) => [c.id, c.passed])).toEqual([['quick', true]])
      const table = () =>
        execFileSync('ps', ['-eo', 'pid,stat,args'], { encoding: 'utf8' })
          .split('\n')
          .filter((l) => l.includes(marker) && !/\sZ\S*\s/.test(l))
      await until(() => table().length === 0, 5_000)
    },
    120_000
  )
})
