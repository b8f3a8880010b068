/**
 * The runner: every case × trial through the target, graded by its assertions,
 * with bounded concurrency, per-trial timeouts, clean interruption and a
 * budget (no trial starts once target plus judge have spent budget.maxCostUsd).
 */
import pLimit from 'p-limit'
import { casePasses, evaluateAssertions } from '../assertions/index.js'
import type { Embedder, Grade, Judge } from '../assertions/types.js'
import { errorMessage, TargetError } from '../errors.js'
import type { Pricing } from '../config/schema.js'
import { priceUsage, pricedUsage } from '../targets/pricing.js'
import type { Target, TargetReply, TrialRequest } from '../targets/types.js'
import type { Assertion, AssertionResult, CaseResult, EvalCase, TrialResult } from '../types.js'
import { runConversation, type GradedReply, type TargetCall, type TurnRequest } from './conversation.js'
import { PromptfooConversations } from './promptfoo-conversation.js'
import { promptfooVerdict } from './promptfoo.js'
import { sumUsage } from './usage.js'
import type { SimulatedUser } from './simulated-user.js'
import type { TraceCollector, TrialTrace } from '../tracing/collector.js'
import { agentFromSpans, type Span } from '../tracing/spans.js'

export interface RunnerOptions {
  concurrency: number
  repeat: number
  repeatPassThreshold: number
  timeoutMs: number
  /** the deadline of each trial's sandboxed checks */
  checkTimeoutMs?: number
  judge?: Judge
  /** embeddings for `similar` (the judge's server) */
  embed?: Embedder
  /** the model-graded checks' grader (the judge's) */
  grade?: Grade
  defaultJudgeThreshold?: number
  /** aborting it cuts the run short: no new trials start, running ones are stopped and dropped */
  signal?: AbortSignal
  /** called once per finished case, in completion order */
  onCase?: (result: CaseResult) => void
  now?: () => number
  /** prices tokens into costUsd where the target reports no cost */
  pricing?: Pricing
  /** the model priced when a reply names none in metadata.model (the openai target's) */
  model?: string
  /** target.tools: the schemas is-valid-openai-tools-call checks calls against */
  tools?: readonly unknown[]
  /** budget.maxCostUsd; `judgeCostUsd` reads what the judge has spent so far */
  budget?: { maxCostUsd: number; judgeCostUsd?: () => number }
  /** the cases come from loadConfig, which validated their assertions: grading need not again (GradingOptions) */
  validated?: boolean
  /** plays the user of `simulate` cases */
  simulatedUser?: SimulatedUser
  /** with tracing on: each trial's trace context, and its spans once they have arrived */
  tracing?: TraceCollector
}

export interface RunOutcome {
  /** finished cases, in dataset order */
  cases: CaseResult[]
  complete: boolean
  durationMs: number
  /** set when the run stopped early: interrupted, or at its budget */
  stopReason?: 'interrupted' | 'budget'
  /** what the target's trials cost (USD, their reported or priced costUsd) */
  targetCostUsd: number
}

/** The case score: weighted mean of its llm-rubric scores, null when it has none. */
export function rubricScore(assertions: AssertionResult[]): number | null {
  let sum = 0
  let weights = 0
  for (const a of assertions) {
    if (a.type !== 'llm-rubric') continue
    const w = a.weight ?? 1
    sum += a.score * w
    weights += w
  }
  if (weights === 0) return assertions.some((a) => a.type === 'llm-rubric') ? 0 : null
  return sum / weights
}

/** What one call of the target is asked: a conversation's turn, or a promptfoo prompt rendered when it runs (else the case's input). */
type CallRequest = Pick<TurnRequest, 'input'> & Partial<Pick<TurnRequest, 'messages' | 'conversationId'>>

/** Cases in progress at once, per concurrency slot: enough for grading (the judge) to overlap the next calls. */
const LANES_PER_SLOT = 4
/** With tracing, each trial also waits ~100 ms for its spans after the reply (outside its slot): more lanes keep the slots busy meanwhile. */
const TRACED_LANES_PER_SLOT = 16

/**
 * A trial in progress: what the target is called with, and its abort (its
 * timeout or the run's interruption). The AbortController behind `signal` is
 * made only when the target reads it: at 100,000 trials, controllers were most
 * of the runner's memory, and an in-process agent that answers at once never
 * needs one. (A class, not a literal with a getter: V8 gives each such literal
 * a hidden class of its own.)
 */
class Trial implements TrialRequest {
  reason: TargetError | undefined
  private controller: AbortController | undefined
  private listener: (() => void) | undefined

