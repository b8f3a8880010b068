/** The messages between the pool and its workers: tasks (each a batch of items) in, one reply per task out. */
import type { PromptfooProviderOptions } from './promptfoo-provider.js'

/** One piece of untrusted work. */
export type SandboxItem =
  /** `exec` of a pattern: the matched text, or null */
  | { kind: 'match'; source: string; flags: string; text: string }
  /** `test` of a pattern (JSON Schema `pattern`, `patternProperties`) */
  | { kind: 'test'; source: string; flags: string; text: string }
  /** an inline javascript check, already made a function body of (output, input, context) */
  | { kind: 'script'; body: string; output: string; input: unknown; context: unknown }
  /** a `file:` javascript check: its default export called as (output, context, value) */
  | { kind: 'module'; file: string; output: string; context: unknown; value: unknown }
  /**
   * a promptfoo `transform`: an inline body of (output, input, context), or a module's function (default, or `name`) of
   * (output, context) — of (output, text, context) when `text` is given (an http provider's `transformResponse`: the JSON, the text); its value as it is
   */
  | { kind: 'transform'; body: string; output: unknown; input: unknown; context: unknown }
  | { kind: 'transform'; file: string; name?: string; output: unknown; context: unknown; text?: string }
  /**
   * a `module` target's default export called as (input, case): {value, latencyMs}; no `input` when it is the case's;
   * with `promptfoo`, the module is a promptfoo provider built with those options and adapted (promptfoo-provider.ts)
   */
  | { kind: 'agent'; file: string; input?: unknown; case: { input: unknown; name: string }; promptfoo?: PromptfooProviderOptions }
  /** import a module and check that it exports a function as default (with `promptfoo`: a provider) */
  | { kind: 'load'; file: string; promptfoo?: PromptfooProviderOptions }

export type ItemReply = { ok: true; value: unknown } | { ok: false; error: string }

/** The environment first (a worker starts with none); then tasks started in one turn travel together; a cancel alone. */
export type WorkerRequest = { env: Record<string, string> } | { tasks: { id: number; items: SandboxItem[] }[] } | { cancel: number }

/**
 * The worker's answers, flat: for each task its id, its item count, then per
 * item a status and a payload (a value, or an error's message). At one reply
 * per trial, an object per answer and per item cost more to clone than an
 * instant agent costs to run.
 */
export type WorkerReplies = unknown[]

/** An item's status in the replies; any other (0) is an item the deadline stopped before it finished. */
export const REPLY_OK = 1
export const REPLY_ERROR = 2
