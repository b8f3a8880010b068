/** Builds the agent under test from `target:`: exactly one of command, http, openai, module, provider. */
import type { TargetConfig } from '../config/schema.js'
import { ConfigError } from '../errors.js'
import { createCommandTarget } from './command.js'
import { createHttpTarget } from './http.js'
import { createJsonlTarget } from './jsonl.js'
import { createModuleTarget, warmModuleTarget } from './module.js'
import { createOpenAITarget } from './openai.js'
import { createPromptfooTarget } from './promptfoo.js'
import { createProviderTarget } from './provider.js'
import type { Target, TargetContext } from './types.js'

export type { Target, TargetContext, TargetReply, TrialRequest } from './types.js'

export async function createTarget(config: TargetConfig, ctx: TargetContext): Promise<Target> {
  if (config.command !== undefined) {
    return config.protocol === 'jsonl' ? createJsonlTarget(config, ctx) : createCommandTarget(config, ctx)
  }
  if (config.module !== undefined) return createModuleTarget(config, ctx)
  if (config.http !== undefined) return createHttpTarget(config.http, ctx, config)
  if (config.openai !== undefined) return createOpenAITarget(config.openai, ctx, config)
  if (config.provider !== undefined) return createProviderTarget({ id: config.provider, config: config.config }, ctx, config)
  if (config.promptfoo !== undefined) return createPromptfooTarget(config, ctx)
  throw new ConfigError('target needs exactly one of: command, http, openai, module, provider', undefined, 'target')
}

/**
 * Starts now what the target will need and takes long to start (a module
 * agent's worker), so that it comes up while the dataset is read; createTarget
 * takes it over. Nothing runs and nothing is read from the environment yet.
 */
export function warmTarget(config: TargetConfig): void {
  if (config.module !== undefined) warmModuleTarget()
}
