import { afterAll, describe, expect, it } from '@jest/globals'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, TargetError } from '../../src/errors.js'
import { createTarget } from '../../src/targets/index.js'
import type { Target } from '../../src/targets/types.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { AGENT, agentCommand, context, expectAllGone, request, targetConfig, tempDir, waitForPids } from './helpers.js'

const targets: Target[] = []
afterAll(async () => {
  await Promise.all(targets.map((target) => target.close()))
})

async function commandTarget(command: string | string[], extra: Record<string, unknown> = {}, env?: NodeJS.ProcessEnv): Promise<Target> {
  const target = await createTarget(targetConfig({ command, ...extra }), context(env))
  targets.push(target)
  return target
}

async function run(command: string | string[], input: unknown, extra: Record<string, unknown> = {}): Promise<string> {
  const target = await commandTarget(command, extra)
  return (await target.call(request(input))).output
}

describe('command target: output', () => {
  it('writes the input to stdin and returns stdout without its one trailing newline', async () => {
    expect(await run(agentCommand('upper'), 'hello agent')).toBe('HELLO AGENT')
  })

  it('writes a non-string input as JSON', async () => {
    expect(await run(agentCommand('upper'), { q: 'hi', n: 1 })).toBe('{"Q":"HI","N":1}')
  })

  it('accepts a command string, split like a shell would, run in target.cwd resolved against baseDir', async () => {
    const output = await run(`'${process.execPath}' agent.mjs env`, null, { cwd: '.' })
    expect(JSON.parse(output).cwd).toBe(join(AGENT, '..'))
  })

  it('strips only one line ending, CRLF included', async () => {
    expect(await run(agentCommand('crlf'), '')).toBe('line one\r\nline two')
    expect(await run(agentCommand('blank-lines'), '')).toBe('answer\n')
  })

  it('treats empty stdout with exit 0 as an empty output', async () => {
    expect(await run(agentCommand('silent'), 'x')).toBe('')
  })

  it('replaces invalid UTF-8 bytes', async () => {
    expect(await run(agentCommand('bad-utf8'), '')).toBe('a\uFFFDb')
  })

  it('does not fail when the agent never reads a large input', async () => {
    expect(await run(agentCommand('no-read'), 'x'.repeat(4 * 1024 * 1024))).toBe('ok')
  })
})

describe('command target: {{input}} and no shell', () => {
  it('replaces an argument that is exactly {{input}}; JSON for non-strings', async () => {
    expect(JSON.parse(await run(agentCommand('argv', '{{input}}', 'x{{input}}'), 'hi there'))).toEqual(['hi there', 'x{{input}}'])
    expect(JSON.parse(await run(agentCommand('argv', '{{input}}'), { a: [1] }))).toEqual(['{"a":[1]}'])
  })

  it.each([
    ['an argv list', agentCommand('argv', '{{input}}')],
    ['a command string', `'${process.execPath}' '${AGENT}' argv "{{input}}"`]
  ])('passes shell syntax in the input literally, never running it (%s)', async (_label, command) => {
    const dir = tempDir()
    const marker = join(dir, 'pwned')
    const input = `$(touch ${marker}); rm -rf ${dir} \`touch ${marker}\` | touch ${marker} && echo $HOME`
    expect(JSON.parse(await run(command, input))).toEqual([input])
    expect(existsSync(marker)).toBe(false)
    expect(existsSync(dir)).toBe(true)
  })
})

describe('command target: environment', () => {
  const runnerEnv = {
    ...process.env,
    GITHUB_TOKEN: 'ghs_runner_token',
    INPUT_FOO: 'action-input',
    ACTIONS_RUNTIME_TOKEN: 'runtime-token',
    RUNNER_ONLY: 'not for the agent',
    API_KEY: 'sk-test-1234'
  }

  it('gives the agent a minimal environment plus target.env, ${VAR} expanded, never the runner credentials', async () => {
    const ctx = context(runnerEnv)
    const target = await createTarget(
      targetConfig({
        command: agentCommand('env', '--key=${API_KEY}'),
        env: {
          MODEL: 'gpt-4o-mini',
          AUTH: 'Bearer ${API_KEY}',
          GITHUB_TOKEN: 'ghs_from_config',
          INPUT_FOO: 'from-config',
          ACTIONS_RUNTIME_TOKEN: 'from-config'
        }
      }),
      ctx
    )
    targets.push(target)
    const { env } = JSON.parse((await target.call(request(''))).output) as { env: Record<string, string> }
    expect(env.MODEL).toBe('gpt-4o-mini')
    expect(env.AUTH).toBe('Bearer sk-test-1234')
    expect(env.PATH).toBe(process.env.PATH)
    for (const name of ['GITHUB_TOKEN', 'INPUT_FOO', 'ACTIONS_RUNTIME_TOKEN', 'RUNNER_ONLY', 'API_KEY']) {
      expect(env[name]).toBeUndefined()
    }
    expect(ctx.secrets).toEqual(new Set(['sk-test-1234']))
  })

  it('expands ${VAR} in argv', async () => {
    const target = await commandTarget(agentCommand('argv', '--key=${API_KEY}'), {}, runnerEnv)
    expect(JSON.parse((await target.call(request(''))).output)).toEqual(['--key=sk-test-1234'])
  })

  it('refuses to create a target whose ${VAR} is not set', async () => {
    await expect(createTarget(targetConfig({ command: agentCommand('argv'), env: { K: '${NOT_SET_ANYWHERE_42}' } }), context())).rejects.toThrow(
      /target\.env\.K: environment variable NOT_SET_ANYWHERE_42 is not set/
    )
  })
})

