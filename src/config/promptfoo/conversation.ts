/**
 * promptfoo's conversations, as promptfoo 0.121.20 has them:
 *
 * - `_conversation` in a prompt: the tests that share a provider, a prompt and
 *   `metadata.conversationId` (none is one id too) form one conversation, run
 *   in their order; each sees the earlier ones as `{prompt, input, output}`
 *   entries. Here a case is marked with its conversation's key and its prompt
 *   template; the runner renders it when the tests before it have answered
 *   (run/promptfoo-conversation.ts).
 * - `promptfoo:simulated-user` as a test's provider: a model plays the user
 *   from `instructions` (rendered with the vars) for up to `maxTurns` rounds,
 *   the provider under test answering each with the prompt as a system
 *   message before the history; the test's checks grade the transcript.
 *   promptfoo asks its remote service to play the user; evalgate asks the judge.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ConfigError, errorMessage } from '../../errors.js'
import type { Simulation } from '../case.js'
import { DEFAULT_STOP, simulatedUserProvider } from '../conversation.js'
import type { ConversationMessage, JudgeConfig } from '../schema.js'
import type { PromptfooTest } from './schema.js'
import type { Templates, Vars } from '../../llm/nunjucks.js'

/** Whether a prompt reads `_conversation` (in a `{{ }}` or `{% %}` tag), which makes its tests a conversation. */
export function usesConversation(raw: string): boolean {
  return /\{[{%][^}]*\b_conversation\b/.test(raw)
}

/** The key of a `_conversation`: promptfoo's provider, prompt and `metadata.conversationId`. */
export function conversationKey(provider: number, prompt: number, metadata: Record<string, unknown> | undefined): string {
  return JSON.stringify([provider, prompt, metadata?.conversationId ?? null])
}

export const SIMULATED_USER = 'promptfoo:simulated-user'
/** promptfoo's default */
const DEFAULT_MAX_TURNS = 10
/** The simulated user's settings evalgate honours; any other is refused. */
const USER_KEYS = new Set(['instructions', 'maxTurns', 'initialMessages'])

/**
 * A test's `provider` (or defaultTest's) as a simulated user; anything but
 * promptfoo's simulated user is refused. `prompt` is the prompt text the
 * provider under test is sent as a system message.
 */
export function simulatedUser(
  provider: NonNullable<PromptfooTest['provider']>,
  vars: Vars,
  templates: Templates,
  judge: JudgeConfig | undefined,
  where: string,
  file: string,
  baseDir: string
): Omit<Simulation, 'promptfoo'> {
  const { id, config = {} } = typeof provider === 'string' ? { id: provider, config: {} } : provider
  if (id !== SIMULATED_USER)
    throw new ConfigError(
      `${where}.provider: a test's own provider "${id}" is not supported by evalgate; only ${SIMULATED_USER} (or list it under providers)`,
      file
    )
  for (const key of Object.keys(config)) {
    if (!USER_KEYS.has(key))
      throw new ConfigError(
        `${where}.provider.config.${key}: not supported by evalgate's simulated user; it honours instructions, maxTurns and initialMessages`,
        file
      )
  }
  const render = (text: string, at: string) => {
    try {
      return templates.render(text, vars)
    } catch (err) {
      throw new ConfigError(`${where}${at}: cannot render ${JSON.stringify(text.slice(0, 80))}: ${errorMessage(err)}`, file)
    }
  }
  const instructions = render(
    typeof config.instructions === 'string' && config.instructions !== '' ? config.instructions : '{{instructions}}',
    '.provider.config.instructions'
  )
  if (instructions.trim() === '')
    throw new ConfigError(`${where}: the simulated user has no instructions: set vars.instructions or provider.config.instructions`, file)
  const maxTurns = config.maxTurns ?? DEFAULT_MAX_TURNS
  if (typeof maxTurns !== 'number' || !Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > 50)
    throw new ConfigError(`${where}.provider.config.maxTurns: maxTurns must be between 1 and 50`, file)
  const initialMessages = openingOf(vars.initialMessages ?? config.initialMessages, where, file, baseDir).map((m) => ({
    role: m.role,
    content: render(m.content, '.initialMessages')
  }))
  let user
  try {
    user = simulatedUserProvider(undefined, judge)
  } catch {
    throw new ConfigError(`${where}: ${SIMULATED_USER} is played by evalgate's judge: give the \`evalgate:\` block a \`judge:\``, file)
  }
  // promptfoo asks for up to maxTurns user messages, after answering an opening that ends with the user's
  const answered = initialMessages.at(-1)?.role === 'user' ? 1 : 0
  return { instructions, maxTurns: maxTurns + answered, initialMessages, stop: DEFAULT_STOP, provider: user }
}

/** promptfoo's `initialMessages`: a list, a JSON list in a string, or a `file://` JSON or YAML file of one. */
function openingOf(value: unknown, where: string, file: string, baseDir: string): ConversationMessage[] {
  let list = value
  if (typeof value === 'string') {
    const text = value.trim()
    if (text === '') return []
    try {
      if (text.startsWith('file://')) {
        const name = path.resolve(baseDir, text.slice('file://'.length))
        list = /\.ya?ml$/i.test(name) ? parseYaml(readFileSync(name, 'utf8')) : JSON.parse(readFileSync(name, 'utf8'))
      } else list = JSON.parse(text)
    } catch (err) {
      throw new ConfigError(`${where}: initialMessages ${JSON.stringify(text.slice(0, 80))} could not be read: ${errorMessage(err)}`, file)
    }
  }
  if (list === undefined || list === null) return []
  const bad = () => new ConfigError(`${where}: initialMessages is a list of {role: user | assistant, content: "…"}`, file)
  if (!Array.isArray(list)) throw bad()
  return list.map((m: unknown) => {
    const { role, content } = (m ?? {}) as { role?: unknown; content?: unknown }
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') throw bad()
    return { role, content }
  })
}
