/** Builds the agent under test from `target:`: exactly one of command, http, openai, module, provider. */
import { targetVariant, type TargetConfig } from '../config/schema.js'
import { createCommandTarget } from './command.js'
import { createHttpTarget } from './http.js'
import { createJsonlTarget } from './jsonl.js'
import { createModuleTarget, warmModuleTarget } from './module.js'
import { createOpenAITarget } from './openai.js'
import { createPromptfooTarget } from './promptfoo.js'
import { createProviderTarget } from './provider.js'
import type { Target, TargetContext } from './types.js'

export type { Target, TargetContext, TargetReply, TrialRequest } from './types.js'

export async function createTarget(target: TargetConfig, ctx: TargetContext): Promise<Target> {
  const { kind, config } = targetVariant(target)
  switch (kind) {
    case 'command':
      return config.protocol === 'jsonl' ? createJsonlTarget(config, ctx) : createCommandTarget(config, ctx)
    case 'module':
      return createModuleTarget(config, ctx)
    case 'http':
      return createHttpTarget(config.http, ctx, config)
    case 'openai':
      return createOpenAITarget(config.openai, ctx, config)
    case 'provider':
      return createProviderTarget({ id: config.provider, config: config.config }, ctx, config)
    case 'promptfoo':
      return createPromptfooTarget(config, ctx)
  }
}

/**
 * Starts now what the target will need and takes long to start (a module
 * agent's worker), so that it comes up while the dataset is read; createTarget
 * takes it over. Nothing runs and nothing is read from the environment yet.
 */
export function warmTarget(config: TargetConfig): void {
  if (config.module !== undefined) warmModuleTarget()
}
