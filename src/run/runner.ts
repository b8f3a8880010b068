/**
 * The runner: every case × trial through the target, graded by its assertions,
 * with bounded concurrency, per-trial timeouts and clean interruption.
 */
import pLimit from 'p-limit'
import { casePasses, evaluateAssertions } from '../assertions/index.js'
import type { Judge } from '../assertions/types.js'
import { errorMessage, TargetError } from '../errors.js'
import type { Target } from '../targets/types.js'
import type { AssertionResult, CaseResult, EvalCase, TargetUsage, TrialResult } from '../types.js'

export interface RunnerOptions {
  concurrency: number
  repeat: number
  repeatPassThreshold: number
  timeoutMs: number
  judge?: Judge
  defaultJudgeThreshold?: number
  /** aborting it cuts the run short: no new trials start, running ones are stopped and dropped */
  signal?: AbortSignal
  /** called once per finished case, in completion order */
  onCase?: (result: CaseResult) => void
  now?: () => number
}

export interface RunOutcome {
  /** finished cases, in dataset order */
  cases: CaseResult[]
  complete: boolean
  durationMs: number
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

/**
 * A trial's abort: its timeout or the run's interruption. The AbortController
 * behind `signal` is made only when the target reads it: at 100,000 trials,
 * controllers were most of the runner's memory, and an in-process agent that
 * answers at once never needs one.
 */
class TrialAbort {
  reason: TargetError | undefined
  private controller: AbortController | undefined
  private readonly timer: NodeJS.Timeout

  constructor(timeoutMs: number) {
    this.timer = setTimeout(() => this.abort(new TargetError(`timed out after ${timeoutMs} ms`)), timeoutMs)
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.reason) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }

  abort(reason: TargetError): void {
    if (this.reason) return
    this.reason = reason
    this.controller?.abort(reason)
  }

  done(): void {
    clearTimeout(this.timer)
  }
}

function sumUsage(trials: TrialResult[]): TargetUsage | undefined {
  const used = trials.filter((t) => t.usage)
  if (used.length === 0) return undefined
  const total = (key: keyof TargetUsage) => used.reduce((n, t) => n + (t.usage![key] ?? 0), 0)
  return { promptTokens: total('promptTokens'), completionTokens: total('completionTokens'), totalTokens: total('totalTokens') }
}

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
  const usage = sumUsage(trials)
  if (usage) result.usage = usage
  if (c.source) result.source = c.source
  return result
}

export async function runCases(cases: EvalCase[], target: Target, options: RunnerOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => performance.now())
  const started = now()
  const limit = pLimit(options.concurrency)
  const runSignal = options.signal
  const results: (CaseResult | undefined)[] = new Array(cases.length)
  // one listener for the run, not one per trial
  const running = new Set<TrialAbort>()
  const onRunAbort = () => {
    for (const t of running) t.abort(new TargetError('run interrupted'))
  }
  runSignal?.addEventListener('abort', onRunAbort, { once: true })

  /** One trial: the target call holds a concurrency slot; grading (and the judge) does not. */
  async function trial(c: EvalCase): Promise<TrialResult | null> {
    const call = await limit(async () => {
      if (runSignal?.aborted) return null
      const abort = new TrialAbort(options.timeoutMs)
      running.add(abort)
      const t0 = now()
      try {
        const reply = await target.call({
          input: c.input,
          case: c,
          get signal() {
            return abort.signal
          }
        })
        return { output: reply.output, usage: reply.usage, error: null, durationMs: now() - t0 }
      } catch (err) {
        if (runSignal?.aborted) return null
        const error = abort.reason ? errorMessage(abort.reason) : errorMessage(err)
        return { output: null, usage: undefined, error: error || 'target failed', durationMs: now() - t0 }
      } finally {
        abort.done()
        running.delete(abort)
      }
    })
    if (!call) return null
    const durationMs = Math.round(call.durationMs * 1000) / 1000
    const base = { output: call.output, error: call.error, durationMs, ...(call.usage ? { usage: call.usage } : {}) }
    if (call.output === null) return { ...base, passed: false, score: null, assertions: [] }
    const assertions = await evaluateAssertions(c.assert, {
      output: call.output,
      input: c.input,
      case: c,
      durationMs,
      judge: options.judge,
      defaultJudgeThreshold: options.defaultJudgeThreshold
    })
    return { ...base, passed: casePasses(assertions), score: rubricScore(assertions), assertions }
  }

  // Lanes each take the next case when theirs is done: memory stays flat in the dataset's size
  // (no promise per case up front), and a slow case holds up only its own lane.
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++
      const c = cases[i]!
      const trials = await Promise.all(Array.from({ length: options.repeat }, () => trial(c)))
      if (trials.some((t) => t === null)) continue
      results[i] = aggregateCase(c, trials as TrialResult[], options.repeatPassThreshold)
      options.onCase?.(results[i]!)
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(cases.length, options.concurrency * LANES_PER_SLOT) }, lane))
  } finally {
    runSignal?.removeEventListener('abort', onRunAbort)
  }
  const finished = results.filter((r): r is CaseResult => r !== undefined)
  return { cases: finished, complete: finished.length === cases.length, durationMs: Math.round(now() - started) }
}
