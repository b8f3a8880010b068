import { describe, expect, it } from '@jest/globals'
import { buildReport } from '../../src/report/model.js'
import { comparisonJson } from '../../src/report/json.js'
import { compareRuns, pairedDifferenceCI } from '../../src/compare/index.js'
import { contentHash } from '../../src/util/hash.js'
import { makeBaseline, makeCase, makeCases, makeGate, makeRepeatedCase, makeRun } from '../__fixtures__/records.js'

const gate = makeGate()

/** The case lists of a comparison, for compact expectations. */
function outcomes(baseline: string[], current: string[]) {
  const c = compareRuns(makeBaseline(makeCases(...baseline)), makeRun(makeCases(...current)), gate)
  return {
    regressed: c.regressed,
    fixed: c.fixed,
    flaky: c.flaky,
    added: c.added,
    removed: c.removed,
    changed: c.changed,
    unchanged: c.unchanged
  }
}

const none = { regressed: [], fixed: [], flaky: [], added: [], removed: [], changed: [] }

describe('compareRuns: case outcomes', () => {
  it.each([
    { name: 'nothing flipped', baseline: ['a', '!b'], current: ['a', '!b'], expected: { ...none, unchanged: 2 } },
    {
      name: 'pass → fail regressed',
      baseline: ['a', 'b'],
      current: ['a', '!b'],
      expected: { ...none, regressed: ['b'], unchanged: 1 }
    },
    {
      name: 'fail → pass fixed',
      baseline: ['!a', 'b'],
      current: ['a', 'b'],
      expected: { ...none, fixed: ['a'], unchanged: 1 }
    },
    {
      name: 'a changed fingerprint is changed, not a flip',
      baseline: ['a', 'b'],
      current: ['!a~', 'b'],
      expected: { ...none, changed: ['a'], unchanged: 1 }
    },
    {
      name: 'a changed case that still passes is changed',
      baseline: ['a'],
      current: ['a~'],
      expected: { ...none, changed: ['a'], unchanged: 0 }
    },
    {
      name: 'added and removed',
      baseline: ['a', 'old'],
      current: ['new', 'a'],
      expected: { ...none, added: ['new'], removed: ['old'], unchanged: 1 }
    },
    {
      name: 'reordered cases compare by key, not position',
      baseline: ['a', '!b', 'c'],
      current: ['c', 'a', '!b'],
      expected: { ...none, unchanged: 3 }
    },
    {
      name: 'lists follow the current run order; removed the baseline order',
      baseline: ['r2', 'x', 'r1', 'y', 'z'],
      current: ['z', '!y', '!x'],
      expected: { ...none, regressed: ['y', 'x'], removed: ['r2', 'r1'], unchanged: 1 }
    }
  ])('$name', ({ baseline, current, expected }) => {
    expect(outcomes(baseline, current)).toEqual(expected)
  })

  it('matches id-less cases by their content key, whatever their position', () => {
    // As the loader keys an id-less case: a hash of its input. Its default name follows its position.
    const key = (input: string) => `h${contentHash(input, 12)}`
    const idless = (input: string, passed: boolean, index: number) => makeCase(key(input), passed, { input, name: `case_${index}` })
    const baseline = makeBaseline([idless('2+2?', true, 0), idless('capital of France?', true, 1)])
    const current = makeRun([idless('a new question', true, 0), idless('capital of France?', false, 1), idless('2+2?', true, 2)])
    const c = compareRuns(baseline, current, gate)
    expect(c.regressed).toEqual([key('capital of France?')])
    expect(c.added).toEqual([key('a new question')])
    expect(c.removed).toEqual([])
    expect(c.unchanged).toBe(1)
  })

  it('does not count cases an incomplete run never reached as removed', () => {
    const c = compareRuns(makeBaseline(makeCases('a', 'b', 'c')), makeRun(makeCases('a'), { complete: false }), gate)
    expect(c.removed).toEqual([])
    expect(c.unfinished).toEqual(['b', 'c'])
    expect(c.gate.passed).toBe(false)
  })
})

