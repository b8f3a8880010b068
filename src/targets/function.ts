/**
 * An in-process JavaScript function as the target: the library's agentFn and
 * the `module` target's default export.
 */
import { agentCaseView } from '../config/case.js'
import type { AgentCaseView } from '../types.js'
import { isResultObject, outputText, readResult } from './result.js'
import type { Target, TargetReply, TrialRequest } from './types.js'

export type AgentFunction = (input: unknown, evalCase: AgentCaseView) => unknown

/**
 * A function's return value as the trial's reply: a result object (one with
 * an `output` key) field by field; a string as the output; any
 * other value as its JSON text.
 */
export function replyOf(value: unknown, label: string): TargetReply {
  return isResultObject(value) ? readResult(value, label) : { output: outputText(value, label) }
}

/** Resolve when the call settles or reject when the signal aborts: a hung function cannot hold the trial. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      }
    )
  })
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

export function functionTarget(resolveFn: () => Promise<AgentFunction> | AgentFunction, label: string): Target {
  return {
    async call(request: TrialRequest): Promise<TargetReply> {
      const fn = await resolveFn()
      const value = fn(request.input, agentCaseView(request.case, request))
      // only a promise can hang; a plain value is the answer (and reading `signal` would make an AbortController for nothing)
      const settled = isThenable(value) ? await raceAbort(Promise.resolve(value), request.signal) : value
      return replyOf(settled, label)
    },
    async close() {}
  }
}
