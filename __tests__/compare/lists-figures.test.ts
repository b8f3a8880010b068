/**
 * compareRuns' lists and figures that the gate's tests do not look at
 * (src/compare/compare.ts): the lists of a run without a
 * baseline, of a complete run, the scored pairs, and the per-tag rows.
 */
import { describe, expect, it } from '@jest/globals'
import { compareRuns, runFigures } from '../../src/compare/index.js'
import { makeBaseline, makeCase, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

const gate = makeGate()

describe('compareRuns: lists', () => {
  it('a complete run has no unfinished cases', () => {
    const c = compareRuns(makeBaseline(makeCases('a', 'b')), makeRun(makeCases('a', '!b')), gate)
    expect(c.unfinished).toEqual([])
    expect(c.regressed).toEqual(['b'])
  })

  it('without a baseline every list is empty', () => {
    const c = compareRuns(null, makeRun(makeCases('a', '!b')), gate)
    expect([c.regressed, c.fixed, c.flaky, c.notTestable, c.flakyCases, c.added, c.removed, c.changed, c.unfinished]).toEqual([
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      []
    ])
  })
})

describe('compareRuns: figures', () => {
  it('runFigures says whether the run is complete', () => {
    expect(runFigures(makeRun(makeCases('a'))).complete).toBe(true)
    expect(runFigures(makeRun(makeCases('a'), { complete: false })).complete).toBe(false)
  })

  it('has no mean-score change when only one run has scores', () => {
    const c = compareRuns(makeBaseline([makeCase('a')]), makeRun([makeCase('a', true, { score: 0.75 })]), gate)
    expect(c.meanScoreDelta).toBeNull()
  })

  it('compares scores only on cases scored in both runs', () => {
    const baseline = makeBaseline([makeCase('a', true, { score: 0.8 }), makeCase('b', true, { score: 0.5 })])
    const current = makeRun([makeCase('a', true, { score: null }), makeCase('b', true, { score: 0.5 })])
    const c = compareRuns(baseline, current, gate)
    expect(c.common).toMatchObject({ baselineMeanScore: 0.5, currentMeanScore: 0.5, meanScoreDelta: 0, scoredLower: [] })
  })
})

describe('compareRuns: per-tag rows', () => {
  it('are sorted by tag', () => {
    const current = makeRun([makeCase('a', true, { tags: ['zeta'] }), makeCase('b', true, { tags: ['alpha'] })])
    expect(compareRuns(makeBaseline([]), current, gate).tags.map((t) => t.tag)).toEqual(['alpha', 'zeta'])
  })

  it('have no baseline pass rate without a baseline', () => {
    const current = makeRun([makeCase('a', true, { tags: ['billing'] }), makeCase('b', false, { tags: ['billing'] })])
    expect(compareRuns(null, current, gate).tags).toEqual([{ tag: 'billing', baselinePassRate: null, currentPassRate: 0.5, total: 2, regressed: 0 }])
  })
})
