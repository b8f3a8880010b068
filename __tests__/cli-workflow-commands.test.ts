/**
 * Issue 12 row 13: `npx evalgate run` in a workflow prints the agent's output
 * (in the report) and errors quoting it; under GITHUB_ACTIONS=true the runner
 * must act on no workflow command inside them, as for the action's log.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { EventEmitter } from 'node:events'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { pauseWorkflowCommands, writeUntrusted } from '../src/util/workflow-commands.js'
import { runCli, tempProject } from './__fixtures__/cli.js'

const leaky = path.resolve('__tests__/__fixtures__/agents/leaky-agent.mjs')

/** The commands a runner knows (actions/runner's ActionCommandManager registers these, plus a pause's token). */
const KNOWN = new Set([
  'stop-commands',
  'error',
  'warning',
  'notice',
  'debug',
  'add-mask',
  'set-output',
  'save-state',
  'set-env',
  'add-path',
  'group',
  'endgroup',
  'echo',
  'add-matcher',
  'remove-matcher'
])

/**
 * What the Actions runner would act on in this log, line by line in the order
 * written: `::name …::data` at the start of a line (after spaces) or `##[name …]`
 * anywhere in it; while stopped, only the stop token's own command resumes.
 */
function actedOn(log: string): { acted: string[]; stoppedAtEnd: boolean } {
  const acted: string[] = []
  let token: string | null = null
  for (const raw of log.split('\n')) {
    const line = raw.trimStart()
    let name: string | undefined
    let data = ''
    const v2 = line.startsWith('::') ? line.indexOf('::', 2) : -1
    if (v2 > 0) {
      name = line.slice(2, v2).split(' ')[0]
      data = line.slice(v2 + 2)
    } else {
      const v1 = raw.indexOf('##[')
      const end = v1 >= 0 ? raw.indexOf(']', v1) : -1
      if (end > 0) name = raw.slice(v1 + 3, end).split(' ')[0]
    }
    if (name === undefined) continue
    if (token !== null) {
      if (name.toLowerCase() === token.toLowerCase()) token = null
      continue
    }
    if (!KNOWN.has(name.toLowerCase())) continue
    if (name === 'stop-commands') token = data
    else acted.push(`${name}::${data}`)
  }
  return { acted, stoppedAtEnd: token !== null }
}

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/**
 * A project whose case passed on the baseline (the agent behaved) and now
 * regresses with hostile output: the report shows that output, the gate
 * failure on stderr names the case.
 */
async function hostileProject(): Promise<{ config: string; baseline: string }> {
  const target = (env: string) => `target: { command: [node, ${JSON.stringify(leaky)}]${env} }\n`
  const dir = tempProject({
    'evalgate.yml': `name: wc\ndataset: cases.yaml\n${target('')}`,
    'behaved.yml': `name: wc\ndataset: cases.yaml\n${target(', env: { BEHAVE: "yes" }')}`,
    'cases.yaml': '- { id: hostile, input: hostile, expected: fine }\n- { id: calm, input: ok, expected: fine }\n'
  })
  made.push(dir)
  const baseline = path.join(dir, 'baseline.json')
  expect((await runCli(['run', '-c', path.join(dir, 'behaved.yml'), '--out', baseline, '--quiet'])).code).toBe(0)
  return { config: path.join(dir, 'evalgate.yml'), baseline }
}

/** The CLI with stdout and stderr captured into one log, in the order written, as the runner reads them. */
async function runLogged(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; log: string; stdout: string }> {
  let log = ''
  let stdout = ''
  const code = (
    await runCli(argv, env, {
      stdout: { write: (t: string) => ((log += t), (stdout += t)) },
      stderr: { write: (t: string) => (log += t) }
    })
  ).code
  return { code, log, stdout }
}