describe('command target: failures', () => {
  it('rejects on a non-zero exit with the last line of stderr first, then its tail', async () => {
    const error = await run(agentCommand('fail'), '').catch((err: unknown) => err)
    expect(error).toBeInstanceOf(TargetError)
    expect((error as Error).message).toMatch(
      /^exited with code 3: model not found: gpt-9\n\nstderr, its last 2048 bytes:\n(lots of noise\n)+model not found: gpt-9$/
    )
  })

  it("keeps a long traceback's end: its last line leads the message, whole", async () => {
    const frames = Array.from({ length: 200 }, (_, i) => `  File "agent.py", line ${i}, in step_${i}\n    step_${i + 1}()`).join('\n')
    const traceback = `Traceback (most recent call last):\n${frames}\nValueError: invalid literal for int() with base 10: 'abc'`
    const script = `process.stderr.write(${JSON.stringify(traceback)} + "\\n", () => process.exit(1))`
    const error = (await run([process.execPath, '-e', script], '').catch((err: unknown) => err)) as Error
    expect(error.message.split('\n')[0]).toBe("exited with code 1: ValueError: invalid literal for int() with base 10: 'abc'")
    expect(error.message).toMatch(/stderr, its last 2048 bytes:\n {2,4}(File|step_)/)
    expect(error.message.endsWith("ValueError: invalid literal for int() with base 10: 'abc'")).toBe(true)
    expect(error.message.length).toBeLessThan(2300)
  })

  it('rejects when the agent is killed by a signal', async () => {
    await expect(run(agentCommand('signal'), '')).rejects.toThrow(/^killed by SIGSEGV/)
  })
})

describe('command target: a program that cannot be run is a config error before any case', () => {
  it('names a misspelt program, target.command, the fix and the nearest name on the PATH', async () => {
    const bin = tempDir()
    writeFileSync(join(bin, 'python3'), '#!/bin/sh\n', { mode: 0o755 })
    const error = await commandTarget(['pyhton3', 'agent.py'], {}, { PATH: bin }).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).where).toBe('target.command')
    expect((error as Error).message).toBe(
      `target.command: the program "pyhton3" is not on the PATH (did you mean "python3"?): fix the spelling in target.command, install it, or give its path; PATH=${bin}`
    )
  })

  it('names a relative path that does not exist, resolved from the working directory', async () => {
    await expect(commandTarget(['./missing-agent.sh'])).rejects.toThrow(
      `target.command: the program "./missing-agent.sh" does not exist (looked for ${join(AGENT, '..', 'missing-agent.sh')}): fix the path in target.command (a relative path starts from ${join(AGENT, '..')})`
    )
  })

  it('names a script that is not executable, and how to run it', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'agent.py'), 'print("hi")\n', { mode: 0o644 })
    await expect(commandTarget(['./agent.py'], { cwd: dir })).rejects.toThrow(
      /^target\.command: the program "\.\/agent\.py" \(.*agent\.py\) is not executable: `chmod \+x` it, or name its interpreter first in target\.command \(e\.g\. \["python3", "\.\/agent\.py"\]\)$/
    )
  })

  it('names a working directory that does not exist', async () => {
    await expect(commandTarget(agentCommand('silent'), { cwd: 'no/such/dir' })).rejects.toThrow(
      /^target\.cwd: the working directory .*no\/such\/dir does not exist: fix target\.cwd/
    )
  })

  it('the CLI exits 2 before running any case, naming the config file', async () => {
    const dir = tempProject({ 'evalgate.yml': 'target:\n  command: [pyhton3-nowhere, agent.py]\ncases:\n  - { input: a, expected: a }\n' })
    const res = await runCli(['run', '-c', join(dir, 'evalgate.yml'), '--out', join(dir, 'run.json')])
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(/^evalgate: .*evalgate\.yml: target\.command: the program "pyhton3-nowhere" is not on the PATH/)
    expect(existsSync(join(dir, 'run.json'))).toBe(false)
  })
})

