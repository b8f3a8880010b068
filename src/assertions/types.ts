import type { AssertionScope } from '../config/case.js'
import type { ConversationMessage } from '../config/schema.js'
import type { Span } from '../tracing/spans.js'
import type { AgentResult, Assertion, AssertionResult, EvalCase, JudgeVerdict, ToolCall } from '../types.js'

/** What a check grades: the output, the case, and what the agent reported on the trial (absent for a plain string output). */
export interface AssertionContext extends AgentResult {
  output: string
  /** what a promptfoo `transform` returned when it is not a string (`output` is then its JSON) */
  outputValue?: unknown
  input: unknown
  case: EvalCase
  /** the trial's duration, for `latency` */
  durationMs: number
  /** the trial's trace when tracing is on: the spans of its trace id, start-time order not assumed */
  trace?: { traceId: string; spans: readonly Span[] }
  /** `target.tools`, the OpenAI tools array: the schemas of is-valid-openai-tools-call */
  tools?: readonly unknown[]
  /** the deadline of sandboxed checks (javascript, backtracking patterns); default 10,000 */
  checkTimeoutMs?: number
  /** the LLM judge, for `llm-rubric`; absent when the config has no judge */
  judge?: Judge
  /** embeddings of texts, for `similar`; absent when the config has no OpenAI-compatible judge */
  embed?: Embedder
  /** asks a grader model for a model-graded check's verdict (factuality, g-eval, context-*…); absent without a judge */
  grade?: Grade
  /** llm-rubric's pass threshold when the assertion sets none (the config's judge.threshold) */
  defaultJudgeThreshold?: number
  /** a conversation's turn: the conversation up to and including the reply graded */
  conversation?: ConversationMessage[]
}

/** One embedding vector per text, in order. Throws when the server cannot give them. */
export type Embedder = (texts: string[]) => Promise<number[][]>

export interface JudgeRequest {
  input: unknown
  output: string
  rubric: string
  /** the trial's tool calls, with `includeToolCalls: true`: shown to the judge and part of the reuse key */
  toolCalls?: ToolCall[]
  /** the conversation so far, with `includeConversation: true`: shown to the judge and part of the reuse key */
  conversation?: ConversationMessage[]
  /** pass threshold of this assertion (its own, else judge.threshold) */
  threshold: number
}

/** Asks the judge (or reuses a baseline verdict). Never throws: failures come back as score 0 with `error`. */
export type Judge = (request: JudgeRequest) => Promise<JudgeVerdict>

/** promptfoo's grader `provider`: an id, or `{id, config}`. */
export type GraderSpec = string | { id: string; config?: Record<string, unknown> }

/** What a model-graded check may do with its grader. */
export interface GraderTools {
  /** one reply of the grader model to a prompt (text, or chat messages), at temperature 0 */
  ask(prompt: string | { role: 'system' | 'user' | 'assistant'; content: string }[]): Promise<string>
  /** embeddings from the judge's server (judge.embeddingModel) */
  embed: Embedder
}

export interface GradeOutcome {
  pass: boolean
  score: number
  reason: string
}

export interface GradeRequest {
  /** what the verdict depends on besides the grader (the check, its value and threshold, input, output, context): with the grader's settings, the reuse key */
  key: Record<string, unknown>
  /** the assertion's or test's own grader; else the judge */
  grader?: GraderSpec
  /** the check's work with its grader; throwing makes the verdict an error (not graded) */
  run(tools: GraderTools): Promise<GradeOutcome>
}

/** A model-graded verdict: never throws; `error` when the grader could not give one. */
export type Grade = (request: GradeRequest) => Promise<JudgeVerdict & { pass?: boolean }>

/** A check's finding before the dispatcher applies `not-` and records the type. */
export interface CheckOutcome {
  pass: boolean
  score: number
  reason: string
  error?: string
  judge?: AssertionResult['judge']
}

export interface AssertionHandler {
  /** Grade one output. `negated` is only for wording the reason ("not to contain"). */
  run(assertion: Assertion, ctx: AssertionContext, negated: boolean): CheckOutcome | Promise<CheckOutcome>
  /** A config problem in the assertion (bad regex, missing value), or undefined when it is usable; `scope` is the config it runs under, when known. */
  validate?(assertion: Assertion, scope?: AssertionScope): string | undefined
  /** Whether `not-<type>` is allowed (rule-based checks only). */
  negatable: boolean
  /** Whether it asks a grader model (the judge's server, or a grader of its own): the judge's settings are then made. */
  usesJudge?: boolean
  /** Whether it asks the judge's embeddings even when it names a grader of its own (answer-relevance). */
  judgeEmbeds?: boolean
}