describe('compareRuns: repeated trials', () => {
  it.each([
    // baseline passes/trials, current passes/trials, one-sided Fisher p, outcome at alpha 0.05
    { baseline: [5, 5], current: [0, 5], outcome: 'regressed' }, // p = 0.004
    { baseline: [5, 5], current: [1, 5], outcome: 'regressed' }, // p = 0.024
    { baseline: [4, 5], current: [1, 5], outcome: 'flaky' }, // p = 0.103
    // 3/3 → 0/3 has p = 0.05, not below alpha: no result at 3 and 3 trials could be, so all → none counts (SPEC §4)
    { baseline: [3, 3], current: [0, 3], outcome: 'regressed', tooFew: true },
    { baseline: [3, 3], current: [1, 3], outcome: 'flaky' }, // p = 0.2: a partial drop is left to the test
    { baseline: [3, 4], current: [1, 4], outcome: 'flaky' }, // p = 0.243
    { baseline: [4, 4], current: [0, 4], outcome: 'regressed' }, // p = 1/70: the test decides
    { baseline: [0, 5], current: [5, 5], outcome: 'fixed' },
    { baseline: [2, 5], current: [3, 5], outcome: 'flaky' },
    { baseline: [5, 5], current: [3, 5], outcome: 'unchanged' }, // still passes: no flip
    // repeat: 2, the fewest trials that count as repeated: 2/2 → 0/2 has p = 1/6
    { baseline: [2, 2], current: [0, 2], outcome: 'regressed', tooFew: true },
    { baseline: [0, 2], current: [2, 2], outcome: 'fixed', tooFew: true },
    { baseline: [0, 3], current: [3, 3], outcome: 'fixed', tooFew: true },
    { baseline: [2, 2], current: [0, 3], outcome: 'regressed', tooFew: true }, // p = 0.1 (repeat 2, one re-run)
    { baseline: [2, 3], current: [0, 3], outcome: 'flaky' } // not all → none: the test (p = 0.2)
  ])('$baseline → $current trials: $outcome', ({ baseline, current, outcome, tooFew }) => {
    const c = compareRuns(makeBaseline([makeRepeatedCase('q', baseline[0]!, baseline[1]!)]), makeRun([makeRepeatedCase('q', current[0]!, current[1]!)]), gate)
    const lists = { regressed: c.regressed, fixed: c.fixed, flaky: c.flaky }
    const found = Object.entries(lists).find(([, keys]) => keys.includes('q'))?.[0] ?? 'unchanged'
    expect(found).toBe(outcome)
    expect(c.tooFewTrials).toEqual(tooFew ? ['q'] : undefined)
  })

  it('with a larger alpha 3/3 → 0/3 is significant: the test decides, not the too-few rule', () => {
    const c = compareRuns(makeBaseline([makeRepeatedCase('q', 3, 3)]), makeRun([makeRepeatedCase('q', 0, 3)]), makeGate({ alpha: 0.1 }))
    expect(c.regressed).toEqual(['q'])
    expect(c.tooFewTrials).toBeUndefined()
  })

  it('uses gate.alpha', () => {
    const run = (alpha: number) => compareRuns(makeBaseline([makeRepeatedCase('q', 4, 5)]), makeRun([makeRepeatedCase('q', 1, 5)]), makeGate({ alpha }))
    expect(run(0.05).flaky).toEqual(['q'])
    expect(run(0.2).regressed).toEqual(['q'])
  })

  it('treats a flip as plain when only one side has repeated trials', () => {
    const c = compareRuns(makeBaseline([makeCase('q')]), makeRun([makeRepeatedCase('q', 2, 5)]), gate)
    expect(c.regressed).toEqual(['q'])
  })
})

