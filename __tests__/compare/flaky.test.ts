import { describe, expect, it } from '@jest/globals'
import { assess, carryHistory, carryTrend, compareRuns, isKnownFlaky, nextHistory, recentCounts } from '../../src/compare/index.js'
import type { CaseResult } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRepeatedCase, makeRun, makeTrials } from '../__fixtures__/records.js'

const ALPHA = 0.05

/** A case run once, then re-run: its first trial, then the re-runs (P passed, F failed). */
function rerunCase(id: string, trials: string): CaseResult {
  const list = [...trials].flatMap((t) => makeTrials(t === 'P' ? 1 : 0, 1))
  const passed = list.filter((t) => t.passed).length
  return makeCase(id, passed / list.length >= 0.5, { trials: list, passFraction: passed / list.length, reruns: list.length - 1 })
}

describe('isKnownFlaky: passed at least twice and failed at least twice in the last 10 runs', () => {
  it.each([
    { history: '', flaky: false },
    { history: 'PPPPPPPPPP', flaky: false },
    { history: 'PPPPPPPPFP', flaky: false },
    { history: 'PPFPPPPPFP', flaky: true },
    { history: 'PFPF', flaky: true },
    { history: 'FFFFFFFFPP', flaky: true },
    { history: 'FFFFFFFFFP', flaky: false },
    // the failures are older than the window
    { history: 'FFFFFPPPPPPPPPP', flaky: false },
    { history: 'FPFPFPFPFPFPFPFPFPFP', flaky: true }
  ])('$history → $flaky', ({ history, flaky }) => {
    expect(isKnownFlaky(history)).toBe(flaky)
  })

  it('counts the window', () => {
    expect(recentCounts('FFFFFPPPPPPPPFP')).toEqual({ passed: 9, total: 10 })
    expect(recentCounts('')).toEqual({ passed: 0, total: 0 })
  })
})

describe('carryHistory: a case carries its baseline history plus the baseline result', () => {
  const baseline = makeBaseline([
    makeCase('steady', true, { history: 'PPF' }),
    makeCase('first', false),
    makeCase('long', true, { history: 'F'.repeat(20) }),
    makeCase('edited', true, { history: 'PPP' }),
    makeCase('dropped', true)
  ])
  const current = [makeCase('steady', false), makeCase('first'), makeCase('long'), makeCase('edited', true, { fingerprint: 'fp-new' }), makeCase('added')]
  // carried inside each test, not while collecting them: Stryker would count this code as run by no test
  const carried = () => new Map(carryHistory(structuredClone(current), baseline).map((c) => [c.id, c.history]))

  it.each([
    { key: 'steady', history: 'PPFP' },
    { key: 'first', history: 'F' },
    // bounded at 20 runs, newest last
    { key: 'long', history: `${'F'.repeat(19)}P` },
    // a changed fingerprint is a new case: its history starts again
    { key: 'edited', history: undefined },
    { key: 'added', history: undefined }
  ])('$key → $history', ({ key, history }) => {
    expect(carried().get(key)).toBe(history)
  })

  it('keeps the cases as they are without a baseline', () => {
    expect(carryHistory(current, null)).toEqual(current)
  })

  it('nextHistory appends the result', () => {
    expect(nextHistory({ passed: true })).toBe('P')
    expect(nextHistory({ passed: false, history: 'PP' })).toBe('PPF')
  })
})

