import type { ConversationMessage } from '../config/schema.js'
import type { AgentResult, EvalCase } from '../types.js'

/** One trial's request to the agent under test. */
export interface TrialRequest {
  input: unknown
  case: EvalCase
  /** a conversation's turn: the conversation so far, ending with this turn's user message */
  messages?: ConversationMessage[]
  /** a conversation's turn: the same for every turn of one trial, unique per trial */
  conversationId?: string
  /** aborted on timeout or when the run is cut short; targets stop work and free resources */
  signal: AbortSignal
  /**
   * Calls `listener` once when the trial is aborted (at once if it already
   * is); returns the unsubscribe. Cheaper than `signal` where a target hears
   * of every trial's end (the sandbox); targets without it use `signal`.
   */
  onAbort?(listener: () => void): () => void
  /** the trial's W3C trace context (`00-<trace>-<span>-01`) when tracing is on */
  traceparent?: string
}

/**
 * One trial's answer: the output text and, from a result object or the trial's trace, what the agent did on
 * the way. `latencyMs` only when the target measured it itself (a result object's own, a sandbox's call
 * time: start-up excluded); otherwise the runner times the call.
 */
export interface TargetReply extends AgentResult {
  output: string
  /** the maintained price list's name for the model API that answered (`metadata.model` is its model): usage without a cost is priced from it unless `pricing` names the model */
  priceList?: string
  /** the tools the model was offered on this trial (a provider's own `tools`): the schemas of is-valid-openai-tools-call */
  tools?: readonly unknown[]
}

/**
 * The agent under test. `call` resolves with the output or throws (any error:
 * the runner records its message on the trial and goes on).
 */
export interface Target {
  call(request: TrialRequest): Promise<TargetReply>
  close(): Promise<void>
}

export interface TargetContext {
  /** folder relative paths (module, cwd) are resolved against */
  baseDir: string
  /** where `${VAR}` values come from */
  env: NodeJS.ProcessEnv
  /** collects values read through `${VAR}`, to be redacted everywhere */
  secrets: Set<string>
  /** the deadline of sandboxed code a target runs on its output (a promptfoo provider's `transform`): the config's checkTimeoutMs */
  checkTimeoutMs?: number
  /** told what the user should change though nothing failed (a result object graded as text); at most once per target */
  warn?: (message: string) => void
  /** the trace receiver's endpoint (`http://127.0.0.1:<port>`) when tracing is on: processes and modules get the exporter's variables */
  otlpEndpoint?: string
}

/** A conversation turn's `messages` and `conversationId`, as a request carries them on the wire; nothing for a single input. */
export function turnFields(request: Pick<TrialRequest, 'messages' | 'conversationId'>): { messages?: ConversationMessage[]; conversationId?: string } {
  if (request.messages === undefined) return {}
  return { messages: request.messages, conversationId: request.conversationId }
}
