/**
 * How the runner runs conversations: turns of one conversation in
 * order, conversations side by side; `repeat` repeats whole conversations,
 * each with its own id; a turn that times out or fails ends its conversation,
 * naming the turn; the case's checks see every turn's tool calls, and its
 * usage and latency are the turns' sums.
 */
import { describe, expect, it } from '@jest/globals'
import { runCases } from '../../src/run/runner.js'
import type { Target, TrialRequest } from '../../src/targets/types.js'
import type { Assertion, EvalCase } from '../../src/types.js'

const options = { concurrency: 8, repeat: 1, repeatPassThreshold: 0.5, timeoutMs: 10_000 }

function conversation(id: string, users: string[], assert: Assertion[] = [], turnAssert: Assertion[] = []): EvalCase {
  return { id, name: id, input: undefined, tags: [], assert, fingerprint: `f-${id}`, index: 0, turns: users.map((user) => ({ user, assert: turnAssert })) }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The turn a request is: how many user messages it carries. */
const turnOf = (r: TrialRequest) => r.messages!.filter((m) => m.role === 'user').length

describe('conversations in the runner', () => {
  it('runs the turns of each conversation in order, one at a time, while 8 conversations run side by side', async () => {
    const seen = new Map<string, number[]>()
    const busy = new Set<string>()
    let inFlight = 0
    let most = 0
    let overlapped = false
    const target: Target = {
      async call(r) {
        const id = r.conversationId!
        if (busy.has(id)) overlapped = true
        busy.add(id)
        inFlight++
        most = Math.max(most, inFlight)
        seen.set(id, [...(seen.get(id) ?? []), turnOf(r)])
        // latencies of 0–4 ms in a pattern that differs by conversation: turns finish out of order across them
        await sleep((turnOf(r) * (r.case.index + 3)) % 5)
        inFlight--
        busy.delete(id)
        return { output: `reply ${turnOf(r)} to ${r.input as string}` }
      },
      async close() {}
    }
    const cases = Array.from({ length: 40 }, (_, i) => ({ ...conversation(`c${i}`, ['one', 'two', 'three', 'four', 'five']), index: i }))
    const outcome = await runCases(cases, target, options)
    expect(overlapped).toBe(false)
    expect(most).toBe(8)
    expect(seen.size).toBe(40)
    for (const turns of seen.values()) expect(turns).toEqual([1, 2, 3, 4, 5])
    // each transcript pairs every turn with its own reply, in order
    for (const c of outcome.cases)
      expect(c.turns!.map((t) => t.output)).toEqual(['one', 'two', 'three', 'four', 'five'].map((u, k) => `reply ${k + 1} to ${u}`))
  })

  it('repeat gives independent conversations: a new id each, and a stateful agent starts each one afresh', async () => {
    const counts = new Map<string, number>()
    const target: Target = {
      async call(r) {
        // the agent's state, keyed by conversation: how many times it was spoken to
        const n = (counts.get(r.conversationId!) ?? 0) + 1
        counts.set(r.conversationId!, n)
        return { output: `message ${n}` }
      },
      async close() {}
    }
    const outcome = await runCases([conversation('c', ['a', 'b', 'c'], [], [{ type: 'starts-with', value: 'message' }])], target, { ...options, repeat: 3 })
    expect(counts.size).toBe(3)
    const c = outcome.cases[0]!
    expect(c.trials).toHaveLength(3)
    for (const t of c.trials!) expect(t.turns!.map((x) => x.output)).toEqual(['message 1', 'message 2', 'message 3'])
    expect(c.passFraction).toBe(1)
  })

  it('a turn that times out ends the conversation, naming the turn; the turns before it are kept', async () => {
    const asked: number[] = []
    const target: Target = {
      call(r) {
        asked.push(turnOf(r))
        if (turnOf(r) === 2) return new Promise((_resolve, reject) => r.signal.addEventListener('abort', () => reject(r.signal.reason as Error)))
        return Promise.resolve({ output: 'fine' })
      },
      async close() {}
    }
    const outcome = await runCases([conversation('c', ['a', 'b', 'c'], [{ type: 'contains', value: 'fine' }])], target, { ...options, timeoutMs: 150 })
    const c = outcome.cases[0]!
    expect(asked).toEqual([1, 2])
    expect(c.passed).toBe(false)
    expect(c.output).toBeNull()
    expect(c.error).toBe('turn 2: timed out after 150 ms')
    expect(c.turns!.map((t) => [t.user, t.output, t.error])).toEqual([
      ['a', 'fine', undefined],
      ['b', null, 'timed out after 150 ms']
    ])
    // the case's checks grade the last reply of a finished conversation: none here
    expect(c.assertions).toEqual([])
  })

  it('a target error at a turn fails the case naming the turn', async () => {
    const target: Target = {
      async call(r) {
        if (turnOf(r) === 3) throw new Error('worker exited with code 1')
        return { output: 'ok' }
      },
      async close() {}
    }
    const outcome = await runCases([conversation('c', ['a', 'b', 'c', 'd'])], target, options)
    expect(outcome.cases[0]!.error).toBe('turn 3: worker exited with code 1')
    expect(outcome.cases[0]!.turns).toHaveLength(3)
  })

  it('grades the case on the last reply with every turn’s tool calls, usage and latency summed', async () => {
    const target: Target = {
      async call(r) {
        const turn = turnOf(r)
        // refunds at turn 1 and again at turn 3: the conversation refunded twice
        const toolCalls = turn === 2 ? [] : [{ name: 'refund', args: { order: 'A18' } }]
        return { output: `done ${turn}`, toolCalls, usage: { inputTokens: 10, outputTokens: turn }, latencyMs: 100 * turn }
      },
      async close() {}
    }
    const assert: Assertion[] = [
      { type: 'equals', value: 'done 3' },
      { type: 'trajectory:tool-used', value: { name: 'refund', max: 1 } }
    ]
    const outcome = await runCases([conversation('c', ['a', 'b', 'c'], assert)], target, options)
    const c = outcome.cases[0]!
    expect(c.assertions.map((a) => [a.type, a.passed])).toEqual([
      ['equals', true],
      ['trajectory:tool-used', false]
    ])
    expect(c.assertions[1]!.reason).toMatch(/refund.*2/)
    expect(c.toolCalls).toHaveLength(2)
    expect(c.usage).toEqual({ inputTokens: 30, outputTokens: 6 })
    expect(c.latencyMs).toBe(600)
    expect(c.turns!.map((t) => t.latencyMs)).toEqual([100, 200, 300])
  })

  it('stops between turns when the run is interrupted: the unfinished conversation is dropped, not half-graded', async () => {
    const controller = new AbortController()
    const target: Target = {
      async call(r) {
        if (turnOf(r) === 2) controller.abort()
        return { output: 'ok' }
      },
      async close() {}
    }
    const outcome = await runCases([conversation('c', ['a', 'b', 'c'])], target, { ...options, signal: controller.signal })
    expect(outcome.complete).toBe(false)
    expect(outcome.cases).toEqual([])
  })
})
