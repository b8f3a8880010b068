/**
 * promptfoo's `_conversation` at run time: the cases of one
 * conversation (config/promptfoo/conversation.ts) are called one after
 * another in dataset order, each with its prompt rendered from the entries of
 * the ones before — `{prompt, input, output, metadata}` as promptfoo 0.121.20
 * keeps them — while other cases run side by side. Trial k of a case follows
 * trial k of the one before (promptfoo chains a test's repeats into the same
 * conversation; the README lists the difference).
 */
import type { EvalCase } from '../types.js'
import type { TargetCall } from './conversation.js'

/** One earlier turn, as the prompt reads it in `_conversation`. */
export interface ConversationEntry {
  /** the rendered prompt: its JSON value when it parses (chat messages), else its text */
  prompt: unknown
  /** the last message's content of a chat prompt, else the prompt */
  input: unknown
  /** the provider's output ('' when it gave none) */
  output: string
  metadata?: Record<string, unknown>
}

type Render = (template: string, vars: Record<string, unknown>, env: Record<string, unknown> | undefined) => string

interface Chain {
  entries: ConversationEntry[]
  /** settles when the last turn taken so far has answered */
  tail: Promise<void>
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** promptfoo's entry of a turn: what it was sent, the last message of a chat, and what it answered. */
export function conversationEntry(rendered: string, call: TargetCall | null): ConversationEntry {
  const json = parsed(rendered)
  const last = Array.isArray(json) ? (json.at(-1) as { content?: unknown } | null | undefined) : undefined
  const lastInput = Array.isArray(json) ? last?.content || last : undefined
  const entry: ConversationEntry = { prompt: json || rendered, input: lastInput || json || rendered, output: call?.reply?.output || '' }
  if (call?.reply?.metadata) entry.metadata = call.reply.metadata
  return entry
}

export class PromptfooConversations {
  private readonly chains = new Map<string, Chain>()
  private render: Promise<Render> | undefined

  /**
   * One trial's call of a `_conversation` case, after the earlier turns of its
   * conversation have answered; must be called in dataset order (the runner's
   * lanes take cases in that order). Resolves with the prompt sent and the call.
   */
  turn(c: EvalCase, trial: number, call: (input: string) => Promise<TargetCall | null>): Promise<{ input: string; call: TargetCall | null }> {
    const { key, template, env, blind } = c.promptfoo!.conversation!
    const id = `${key}\u0000${trial}`
    let chain = this.chains.get(id)
    if (!chain) this.chains.set(id, (chain = { entries: [], tail: Promise.resolve() }))
    const own = chain
    const previous = own.tail
    let answered!: () => void
    // taken now, synchronously: the next case of the conversation waits for this one
    own.tail = new Promise<void>((resolve) => (answered = resolve))
    return (async () => {
      try {
        await previous
        let input: string
        try {
          input = (await this.renderer())(template, blind ? { ...c.vars } : { ...c.vars, _conversation: own.entries.slice() }, env)
        } catch (err) {
          return { input: template, call: { reply: null, error: `cannot render the prompt with _conversation: ${(err as Error).message}`, durationMs: 0 } }
        }
        const done = await call(input)
        if (done) own.entries.push(conversationEntry(input, done))
        return { input, call: done }
      } finally {
        answered()
      }
    })()
  }

  /** The templates (nunjucks), loaded only when a promptfoo conversation runs. */
  private renderer(): Promise<Render> {
    this.render ??= import('../llm/nunjucks.js').then(({ Templates }) => {
      const byEnv = new Map<unknown, InstanceType<typeof Templates>>()
      return (template, vars, env) => {
        let templates = byEnv.get(env)
        if (!templates) byEnv.set(env, (templates = new Templates(env)))
        return templates.renderPrompt(template, vars)
      }
    })
    return this.render
  }
}
