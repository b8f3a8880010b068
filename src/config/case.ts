/**
 * A case as the engine runs it: made by loading (dataset.ts, promptfoo/), not
 * parsed, so its types are built from the schemas of what it is made from
 * (the assertion a user writes) and what it becomes (the record's case).
 */
import type { CaseRan, CaseResult, PromptfooCase, RunAssertion } from './record-schema.js'
import type { ConversationMessage, JudgeConfig } from './schema.js'

/** One assertion as the engine runs it (after shorthands are expanded; `file` resolved to an absolute path). */
export type Assertion = RunAssertion

export type { PromptfooCase } from './record-schema.js'

/**
 * What an assertion's validity depends on besides itself: the config it runs
 * under. Absent fields are not known (a promptfoo config's tools are its
 * providers'), so nothing is checked against them.
 */
export interface AssertionScope {
  /** `target.tools`, the schemas of is-valid-openai-tools-call; null when the config sets none */
  tools?: readonly unknown[] | null
  /** whether the run receives traces: the trace assertions need them */
  tracing?: boolean
  /** the checks of a conversation's turn: they grade its reply; the conversation's trace is the case's checks' to grade */
  turn?: boolean
}

/** A scripted turn as the engine runs it: its checks validated, their files resolved. */
export interface Turn {
  user: string
  assert: Assertion[]
}

/** Who plays a simulated user: the judge's settings, or the case's own in the judge's shape. */
export type SimulatedUserProvider = Pick<JudgeConfig, 'provider' | 'config' | 'model' | 'baseUrl' | 'apiKeyEnv' | 'command' | 'env' | 'timeoutMs' | 'retries'>

/** A simulated user as the engine runs it, its defaults applied. */
export interface Simulation {
  instructions: string
  /** agent replies at most */
  maxTurns: number
  initialMessages: ConversationMessage[]
  /** a user message that contains it ends the conversation, unsent */
  stop: string
  provider: SimulatedUserProvider
  /**
   * promptfoo's simulated user: the agent gets the prompt as a system message
   * before the history (a JSON list of chat messages), and the case's checks
   * grade the transcript "User: …\n---\nAssistant: …"
   */
  promptfoo?: { system: string }
}

/**
 * A case ready to run: defaults merged, shorthands expanded, key and
 * fingerprint computed. The fields it hands on to its record unchanged are
 * the record's own.
 */
export interface EvalCase extends Pick<CaseResult, 'id' | 'name' | 'tags' | 'fingerprint' | 'expected' | 'source'> {
  input: unknown
  assert: Assertion[]
  /** Position in the dataset (zero-based). */
  index: number
  /** the dataset's `vars` of the case, or the variables a promptfoo case was rendered from */
  vars?: Record<string, unknown>
  /** the dataset's `metadata` of the case, for agents and checks to read */
  metadata?: Record<string, unknown>
  /** set for cases read from a promptfoo config */
  promptfoo?: PromptfooCase
  /** how it runs, as its record keeps it (config/ran.ts), set at load */
  ran?: CaseRan
  /** a scripted conversation: the target is called once per turn; `input` is then undefined */
  turns?: Turn[]
  /** a simulated user: an LLM plays the user; `input` is then undefined */
  simulate?: Simulation
}

/**
 * What a `javascript` check sees of its case (`context.case`): the dataset's
 * own fields, not how evalgate grades it (assertions, fingerprint, source).
 * It is copied to the sandbox's worker on every check, so it holds no more
 * than that.
 */
export interface CaseView extends AgentCaseView {
  /** what the case expects, as the report shows it (the record's `expected`) */
  expected?: unknown
}

/**
 * What an agent sees of its case (its `case` argument): a check's view
 * without `expected`. The agent is the code under test (in a pull request,
 * its author's): what the case expects is how it is graded, and an agent
 * handed it could pass by returning it.
 */
export interface AgentCaseView {
  id: string
  name: string
  input: unknown
  tags: string[]
  /** position in the dataset (zero-based) */
  index: number
  vars?: Record<string, unknown>
  metadata?: Record<string, unknown>
  /** a conversation's turn: the conversation so far, ending with this turn's user message */
  messages?: ConversationMessage[]
  /** a conversation's turn: unique per trial, the same for each of its turns */
  conversationId?: string
}

/** What an agent sees of its case; on a conversation's turn, with the conversation so far (never the turns to come, nor their checks). */
export function agentCaseView(c: EvalCase, turn?: { messages?: ConversationMessage[]; conversationId?: string }): AgentCaseView {
  const view: AgentCaseView = { id: c.id, name: c.name, input: c.input, tags: c.tags, index: c.index }
  if (c.vars !== undefined) view.vars = c.vars
  if (c.metadata !== undefined) view.metadata = c.metadata
  if (turn?.messages !== undefined) view.messages = turn.messages
  if (turn?.conversationId !== undefined) view.conversationId = turn.conversationId
  return view
}

export function caseView(c: EvalCase): CaseView {
  const view: CaseView = agentCaseView(c)
  if (c.expected !== undefined) view.expected = c.expected
  return view
}
