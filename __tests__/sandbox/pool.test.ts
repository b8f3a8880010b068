/**
 * The sandbox pool itself: the workers' own environment, deadlines that stop a
 * stuck worker without losing its neighbours' work, and nothing of what the
 * code does reaching the main thread.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from '@jest/globals'
import { Sandbox, warmWorker, type SandboxItem } from '../../src/sandbox/index.js'

const pools: Sandbox[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()))
})

function pool(workers = 1, env: Record<string, string> = { PATH: process.env.PATH ?? '' }): Sandbox {
  const made = new Sandbox({ env, workers, resourceLimits: LIMITS })
  pools.push(made)
  return made
}

const script = (body: string, output = 'out'): SandboxItem => ({ kind: 'script', body, output, input: 'in', context: {} })
const LIMITS = { maxOldGenerationSizeMb: 128 }
const envKeys = script('return JSON.stringify(Object.keys(process.env).sort())')

describe('the sandbox pool', () => {
  it('runs a batch and answers each item in order', async () => {
    const results = await pool().run([
      script('return output + input'),
      { kind: 'match', source: 'b+', flags: '', text: 'abbbc' },
      { kind: 'test', source: '^x', flags: '', text: 'y' }
    ])
    expect(results).toEqual([
      { ok: true, value: 'outin' },
      { ok: true, value: 'bbb' },
      { ok: true, value: false }
    ])
  })

  it('gives the code only the environment it was made with', async () => {
    const [seen] = await pool(1, { PATH: '/bin', ONLY: 'this' }).run([script('return JSON.stringify(Object.keys(process.env).sort())')])
    expect(seen).toEqual({ ok: true, value: JSON.stringify(['ONLY', 'PATH']) })
  })

  it('gives a worker started ahead the environment of the sandbox that takes it, and holds its deadlines', async () => {
    // up before it is taken: the sandbox must arm deadlines at once, not wait for an 'online' already past
    await warmWorker(LIMITS)
    const sandbox = pool(1, { PATH: '/bin', ONLY: 'this' })
    expect(await sandbox.run([envKeys])).toEqual([{ ok: true, value: JSON.stringify(['ONLY', 'PATH']) }])
    expect(await sandbox.run([script('while (true) {}')], { timeoutMs: 1000, timeoutName: 'checkTimeoutMs' })).toEqual([
      { ok: false, error: 'did not finish within checkTimeoutMs (1000 ms)', timedOut: true }
    ])
  })

  it('gives a worker started ahead to one sandbox only', async () => {
    await warmWorker(LIMITS)
    const [a, b] = await Promise.all([pool(1, { A: '1' }).run([envKeys]), pool(1, { B: '2' }).run([envKeys])])
    expect([a, b]).toEqual([[{ ok: true, value: '["A"]' }], [{ ok: true, value: '["B"]' }]])
  })

  it('answers every task when tasks start while others are answered (sent in pieces, not in turns)', async () => {
    const sandbox = pool(1)
    const answers: unknown[] = []
    let started = 0
    // 64 at a time, each answer starting the next, as the runner's trials do
    const next = async (): Promise<void> => {
      while (started < 1000) {
        const n = started++
        const [outcome] = await sandbox.run([script(`return ${n} * 2`)])
        answers[n] = outcome
      }
    }
    await Promise.all(Array.from({ length: 64 }, next))
    expect(answers).toEqual(Array.from({ length: 1000 }, (_, n) => ({ ok: true, value: n * 2 })))
  })

  it('stops a task stuck in a loop at its deadline, reruns the work it held up, and goes on', async () => {
    const sandbox = pool(1)
    const stuck = sandbox.run([script('while (true) {}')], { timeoutMs: 2000, timeoutName: 'checkTimeoutMs' })
    // queued behind the loop on the one worker: held up, not at fault
    const neighbour = sandbox.run([script('return 42')], { timeoutMs: 60_000 })
    expect(await stuck).toEqual([{ ok: false, error: 'did not finish within checkTimeoutMs (2000 ms)', timedOut: true }])
    expect(await neighbour).toEqual([{ ok: true, value: 42 }])
    expect(await sandbox.run([script('return "next"')])).toEqual([{ ok: true, value: 'next' }])
  })

  it('stops a catastrophic pattern at its deadline', async () => {
    const results = await pool().run([{ kind: 'test', source: '^(a+)+$', flags: '', text: `${'a'.repeat(5000)}!` }], {
      timeoutMs: 2000,
      timeoutName: 'checkTimeoutMs'
    })
    expect(results[0]).toMatchObject({ ok: false, timedOut: true })
  })

  it('keeps what finished of a batch when one of its items hangs without holding the thread', async () => {
    const results = await pool().run([script('return 1'), script('await new Promise(() => {})')], { timeoutMs: 2000, timeoutName: 'checkTimeoutMs' })
    expect(results).toEqual([
      { ok: true, value: 1 },
      { ok: false, error: 'did not finish within checkTimeoutMs (2000 ms)', timedOut: true }
    ])
  })

  it('gives up a task when its caller aborts it', async () => {
    let giveUp = () => {}
    const pending = pool().run([script('while (true) {}')], { onAbort: (listener) => ((giveUp = listener), () => {}) })
    setTimeout(() => giveUp(), 100)
    expect((await pending)[0]).toMatchObject({ ok: false, timedOut: true })
  })

  it('leaves the main thread’s exit code, exit handlers and globals alone', async () => {
    const exitListeners = process.listenerCount('exit')
    const results = await pool().run([
      script('process.exitCode = 0; process.on("exit", () => { process.exitCode = 0 }); return process.exitCode'),
      script('String.prototype.includes = () => true; Array.isArray = () => true; return "patched"'),
      script('setTimeout(() => { process.exitCode = 0 }, 0); return "timer"'),
      script('process.exit(0)')
    ])
    expect(results.slice(0, 3)).toEqual([
      { ok: true, value: 0 },
      { ok: true, value: 'patched' },
      { ok: true, value: 'timer' }
    ])
    expect(results[3]).toEqual({ ok: false, error: 'process.exit(0) is not available here' })
    expect(process.exitCode).toBeUndefined()
    expect(process.listenerCount('exit')).toBe(exitListeners)
    expect('abc'.includes('x')).toBe(false)
    expect(Array.isArray('x')).toBe(false)
  })

  it('fails the item whose worker ran out of memory, and goes on', async () => {
    const sandbox = pool()
    const [hog] = await sandbox.run([script('const a = []; for (;;) a.push(new Array(1e5).fill(Math.random()))')], { timeoutMs: 120_000 })
    expect(hog).toMatchObject({ ok: false })
    expect(await sandbox.run([script('return "alive"')])).toEqual([{ ok: true, value: 'alive' }])
  })

  it('fails what cannot be passed back, not the tasks answered with it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evalgate-pool-'))
    try {
      const file = path.join(dir, 'agent.mjs')
      writeFileSync(file, "export default (input) => (input === 'fn' ? () => 1 : `echo ${input}`)\n")
      const sandbox = pool()
      const agent = (input: string): SandboxItem => ({ kind: 'agent', file, input, case: { input, name: input } })
      // started in one turn: sent together, and answered together
      const [a, b, c] = await Promise.all([sandbox.run([agent('one')]), sandbox.run([agent('fn'), agent('two')]), sandbox.run([agent('three')])])
      expect(a).toEqual([{ ok: true, value: { value: 'echo one', latencyMs: expect.any(Number) } }])
      expect(b).toEqual([
        { ok: false, error: expect.stringMatching(/^returned a value that cannot be passed back: /) },
        { ok: false, error: expect.stringMatching(/^returned a value that cannot be passed back: /) }
      ])
      expect(c).toEqual([{ ok: true, value: { value: 'echo three', latencyMs: expect.any(Number) } }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('fails an item that throws, not its batch', async () => {
    const results = await pool().run([{ kind: 'agent', file: '/nonexistent/agent.mjs', input: 1, case: { input: 1, name: 'c' } }, script('return 2')])
    expect(results[0]).toMatchObject({ ok: false })
    expect(results[1]).toEqual({ ok: true, value: 2 })
  })
})