  constructor(
    readonly evalCase: EvalCase,
    readonly deadline: number,
    readonly traceparent: string | undefined,
    /** a conversation's turn (its own input, the messages so far, the conversation's id), or a promptfoo prompt rendered when it runs */
    private readonly turn?: CallRequest
  ) {}

  get input(): unknown {
    return this.turn ? this.turn.input : this.evalCase.input
  }

  get messages(): TurnRequest['messages'] | undefined {
    return this.turn?.messages
  }

  get conversationId(): string | undefined {
    return this.turn?.conversationId
  }

  get case(): EvalCase {
    return this.evalCase
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.reason) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }

  onAbort(listener: () => void): () => void {
    if (this.reason) {
      listener()
      return () => {}
    }
    this.listener = listener
    return () => {
      if (this.listener === listener) this.listener = undefined
    }
  }

  abort(reason: TargetError): void {
    if (this.reason) return
    this.reason = reason
    this.controller?.abort(reason)
    const listener = this.listener
    this.listener = undefined
    listener?.()
  }
}

/**
 * The trials in progress, oldest first, and one timer for all their timeouts.
 * Every trial gets the same time, so the oldest always times out first: the
 * timer waits for it alone, instead of a timer being set and cleared per trial.
 */
class RunningTrials {
  private readonly trials = new Set<Trial>()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly timeoutMs: number) {}

  /** the real clock: timers run on it, whatever clock the run's durations are measured by */
  private now(): number {
    return performance.now()
  }

  start(c: EvalCase, traceparent: string | undefined, turn?: CallRequest): Trial {
    const trial = new Trial(c, this.now() + this.timeoutMs, traceparent, turn)
    this.trials.add(trial)
    if (!this.timer) this.arm(this.timeoutMs)
    return trial
  }

  finish(trial: Trial): void {
    this.trials.delete(trial)
    if (this.trials.size === 0) this.stop()
  }

  abortAll(reason: TargetError): void {
    for (const t of this.trials) t.abort(reason)
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.expire(), Math.max(0, ms))
  }

  private expire(): void {
    this.timer = undefined
    const now = this.now()
    for (const t of this.trials) {
      if (t.deadline > now) return this.arm(t.deadline - now)
      t.abort(new TargetError(`timed out after ${this.timeoutMs} ms`))
    }
  }
}

