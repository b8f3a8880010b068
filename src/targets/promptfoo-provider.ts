/**
 * promptfoo's provider interface as an agent function: a module exporting a
 * class with `id()` and `callApi(prompt, context)`, an object with `callApi`,
 * or such a function itself, resolving to `{output, error, tokenUsage, cost,
 * metadata}`: the output, its token usage and cost, and the response's metadata
 * (what checks see as `context.metadata`).
 */
import { TargetError } from '../errors.js'
import type { CaseView } from '../types.js'
import { isPlainObject } from '../util/tool-calls.js'
import type { AgentFunction } from './function.js'

type CallApi = (prompt: string, context: unknown) => unknown

/** What promptfoo's `callApi` resolves to (the fields evalgate reads). */
interface PromptfooResponse {
  output?: unknown
  error?: unknown
  tokenUsage?: unknown
  cost?: unknown
  metadata?: unknown
}

/** What a promptfoo provider is built with: its `id`, `label` and `config` from the config file. */
export interface PromptfooProviderOptions {
  id: string
  label?: string
  config?: Record<string, unknown>
}

/** The module's export made an agent, or a sentence saying what it exports instead. */
export function promptfooAgent(mod: { default?: unknown }, options: PromptfooProviderOptions): AgentFunction | string {
  const exported = mod.default
  let callApi: CallApi
  if (typeof exported === 'function' && typeof (exported.prototype as { callApi?: unknown } | undefined)?.callApi === 'function') {
    const Provider = exported as new (options: PromptfooProviderOptions) => { callApi: CallApi }
    const instance = new Provider(options)
    callApi = (prompt, context) => instance.callApi(prompt, context)
  } else if (exported && typeof (exported as { callApi?: unknown }).callApi === 'function') {
    const object = exported as { callApi: CallApi }
    callApi = (prompt, context) => object.callApi(prompt, context)
  } else if (typeof exported === 'function') {
    callApi = exported as CallApi
  } else {
    return 'must export as default a provider class (with id() and callApi(prompt, context)), an object with callApi, or a callApi function'
  }
  return async (input: unknown, evalCase: CaseView) => {
    const prompt = typeof input === 'string' ? input : JSON.stringify(input)
    const response = (await callApi(prompt, { vars: evalCase.vars ?? {}, prompt: { raw: prompt, label: evalCase.name } })) as PromptfooResponse | undefined
    if (response === null || typeof response !== 'object')
      throw new TargetError(`callApi returned ${response === null ? 'null' : typeof response}; return {output} or {error}`)
    if (response.error !== undefined && response.error !== null && response.error !== '') throw new TargetError(String(response.error))
    if (response.output === undefined || response.output === null) throw new TargetError('callApi returned no output')
    const output = typeof response.output === 'string' ? response.output : JSON.stringify(response.output)
    // a result object (SPEC §10): promptfoo's tokenUsage names ({prompt, completion, total}) and `cost` are read as usage
    const usage = isPlainObject(response.tokenUsage) ? { ...response.tokenUsage, cost: response.cost } : { cost: response.cost }
    return { output, usage, metadata: response.metadata }
  }
}