describe('assess: which flips count', () => {
  // 'PPFPPFPPP' + the baseline's own pass: 8 of the last 10 runs passed, 2 failed → known flaky
  const flakyHistory = 'PPFPPFPPP'
  it.each([
    {
      name: 'a single-trial flip of a steady case counts',
      baseline: makeCase('q', true, { history: 'PPPPPPPPP' }),
      current: makeCase('q', false),
      expected: { outcome: 'regressed' }
    },
    {
      name: 'one failure in ten is not flaky enough',
      baseline: makeCase('q', true, { history: 'PPPPPPPPF' }),
      current: makeCase('q', false),
      expected: { outcome: 'regressed' }
    },
    {
      name: 'a single-trial failure of a known-flaky case is flaky',
      baseline: makeCase('q', true, { history: flakyHistory }),
      current: makeCase('q', false),
      expected: {
        outcome: 'flaky',
        flaky: { flip: 'failed', because: 'history', current: { passed: 0, total: 1 }, baseline: { passed: 8, total: 10 } }
      }
    },
    {
      name: 'a single-trial pass of a known-flaky case is flaky, not fixed',
      baseline: makeCase('q', false, { history: 'PFPFPFPFP' }),
      current: makeCase('q', true),
      expected: {
        outcome: 'flaky',
        flaky: { flip: 'passed', because: 'history', current: { passed: 1, total: 1 }, baseline: { passed: 5, total: 10 } }
      }
    },
    {
      name: 'a known-flaky case whose fingerprint changed is changed',
      baseline: makeCase('q', true, { history: flakyHistory }),
      current: makeCase('q', false, { fingerprint: 'fp-other' }),
      expected: { outcome: 'changed' }
    },
    {
      name: 're-runs that take the flip back make it flaky',
      baseline: makeCase('q', true),
      current: rerunCase('q', 'FPPPPP'),
      expected: {
        outcome: 'flaky',
        flaky: { flip: 'failed', because: 'reruns', current: { passed: 5, total: 6 }, baseline: { passed: 1, total: 1 }, reruns: { passed: 5, total: 5 } }
      }
    },
    {
      name: 'the re-run evidence is the last `reruns` trials only: 1 of 3 at first (repeat: 3), then 3 of 3 re-run',
      baseline: makeCase('q', true),
      current: makeCase('q', true, { trials: [...makeTrials(1, 3), ...makeTrials(3, 3)], passFraction: 4 / 6, reruns: 3 }),
      expected: {
        outcome: 'flaky',
        flaky: { flip: 'failed', because: 'reruns', current: { passed: 4, total: 6 }, baseline: { passed: 1, total: 1 }, reruns: { passed: 3, total: 3 } }
      }
    },
    {
      name: 're-runs that keep the flip, against a single baseline trial: a regression, not testable (p = 1/7 at best)',
      baseline: makeCase('q', true),
      current: rerunCase('q', 'FFFFFF'),
      expected: { outcome: 'regressed', notTestable: true }
    },
    {
      name: 'a flip with trials now against a single baseline trial counts, but is not testable: 2 of 4 at repeatPassThreshold 0.75',
      baseline: makeCase('q', true),
      current: makeCase('q', false, { trials: makeTrials(2, 4), passFraction: 0.5, reruns: 3 }),
      expected: { outcome: 'regressed', notTestable: true }
    },
    {
      name: 're-runs that keep a fix, against a single baseline trial: fixed, not testable',
      baseline: makeCase('q', false),
      current: rerunCase('q', 'PPPPPP'),
      expected: { outcome: 'fixed', notTestable: true }
    },
    {
      name: 're-runs of a known-flaky case that fail them all: significant against its history (p = 45/12870)',
      baseline: makeCase('q', true, { history: flakyHistory }),
      current: rerunCase('q', 'FFFFFF'),
      expected: { outcome: 'regressed' }
    },
    {
      name: 're-runs of a known-flaky case that fail most: within chance of its history (p = 736/8008)',
      baseline: makeCase('q', true, { history: flakyHistory }),
      current: rerunCase('q', 'FPFFPF'),
      expected: {
        outcome: 'flaky',
        flaky: {
          flip: 'failed',
          because: 'history',
          current: { passed: 2, total: 6 },
          baseline: { passed: 8, total: 10 },
          reruns: { passed: 2, total: 5 },
          p: 736 / 8008
        }
      }
    },
    {
      name: 'repeated trials on both sides, within chance (p = 17/70)',
      baseline: makeRepeatedCase('q', 3, 4),
      current: makeRepeatedCase('q', 1, 4),
      expected: {
        outcome: 'flaky',
        flaky: { flip: 'failed', because: 'trials', current: { passed: 1, total: 4 }, baseline: { passed: 3, total: 4 }, p: 17 / 70 }
      }
    },
    {
      name: 'repeated trials on both sides, significant (p = 1/252)',
      baseline: makeRepeatedCase('q', 5, 5),
      current: makeRepeatedCase('q', 0, 5),
      expected: { outcome: 'regressed' }
    },
    {
      name: 'a known-flaky case with a single trial now is flaky even against repeated baseline trials',
      baseline: { ...makeRepeatedCase('q', 5, 5), history: 'PFPFPFPFP' },
      current: makeCase('q', false),
      expected: {
        outcome: 'flaky',
        flaky: { flip: 'failed', because: 'history', current: { passed: 0, total: 1 }, baseline: { passed: 6, total: 10 } }
      }
    }
  ])('$name', ({ baseline, current, expected }) => {
    const result = assess(baseline, current, ALPHA)
    expect(result.outcome).toBe(expected.outcome)
    expect(result.notTestable).toBe('notTestable' in expected ? true : undefined)
    if ('flaky' in expected) {
      const { p, ...rest } = result.flaky!
      const { p: expectedP, ...expectedRest } = expected.flaky as typeof result.flaky & object
      expect(rest).toEqual(expectedRest)
      if (expectedP === undefined) expect(p).toBeUndefined()
      else expect(p).toBeCloseTo(expectedP, 10)
    } else {
      expect(result.flaky).toBeUndefined()
    }
  })
})

