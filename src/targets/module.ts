/**
 * The `module` target: a JavaScript module whose default export is the agent,
 * `(input, case) => string | result object | Promise of either`, or a promptfoo
 * `file://` provider, adapted in the worker. It runs in the
 * sandbox: worker threads with the target's minimal environment
 * (plus `target.env`), so it never sees the runner's tokens or the judge's key,
 * and a trial that loops forever fails at `target.timeoutMs` while the run goes on.
 */
import { resolve } from 'node:path'
import { agentCaseView } from '../config/case.js'
import type { TargetOf } from '../config/schema.js'
import { ConfigError, TargetError } from '../errors.js'
import { Sandbox, warmWorker, type PromptfooProviderOptions, type SandboxItem } from '../sandbox/index.js'
import { exporterEnv } from '../tracing/env.js'
import { expandVars, minimalEnv } from '../util/env.js'
import { utf8Exceeds } from '../util/utf8.js'
import { isResultObject, outputText, readResult } from './result.js'
import type { Target, TargetContext, TargetReply } from './types.js'

/** Memory of each agent worker: generous, but a runaway agent is stopped before the machine is. */
const AGENT_MEMORY_MB = 2048
const AGENT_LIMITS = { maxOldGenerationSizeMb: AGENT_MEMORY_MB }

/** The sandbox's abort subscription over an AbortSignal, for callers that give only that. */
function abortOf(signal: AbortSignal): (giveUp: () => void) => () => void {
  return (giveUp) => {
    if (signal.aborted) {
      giveUp()
      return () => {}
    }
    signal.addEventListener('abort', giveUp, { once: true })
    return () => signal.removeEventListener('abort', giveUp)
  }
}

/** Starts the agent's worker ahead, while the rest of the config and the dataset are read. */
export function warmModuleTarget(): void {
  void warmWorker(AGENT_LIMITS)
}

/** Loads the agent before the run: a module that cannot load is a config error (exit 2), not a failure of every case. */
export async function createModuleTarget(config: TargetOf<'module'>, ctx: TargetContext, promptfoo?: PromptfooProviderOptions): Promise<Target> {
  const file = resolve(ctx.baseDir, expandVars(config.module, ctx.env, ctx.secrets, 'target.module'))
  const own = Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, expandVars(value, ctx.env, ctx.secrets, `target.env.${name}`)]))
  // set before the module is imported: exporters read them when they are built
  const extra = ctx.otlpEndpoint === undefined ? own : { ...exporterEnv(ctx.otlpEndpoint, own), ...own }
  const sandbox = new Sandbox({
    env: minimalEnv(ctx.env, extra),
    // one worker, as one process was before: the module's state (a cache, a client) is shared by its
    // trials, and concurrency comes from the agent's own awaits; a second is made only while one is held
    workers: 1,
    resourceLimits: AGENT_LIMITS
  })
  const [loaded] = await sandbox.run([{ kind: 'load', file, ...(promptfoo ? { promptfoo } : {}) }], {
    timeoutMs: config.timeoutMs,
    timeoutName: 'target.timeoutMs'
  })
  if (!loaded!.ok) {
    await sandbox.close()
    // a module that loads but exports no function says so itself, naming the file
    const why = loaded!.error.startsWith(`${file} must export`) ? loaded!.error : `cannot load ${file}: ${loaded!.error}`
    throw new ConfigError(promptfoo ? `provider ${promptfoo.id}: ${why}` : `target.module: ${why}`, file)
  }
  return {
    async call(request): Promise<TargetReply> {
      // the runner's timeout (target.timeoutMs) and interruption arrive through the signal
      const onAbort = request.onAbort ? (giveUp: () => void) => request.onAbort!(giveUp) : abortOf(request.signal)
      // the input travels once when it is the case's own (most runs): each copy is cloned to the worker
      // the trial's trace context rides on the case argument, for the agent to continue
      const view =
        request.traceparent === undefined ? agentCaseView(request.case, request) : { ...agentCaseView(request.case, request), traceparent: request.traceparent }
      const item: SandboxItem = request.input === view.input ? { kind: 'agent', file, case: view } : { kind: 'agent', file, input: request.input, case: view }
      if (promptfoo) item.promptfoo = promptfoo
      const [outcome] = await sandbox.run([item], { onAbort })
      if (!outcome!.ok) {
        if (request.signal.aborted) throw request.signal.reason
        throw new TargetError(outcome!.error)
      }
      const answer = outcome!.value as { value: unknown; latencyMs: number } | { json: string; latencyMs: number }
      const latencyMs = answer.latencyMs
      // bounded as a command's stdout is: the agent's reply is held, recorded and uploaded
      const value = 'json' in answer ? parseReply(checkSize(answer.json, config.maxOutputBytes), file) : answer.value
      if (!isResultObject(value)) return { output: checkSize(outputText(value, file), config.maxOutputBytes), latencyMs }
      const reply = readResult(value, file, true)
      // a result object that travelled cloned (no JSON text): its output at least
      if (!('json' in answer)) checkSize(reply.output, config.maxOutputBytes)
      // a latencyMs the agent reports itself wins over the time the sandbox measured around the call
      reply.latencyMs ??= latencyMs
      return reply
    },
    close: () => sandbox.close()
  }
}

/** The text, when it is within `target.maxOutputBytes` in UTF-8. */
function checkSize(text: string, max: number): string {
  if (utf8Exceeds(text, max)) throw new TargetError(`the reply exceeded ${max} bytes (target.maxOutputBytes)`)
  return text
}

/** A result object the worker sent as JSON text: the worker is the agent's, so its text is checked like any reply. */
function parseReply(json: string, file: string): unknown {
  try {
    return JSON.parse(json)
  } catch (err) {
    throw new TargetError(`${file} returned a result that could not be read: ${(err as Error).message}`)
  }
}
