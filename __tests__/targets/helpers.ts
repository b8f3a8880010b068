/** Shared bits of the target tests: a context, a request, and watching process ids. */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { targetSchema, targetVariant, type TargetConfig, type TargetOf } from '../../src/config/schema.js'
import type { TargetContext, TrialRequest } from '../../src/targets/types.js'
import type { EvalCase } from '../../src/types.js'
import { tempDir as madeTempDir } from '../__fixtures__/temp.js'

export const AGENTS = join(dirname(fileURLToPath(import.meta.url)), '..', '__fixtures__', 'agents')
export const AGENT = join(AGENTS, 'agent.mjs')

/** A temp folder removed after the test file. */
export function tempDir(): string {
  return madeTempDir('evalgate-targets-')
}

export function context(env: NodeJS.ProcessEnv = process.env): TargetContext {
  return { baseDir: AGENTS, env, secrets: new Set() }
}

/** Parsed through the real schema so defaults (maxOutputBytes, env, protocol) are those users get. */
export function targetConfig(raw: Record<string, unknown>): TargetConfig {
  return targetSchema.parse(raw)
}

/** A `command` target's config, parsed as targetConfig does. */
export function commandConfig(raw: Record<string, unknown>): TargetOf<'command'> {
  const variant = targetVariant(targetConfig(raw))
  if (variant.kind !== 'command') throw new Error(`not a command target: ${JSON.stringify(raw)}`)
  return variant.config
}

export function agentCommand(...args: string[]): string[] {
  return [process.execPath, AGENT, ...args]
}

export function request(input: unknown, signal: AbortSignal = new AbortController().signal): TrialRequest {
  const evalCase: EvalCase = { id: 'case-1', name: 'case 1', input, tags: [], assert: [], fingerprint: 'f', index: 0 }
  return { input, case: evalCase, signal }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

/** The pids a fixture agent wrote once it was up. */
export async function waitForPids(file: string): Promise<number[]> {
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as number[]
    } catch (err) {
      if (Date.now() > deadline) throw err
      await sleep(20)
    }
  }
}

/**
 * Alive unless kill(pid, 0) says ESRCH; a zombie counts as gone (it ran to its
 * end; reaping orphans is init's job, and init in a container may not do it).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw err
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return true
  }
}

/** Signals are delivered asynchronously: give the kernel a moment before calling a process a survivor. */
export async function expectAllGone(pids: number[]): Promise<number[]> {
  const deadline = Date.now() + 15_000
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(20)
  return pids.filter(isAlive)
}