function meanLatency(trials: TrialResult[]): number | undefined {
  const timed = trials.filter((t) => t.latencyMs !== undefined)
  return timed.length ? round3(timed.reduce((n, t) => n + t.latencyMs!, 0) / timed.length) : undefined
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000

/** Fold a case's trials into its result. */
export function aggregateCase(c: EvalCase, trials: TrialResult[], repeatPassThreshold: number): CaseResult {
  const passedTrials = trials.filter((t) => t.passed).length
  const passFraction = trials.length ? passedTrials / trials.length : 0
  const passed = trials.length === 1 ? trials[0]!.passed : passFraction >= repeatPassThreshold
  // The trial shown for the case is one that agrees with its verdict.
  const shown = trials.find((t) => t.passed === passed) ?? trials[0]!
  const scores = trials.map((t) => t.score).filter((s): s is number => s !== null)
  const result: CaseResult = {
    id: c.id,
    index: c.index,
    name: c.name,
    tags: c.tags,
    fingerprint: c.fingerprint,
    input: c.input,
    expected: c.expected,
    passed,
    passFraction,
    output: shown.output,
    error: shown.error,
    score: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null,
    durationMs: Math.round(trials.reduce((n, t) => n + t.durationMs, 0) / trials.length),
    assertions: shown.assertions
  }
  if (trials.length > 1) result.trials = trials
  if (shown.toolCalls) result.toolCalls = shown.toolCalls
  if (shown.namedScores) result.namedScores = shown.namedScores
  const usage = sumUsage(trials)
  if (usage) result.usage = usage
  const latencyMs = meanLatency(trials)
  if (latencyMs !== undefined) result.latencyMs = latencyMs
  if (shown.metadata) result.metadata = shown.metadata
  if (shown.finishReason !== undefined) result.finishReason = shown.finishReason
  if (shown.trace) result.trace = shown.trace
  if (shown.turns) result.turns = shown.turns
  if (c.source) result.source = c.source
  if (c.ran) result.ran = c.ran
  return result
}

export async function runCases(cases: EvalCase[], target: Target, options: RunnerOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => performance.now())
  const started = now()
  const limit = pLimit(options.concurrency)
  const grading = { validated: options.validated === true }
  const runSignal = options.signal
  const results: (CaseResult | undefined)[] = new Array(cases.length)
  const running = new RunningTrials(options.timeoutMs)
  // one listener for the run, not one per trial
  const onRunAbort = () => running.abortAll(new TargetError('run interrupted'))
  runSignal?.addEventListener('abort', onRunAbort, { once: true })

  let targetCostUsd = 0
  let stopReason: RunOutcome['stopReason']
  const budget = options.budget
  const overBudget = (): boolean => {
    if (!budget) return false
    if (targetCostUsd + (budget.judgeCostUsd?.() ?? 0) < budget.maxCostUsd) return false
    stopReason = 'budget'
    return true
  }
  const stopped = (): boolean => runSignal?.aborted === true || stopReason !== undefined

  /**
   * One call of the target, holding a concurrency slot (grading, and the judge, do not); null when the run
   * stopped first. `traceparent`: the trial's trace context (every turn of a conversation continues one trace).
   */
  function call(c: EvalCase, traceparent: string | undefined, turn?: CallRequest): Promise<TargetCall | null> {
    return limit(async () => {
      if (stopped() || overBudget()) return null
      const inFlight = running.start(c, traceparent, turn)
      const t0 = now()
      try {
        const reply: TargetReply = await target.call(inFlight)
        // priced and counted before the slot is released: the next trial's budget check must see this one's cost
        if (reply.usage) {
          reply.usage = await pricedUsage(reply.usage, modelOf(reply) ?? options.model, options.pricing, reply.priceList)
          if (reply.usage.costUsd !== undefined) targetCostUsd += reply.usage.costUsd
        }
        return { reply, error: null, durationMs: now() - t0 }
      } catch (err) {
        if (runSignal?.aborted) return null
        const error = inFlight.reason ? errorMessage(inFlight.reason) : errorMessage(err)
        return { reply: null, error: error || 'target failed', durationMs: now() - t0 }
      } finally {
        running.finish(inFlight)
      }
    })
  }

  /** A reply graded by a list of checks. */
  function grade(c: EvalCase, list: Assertion[], graded: GradedReply): Promise<AssertionResult[]> {
    const { reply } = graded
    return evaluateAssertions(
      list,
      {
        output: reply.output,
        input: graded.input,
        case: c,
        durationMs: graded.durationMs,
        checkTimeoutMs: options.checkTimeoutMs,
        toolCalls: reply.toolCalls,
        usage: reply.usage,
        metadata: reply.metadata,
        finishReason: reply.finishReason,
        latencyMs: graded.latencyMs,
        tools: reply.tools ?? options.tools,
        judge: options.judge,
        embed: options.embed,
        grade: options.grade,
        defaultJudgeThreshold: options.defaultJudgeThreshold,
        conversation: graded.conversation,
        ...(graded.trace ? { trace: graded.trace } : {})
      },
      grading
    )
  }

  /** A trial's verdict from its checks: every one passes, or a promptfoo test's threshold and sets. */
  function verdict(c: EvalCase, assertions: AssertionResult[]): { passed: boolean; namedScores?: Record<string, number> } {
    return c.promptfoo ? promptfooVerdict({ ...c, promptfoo: c.promptfoo }, assertions) : { passed: casePasses(assertions) }
  }

  /**
   * A trial's spans once they have arrived (none without tracing): the reply completed from them where
   * the target reported nothing itself (its own report wins), their cost counted.
   */
  async function settle(trace: TrialTrace | undefined, reply: TargetReply | null): Promise<Traced | undefined> {
    if (!trace) return undefined
    const traced = await trace.settle()
    if (reply && traced.spans.length > 0) targetCostUsd += completeFromSpans(reply, traced.spans, options)
    return traced
  }

  /** One trial of a conversation: its turns in order, each a call of its own, all in one trace. */
  async function conversationTrial(c: EvalCase): Promise<TrialResult | null> {
    const trace = options.tracing?.begin()
    let traced: Traced | undefined
    const result = await runConversation(c, {
      call: (turn) => call(c, trace?.traceparent, turn),
      grade: (list, graded) => grade(c, list, graded),
      verdict: (assertions) => verdict(c, assertions),
      user: options.simulatedUser,
      stopping: () => stopped() || overBudget(),
      // the case's checks see the spans of the whole conversation
      settle: trace
        ? async (reply) => {
            traced = await settle(trace, reply)
            return traced && { traceId: traced.summary.traceId, spans: traced.spans }
          }
        : undefined
    })
    if (!result) {
      trace?.discard()
      return null
    }
    // a conversation that ended at a failed turn was not graded: its trace is still summed up
    traced ??= await settle(trace, null)
    if (traced) result.trace = traced.summary
    result.score = rubricScore(result.assertions)
    return result
  }

  let promptfooConversations: PromptfooConversations | undefined

  /** Trial `k` of a case: the target call holds a concurrency slot; grading (and the judge) does not. */
  async function trial(c: EvalCase, k: number): Promise<TrialResult | null> {
    if (c.turns || c.simulate) return conversationTrial(c)
    if (c.promptfoo?.conversation) {
      // promptfoo's `_conversation`: after the earlier turns of its conversation, its prompt rendered from them
      promptfooConversations ??= new PromptfooConversations()
      const trace = options.tracing?.begin()
      const turn = await promptfooConversations.turn(c, k, (input) => call(c, trace?.traceparent, { input }))
      return traced(c, trace, turn.call, turn.input)
    }
    const trace = options.tracing?.begin()
    return traced(c, trace, await call(c, trace?.traceparent), c.input)
  }

  /** A single call's trial: its spans awaited (outside its slot), then graded; null when the run stopped first. */
  async function traced(c: EvalCase, trace: TrialTrace | undefined, done: TargetCall | null, input: unknown): Promise<TrialResult | null> {
    if (!done) {
      trace?.discard()
      return null
    }
    const spans = await settle(trace, done.reply)
    const result = await graded(c, done, input, spans)
    if (spans) result.trace = spans.summary
    return result
  }

  /** A trial's call graded: its checks, or the target's error. */
  async function graded(c: EvalCase, done: TargetCall, input: unknown, spans: Traced | undefined): Promise<TrialResult> {
    const durationMs = round3(done.durationMs)
    const reply = done.reply
    if (reply === null) return { passed: false, output: null, error: done.error, score: null, durationMs, assertions: [] }
    // the target's own time when it measured it (start-up excluded), else the call's
    const latencyMs = reply.latencyMs === undefined ? durationMs : round3(reply.latencyMs)
    const usage = reply.usage
    const trace = spans && { traceId: spans.summary.traceId, spans: spans.spans }
    const assertions = await grade(c, c.assert, { reply, input, durationMs, latencyMs, trace })
    const graded = verdict(c, assertions)
    // literals, not spreads: at 100,000 trials, spread copies were ~70 MB of garbage that V8 kept in the old generation
    const result: TrialResult = {
      passed: graded.passed,
      output: reply.output,
      error: null,
      score: rubricScore(assertions),
      durationMs,
      assertions
    }
    if (graded.namedScores) result.namedScores = graded.namedScores
    if (reply.toolCalls) result.toolCalls = reply.toolCalls
    if (usage) result.usage = usage
    result.latencyMs = latencyMs
    if (reply.metadata) result.metadata = reply.metadata
    if (reply.finishReason !== undefined) result.finishReason = reply.finishReason
    return result
  }

  // Lanes each take the next case when theirs is done: memory stays flat in the dataset's size
  // (no promise per case up front), and a slow case holds up only its own lane.
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < cases.length && !stopped()) {
      const i = next++
      const c = cases[i]!
      const trials = await Promise.all(Array.from({ length: options.repeat }, (_, k) => trial(c, k)))
      if (trials.some((t) => t === null)) continue
      results[i] = aggregateCase(c, trials as TrialResult[], options.repeatPassThreshold)
      options.onCase?.(results[i]!)
    }
  }
  try {
    const lanes = options.concurrency * (options.tracing ? TRACED_LANES_PER_SLOT : LANES_PER_SLOT)
    await Promise.all(Array.from({ length: Math.min(cases.length, lanes) }, lane))
  } finally {
    running.stop()
    runSignal?.removeEventListener('abort', onRunAbort)
  }
  const finished = results.filter((r): r is CaseResult => r !== undefined)
  const complete = finished.length === cases.length
  const outcome: RunOutcome = { cases: finished, complete, durationMs: Math.round(now() - started), targetCostUsd }
  if (!complete) outcome.stopReason = stopReason ?? 'interrupted'
  return outcome
}

/** The model a reply names (the openai target's, or a result object's metadata.model), which `pricing` prices. */
function modelOf(reply: TargetReply): string | undefined {
  const model = reply.metadata?.model
  return typeof model === 'string' ? model : undefined
}

/** A trial's spans and what the record keeps of them. */
type Traced = Awaited<ReturnType<TrialTrace['settle']>>

/**
 * The reply completed from its trial's spans: tool calls, usage and
 * the model, each only where the target reported none. Returns the cost the
 * spans' usage adds (priced with `pricing`), for the budget.
 */
function completeFromSpans(reply: TargetReply, spans: readonly Span[], options: RunnerOptions): number {
  const found = agentFromSpans(spans)
  if (reply.toolCalls === undefined) reply.toolCalls = found.toolCalls
  if (found.model !== undefined && modelOf(reply) === undefined) reply.metadata = { ...reply.metadata, model: found.model }
  if (reply.usage !== undefined || found.usage === undefined) return 0
  reply.usage = priceUsage(found.usage, modelOf(reply) ?? options.model, options.pricing)
  return reply.usage.costUsd ?? 0
}
