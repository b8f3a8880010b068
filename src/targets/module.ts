/**
 * The `module` target: a JavaScript module whose default export is the agent,
 * `(input, case) => string | Promise<string>`, run in-process by the same
 * function target the library's runEval uses.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { TargetConfig } from '../config/schema.js'
import { ConfigError, errorMessage } from '../errors.js'
import { expandVars } from '../util/env.js'
import { functionTarget, type AgentFunction } from './function.js'
import { promptfooAgent, type PromptfooProviderOptions } from './promptfoo-provider.js'
import type { Target, TargetContext } from './types.js'

/** Imports the agent before the run: a module that cannot load is a config error (exit 2), not a failure of every case. */
export async function createModuleTarget(config: TargetConfig, ctx: TargetContext, promptfoo?: PromptfooProviderOptions): Promise<Target> {
  if (config.module === undefined) throw new ConfigError('target.module is not set')
  const file = resolve(ctx.baseDir, expandVars(config.module, ctx.env, ctx.secrets, 'target.module'))
  const agent = await loadAgent(file, promptfoo)
  return functionTarget(() => agent, file)
}

async function loadAgent(file: string, promptfoo?: PromptfooProviderOptions): Promise<AgentFunction> {
  let mod: { default?: unknown }
  try {
    // webpackIgnore: ncc would otherwise replace this import of the user's file with an empty stub
    mod = (await import(/* webpackIgnore: true */ pathToFileURL(file).href)) as { default?: unknown }
  } catch (err) {
    throw new ConfigError(`target.module: cannot load ${file}: ${errorMessage(err)}`, file)
  }
  // promptfoo's provider interface (SPEC §11) instead of `(input, case) => output`
  const adapted = promptfoo && promptfooAgent(mod, promptfoo)
  if (typeof adapted === 'string') throw new ConfigError(`provider ${promptfoo!.id}: ${file} ${adapted}; it exports ${describeExports(mod)}`, file)
  if (adapted) return adapted
  if (typeof mod.default !== 'function') {
    throw new ConfigError(
      `target.module: ${file} must export a function as default, (input, case) => string; it exports ${describeExports(mod)}`,
      file
    )
  }
  return mod.default as AgentFunction
}

function describeExports(mod: { default?: unknown }): string {
  if (mod.default === undefined) {
    const names = Object.keys(mod).filter((name) => name !== 'default')
    return names.length > 0 ? `no default, only ${names.join(', ')}` : 'nothing'
  }
  return `a default of type ${mod.default === null ? 'null' : typeof mod.default}`
}
