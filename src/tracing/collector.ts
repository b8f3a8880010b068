/**
 * The spans of each trial in progress: every trial gets a fresh W3C
 * trace context; spans that arrive are kept by trace id (or by the resource's
 * `evalgate.trial`, for a stdio process whose SDK starts traces of its own);
 * after the target's reply the trial waits until no span of it has arrived for
 * a quiet period, at most `waitMs`. Spans of traces no trial opened are
 * dropped, those of a trial already graded are counted as late on its
 * summary, and a trial keeps at most `maxSpans` (the rest counted as dropped),
 * so memory is bounded whatever arrives. The clock is a parameter: tests drive
 * the waits without depending on the machine's speed.
 */
import { randomBytes } from 'node:crypto'
import type { TraceSummary } from '../config/record-schema.js'
import { isErrorSpan, type Span } from './spans.js'

export type { TraceSummary }

export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** Real time; its timers do not keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout)
}

export interface CollectorOptions {
  /** how long no new span of a trial must have arrived before it is graded (~100 ms) */
  quietMs?: number
  /** the longest a trial waits for its spans after the reply (tracing.waitMs, default 2,000) */
  waitMs?: number
  /** spans kept per trial (tracing.maxSpansPerTrial); the rest are counted as dropped */
  maxSpans?: number
  clock?: Clock
}

export const DEFAULT_WAIT_MS = 2000
export const DEFAULT_QUIET_MS = 100
export const DEFAULT_MAX_SPANS = 10_000
/** error spans named in a summary; the count is always whole */
const MAX_ERROR_SPANS = 20
/** summaries of graded trials kept to count late spans on */
const MAX_CLOSED = 65_536

export interface TrialTrace {
  traceId: string
  /** `00-<trace id>-<span id>-01`: sampled */
  traceparent: string
  /** waits for the trial's spans (quiet period, at most waitMs), then closes the trace: later spans are late */
  settle(): Promise<{ spans: Span[]; summary: TraceSummary }>
  /** closes the trace without waiting (a trial that was cut short) */
  discard(): void
}

/** How the spans of one export were taken. */
export interface Intake {
  accepted: number
  /** of unknown traces, late, or over a trial's cap */
  rejected: number
}

export class TraceCollector {
  private readonly open = new Map<string, OpenTrace>()
  private readonly closed = new Map<string, TraceSummary>()
  private readonly quietMs: number
  private readonly waitMs: number
  private readonly maxSpans: number
  readonly clock: Clock
  /** spans of traces no trial opened, over the whole run */
  unknownSpans = 0
  /** trials that sent more than maxSpans spans */
  cappedTrials = 0

  constructor(options: CollectorOptions = {}) {
    this.quietMs = options.quietMs ?? DEFAULT_QUIET_MS
    this.waitMs = options.waitMs ?? DEFAULT_WAIT_MS
    this.maxSpans = options.maxSpans ?? DEFAULT_MAX_SPANS
    this.clock = options.clock ?? systemClock
  }

  /** A fresh trace context for one trial. */
  begin(): TrialTrace {
    const traceId = randomBytes(16).toString('hex')
    const trace = new OpenTrace(this, traceId, `00-${traceId}-${randomBytes(8).toString('hex')}-01`)
    this.open.set(traceId, trace)
    return trace
  }

  /** Spans as they arrive: each to its trial by trace id, else by `evalgate.trial`. */
  add(spans: readonly Span[]): Intake {
    const intake: Intake = { accepted: 0, rejected: 0 }
    const now = this.clock.now()
    for (const span of spans) {
      const trace = this.open.get(span.traceId) ?? (span.trial === undefined ? undefined : this.open.get(span.trial))
      if (trace) {
        if (trace.take(span, now, this.maxSpans)) intake.accepted++
        else intake.rejected++
        continue
      }
      intake.rejected++
      const graded = this.closed.get(span.traceId) ?? (span.trial === undefined ? undefined : this.closed.get(span.trial))
      if (graded) graded.late = (graded.late ?? 0) + 1
      else this.unknownSpans++
    }
    return intake
  }

  /** @internal the wait of OpenTrace.settle */
  wait(trace: OpenTrace, since: number): Promise<void> {
    const deadline = since + this.waitMs
    return new Promise((resolve) => {
      const check = () => {
        const now = this.clock.now()
        // quiet since the reply, or since the last span that came after it
        const quietAt = Math.max(trace.lastArrival, since) + this.quietMs
        if (now >= quietAt || now >= deadline) return resolve()
        trace.timer = this.clock.setTimeout(check, Math.min(quietAt, deadline) - now)
      }
      check()
    })
  }

  /** @internal a trace graded or discarded: its summary stays to count late spans on */
  close(trace: OpenTrace, summary: TraceSummary): void {
    this.open.delete(trace.traceId)
    if (this.closed.size >= MAX_CLOSED) this.closed.delete(this.closed.keys().next().value!)
    this.closed.set(trace.traceId, summary)
  }
}

class OpenTrace implements TrialTrace {
  spans: Span[] = []
  dropped = 0
  lastArrival = -Infinity
  timer: unknown

  constructor(
    private readonly collector: TraceCollector,
    readonly traceId: string,
    readonly traceparent: string
  ) {}

  take(span: Span, now: number, max: number): boolean {
    this.lastArrival = now
    if (this.spans.length >= max) {
      if (this.dropped++ === 0) this.collector.cappedTrials++
      return false
    }
    this.spans.push(span)
    return true
  }

  async settle(): Promise<{ spans: Span[]; summary: TraceSummary }> {
    await this.collector.wait(this, this.collector.clock.now())
    return { spans: this.spans, summary: this.finish() }
  }

  discard(): void {
    if (this.timer !== undefined) this.collector.clock.clearTimeout(this.timer)
    this.finish()
  }

  private finish(): TraceSummary {
    const errors = this.spans.filter(isErrorSpan).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
    const summary: TraceSummary = { traceId: this.traceId, spans: this.spans.length, errorCount: errors.length }
    if (this.dropped) summary.dropped = this.dropped
    if (errors.length)
      summary.errorSpans = errors
        .slice(0, MAX_ERROR_SPANS)
        .map((s) => (s.statusMessage === undefined ? { name: s.name } : { name: s.name, message: s.statusMessage.slice(0, 200) }))
    this.collector.close(this, summary)
    return summary
  }
}
