/**
 * One trial of a conversation: the target called once per turn, in
 * order, with the turn's text and the conversation so far; each reply graded
 * by its turn's checks while the next turn runs; the case's own checks on the
 * last reply (with every turn's tool calls, and the turns' usage and latency
 * summed). The user is scripted (`turns`) or played by a model (`simulate`).
 * A turn the target fails ends the conversation, naming the turn; a
 * simulated user that cannot answer leaves the trial failed for want of a
 * grader (as a judge that cannot give a verdict does), not blamed on the agent.
 */
import { randomUUID } from 'node:crypto'
import type { AssertionContext } from '../assertions/types.js'
import type { ConversationMessage } from '../config/schema.js'
import type { TargetReply } from '../targets/types.js'
import type { Assertion, AssertionResult, EvalCase, Simulation, ToolCall, TrialResult, TurnResult } from '../types.js'
import type { SimulatedUser } from './simulated-user.js'
import { sumUsage } from './usage.js'

/** What one call of the target came to: a reply, or the error that ended it. */
export interface TargetCall {
  reply: TargetReply | null
  error: string | null
  durationMs: number
}

/** One turn as the target is asked it. */
export interface TurnRequest {
  input: unknown
  messages: ConversationMessage[]
  conversationId: string
}

/** A reply as its checks see it. */
export interface GradedReply {
  reply: TargetReply
  /** what the user said to get it */
  input: unknown
  durationMs: number
  latencyMs: number
  /** a conversation's turn: the conversation up to and including this reply, for `includeConversation` */
  conversation?: ConversationMessage[]
  /** with tracing on, for the case's own checks: the spans of the whole conversation */
  trace?: AssertionContext['trace']
}

