/**
 * The sandbox's two users' doors: `checks()` — the process-wide pool that
 * javascript checks and backtracking patterns share, batched so that the
 * sandboxed work one turn of the event loop asks for (a trial's checks) goes
 * to a worker as one message — and `Sandbox` itself, which module targets
 * make with their own environment.
 */
import { availableParallelism } from 'node:os'
import { minimalEnv } from '../util/env.js'
import { Sandbox, type ItemOutcome, type SandboxItem } from './pool.js'
import { PythonSandbox } from './python.js'

export { Sandbox, warmWorker, type ItemOutcome, type RunOptions, type SandboxItem, type SandboxOptions } from './pool.js'
export { canBacktrack } from './patterns.js'
export { PythonSandbox, type PythonCall, type PythonOutcome } from './python.js'
export type { PromptfooProviderOptions } from './promptfoo-provider.js'

/** How long a sandboxed check may run when `checkTimeoutMs` is not set. */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000

/** Checks allocate little; a runaway one is stopped here, not by the machine. */
const CHECK_MEMORY_MB = 512

interface Waiting {
  item: SandboxItem
  resolve: (outcome: ItemOutcome) => void
}

class CheckPool {
  private readonly sandbox: Sandbox
  private readonly waiting = new Map<number, Waiting[]>()

  constructor(env: NodeJS.ProcessEnv) {
    // the checks' environment is the minimal one, with nothing of the config's: no key, no runner token
    this.sandbox = new Sandbox({
      env: minimalEnv(env, {}),
      workers: Math.max(1, Math.min(2, availableParallelism())),
      resourceLimits: { maxOldGenerationSizeMb: CHECK_MEMORY_MB }
    })
  }

  /** Runs one item; items asked for in the same turn (and with the same deadline) travel together. */
  run(item: SandboxItem, timeoutMs: number): Promise<ItemOutcome> {
    return new Promise((resolve) => {
      let batch = this.waiting.get(timeoutMs)
      if (!batch) {
        batch = []
        this.waiting.set(timeoutMs, batch)
        queueMicrotask(() => this.flush(timeoutMs))
      }
      batch.push({ item, resolve })
    })
  }

  private flush(timeoutMs: number): void {
    const batch = this.waiting.get(timeoutMs)!
    this.waiting.delete(timeoutMs)
    void this.sandbox
      .run(
        batch.map((w) => w.item),
        { timeoutMs, timeoutName: 'checkTimeoutMs' }
      )
      .then((outcomes) => {
        batch.forEach((w, i) => w.resolve(outcomes[i]!))
      })
  }
}

let pool: CheckPool | undefined

/** The checks' pool, made on first use (its workers do not keep the process alive while idle). */
export function checks(): CheckPool {
  pool ??= new CheckPool(process.env)
  return pool
}

let python: PythonSandbox | undefined

/** The `python` checks' processes, made on first use: the minimal environment, nothing of the config's (as javascript checks). */
export function pythonChecks(): PythonSandbox {
  python ??= new PythonSandbox({ env: minimalEnv(process.env, {}), workers: Math.max(1, Math.min(2, availableParallelism())) })
  return python
}
