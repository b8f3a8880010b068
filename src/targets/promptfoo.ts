/**
 * The providers of a promptfoo config as the target: each case
 * runs on the provider it names. `echo` answers with the prompt, `exec:` runs
 * a command per trial with the prompt as an argument (the command target),
 * `file://` loads promptfoo's provider interface (the module target), and
 * the model APIs of the providers' registry are the provider target. A provider's `transform` runs on the output
 * the way javascript checks run (the test's `options.transform` is applied by
 * the assertions, which see the value it returns).
 */
import { transformContext, transformOutput } from '../assertions/javascript.js'
import type { PromptfooProvider } from '../config/promptfoo/index.js'
import type { TargetConfig, TargetOf } from '../config/schema.js'
import { ConfigError, TargetError, errorMessage } from '../errors.js'
import { isProviderId } from '../providers/index.js'
import { splitArgv } from '../util/argv.js'
import { createCommandTarget } from './command.js'
import { createModuleTarget } from './module.js'
import { createProviderTarget } from './provider.js'
import type { Target, TargetContext, TargetReply, TrialRequest } from './types.js'

/** promptfoo strips terminal colour codes from what an `exec:` provider prints */
const ANSI_ESCAPE = /\x1b(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])/g

export async function createPromptfooTarget(config: TargetOf<'promptfoo'>, ctx: TargetContext): Promise<Target> {
  const providers = config.promptfoo.providers
  const targets = await Promise.all(providers.map((p, i) => providerTarget(p, config, ctx, `providers[${i}]`)))
  return {
    async call(request: TrialRequest): Promise<TargetReply> {
      const index = request.case.promptfoo?.provider ?? 0
      const provider = providers[index]!
      const reply = await targets[index]!.call(request)
      if (provider.transform === undefined) return reply
      let output: unknown
      try {
        output = await transformOutput(provider.transform, reply.output, transformContext(request.input, request.case), ctx.checkTimeoutMs)
      } catch (err) {
        throw new TargetError(`the provider's transform failed: ${errorMessage(err)}`)
      }
      return { ...reply, output: typeof output === 'string' ? output : JSON.stringify(output) }
    },
    async close() {
      await Promise.all(targets.map((t) => t.close()))
    }
  }
}

async function providerTarget(p: PromptfooProvider, config: TargetConfig, ctx: TargetContext, where: string): Promise<Target> {
  if (p.id === 'echo') return { call: async (request) => ({ output: String(request.input) }), close: async () => {} }
  if (p.id.startsWith('file://') && !isProviderId(p.id))
    return createModuleTarget({ ...config, module: p.id.slice('file://'.length) }, ctx, { id: p.id, label: p.label, config: p.config })
  if (p.id.startsWith('exec:')) return execTarget(p, config, ctx, where)
  if (isProviderId(p.id)) return createProviderTarget({ id: p.id, config: p.config, label: p.label }, ctx, config, { where })
  throw new ConfigError(`${where}: provider "${p.id}" is not supported by evalgate`)
}

/**
 * `exec:<command>`: promptfoo's argv — the command's words, then the prompt,
 * the provider's options and the call's context as JSON — one process per trial;
 * its trimmed stdout is the output, a non-zero exit an error.
 */
function execTarget(p: PromptfooProvider, config: TargetConfig, ctx: TargetContext, where: string): Target {
  const words = splitArgv(p.id.slice('exec:'.length).trim(), `${where} (${p.id})`)
  if (words.length === 0) throw new ConfigError(`${where}: "${p.id}" names no command`)
  const options = JSON.stringify({ id: p.id, ...(p.label ? { label: p.label } : {}), config: p.config ?? {} })
  const running = new Set<Target>()
  return {
    async call(request) {
      const context = JSON.stringify({ vars: request.case.vars ?? {}, prompt: { raw: request.input, label: request.case.name } })
      // the context differs per case, so each trial gets its own command: the command target is only its settings
      const command = createCommandTarget({ ...config, command: [...words, '{{input}}', options, context] }, ctx)
      running.add(command)
      try {
        const reply = await command.call(request)
        return { ...reply, output: reply.output.replace(ANSI_ESCAPE, '').trim() }
      } finally {
        running.delete(command)
      }
    },
    async close() {
      await Promise.all([...running].map((t) => t.close()))
    }
  }
}