describe('command target: output cap', () => {
  it('kills an agent whose output exceeds maxOutputBytes', async () => {
    await expect(run(agentCommand('flood'), '', { maxOutputBytes: 10_000 })).rejects.toThrow('output exceeded 10000 bytes (target.maxOutputBytes)')
  })

  it('counts UTF-8 bytes: two-byte characters pass at the limit and fail one byte over it', async () => {
    const atLimit = await run(agentCommand('bytes'), '1000', { maxOutputBytes: 1000 })
    expect(atLimit).toBe('é'.repeat(500))
    await expect(run(agentCommand('bytes'), '1001', { maxOutputBytes: 1000 })).rejects.toThrow('output exceeded 1000 bytes (target.maxOutputBytes)')
  })
})

describe('command target: stopping', () => {
  async function startHanging(mode: string): Promise<{ target: Target; controller: AbortController; call: Promise<unknown>; pids: number[] }> {
    const pidFile = join(tempDir(), 'pids.json')
    const target = await commandTarget(agentCommand(mode, pidFile))
    const controller = new AbortController()
    const call = target.call(request('', controller.signal)).catch((err: unknown) => err)
    return { target, controller, call, pids: await waitForPids(pidFile) }
  }

  it('kills a hanging agent on abort and rejects with the reason', async () => {
    const { controller, call, pids } = await startHanging('hang')
    controller.abort(new TargetError('timed out after 50 ms'))
    const error = await call
    expect(error).toBeInstanceOf(TargetError)
    expect((error as Error).message).toBe('timed out after 50 ms')
    expect(await expectAllGone(pids)).toEqual([])
  })

  it('kills the whole process group, grandchildren included', async () => {
    const { controller, call, pids } = await startHanging('tree-hang')
    expect(pids).toHaveLength(2)
    controller.abort(new Error('run interrupted'))
    expect(await call).toEqual(new TargetError('run interrupted'))
    expect(await expectAllGone(pids)).toEqual([])
  })

  it('escalates to SIGKILL when the agent ignores SIGTERM', async () => {
    const { controller, call, pids } = await startHanging('ignore-term')
    const started = Date.now()
    controller.abort(new TargetError('timed out after 10 ms'))
    expect(await call).toEqual(new TargetError('timed out after 10 ms'))
    // the grace period is 2 s; the bound only says it does not wait forever
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(await expectAllGone(pids)).toEqual([])
  })

  it('turns an AbortSignal.timeout into a TargetError', async () => {
    const target = await commandTarget(agentCommand('hang', join(tempDir(), 'pids.json')))
    const error = await target.call(request('', AbortSignal.timeout(300))).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(TargetError)
    expect((error as Error).message).toMatch(/timeout/i)
  })

  it('does not start anything for an already aborted trial', async () => {
    const pidFile = join(tempDir(), 'pids.json')
    const target = await commandTarget(agentCommand('hang', pidFile))
    await expect(target.call(request('', AbortSignal.abort(new TargetError('run interrupted'))))).rejects.toThrow('run interrupted')
    expect(existsSync(pidFile)).toBe(false)
  })

  it('does not wait forever for a grandchild that keeps stdout open', async () => {
    const pidFile = join(tempDir(), 'pids.json')
    const started = Date.now()
    expect(await run(agentCommand('linger', pidFile), '')).toBe('parent done')
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(await expectAllGone(await waitForPids(pidFile))).toEqual([])
  })

  it('does not wait forever for stdout held open from outside the process group', async () => {
    const pidFile = join(tempDir(), 'pids.json')
    const started = Date.now()
    try {
      expect(await run(agentCommand('escape', pidFile), '')).toBe('parent done')
      expect(Date.now() - started).toBeLessThan(20_000)
    } finally {
      // out of the group's reach by design: the test cleans up after its own fixture
      for (const pid of await waitForPids(pidFile)) process.kill(pid, 'SIGKILL')
    }
  })

  it('leaves no background process behind once the agent exits', async () => {
    const pidFile = join(tempDir(), 'pids.json')
    expect(await run(agentCommand('daemon', pidFile), '')).toBe('started helper')
    expect(await expectAllGone(await waitForPids(pidFile))).toEqual([])
  })

  it('close() kills the agents still running', async () => {
    const { target, call, pids } = await startHanging('hang')
    await target.close()
    expect(await call).toEqual(new TargetError('target closed while the command was running'))
    expect(await expectAllGone(pids)).toEqual([])
  })
})

describe('command target: config', () => {
  it.each([
    ['an empty command string', '   ', /program name is empty/],
    ['an unterminated quote', "node 'agent.js", /target\.command: unterminated single quote/],
    ['a shell pipeline', 'node agent.js | tee log', /never runs a shell/]
  ])('refuses %s', async (_label, command, message) => {
    const attempt = createTarget(targetConfig({ command }), context())
    await expect(attempt).rejects.toThrow(ConfigError)
    await expect(attempt).rejects.toThrow(message)
  })
})
