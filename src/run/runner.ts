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
import type { AssertionResult, CaseResult, EvalCase, TrialResult, Usage } from '../types.js'
import { promptfooVerdict } from './promptfoo.js'
import type { TraceCollector, TrialTrace } from '../tracing/collector.js'
import { agentFromSpans, type Span } from '../tracing/spans.js'

export interface RunnerOptions {
  concurrency: number
  repeat: number
  repeatPassThreshold: number
  timeoutMs: number
  /** the deadline of each trial's sandboxed checks (SPEC §9 checkTimeoutMs) */
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
  /** with tracing on (SPEC §12): each trial's trace context, and its spans once they have arrived */
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
    readonly traceparent: string | undefined
  ) {}

  get input(): unknown {
    return this.evalCase.input
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

  start(c: EvalCase, traceparent?: string): Trial {
    const trial = new Trial(c, this.now() + this.timeoutMs, traceparent)
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

const USAGE_KEYS = ['inputTokens', 'outputTokens', 'totalTokens', 'costUsd'] as const

/** The trials' usage summed, key by key: a key none of them reported stays absent. */
function sumUsage(trials: TrialResult[]): Usage | undefined {
  if (trials.length === 1) return trials[0]!.usage
  let sum: Usage | undefined
  for (const t of trials) {
    if (!t.usage) continue
    sum ??= {}
    for (const key of USAGE_KEYS) {
      const n = t.usage[key]
      if (n !== undefined) sum[key] = (sum[key] ?? 0) + n
    }
  }
  return sum
}

function meanLatency(trials: TrialResult[]): number | undefined {
  const timed = trials.filter((t) => t.latencyMs !== undefined)
  return timed.length ? round3(timed.reduce((n, t) => n + t.latencyMs!, 0) / timed.length) : undefined
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000

/** Fold a case's trials into its result (SPEC §4: passFraction against repeatPassThreshold). */
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
  if (c.source) result.source = c.source
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

  /** One trial: the target call holds a concurrency slot; waiting for its spans, and grading (and the judge), do not. */
  async function trial(c: EvalCase): Promise<TrialResult | null> {
    let trace: TrialTrace | undefined
    const call = await limit(async () => {
      if (stopped() || overBudget()) return null
      trace = options.tracing?.begin()
      const inFlight = running.start(c, trace?.traceparent)
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
    if (!call) {
      trace?.discard()
      return null
    }
    const durationMs = round3(call.durationMs)
    const traced = trace && (await trace.settle())
    const reply = call.reply
    if (reply === null) {
      const failed: TrialResult = { passed: false, output: null, error: call.error, score: null, durationMs, assertions: [] }
      if (traced) failed.trace = traced.summary
      return failed
    }
    if (traced && traced.spans.length > 0) {
      // what the spans say, where the target reported nothing itself (its own report wins)
      const spent = completeFromSpans(reply, traced.spans, options)
      targetCostUsd += spent
    }
    // the target's own time when it measured it (start-up excluded), else the call's
    const latencyMs = reply.latencyMs === undefined ? durationMs : round3(reply.latencyMs)
    const usage = reply.usage
    const assertions = await evaluateAssertions(
      c.assert,
      {
        output: reply.output,
        input: c.input,
        case: c,
        durationMs,
        checkTimeoutMs: options.checkTimeoutMs,
        toolCalls: reply.toolCalls,
        usage,
        metadata: reply.metadata,
        finishReason: reply.finishReason,
        latencyMs,
        tools: reply.tools ?? options.tools,
        ...(traced ? { trace: { traceId: traced.summary.traceId, spans: traced.spans } } : {}),
        judge: options.judge,
        embed: options.embed,
        grade: options.grade,
        defaultJudgeThreshold: options.defaultJudgeThreshold
      },
      grading
    )
    const graded = c.promptfoo ? promptfooVerdict({ ...c, promptfoo: c.promptfoo }, assertions) : undefined
    // literals, not spreads: at 100,000 trials, spread copies were ~70 MB of garbage that V8 kept in the old generation
    const result: TrialResult = {
      passed: graded ? graded.passed : casePasses(assertions),
      output: reply.output,
      error: null,
      score: rubricScore(assertions),
      durationMs,
      assertions
    }
    if (graded?.namedScores) result.namedScores = graded.namedScores
    if (reply.toolCalls) result.toolCalls = reply.toolCalls
    if (usage) result.usage = usage
    result.latencyMs = latencyMs
    if (reply.metadata) result.metadata = reply.metadata
    if (reply.finishReason !== undefined) result.finishReason = reply.finishReason
    if (traced) result.trace = traced.summary
    return result
  }

  // Lanes each take the next case when theirs is done: memory stays flat in the dataset's size
  // (no promise per case up front), and a slow case holds up only its own lane.
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < cases.length && !stopped()) {
      const i = next++
      const c = cases[i]!
      const trials = await Promise.all(Array.from({ length: options.repeat }, () => trial(c)))
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

/**
 * The reply completed from its trial's spans (SPEC §12): tool calls, usage and
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

/** The model a reply names (the openai target's, or a result object's metadata.model), which `pricing` prices. */
function modelOf(reply: TargetReply): string | undefined {
  const model = reply.metadata?.model
  return typeof model === 'string' ? model : undefined
}
