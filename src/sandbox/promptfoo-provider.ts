/**
 * promptfoo's provider interface as an agent function: a module
 * exporting a class with `id()` and `callApi(prompt, context)`, an object with
 * `callApi`, or such a function itself, resolving to `{output, error,
 * tokenUsage, cost, metadata}`. The agent returns a result object:
 * the output, its usage (promptfoo's tokenUsage names and cost) and metadata.
 *
 * It runs inside the sandbox's workers, next to the provider it adapts: the
 * provider is the pull request's code. Self-contained for that reason — its
 * source is given to every worker (see worker.ts): no imports, no helpers.
 */

/** What a promptfoo provider is built with: its `id`, `label` and `config` from the config file. */
export interface PromptfooProviderOptions {
  id: string
  label?: string
  config?: Record<string, unknown>
}

/** The case as the adapted agent reads it: promptfoo's vars and the case's name (its prompt label). */
export type PromptfooAgent = (input: unknown, evalCase: { name: string; vars?: Record<string, unknown> }) => Promise<Record<string, unknown>>

/** The module's default export made an agent, or what it must export instead (a sentence to follow the file's name). */
export function promptfooAgent(exported: unknown, options: PromptfooProviderOptions): PromptfooAgent | string {
  type CallApi = (prompt: string, context: unknown) => unknown
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
  return async (input, evalCase) => {
    const prompt = typeof input === 'string' ? input : JSON.stringify(input)
    const response = (await callApi(prompt, { vars: evalCase.vars ?? {}, prompt: { raw: prompt, label: evalCase.name } })) as
      Record<string, unknown> | null | undefined
    if (response === null || typeof response !== 'object')
      throw new Error(`callApi returned ${response === null ? 'null' : typeof response}; return {output} or {error}`)
    if (response.error !== undefined && response.error !== null && response.error !== '') throw new Error(String(response.error))
    if (response.output === undefined || response.output === null) throw new Error('callApi returned no output')
    const output = typeof response.output === 'string' ? response.output : JSON.stringify(response.output)
    const usage = response.tokenUsage
    // promptfoo's tokenUsage names ({prompt, completion, total}) and `cost` are read as usage
    return {
      output,
      usage: typeof usage === 'object' && usage !== null && !Array.isArray(usage) ? { ...usage, cost: response.cost } : { cost: response.cost },
      metadata: response.metadata
    }
  }
}
