/**
 * An in-process JavaScript function as the target: the library's agentFn and
 * the `module` target's default export.
 */
import { TargetError } from '../errors.js'
import type { EvalCase } from '../types.js'
import type { Target, TargetReply, TrialRequest } from './types.js'

export type AgentFunction = (input: unknown, evalCase: EvalCase) => unknown

/** A function's return value as the output: strings as they are, other values as JSON. */
export function outputOf(value: unknown, label: string): string {
  if (typeof value === 'string') return value
  const json = value === null ? undefined : JSON.stringify(value)
  if (json === undefined) throw new TargetError(`${label} returned ${value === null ? 'null' : typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}; return the output as a string`)
  return json
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
      const value = fn(request.input, request.case)
      // only a promise can hang; a plain value is the answer (and reading `signal` would make an AbortController for nothing)
      const settled = isThenable(value) ? await raceAbort(Promise.resolve(value), request.signal) : value
      return { output: outputOf(settled, label) }
    },
    async close() {}
  }
}