describe('the CLI under GITHUB_ACTIONS=true', () => {
  it('row 13: evalgate run prints the agent output with its workflow commands, and the runner acts on none of them', async () => {
    const { config, baseline } = await hostileProject()
    const { code, log } = await runLogged(['run', '-c', config, '--baseline', baseline], { GITHUB_ACTIONS: 'true' })
    expect(code).toBe(1)
    // the commands are there, for a person to read…
    expect(log).toContain('::error::pwned')
    expect(log).toContain('::add-mask::nothing')
    // …but inert, and the runner processes commands again once evalgate is done
    expect(actedOn(log)).toEqual({ acted: [], stoppedAtEnd: false })
  })

  it('without the pause the same log would issue them (the emulated runner is not blind)', async () => {
    const { config, baseline } = await hostileProject()
    const { log } = await runLogged(['run', '-c', config, '--baseline', baseline], {})
    expect(actedOn(log).acted).toEqual(expect.arrayContaining(['error::pwned', 'add-mask::nothing']))
  })

  it('outside Actions nothing is added to what is printed', async () => {
    const { config, baseline } = await hostileProject()
    const { log } = await runLogged(['run', '-c', config, '--baseline', baseline], {})
    expect(log).toContain('::error::pwned')
    expect(log).not.toMatch(/::stop-commands::[0-9a-f]{32}/)
  })

  it('errors on stderr are covered too, and a command that prints nothing prints no pause', async () => {
    const dir = tempProject({
      'evalgate.yml': 'name: wc\ndataset: "cases.yaml"\ntarget: { module: ./a.mjs }\n',
      'cases.yaml': '- id: "x\\n::error::from-a-case-id"\n  input: a\n- id: "x\\n::error::from-a-case-id"\n  input: b\n'
    })
    made.push(dir)
    const { code, log } = await runLogged(['validate', '-c', path.join(dir, 'evalgate.yml')], { GITHUB_ACTIONS: 'true' })
    expect(code).toBe(2)
    expect(log).toContain('\n::error::from-a-case-id')
    expect(actedOn(log)).toEqual({ acted: [], stoppedAtEnd: false })
    const { config } = await hostileProject()
    const quiet = await runLogged(['run', '-c', config, '--quiet', '--filter', 'calm'], { GITHUB_ACTIONS: 'true' })
    expect(quiet.stdout).toBe('')
  })
})

describe('pauseWorkflowCommands', () => {
  function capture() {
    const log: string[] = []
    const stream = (name: string) => ({ write: (t: string) => log.push(`${name}:${t}`), isTTY: name === 'err' })
    return { log, io: { stdout: stream('out'), stderr: stream('err') } }
  }

  it('stops before the first text of each stream and resumes once, on a line of its own, on the stream written last', () => {
    const { log, io } = capture()
    const paused = pauseWorkflowCommands(io)
    expect(paused.io.stderr.isTTY).toBe(true)
    paused.io.stdout.write('report\n')
    paused.io.stderr.write('evalgate: gate failed')
    paused.resume()
    paused.resume()
    const token = /^out:::stop-commands::([0-9a-f]{32})\n$/.exec(log[0]!)![1]
    expect(log).toEqual([
      `out:::stop-commands::${token}\n`,
      'out:report\n',
      `err:::stop-commands::${token}\n`,
      'err:evalgate: gate failed',
      `err:\n::${token}::\n`
    ])
  })

  it('resumes when the process exits before the command finished (a second Ctrl-C)', () => {
    const { log, io } = capture()
    const process = new EventEmitter()
    const paused = pauseWorkflowCommands({ ...io, process: process as never })
    paused.io.stdout.write('half a report\n')
    process.emit('exit', 130)
    expect(log.at(-1)).toMatch(/^out:::[0-9a-f]{32}::\n$/)
    expect(process.listenerCount('exit')).toBe(0)
  })

  it('pauses each write made after the resume by itself', () => {
    const { log, io } = capture()
    const paused = pauseWorkflowCommands(io)
    paused.resume()
    paused.io.stderr.write('::error::late')
    expect(actedOn(log.map((l) => l.slice(4)).join(''))).toEqual({ acted: [], stoppedAtEnd: false })
  })

  it('writeUntrusted frames text with a fresh token each time', () => {
    const lines: string[] = []
    writeUntrusted((l) => lines.push(l), '::error::x')
    writeUntrusted((l) => lines.push(l), '::error::x')
    expect(actedOn(lines.join('\n'))).toEqual({ acted: [], stoppedAtEnd: false })
    expect(lines[0]).not.toBe(lines[3])
  })
})
