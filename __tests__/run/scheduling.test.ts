/**
 * The runner's scheduling: at most `concurrency` target calls at once, a slow
 * case never holds up the others (no head-of-line blocking), and grading
 * (the judge included) happens outside the concurrency slot. Throughput in
 * seconds is a benchmark figure (npm run bench), not asserted here.
 */
import { describe, expect, it } from '@jest/globals'
import type { Judge } from '../../src/assertions/types.js'
import { runCases } from '../../src/run/runner.js'
import type { Target } from '../../src/targets/types.js'
import type { EvalCase } from '../../src/types.js'

function cases(n: number, assert: EvalCase['assert'] = [{ type: 'contains', value: 'ok' }]): EvalCase[] {
  return Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: `c${i}`, input: i, tags: [], assert, fingerprint: `f${i}`, index: i }))
}

const options = { repeat: 1, repeatPassThreshold: 0.5, timeoutMs: 10_000 }

/** Resolves after `ms` of real time: small, varied latencies. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A fallback that keeps a broken runner from hanging the test, without keeping jest alive. */
const fallback = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref())

/** A promise and its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

describe('runCases scheduling', () => {
  it.each([1, 4, 16])('never has more than concurrency %i calls in flight, and reaches it', async (concurrency) => {
    let inFlight = 0
    let maxInFlight = 0
    const target: Target = {
      async call({ input }) {
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        // latencies of 0–6 ms in a fixed pattern, so calls finish out of order
        await sleep(((input as number) * 3) % 7)
        inFlight--
        return { output: 'ok' }
      },
      async close() {}
    }
    const outcome = await runCases(cases(60), target, { ...options, concurrency })
    expect(maxInFlight).toBe(concurrency)
    expect(outcome.cases.map((c) => c.id)).toEqual(cases(60).map((c) => c.id))
    expect(outcome.cases.every((c) => c.passed)).toBe(true)
  })

  it('a slow case does not hold up the cases after it', async () => {
    const n = 20
    const othersDone = deferred()
    const finished: string[] = []
    const target: Target = {
      async call({ input }) {
        // case 0 answers only once every other case has finished: a runner that waited for it would never get there
        if (input === 0) await Promise.race([othersDone.promise, fallback(25_000)])
        return { output: 'ok' }
      },
      async close() {}
    }
    const outcome = await runCases(cases(n), target, {
      ...options,
      concurrency: 2,
      onCase: (r) => {
        finished.push(r.id)
        if (finished.length === n - 1) othersDone.resolve()
      }
    })
    expect(finished.at(-1)).toBe('c0')
    expect(finished.slice(0, -1)).toEqual(
      cases(n)
        .slice(1)
        .map((c) => c.id)
    )
    expect(outcome.cases[0]!.id).toBe('c0')
  })

  it('grades (and asks the judge) outside the concurrency slot', async () => {
    const calls: number[] = []
    const secondCallStarted = deferred()
    const target: Target = {
      async call({ input }) {
        calls.push(input as number)
        if (input === 1) secondCallStarted.resolve()
        return { output: 'ok' }
      },
      async close() {}
    }
    let callsWhenFirstVerdict = -1
    const judge: Judge = async ({ input }) => {
      // with concurrency 1, the second target call can only start if grading the first freed its slot
      if (input === 0) {
        await Promise.race([secondCallStarted.promise, fallback(25_000)])
        callsWhenFirstVerdict = calls.length
      }
      return { model: 'fake', score: 1, reason: 'fine', key: `k${String(input)}` }
    }
    const outcome = await runCases(cases(3, [{ type: 'llm-rubric', value: 'answers' }]), target, { ...options, concurrency: 1, judge })
    expect(callsWhenFirstVerdict).toBeGreaterThanOrEqual(2)
    expect(outcome.cases.map((c) => c.score)).toEqual([1, 1, 1])
  })
})
