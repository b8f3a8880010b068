import { afterAll, describe, expect, it } from '@jest/globals'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { ConfigError, TargetError } from '../../src/errors.js'
import { createJsonlTarget, silentWorkerError } from '../../src/targets/jsonl.js'
import type { Target, TrialRequest } from '../../src/targets/types.js'
import { AGENTS, context, expectAllGone, isAlive, request, commandConfig, tempDir, waitForPids } from './helpers.js'

const JSONL_AGENT = join(AGENTS, 'jsonl-agent.mjs')

const targets: Target[] = []
afterAll(async () => {
  await Promise.all(targets.map((target) => target.close()))
})

/** A jsonl target over the fixture worker; a short grace keeps the close tests fast. */
function jsonlTarget(extra: Record<string, unknown> = {}, args: string[] = [], env?: NodeJS.ProcessEnv): Target {
  const target = createJsonlTarget(commandConfig({ command: [process.execPath, JSONL_AGENT, ...args], protocol: 'jsonl', ...extra }), context(env), {
    graceMs: 100
  })
  targets.push(target)
  return target
}

async function output(target: Target, input: unknown, req: TrialRequest = request(input)): Promise<string> {
  return (await target.call(req)).output
}

/** A request whose abort reason is what the runner gives on a timeout. */
function timedRequest(input: unknown): { req: TrialRequest; timeout: () => void } {
  const controller = new AbortController()
  return { req: request(input, controller.signal), timeout: () => controller.abort(new TargetError('timed out after 50 ms')) }
}

describe('jsonl target: the protocol', () => {
  it('sends {id, input, case: {id, name, tags}} as one JSON line and returns the reply’s output', async () => {
    const target = jsonlTarget()
    const line = JSON.parse(await output(target, 'request'))
    expect(line).toEqual({ id: expect.any(String), input: 'request', case: { id: 'case-1', name: 'case 1', tags: [] } })
    expect(await output(target, 'upper:hello')).toBe('HELLO')
  })

  it('sends a non-string input as the JSON value itself', async () => {
    expect(await output(jsonlTarget(), { q: 'hi', n: [1] })).toBe('{"q":"hi","n":[1]}')
  })

  it('matches replies by id when a worker answers out of order', async () => {
    const target = jsonlTarget()
    const first = output(target, 'hold:first')
    const second = output(target, 'hold:second')
    const release = output(target, 'release')
    expect(await Promise.all([first, second, release])).toEqual(['first', 'second', 'released'])
  })

  it('accepts a numeric id, a non-string output (as JSON), usage, and a reply split across chunks', async () => {
    const target = jsonlTarget()
    expect(await output(target, 'numeric-id')).toBe('by number')
    expect(await output(target, 'object-output')).toBe('{"answer":42}')
    expect(await output(target, 'split')).toBe('héllo wörld ✓')
    expect(await target.call(request('usage'))).toEqual({
      output: 'counted',
      usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      latencyMs: expect.any(Number)
    })
  })

  it.each([
    ['an error reply', 'error:model refused', 'model refused'],
    ['a reply with neither output nor error', 'neither', 'the worker replied with neither "output" nor "error"'],
    ['a null output', 'null-output', 'the worker returned null']
  ])('fails only the case on %s; the worker goes on', async (_label, input, message) => {
    const target = jsonlTarget()
    const pid = await output(target, 'pid')
    await expect(target.call(request(input))).rejects.toThrow(message)
    expect(await output(target, 'pid')).toBe(pid)
  })

  it('ignores stdout lines that are not replies (logs, JSON without a known id)', async () => {
    expect(await output(jsonlTarget(), 'noise')).toBe('after noise')
  })

  it('takes a last reply without its newline', async () => {
    expect(await output(jsonlTarget(), 'last-without-newline')).toBe('no newline')
  })

  it('passes only the minimal environment', async () => {
    const env = JSON.parse(
      await output(jsonlTarget({ env: { MODEL: 'm1', GITHUB_TOKEN: 'x' } }, [], { PATH: process.env.PATH, GITHUB_TOKEN: 'ghs_secret', INPUT_KEY: 'k' }), 'env')
    )
    expect(env.MODEL).toBe('m1')
    expect(env.GITHUB_TOKEN).toBeUndefined()
    expect(env.INPUT_KEY).toBeUndefined()
  })

  it('refuses {{input}} in the command: inputs arrive on stdin', () => {
    expect(() => createJsonlTarget(commandConfig({ command: ['agent', '{{input}}'], protocol: 'jsonl' }), context())).toThrow(ConfigError)
  })
})