describe('compareRuns: flaky cases and the score interval', () => {
  const baseline = makeBaseline([
    makeCase('known', true, { history: 'PPFPPFPPP', score: 0.9 }),
    makeCase('steady', true, { history: 'PPPPPPPPP', score: 0.8 }),
    makeCase('rerun', true, { score: 0.7 }),
    makeCase('same', true, { score: 0.6 })
  ])
  const current = makeRun([
    makeCase('known', false, { score: 0.7 }),
    makeCase('steady', false, { score: 0.75 }),
    { ...rerunCase('rerun', 'FPPPP'), score: 0.66 },
    makeCase('same', true, { score: 0.62 })
  ])
  // compared inside each test, not while collecting them: Stryker would count this code as run by no test
  const compared = () => compareRuns(baseline, current, makeGate())

  it('lists flaky keys and their evidence in the same order', () => {
    const c = compared()
    expect(c.regressed).toEqual(['steady'])
    expect(c.flaky).toEqual(['known', 'rerun'])
    expect(c.flakyCases.map((f) => [f.key, f.because])).toEqual([
      ['known', 'history'],
      ['rerun', 'reruns']
    ])
  })

  it('gives the paired t interval of the score delta over the cases scored in both runs', () => {
    const c = compared()
    // differences −0.2, −0.05, −0.04, +0.02: mean −0.0675
    const d = [-0.2, -0.05, -0.04, 0.02]
    const mean = d.reduce((a, b) => a + b) / 4
    const sd = Math.sqrt(d.reduce((a, x) => a + (x - mean) ** 2, 0) / 3)
    const half = (3.182446305284263 * sd) / 2
    expect(c.common!.meanScoreDelta).toBeCloseTo(mean, 12)
    expect(c.meanScoreDeltaCI![0]).toBeCloseTo(mean - half, 9)
    expect(c.meanScoreDeltaCI![1]).toBeCloseTo(mean + half, 9)
  })

  it('lists the flips that re-runs could not test against a single baseline trial', () => {
    expect(compared().notTestable).toEqual([])
    const once = compareRuns(makeBaseline([makeCase('q', true)]), makeRun([rerunCase('q', 'FFFF')]), makeGate())
    expect([once.regressed, once.notTestable]).toEqual([['q'], ['q']])
  })

  it('has neither without a baseline', () => {
    const alone = compareRuns(null, current, makeGate())
    expect(alone.flakyCases).toEqual([])
    expect(alone.meanScoreDeltaCI).toBeNull()
  })
})

describe('carryTrend: a run carries its baseline trend plus the baseline figures', () => {
  it('is undefined without a baseline', () => {
    expect(carryTrend(null)).toBeUndefined()
  })

  it('appends the baseline and keeps the newest 20', () => {
    const baseline = makeRun([makeCase('a'), makeCase('b', false)])
    baseline.git.sha = 'basesha'
    baseline.trend = Array.from({ length: 20 }, (_, i) => ({ sha: `s${i}`, createdAt: '2026-01-01T00:00:00Z', passRate: i / 20, meanScore: null }))
    const trend = carryTrend(baseline)!
    expect(trend).toHaveLength(20)
    expect(trend[0]!.sha).toBe('s1')
    expect(trend.at(-1)).toEqual({ sha: 'basesha', createdAt: baseline.createdAt, passRate: baseline.summary.passRate, meanScore: baseline.summary.meanScore })
  })

  it('starts from the baseline alone when the baseline carries no trend (a record from before trends)', () => {
    const baseline = makeRun([makeCase('a')])
    delete baseline.trend
    expect(carryTrend(baseline)).toEqual([
      { sha: baseline.git.sha, createdAt: baseline.createdAt, passRate: baseline.summary.passRate, meanScore: baseline.summary.meanScore }
    ])
  })
})
