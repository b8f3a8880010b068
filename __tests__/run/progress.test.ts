import { describe, expect, it } from '@jest/globals'
import { createProgress, formatEta, formatProgress } from '../../src/run/progress.js'
import type { CaseResult } from '../../src/types.js'

function result(passed: boolean): CaseResult {
  return {
    id: 'c',
    name: 'c',
    tags: [],
    fingerprint: 'f',
    input: 'x',
    passed,
    passFraction: passed ? 1 : 0,
    output: '',
    error: null,
    score: null,
    durationMs: 1,
    assertions: []
  }
}

/** A stream that records what it was given, and a clock the test moves. */
function harness(isTTY: boolean) {
  const writes: string[] = []
  let t = 1_000_000
  return {
    writes,
    stream: { write: (text: string) => writes.push(text), isTTY },
    now: () => t,
    advance: (ms: number) => {
      t += ms
    }
  }
}

describe('formatEta', () => {
  it.each([
    [0, '0s'],
    [0.2, '1s'],
    [45, '45s'],
    [59.5, '1m00s'],
    [990, '16m30s'],
    [3599, '59m59s'],
    [3600, '1h00m'],
    [7500, '2h05m']
  ])('%ss → %s', (seconds, text) => {
    expect(formatEta(seconds)).toBe(text)
  })
})

describe('formatProgress', () => {
  it.each([
    // done, total, passed, elapsed ms, line
    [10, 100, 9, 5000, 'evalgate: 10/100 cases, 90.0% passed so far, 2.0 cases/s, ETA 45s'],
    [100, 10_000, 100, 10_000, 'evalgate: 100/10000 cases, 100.0% passed so far, 10 cases/s, ETA 16m30s'],
    [3, 50, 1, 100_000, 'evalgate: 3/50 cases, 33.3% passed so far, 0.03 cases/s, ETA 26m07s'],
    [50, 50, 25, 5000, 'evalgate: 50/50 cases, 50.0% passed so far, 10 cases/s'],
    [0, 50, 0, 5000, 'evalgate: 0/50 cases, 0.0% passed so far, 0.00 cases/s']
  ])('%i of %i, %i passed, after %i ms', (done, total, passed, elapsed, line) => {
    expect(formatProgress(done, total, passed, elapsed)).toBe(line)
  })
})

describe('createProgress', () => {
  it('writes a plain line at most every 5 s to a log, none for a short run', () => {
    const h = harness(false)
    const progress = createProgress(20, h.stream, { now: h.now })
    for (let i = 0; i < 4; i++) {
      h.advance(1000)
      progress.onCase(result(true))
    }
    expect(h.writes).toEqual([])
    h.advance(1000)
    progress.onCase(result(false))
    expect(h.writes).toEqual(['evalgate: 5/20 cases, 80.0% passed so far, 1.0 cases/s, ETA 15s\n'])
    h.advance(4000)
    progress.onCase(result(true))
    expect(h.writes).toHaveLength(1)
    h.advance(1000)
    progress.onCase(result(true))
    expect(h.writes[1]).toBe('evalgate: 7/20 cases, 85.7% passed so far, 0.70 cases/s, ETA 19s\n')
    progress.finish()
    expect(h.writes).toHaveLength(2)
  })

  it('redraws one line in place on a terminal and clears it at the end', () => {
    const h = harness(true)
    const progress = createProgress(4, h.stream, { now: h.now })
    h.advance(50)
    progress.onCase(result(true))
    expect(h.writes).toEqual([])
    h.advance(150)
    progress.onCase(result(true))
    expect(h.writes).toEqual(['\r\x1b[2Kevalgate: 2/4 cases, 100.0% passed so far, 10 cases/s, ETA 1s'])
    progress.finish()
    expect(h.writes.at(-1)).toBe('\r\x1b[2K')
  })

  it('writes nothing with quiet', () => {
    const h = harness(true)
    const progress = createProgress(4, h.stream, { now: h.now, quiet: true })
    h.advance(60_000)
    progress.onCase(result(true))
    progress.finish()
    expect(h.writes).toEqual([])
  })
})