describe('jsonl target: workers', () => {
  it('sends each request to the least busy worker and starts no worker while one is idle', async () => {
    const target = jsonlTarget({ workers: 2 })
    const sequential = [await output(target, 'pid'), await output(target, 'pid')]
    expect(new Set(sequential).size).toBe(1)
    const outputs = await Promise.all(['a', 'b', 'c', 'd'].map((x) => output(target, `sleep:30:${x}`)))
    const pids = outputs.map((o) => o.split('@')[1])
    expect(pids[0]).toBe(sequential[0])
    expect(new Set(pids).size).toBe(2)
    expect(pids[2]).toBe(pids[0])
    expect(pids[3]).toBe(pids[1])
  })

  it('a crashed worker fails only its cases in flight, then a fresh one takes the next', async () => {
    const target = jsonlTarget({ workers: 2 })
    const before = await output(target, 'pid')
    // two on the first worker (held, then the crash), one on the second
    const held = target.call(request('hold:x'))
    const other = output(target, 'sleep:200:fine')
    const crash = target.call(request('crash'))
    await expect(crash).rejects.toThrow('worker exited with code 1 while handling this case: Traceback: boom')
    await expect(held).rejects.toThrow('worker exited with code 1 while handling this case')
    expect((await other).startsWith('fine@')).toBe(true)
    const after = await output(target, 'pid')
    expect(after).not.toBe(before)
  })

  it('explains a crash with the last stdout lines that were not replies', async () => {
    await expect(jsonlTarget().call(request('noise-crash'))).rejects.toThrow(
      'worker exited with code 3 while handling this case (no stderr); its last stdout lines that were not replies: "fatal: out of tokens"'
    )
  })

  it('a timed-out case kills its worker; the other cases on it are sent again to a fresh worker', async () => {
    const target = jsonlTarget()
    const oldPid = Number(await output(target, 'pid'))
    const hung = timedRequest('hang')
    const hanging = target.call(hung.req)
    const innocent = output(target, 'sleep:100:innocent')
    hung.timeout()
    await expect(hanging).rejects.toThrow('timed out after 50 ms')
    const answer = await innocent
    expect(answer.startsWith('innocent@')).toBe(true)
    expect(Number(answer.split('@')[1])).not.toBe(oldPid)
    expect(await expectAllGone([oldPid])).toEqual([])
  })

  it('a request already aborted is not sent', async () => {
    const controller = new AbortController()
    controller.abort(new TargetError('run interrupted'))
    await expect(jsonlTarget().call(request('pid', controller.signal))).rejects.toThrow('run interrupted')
  })

  it('a program that cannot be found is a config error before any worker starts', () => {
    expect(() => createJsonlTarget(commandConfig({ command: ['definitely-not-a-program-xyz'], protocol: 'jsonl' }), context())).toThrow(
      /^target\.command: the program "definitely-not-a-program-xyz" is not on the PATH/
    )
  })

  it('workers that never write a line are diagnosed once: the cases in flight and every later one fail at once, saying why', async () => {
    const target = jsonlTarget({ workers: 2, timeoutMs: 60_000 }, ['silent'])
    const first = timedRequest('a')
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => new Error('answered'),
        (err: unknown) => err as Error
      )
    const calls = [target.call(first.req), output(target, 'b'), output(target, 'c')].map(failure)
    first.timeout()
    const [timedOut, ...others] = await Promise.all(calls)
    expect(timedOut!.message).toBe('timed out after 50 ms')
    const why = silentWorkerError(60_000).message
    expect(why).toMatch(/^no reply line within 60000 ms, and no worker wrote anything on stdout: is the worker's stdout flushed after each reply\?/)
    expect(others.map((e) => e!.message)).toEqual([why, why])
    // a later case is not sent at all
    await expect(output(target, 'd')).rejects.toThrow(why)
  })

  it("a worker that answered once is never called silent: a later hang is that case's timeout only", async () => {
    const target = jsonlTarget()
    await output(target, 'pid')
    const hung = timedRequest('hang')
    const hanging = target.call(hung.req)
    hung.timeout()
    await expect(hanging).rejects.toThrow('timed out after 50 ms')
    expect(await output(target, 'upper:next')).toBe('NEXT')
  })

  it('a run against a silent worker ends after one timeout, every case naming the cause', async () => {
    const dir = tempDir()
    const cases = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, input: `q${i}`, expected: 'late' }))
    const config = { target: { command: [process.execPath, JSONL_AGENT, 'silent'], protocol: 'jsonl', workers: 2, timeoutMs: 1000 }, concurrency: 2, cases }
    writeFileSync(join(dir, 'evalgate.json'), JSON.stringify(config))
    const { record } = await evaluate(await loadEvalConfig(join(dir, 'evalgate.json')), { env: process.env })
    const errors = record.cases.map((c) => c.error)
    // the first cases in flight time out or are failed with the diagnosis; none after them waits
    expect(errors.filter((e) => e === 'timed out after 1000 ms').length).toBeLessThanOrEqual(2)
    expect(errors.filter((e) => e === silentWorkerError(1000).message).length).toBeGreaterThanOrEqual(10)
  })

  it('a worker that exits at start fails its case with its stderr', async () => {
    await expect(jsonlTarget({}, ['exit-at-start']).call(request('a'))).rejects.toThrow(
      'worker exited with code 2 while handling this case: cannot load the model'
    )
  })

  it('a reply longer than maxOutputBytes fails its case', async () => {
    const target = jsonlTarget({ maxOutputBytes: 1000 })
    const pid = await output(target, 'pid')
    await expect(target.call(request('long:5000'))).rejects.toThrow('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    expect(await output(target, 'pid')).toBe(pid)
  })

  it('counts a reply line in UTF-8 bytes: a line of two-byte characters passes at the limit and fails one byte over it', async () => {
    const target = jsonlTarget({ maxOutputBytes: 1000 })
    const atLimit = await output(target, 'bytes:1000')
    expect(atLimit).toMatch(/^é+x?$/)
    // fewer than 1000 characters either way: only bytes tell the two apart
    expect(atLimit.length).toBeLessThan(500)
    await expect(target.call(request('bytes:1001'))).rejects.toThrow('the reply exceeded 1000 bytes (target.maxOutputBytes)')
  })

  it('counts a line still being written in UTF-8 bytes', async () => {
    const target = jsonlTarget({ maxOutputBytes: 1000 })
    // 600 characters, 1,200 bytes: over the limit in bytes only (whether it arrives cut or whole)
    await expect(target.call(request('multibyte-partial:600'))).rejects.toThrow(
      /(a line of more than|the reply exceeded) 1000 bytes \(target\.maxOutputBytes\)/
    )
  })

  it('a line still growing past maxOutputBytes fails the cases in flight and restarts the worker', async () => {
    const target = jsonlTarget({ maxOutputBytes: 1000 })
    const pid = await output(target, 'pid')
    await expect(target.call(request('long:500000'))).rejects.toThrow('a line of more than 1000 bytes (target.maxOutputBytes)')
    expect(await output(target, 'pid')).not.toBe(pid)
  })
})