export interface ConversationDeps {
  /** one call of the target holding a concurrency slot, timed out at target.timeoutMs; null when the run stopped first */
  call(request: TurnRequest): Promise<TargetCall | null>
  grade(assertions: Assertion[], reply: GradedReply): Promise<AssertionResult[]>
  /** the trial's verdict from all its checks (a promptfoo test's threshold and sets) */
  verdict(assertions: AssertionResult[]): { passed: boolean; namedScores?: Record<string, number> }
  /** the simulated user of a `simulate` case */
  user?: SimulatedUser
  /** whether the run is stopping (interrupted, or at its budget): no more calls start */
  stopping(): boolean
  /**
   * with tracing on: after the last turn, before the case's checks, waits for the conversation's spans
   * and completes the reply the case's checks grade from them (tool calls, usage where the target reported none)
   */
  settle?(reply: TargetReply): Promise<AssertionContext['trace']>
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000

/** A turn's checks' results, each reason saying which turn it graded. */
function ofTurn(n: number, results: AssertionResult[]): AssertionResult[] {
  for (const r of results) r.reason = `turn ${n}: ${r.reason}`
  return results
}

/** The conversation as promptfoo's simulated user gives it to checks: `User: …` and `Assistant: …` parts between `---` lines. */
export function transcriptText(messages: readonly ConversationMessage[]): string {
  return messages.map((m) => `${m.role === 'assistant' ? 'Assistant' : 'User'}: ${m.content}`).join('\n---\n')
}

/** The user's next message: the script's, or the simulated user's (null: it ended the conversation). */
type NextUser = { text: string } | { end: 'script' | 'stop' } | { failed: string }

/**
 * Runs one conversation; null when the run stopped before it ended (the trial
 * is then dropped, as an unfinished trial is).
 */
export async function runConversation(c: EvalCase, deps: ConversationDeps): Promise<TrialResult | null> {
  const conversationId = randomUUID()
  const simulate = c.simulate
  const messages: ConversationMessage[] = simulate ? [...simulate.initialMessages] : []
  const turns: TurnResult[] = []
  const grading: Promise<unknown>[] = []
  const checks: AssertionResult[][] = []
  let last: GradedReply | undefined
  /** what the case's own checks graded */
  let graded: GradedReply | undefined
  let failure: string | null = null
  let graderFailure: AssertionResult | undefined
  /** time spent in the target's calls */
  let spentMs = 0
  // an opening that ends with the user's message is answered before the simulated user speaks
  let pending: string | undefined = simulate && messages.at(-1)?.role === 'user' ? messages.at(-1)!.content : undefined
  const maxTurns = simulate ? simulate.maxTurns : c.turns!.length

  while (turns.length < maxTurns) {
    const n = turns.length + 1
    let text: string
    if (pending !== undefined) {
      text = pending
      pending = undefined
    } else {
      if (deps.stopping()) return null
      const next = await nextUser(c, simulate, messages, deps.user, n)
      if ('end' in next) break
      if ('failed' in next) {
        graderFailure = simulatedUserFailed(n, next.failed, simulate!)
        break
      }
      text = next.text
      messages.push({ role: 'user', content: text })
    }
    const input = simulate?.promptfoo ? JSON.stringify([{ role: 'system', content: simulate.promptfoo.system }, ...messages]) : text
    const call = await deps.call({ input, messages: messages.slice(), conversationId })
    if (!call) return null
    spentMs += call.durationMs
    const turn: TurnResult = { user: text, output: null }
    turns.push(turn)
    if (call.reply === null) {
      turn.error = call.error ?? 'target failed'
      turn.latencyMs = round3(call.durationMs)
      failure = `turn ${n}: ${turn.error}`
      break
    }
    const reply = call.reply
    messages.push({ role: 'assistant', content: reply.output })
    const durationMs = round3(call.durationMs)
    const latencyMs = reply.latencyMs === undefined ? durationMs : round3(reply.latencyMs)
    turn.output = reply.output
    turn.latencyMs = latencyMs
    if (reply.usage) turn.usage = reply.usage
    if (reply.toolCalls) turn.toolCalls = reply.toolCalls
    last = { reply, input: text, durationMs, latencyMs, conversation: messages.slice() }
    const own = simulate ? [] : c.turns![n - 1]!.assert
    if (own.length) {
      // graded while the next turn runs: the judge need not hold up the conversation
      const at = checks.push([]) - 1
      grading.push(
        deps.grade(own, last).then((results) => {
          turn.assertions = ofTurn(n, results)
          checks[at] = turn.assertions
        })
      )
    }
  }
  await Promise.all(grading)
  const turnChecks = checks.flat()
  const assertions = [...turnChecks]
  if (graderFailure) assertions.push(graderFailure)
  else if (failure === null && last === undefined)
    assertions.push(simulatedUserFailed(1, 'it ended the conversation before the agent said anything', simulate!))
  else if (failure === null) {
    graded = caseReply(c, last!, turns, messages)
    if (deps.settle) graded.trace = await deps.settle(graded.reply)
    assertions.push(...(await deps.grade(c.assert, graded)))
  }
  const verdict = failure === null ? deps.verdict(assertions) : { passed: false }
  const result: TrialResult = {
    passed: verdict.passed,
    output: failure === null ? (simulate?.promptfoo ? transcriptText(messages) : (last?.reply.output ?? null)) : null,
    error: failure,
    score: null,
    durationMs: round3(spentMs),
    assertions,
    turns
  }
  if ('namedScores' in verdict && verdict.namedScores) result.namedScores = verdict.namedScores
  // the case's reply: every turn's, completed from the conversation's spans where the target reported nothing
  const toolCalls = graded ? graded.reply.toolCalls : allToolCalls(turns)
  if (toolCalls) result.toolCalls = toolCalls
  const usage = graded ? graded.reply.usage : sumUsage(turns)
  if (usage) result.usage = usage
  result.latencyMs = round3(turns.reduce((n, t) => n + (t.latencyMs ?? 0), 0))
  const metadata = graded?.reply.metadata ?? last?.reply.metadata
  if (metadata) result.metadata = metadata
  if (last?.reply.finishReason !== undefined) result.finishReason = last.reply.finishReason
  return result
}

/** The reply the case's own checks grade: the last one, with every turn's tool calls and the turns' usage and latency summed. */
function caseReply(c: EvalCase, last: GradedReply, turns: TurnResult[], messages: ConversationMessage[]): GradedReply {
  const reply: TargetReply = { ...last.reply }
  const toolCalls = allToolCalls(turns)
  if (toolCalls) reply.toolCalls = toolCalls
  else delete reply.toolCalls
  const usage = sumUsage(turns)
  if (usage) reply.usage = usage
  // promptfoo's simulated user hands its checks the whole transcript as the output
  if (c.simulate?.promptfoo) reply.output = transcriptText(messages)
  const latencyMs = round3(turns.reduce((n, t) => n + (t.latencyMs ?? 0), 0))
  return { ...last, reply, latencyMs, durationMs: latencyMs }
}

async function nextUser(
  c: EvalCase,
  simulate: Simulation | undefined,
  messages: ConversationMessage[],
  user: SimulatedUser | undefined,
  n: number
): Promise<NextUser> {
  if (!simulate) {
    const turn = c.turns![n - 1]
    return turn ? { text: turn.user } : { end: 'script' }
  }
  if (!user) return { failed: 'no simulated user is configured' }
  const said = await user.next(simulate, messages)
  if ('error' in said) return { failed: said.error }
  // the message with the stop phrase ends the conversation; it is neither sent nor kept
  return said.text.includes(simulate.stop) ? { end: 'stop' } : { text: said.text }
}

/**
 * A simulated user that could not answer: the trial fails for want of a
 * grader, the way a judge's failed verdict fails it (a verdict with an
 * error), so that it is never read as the agent's regression.
 */
function simulatedUserFailed(n: number, why: string, simulate: Simulation): AssertionResult {
  const reason = `turn ${n}: the simulated user could not answer: ${why}`
  return {
    type: 'simulated-user',
    passed: false,
    score: 0,
    reason,
    error: why,
    judge: { model: simulate.provider.provider === 'command' ? 'command' : simulate.provider.model, score: 0, reason, error: why, key: '' }
  }
}

/** Every turn's tool calls in order; none when no turn reported any (a target that reports no tool calls). */
function allToolCalls(turns: TurnResult[]): ToolCall[] | undefined {
  if (!turns.some((t) => t.toolCalls)) return undefined
  return turns.flatMap((t) => t.toolCalls ?? [])
}