describe('compareRuns: figures', () => {
  it('computes deltas over all cases and over the common cases', () => {
    const baseline = makeBaseline([
      makeCase('a', true, { score: 0.9 }),
      makeCase('b', true, { score: 0.8 }),
      makeCase('c', false, { score: 0.4 }),
      makeCase('gone', true)
    ])
    const current = makeRun([
      makeCase('a', true, { score: 0.9 }),
      makeCase('b', false, { score: 0.5 }),
      makeCase('c', false, { score: 0.4, fingerprint: 'other' }),
      makeCase('new', true, { score: 1 })
    ])
    const c = compareRuns(baseline, current, gate)
    expect(c.baseline).toMatchObject({ total: 4, passed: 3, passRate: 0.75, sha: baseline.git.sha, complete: true })
    expect(c.current).toMatchObject({ total: 4, passed: 2, passRate: 0.5 })
    expect(c.passRateDelta).toBeCloseTo(-0.25)
    expect(c.meanScoreDelta).toBeCloseTo((0.9 + 0.5 + 0.4 + 1) / 4 - (0.9 + 0.8 + 0.4) / 3)
    expect(c.common).toMatchObject({
      total: 2,
      baselinePassRate: 1,
      currentPassRate: 0.5,
      newlyFailing: ['b'],
      scoredLower: ['b']
    })
    expect(c.common!.passRateDelta).toBeCloseTo(-0.5)
    expect(c.common!.meanScoreDelta).toBeCloseTo(-0.15)
    expect(c.passRateDeltaCI![0]).toBeLessThan(-0.5)
    expect(c.passRateDeltaCI![1]).toBeGreaterThan(-0.5)
  })

  it('puts each pair into its cell of the paired table, a fixed case too; the gated table counts a flaky flip as it was', () => {
    // a and b passed both times, c fixed, d regressed, e failed both times, q flipped within chance (4/5 → 1/5)
    const baseline = makeBaseline([...makeCases('a', 'b', '!c', 'd', '!e'), makeRepeatedCase('q', 4, 5)])
    const current = makeRun([...makeCases('a', 'b', 'c', '!d', '!e'), makeRepeatedCase('q', 1, 5)])
    const c = compareRuns(baseline, current, gate)
    expect({ fixed: c.fixed, regressed: c.regressed, flaky: c.flaky }).toEqual({ fixed: ['c'], regressed: ['d'], flaky: ['q'] })
    expect(c.passRateDeltaCI).toEqual(pairedDifferenceCI({ bothPassed: 2, onlyCurrentPassed: 1, onlyBaselinePassed: 2, bothFailed: 1 }))
    expect(c.gatedPassRateDeltaCI).toEqual(pairedDifferenceCI({ bothPassed: 3, onlyCurrentPassed: 1, onlyBaselinePassed: 1, bothFailed: 1 }))
    expect(c.common).toMatchObject({ total: 6, flakyFlips: 1, newlyFailing: ['d', 'q'] })
    expect(c.common!.gatedCurrentPassRate).toBeCloseTo(4 / 6, 12)
  })

  it('has a null mean score delta when a side has no scores', () => {
    const c = compareRuns(makeBaseline(makeCases('a')), makeRun([makeCase('a', true, { score: 1 })]), gate)
    expect(c.meanScoreDelta).toBeNull()
    expect(c.common!.meanScoreDelta).toBeNull()
  })

  it('breaks figures down per tag', () => {
    const tagged = (id: string, passed: boolean, tags: string[]) => makeCase(id, passed, { tags })
    const baseline = makeBaseline([tagged('a', true, ['geo']), tagged('b', true, ['geo', 'math']), tagged('c', false, ['math'])])
    const current = makeRun([tagged('a', false, ['geo']), tagged('b', true, ['geo', 'math']), tagged('d', true, ['new'])])
    expect(compareRuns(baseline, current, gate).tags).toEqual([
      { tag: 'geo', baselinePassRate: 1, currentPassRate: 0.5, total: 2, regressed: 1 },
      { tag: 'math', baselinePassRate: 0.5, currentPassRate: 1, total: 1, regressed: 0 },
      { tag: 'new', baselinePassRate: null, currentPassRate: 1, total: 1, regressed: 0 }
    ])
  })

  it('without a baseline: figures of the current run only, nothing compared', () => {
    const c = compareRuns(null, makeRun(makeCases('a', '!b')), gate)
    expect(c).toMatchObject({
      baseline: null,
      passRateDelta: null,
      meanScoreDelta: null,
      common: null,
      passRateDeltaCI: null,
      regressed: [],
      added: [],
      removed: [],
      gate: { passed: true, checks: [] }
    })
    expect(c.current.passRate).toBe(0.5)
  })

  it('--json holds every key of the contract (and may add more)', () => {
    const [baseline, current] = [makeBaseline(makeCases('a', 'b')), makeRun(makeCases('a', '!b'))]
    const c = compareRuns(baseline, current, gate)
    const json = comparisonJson(buildReport({ comparison: c, baseline, current }))
    const keys = [
      'baseline',
      'current',
      'passRateDelta',
      'meanScoreDelta',
      'passRateDeltaCI',
      'regressed',
      'fixed',
      'flaky',
      'added',
      'removed',
      'changed',
      'notGraded',
      'gate',
      'verdict'
    ]
    for (const key of keys) expect(json).toHaveProperty(key)
    expect(Object.keys(json.gate as object).sort()).toEqual(['checks', 'failures', 'passed'])
    expect(json.gate).toMatchObject({ passed: false, failures: ['1 case regressed (limit: maxRegressions 0): b'] })
    expect(json.verdict).toMatchObject({
      status: 'fail',
      reasons: [{ code: 'maxRegressions', message: '1 case regressed (limit: maxRegressions 0): b' }],
      exitCode: 1
    })
    expect(JSON.parse(JSON.stringify(c))).toEqual(c)
  })

  it('gives a pass rate of 0 to an empty run', () => {
    const c = compareRuns(makeBaseline([]), makeRun([]), gate)
    expect(c.current.passRate).toBe(0)
    expect(c.common).toBeNull()
    expect(c.passRateDeltaCI).toBeNull()
  })
})