describe('jsonl target: latency', () => {
  // the worker below spends 5 s starting before it reads the request already waiting for it, then answers at once
  it('times a request from the worker’s {"ready": true}, leaving its start-up out', async () => {
    const target = jsonlTarget({}, ['slow-start'])
    const started = performance.now()
    const reply = await target.call(request('upper:ok'))
    expect(reply.output).toBe('OK')
    // the call itself waited through the start-up: what the latency leaves out was there
    expect(performance.now() - started).toBeGreaterThanOrEqual(5000)
    expect(reply.latencyMs).toBeLessThan(5000)
  }, 30_000)

  it('without {"ready": true}, a worker’s first reply includes its start-up (there is no telling when it was ready)', async () => {
    const reply = await jsonlTarget({}, ['slow-start-unannounced']).call(request('upper:ok'))
    expect(reply.latencyMs).toBeGreaterThanOrEqual(5000)
  }, 30_000)

  it('a latencyMs the worker reports itself wins', async () => {
    const reply = await jsonlTarget({}, ['slow-start-unannounced']).call(request('timed'))
    expect(reply.latencyMs).toBe(12.5)
  }, 30_000)
})

describe('jsonl target: close', () => {
  it('ends stdin; a worker that exits on EOF is gone when close resolves', async () => {
    const target = jsonlTarget({ workers: 2 })
    const pids = (await Promise.all([output(target, 'sleep:20:a'), output(target, 'sleep:20:b')])).map((o) => Number(o.split('@')[1]))
    await target.close()
    expect(pids.filter(isAlive)).toEqual([])
    await expect(target.call(request('pid'))).rejects.toThrow('target closed')
  })

  it('kills the whole group of a worker that ignores EOF and SIGTERM', async () => {
    const pidFile = join(tempDir(), 'pids.json')
    const target = jsonlTarget({}, ['stubborn', pidFile])
    expect(await output(target, 'upper:up')).toBe('UP')
    const pids = await waitForPids(pidFile)
    await target.close()
    expect(await expectAllGone(pids)).toEqual([])
  })

  it('fails the cases still in flight', async () => {
    const target = jsonlTarget()
    const hanging = expect(target.call(request('hang'))).rejects.toThrow('target closed while the case was running')
    await target.close()
    await hanging
  })
})

describe('the jsonl examples', () => {
  const example = join(AGENTS, '..', '..', '..', 'examples', 'jsonl', 'evalgate.yml')
  const python = spawnSync('python3', ['--version']).status === 0

  it.each([
    ['Node', ['node', 'agent.mjs']],
    ['Python', ['python3', 'agent.py']]
  ])('the %s agent passes the example dataset', async (label, command) => {
    if (label === 'Python' && !python) return
    const loaded = await loadEvalConfig(example)
    loaded.config.target.command = command
    const { record } = await evaluate(loaded, { env: { PATH: process.env.PATH, HOME: process.env.HOME } })
    expect(record.cases.filter((c) => !c.passed).map((c) => [c.id, c.error, c.assertions])).toEqual([])
    expect(record.summary.total).toBe(8)
  })
})
