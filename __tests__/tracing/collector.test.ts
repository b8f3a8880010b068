/**
 * The wait for a trial's spans, on a clock the test moves (nothing here
 * depends on the machine's speed): a quiet period after the last span, at most
 * waitMs; spans routed by trace id or evalgate.trial; late spans counted on the
 * graded trial's summary; a trial's spans capped.
 */
import { describe, expect, it } from '@jest/globals'
import { TraceCollector, type Clock } from '../../src/tracing/collector.js'
import type { Span } from '../../src/tracing/spans.js'

/** Time moves only when the test says; timers fire as it passes them. */
class FakeClock implements Clock {
  time = 0
  private timers: { at: number; fn: () => void; id: number }[] = []
  private next = 0
  now = () => this.time
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.next
    this.timers.push({ at: this.time + ms, fn, id })
    return id
  }
  clearTimeout = (id: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== id)
  }
  /** Moves to `to`, firing each timer due on the way, in order. */
  async advance(to: number) {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= to).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      this.timers = this.timers.filter((t) => t !== due)
      this.time = due.at
      due.fn()
      await Promise.resolve()
    }
    this.time = to
    await Promise.resolve()
  }
}

const span = (traceId: string, name = 's', extra: Partial<Span> = {}): Span => ({
  traceId,
  spanId: Math.random().toString(16).slice(2, 18).padEnd(16, '1'),
  name,
  startNs: 1n,
  endNs: 2n,
  attributes: {},
  statusCode: 0,
  ...extra
})

function settled<T>(promise: Promise<T>) {
  const state: { value?: T } = {}
  void promise.then((value) => (state.value = value))
  return state
}

describe('the wait after the reply', () => {
  it('ends a quiet period after the reply when the spans are all in', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 100, waitMs: 2000 })
    const t = c.begin()
    c.add([span(t.traceId)])
    const done = settled(t.settle())
    await clock.advance(99)
    expect(done.value).toBeUndefined()
    await clock.advance(100)
    expect(done.value?.spans).toHaveLength(1)
  })

  it('waits on while spans keep arriving, until they stop for the quiet period', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 100, waitMs: 2000 })
    const t = c.begin()
    const done = settled(t.settle())
    for (const at of [50, 140, 230]) {
      await clock.advance(at)
      c.add([span(t.traceId)])
    }
    await clock.advance(329)
    expect(done.value).toBeUndefined()
    await clock.advance(330)
    expect(done.value?.spans).toHaveLength(3)
  })

  it('never longer than waitMs, however the spans keep coming', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 100, waitMs: 500 })
    const t = c.begin()
    const done = settled(t.settle())
    for (let at = 50; at < 500; at += 50) {
      await clock.advance(at)
      c.add([span(t.traceId)])
    }
    await clock.advance(500)
    expect(done.value?.spans).toHaveLength(9)
    expect(done.value?.summary).toEqual({ traceId: t.traceId, spans: 9, errorCount: 0 })
  })

  it('spans after the grading are late: dropped, and counted on the summary the record holds', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 10, waitMs: 100 })
    const t = c.begin()
    const done = settled(t.settle())
    await clock.advance(10)
    const summary = done.value!.summary
    expect(c.add([span(t.traceId), span(t.traceId)])).toEqual({ accepted: 0, rejected: 2 })
    expect(summary.late).toBe(2)
    expect(done.value!.spans).toHaveLength(0)
  })
})

describe('which trial a span is of', () => {
  it('its trace id, else its resource evalgate.trial; any other is unknown and dropped', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 1 })
    const a = c.begin()
    const b = c.begin()
    expect(a.traceparent).toMatch(new RegExp(`^00-${a.traceId}-[0-9a-f]{16}-01$`))
    expect(a.traceId).not.toBe(b.traceId)
    const intake = c.add([span(a.traceId, 'a1'), span('f'.repeat(32), 'own trace', { trial: b.traceId }), span('e'.repeat(32), 'stranger')])
    expect(intake).toEqual({ accepted: 2, rejected: 1 })
    expect(c.unknownSpans).toBe(1)
    const [ra, rb] = [settled(a.settle()), settled(b.settle())]
    await clock.advance(1)
    expect(ra.value!.spans.map((s) => s.name)).toEqual(['a1'])
    expect(rb.value!.spans.map((s) => s.name)).toEqual(['own trace'])
  })

  it('keeps at most maxSpans of a trial, counting the rest as dropped', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 1, maxSpans: 3 })
    const t = c.begin()
    expect(c.add(Array.from({ length: 5 }, () => span(t.traceId)))).toEqual({ accepted: 3, rejected: 2 })
    const done = settled(t.settle())
    await clock.advance(1)
    expect(done.value!.summary).toMatchObject({ spans: 3, dropped: 2 })
    expect(c.cappedTrials).toBe(1)
  })

  it('names its error spans by start time, the first twenty', async () => {
    const clock = new FakeClock()
    const c = new TraceCollector({ clock, quietMs: 1 })
    const t = c.begin()
    c.add(Array.from({ length: 25 }, (_, i) => span(t.traceId, `e${24 - i}`, { statusCode: 2, statusMessage: 'boom', startNs: BigInt(24 - i) })))
    const done = settled(t.settle())
    await clock.advance(1)
    const summary = done.value!.summary
    expect(summary.errorCount).toBe(25)
    expect(summary.errorSpans).toHaveLength(20)
    expect(summary.errorSpans![0]).toEqual({ name: 'e0', message: 'boom' })
  })
})
