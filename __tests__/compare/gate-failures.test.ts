/** Each gate failure in full: its check, limit, measured value and cases, and the sentence of each side of a branch. */
import { describe, expect, it } from '@jest/globals'
import { failureSentence } from '../__fixtures__/report.js'
import { compareRuns } from '../../src/compare/index.js'
import type { GateFailure } from '../../src/compare/types.js'
import type { GateConfig } from '../../src/config/schema.js'
import { noticeText } from '../../src/report/words.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { makeBaseline, makeCase, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

function checksOf(baseline: RunRecord | null, current: RunRecord, gate: Partial<GateConfig> = {}) {
  return compareRuns(baseline, current, makeGate(gate)).gate.checks
}

/** What every failure has, and its sentence. */
function view(f: GateFailure) {
  return { check: f.check, limit: f.limit, measured: f.measured, keys: f.keys, sentence: failureSentence(f) }
}

const scored = (scores: number[]): CaseResult[] => scores.map((score, i) => makeCase(`s-${i}`, true, { score }))

describe('the gate failures in full', () => {
  it('incomplete: the cases planned and finished, no cases named', () => {
    const current = makeRun(makeCases('a', 'b'), { complete: false, planned: 5 })
    expect(checksOf(null, current).map(view)).toEqual([
      { check: 'incomplete', limit: 5, measured: 2, keys: [], sentence: 'the run is incomplete: 2 of 5 cases finished' }
    ])
  })

  it('an interrupted run that had a budget is incomplete, not stopped at its budget', () => {
    const current = makeRun(makeCases('a'), { complete: false, planned: 3, stopReason: 'interrupted', budget: { maxCostUsd: 2, spentUsd: 0.5 } })
    expect(checksOf(null, current).map((f) => failureSentence(f))).toEqual(['the run is incomplete: 1 of 3 cases finished'])
  })

  it('failOnMissingBaseline', () => {
    expect(checksOf(null, makeRun(makeCases('a')), { failOnMissingBaseline: true }).map(view)).toEqual([
      { check: 'failOnMissingBaseline', limit: null, measured: null, keys: [], sentence: 'no baseline run to compare against (failOnMissingBaseline is true)' }
    ])
  })

  it('minComparable: the share compared, no cases named', () => {
    // 1 of 4 baseline cases compared: b, c, d changed (maxChanged unset)
    const checks = checksOf(makeBaseline(makeCases('a', 'b', 'c', 'd')), makeRun(makeCases('a', 'b~', 'c~', 'd~')))
    expect(checks.map(view)).toEqual([
      {
        check: 'minComparable',
        limit: 0.5,
        measured: 0.25,
        keys: [],
        sentence:
          'only 1 of 4 baseline cases could be compared (25.0%; limit: minComparable 50.0%): the others are removed or changed, so the baseline says little about this run'
      }
    ])
  })

  it('useConfidenceBound with too few cases for any bound to exceed maxPassRateDrop: applied to the drop itself', () => {
    // 3 cases, all broken: the optimistic end of Newcombe's interval of the −100-point drop is −21 points, within a 50-point limit
    const gate = { maxRegressions: 5, maxPassRateDrop: 0.5, useConfidenceBound: true }
    const [check] = checksOf(makeBaseline(makeCases('a', 'b', 'c')), makeRun(makeCases('!a', '!b', '!c')), gate)
    expect(check).toMatchObject({ check: 'maxPassRateDrop', limit: 0.5, measured: 1, keys: ['a', 'b', 'c'], unbounded: true })
    expect(failureSentence(check!)).toContain('with 3 cases no 95% confidence interval could exceed the limit, so applied to the drop itself')
    // a drop within the limit still passes
    expect(checksOf(makeBaseline(makeCases('a', 'b', 'c')), makeRun(makeCases('!a', 'b', 'c')), gate)).toEqual([])
    // with enough cases the bound decides again: 20 cases, 4 broken, 10-point limit
    const twenty = Array.from({ length: 20 }, (_, i) => `c${i}`)
    const broken = makeRun(twenty.map((id, i) => makeCase(id, i >= 4)))
    expect(checksOf(makeBaseline(twenty.map((id) => makeCase(id))), broken, { ...gate, maxPassRateDrop: 0.1 })).toEqual([])
  })

  it('maxPassRateDrop and maxMeanScoreDrop name their checks, on the point and on the bound', () => {
    const baseline = makeBaseline(scored([0.9, 0.9]))
    const current = makeRun([makeCase('s-0', true, { score: 0.9 }), makeCase('s-1', false, { score: 0.5 })])
    const gate = { maxRegressions: 5, maxPassRateDrop: 0.1, maxMeanScoreDrop: 0.1 }
    expect(checksOf(baseline, current, gate).map((f) => [f.check, f.limit, f.keys])).toEqual([
      ['maxPassRateDrop', 0.1, ['s-1']],
      ['maxMeanScoreDrop', 0.1, ['s-1']]
    ])
    const drop20 = makeBaseline(Array.from({ length: 100 }, (_, i) => makeCase(`c${i}`, i < 95)))
    const now = makeRun(Array.from({ length: 100 }, (_, i) => makeCase(`c${i}`, i < 75)))
    expect(checksOf(drop20, now, { maxRegressions: 100, maxPassRateDrop: 0.02, useConfidenceBound: true }).map((f) => f.check)).toEqual(['maxPassRateDrop'])
    const scoredHigh = makeBaseline(Array.from({ length: 20 }, (_, i) => makeCase(`m${i}`, true, { score: 0.9 })))
    const scoredLow = makeRun(Array.from({ length: 20 }, (_, i) => makeCase(`m${i}`, true, { score: i % 2 ? 0.5 : 0.6 })))
    expect(checksOf(scoredHigh, scoredLow, { maxMeanScoreDrop: 0.1, useConfidenceBound: true }).map((f) => [f.check, f.limit])).toEqual([
      ['maxMeanScoreDrop', 0.1]
    ])
  })

  it('minPassRate of a run with no cases: no failing cases to name', () => {
    expect(checksOf(null, makeRun([]), { minPassRate: 0.5 }).map(view)).toEqual([
      { check: 'minPassRate', limit: 0.5, measured: 0, keys: [], sentence: 'pass rate 0.0% is below minPassRate 50.0% (0 of 0 cases passed)' }
    ])
  })

  it('minPassRate says "1 of the failing cases is flaky and counts as failed" for one', () => {
    const history = 'PPFPPFPPP'
    const baseline = makeBaseline([makeCase('f', true, { history }), makeCase('a'), makeCase('b')])
    const current = makeRun([makeCase('f', false), makeCase('a'), makeCase('b')])
    expect(checksOf(baseline, current, { minPassRate: 0.9 }).map((f) => failureSentence(f))).toEqual([
      'pass rate 66.7% is below minPassRate 90.0% (2 of 3 cases passed); failing: f; 1 of the failing cases is flaky and counts as failed: minPassRate is a floor of this run'
    ])
  })

  it('minMeanScore names the cases scored below it, lowest first; not those at it, not the unscored', () => {
    // scored 0.9, 0.5, 0.3, 0.6 (mean 0.575) and one case without a score
    const current = makeRun([...scored([0.9, 0.5, 0.3, 0.6]), makeCase('u')])
    const [failure] = checksOf(null, current, { minMeanScore: 0.6 })
    expect(failure).toMatchObject({ check: 'minMeanScore', limit: 0.6, keys: ['s-2', 's-1'] })
    expect(failureSentence(failure!)).toBe('mean judge score 0.575 is below minMeanScore 0.600; scored below it: s-2, s-1')
  })

  it('minMeanScore without any score: the check, no value, no cases', () => {
    expect(checksOf(null, makeRun(makeCases('a')), { minMeanScore: 0.5 }).map(view)).toEqual([
      {
        check: 'minMeanScore',
        limit: 0.5,
        measured: null,
        keys: [],
        sentence: 'mean judge score is unavailable (no case has an llm-rubric score) but minMeanScore is 0.500'
      }
    ])
  })

  it('a shard is not held to the floors: they are of the whole run', () => {
    const shard = makeRun(makeCases('a', '!b'), { config: { repeat: 1, shard: '1/2' } })
    expect(checksOf(null, shard, { minPassRate: 1, minMeanScore: 0.5 })).toEqual([])
  })

  it('a cost limit without cost figures is not checked, and zero to zero is no rise', () => {
    const priced = (id: string, costUsd: number) => makeCase(id, true, { usage: { costUsd } })
    expect(checksOf(makeBaseline(makeCases('a')), makeRun(makeCases('a')), { maxCostIncrease: 0.1 })).toEqual([])
    expect(checksOf(makeBaseline([priced('a', 0), priced('b', 0)]), makeRun([priced('a', 0), priced('b', 0)]), { maxCostIncrease: 0.1 })).toEqual([])
  })

  it('a metric limit with no figures in both runs is named as not checked, not failed; one with figures is not named', () => {
    const priced = (id: string, costUsd: number) => makeCase(id, true, { usage: { costUsd }, latencyMs: 100 })
    const gate = makeGate({ maxCostIncrease: 0.1, maxLatencyIncrease: 0.2 })
    // the first run that reports usage, against a baseline made before: nothing to compare the cost with
    const first = compareRuns(makeBaseline(makeCases('a', 'b')), makeRun([priced('a', 1), priced('b', 1)]), gate).gate
    expect(first.checks).toEqual([])
    expect(first.unchecked?.map((limit) => noticeText({ code: 'unchecked', limit }))).toEqual([
      'maxCostIncrease 10.0% was not checked: no compared case has a cost in both runs (the target reports no usage, or names a model missing from pricing, or the baseline was made before it did)',
      'maxLatencyIncrease 20.0% was not checked: no compared case has a latency in both runs (the baseline was made by an evalgate that did not record latency)'
    ])
    // figures on both sides: checked, so not named
    expect(compareRuns(makeBaseline([priced('a', 1)]), makeRun([priced('a', 1)]), gate).gate.unchecked).toBeUndefined()
    // without a baseline nothing relative is checked, and the report already says there is no baseline
    expect(compareRuns(null, makeRun([priced('a', 1)]), gate).gate.unchecked).toBeUndefined()
  })

  it('a rise from a baseline of zero fails a relative limit: going from free to paid is not unseen', () => {
    const priced = (id: string, costUsd: number) => makeCase(id, true, { usage: { costUsd } })
    const failures = checksOf(makeBaseline([priced('a', 0), priced('b', 0)]), makeRun([priced('a', 1), priced('b', 0)]), { maxCostIncrease: 0.1 })
    expect(failures.map(view)).toEqual([
      {
        check: 'maxCostIncrease',
        limit: 0.1,
        measured: null,
        keys: ['a'],
        sentence:
          'total cost rose from $0.0000 to $1.00 on the 2 cases compared: a rise from zero is over any relative limit (limit: maxCostIncrease 10.0%); largest rise: a (+$1.00)'
      }
    ])
    // the same with useConfidenceBound: there is no interval of a change from zero to lean on
    expect(checksOf(makeBaseline([priced('a', 0)]), makeRun([priced('a', 1)]), { maxCostIncrease: 0.1, useConfidenceBound: true })).toHaveLength(1)
  })
})
