/** Builds the agent under test from `target:` (SPEC §1): exactly one of command, http, openai, module. */
import type { TargetConfig } from '../config/schema.js'
import { ConfigError } from '../errors.js'
import { createCommandTarget } from './command.js'
import { createHttpTarget } from './http.js'
import { createJsonlTarget } from './jsonl.js'
import { createModuleTarget } from './module.js'
import { createOpenAITarget } from './openai.js'
import { createPromptfooTarget } from './promptfoo.js'
import type { Target, TargetContext } from './types.js'

export type { Target, TargetContext, TargetReply, TrialRequest } from './types.js'

export async function createTarget(config: TargetConfig, ctx: TargetContext): Promise<Target> {
  if (config.command !== undefined) {
    return config.protocol === 'jsonl' ? createJsonlTarget(config, ctx) : createCommandTarget(config, ctx)
  }
  if (config.module !== undefined) return createModuleTarget(config, ctx)
  if (config.http !== undefined) return createHttpTarget(config.http, ctx, config)
  if (config.openai !== undefined) return createOpenAITarget(config.openai, ctx, config)
  if (config.promptfoo !== undefined) return createPromptfooTarget(config, ctx)
  throw new ConfigError('target needs exactly one of: command, http, openai, module', undefined, 'target')
}
