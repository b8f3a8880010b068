import { describe, expect, it } from '@jest/globals'
import { sentences } from '../__fixtures__/report.js'
import type { GateConfig } from '../../src/config/schema.js'
import { compareRuns, evaluateGate } from '../../src/compare/index.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { ids, makeBaseline, makeCase, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

/** n cases of which the first `passed` pass. */
function passing(n: number, passed: number): CaseResult[] {
  return ids(n).map((id, i) => makeCase(id, i < passed))
}

function scored(scores: number[]): CaseResult[] {
  return scores.map((score, i) => makeCase(`s-${i}`, true, { score }))
}

interface Scenario {
  baseline: RunRecord | null
  current: RunRecord
}

// 25 cases, 23 → 21 passing: the pass rate drops 92.0% → 84.0%, i.e. 8.0 points (case-21, case-22 regressed).
const drop8: Scenario = { baseline: makeBaseline(passing(25, 23)), current: makeRun(passing(25, 21)) }
// Mean judge score 0.850 → 0.770: a drop of 0.080 carried by s-1.
const scoreDrop: Scenario = { baseline: makeBaseline(scored([0.9, 0.8])), current: makeRun(scored([0.9, 0.64])) }
// 7 of 10 cases pass: 70.0%.
const seventy: Scenario = { baseline: null, current: makeRun(passing(10, 7)) }
const meanSixty: Scenario = { baseline: null, current: makeRun(scored([0.4, 0.8, 0.6])) }
const twoRegressed: Scenario = {
  baseline: makeBaseline(makeCases('a', 'b', 'c')),
  current: makeRun(makeCases('!a', 'b', '!c'))
}
const noScores: Scenario = { baseline: null, current: makeRun(makeCases('a')) }

// 100 cases, 95 → 75 passing: a drop of 20 points, significant (its whole 95% interval lies below zero).
const drop20: Scenario = { baseline: makeBaseline(passing(100, 95)), current: makeRun(passing(100, 75)) }
// The bounds are computed inside the tests that use them, not while jest collects the tests: Stryker
// would count compareRuns as run by no test and rerun every test for each of its mutants.
const ciUpperBound = () => compareRuns(drop20.baseline, drop20.current, makeGate()).passRateDeltaCI![1]
// 12 scored cases losing 0.05 to 0.15 each (mean 0.1): a significant score drop.
const scoreDrops = [0.05, 0.15, 0.1, 0.08, 0.12, 0.1, 0.06, 0.14, 0.1, 0.09, 0.11, 0.1]
const scoreDrop12: Scenario = {
  baseline: makeBaseline(scored(scoreDrops.map(() => 0.9))),
  current: makeRun(scored(scoreDrops.map((d) => 0.9 - d)))
}
const scoreCiUpperBound = () => compareRuns(scoreDrop12.baseline, scoreDrop12.current, makeGate()).meanScoreDeltaCI![1]

/** A row's limits, or the limits computed from a bound (see ciUpperBound). */
function limits(gate: Partial<GateConfig> | (() => Partial<GateConfig>)): Partial<GateConfig> {
  return typeof gate === 'function' ? gate() : gate
}

function gateOf(s: Scenario, gate: Partial<GateConfig>) {
  return compareRuns(s.baseline, s.current, makeGate(gate)).gate
}

describe('evaluateGate: each limit at its edge', () => {
  it.each([
    { limit: 'maxRegressions', scenario: twoRegressed, passes: { maxRegressions: 2 }, fails: { maxRegressions: 1 } },
    { limit: 'maxPassRateDrop', scenario: drop8, passes: { maxPassRateDrop: 0.08 }, fails: { maxPassRateDrop: 0.079 } },
    {
      limit: 'maxPassRateDrop on the confidence bound',
      scenario: drop20,
      passes: () => ({ maxPassRateDrop: -ciUpperBound(), useConfidenceBound: true }),
      fails: () => ({ maxPassRateDrop: -ciUpperBound() - 0.001, useConfidenceBound: true })
    },
    {
      limit: 'maxMeanScoreDrop on the confidence bound',
      scenario: scoreDrop12,
      passes: () => ({ maxMeanScoreDrop: -scoreCiUpperBound(), useConfidenceBound: true }),
      fails: () => ({ maxMeanScoreDrop: -scoreCiUpperBound() - 0.001, useConfidenceBound: true })
    },
    {
      limit: 'maxMeanScoreDrop',
      scenario: scoreDrop,
      passes: { maxMeanScoreDrop: 0.08 },
      fails: { maxMeanScoreDrop: 0.079 }
    },
    { limit: 'minPassRate', scenario: seventy, passes: { minPassRate: 0.7 }, fails: { minPassRate: 0.71 } },
    { limit: 'minMeanScore', scenario: meanSixty, passes: { minMeanScore: 0.6 }, fails: { minMeanScore: 0.61 } }
  ])('$limit: exactly at the limit passes, just beyond fails', ({ scenario, passes, fails }) => {
    expect(gateOf(scenario, { maxRegressions: 100, ...limits(passes) })).toEqual({ passed: true, checks: [] })
    const failed = gateOf(scenario, { maxRegressions: 100, ...limits(fails) })
    expect(failed.passed).toBe(false)
    expect(sentences(failed)).toHaveLength(1)
  })
})

describe('evaluateGate: sentences name the limit, the measured value and the cases', () => {
  it.each([
    { scenario: twoRegressed, gate: {}, sentence: '2 cases regressed (limit: maxRegressions 0): a, c' },
    {
      scenario: drop8,
      gate: { maxRegressions: 2, maxPassRateDrop: 0.02 },
      sentence:
        'pass rate dropped 8.0 points on the 25 cases in both runs with the same fingerprint, 92.0% → 84.0% ' +
        '(limit: maxPassRateDrop 2.0 points); passed before, fail now: case-21, case-22'
    },
    {
      scenario: scoreDrop,
      gate: { maxMeanScoreDrop: 0.05 },
      sentence:
        'mean judge score dropped 0.080 on the cases scored in both runs with the same fingerprint, 0.850 → 0.770 ' +
        '(limit: maxMeanScoreDrop 0.050); scored lower: s-1'
    },
    {
      scenario: seventy,
      gate: { minPassRate: 0.8 },
      sentence: 'pass rate 70.0% is below minPassRate 80.0% (7 of 10 cases passed); failing: case-7, case-8, case-9'
    },
    {
      scenario: meanSixty,
      gate: { minMeanScore: 0.7 },
      sentence: 'mean judge score 0.600 is below minMeanScore 0.700; scored below it: s-0, s-2'
    },
    {
      scenario: noScores,
      gate: { minMeanScore: 0.5 },
      sentence: 'mean judge score is unavailable (no case has an llm-rubric score) but minMeanScore is 0.500'
    },
    {
      scenario: { ...seventy },
      gate: { failOnMissingBaseline: true },
      sentence: 'no baseline run to compare against (failOnMissingBaseline is true)'
    },
    {
      scenario: { baseline: null, current: makeRun(makeCases('a', 'b'), { complete: false }) },
      gate: {},
      sentence: 'the run is incomplete: it stopped after 2 cases finished'
    },
    {
      scenario: {
        baseline: null,
        current: makeRun(makeCases('a', 'b'), { complete: false, summary: { ...makeRun([]).summary, total: 5 } })
      },
      gate: {},
      sentence: 'the run is incomplete: 2 of 5 cases finished'
    }
  ])('$sentence', ({ scenario, gate, sentence }) => {
    expect(sentences(gateOf(scenario, gate))).toEqual([sentence])
  })

  it('says when the pass-rate limit applies to the confidence bound', () => {
    const [sentence] = sentences(gateOf(drop20, { maxRegressions: 100, maxPassRateDrop: 0.02, useConfidenceBound: true }))
    expect(sentence).toBe(
      `pass rate dropped by at least ${(-ciUpperBound() * 100).toFixed(1)} points on the 100 cases in both runs with the same fingerprint, ` +
        '95.0% → 75.0% (the optimistic end of its 95% confidence interval; limit: maxPassRateDrop 2.0 points, applied to that bound); ' +
        `passed before, fail now: ${ids(95).slice(75, 85).join(', ')} and 10 more`
    )
  })

  it('says when the score limit applies to the confidence bound', () => {
    const [sentence] = sentences(gateOf(scoreDrop12, { maxMeanScoreDrop: 0.02, useConfidenceBound: true }))
    expect(sentence).toMatch(
      new RegExp(
        `^mean judge score dropped by at least ${(-scoreCiUpperBound()).toFixed(3)} on the cases scored in both runs with the same fingerprint, ` +
          '0\\.900 → 0\\.800 \\(the optimistic end of its 95% confidence interval; limit: maxMeanScoreDrop 0\\.020, applied to that bound\\); scored lower: s-1, s-7'
      )
    )
  })

  it('names at most ten cases, then how many more', () => {
    const n = 13
    const s = { baseline: makeBaseline(passing(n, n)), current: makeRun(passing(n, 0)) }
    expect(sentences(gateOf(s, {}))).toEqual([`13 cases regressed (limit: maxRegressions 0): ${ids(10).join(', ')} and 3 more`])
  })

  it('says "1 case" for one', () => {
    const s = { baseline: makeBaseline(makeCases('a')), current: makeRun(makeCases('!a')) }
    expect(sentences(gateOf(s, {}))).toEqual(['1 case regressed (limit: maxRegressions 0): a'])
  })

  it('lists every exceeded limit, incompleteness first', () => {
    const current = makeRun(passing(4, 1), { complete: false })
    const failures = sentences(gateOf({ baseline: makeBaseline(passing(4, 4)), current }, { maxPassRateDrop: 0, minPassRate: 0.5 }))
    expect(failures.map((f) => f.split(' ').slice(0, 3).join(' '))).toEqual(['the run is', '3 cases regressed', 'pass rate dropped', 'pass rate 25.0%'])
  })
})

describe('evaluateGate: useConfidenceBound fails only on a drop the data supports', () => {
  it('the interval of a significant drop lies below zero', () => {
    expect(ciUpperBound()).toBeLessThan(-0.1)
    expect(scoreCiUpperBound()).toBeLessThan(-0.08)
  })

  it.each([
    // 92% → 84% on 25 cases: 8 points, but 2 flips of 25 are within chance (the interval reaches above zero)
    { name: 'a noisy pass-rate drop', scenario: drop8, gate: { maxRegressions: 2, maxPassRateDrop: 0.02 } },
    // two cases, one scored lower: a drop of 0.080 that two cases cannot support
    { name: 'a noisy score drop', scenario: scoreDrop, gate: { maxMeanScoreDrop: 0.05 } }
  ])('$name: fails on the point estimate, passes on the bound', ({ scenario, gate }) => {
    expect(gateOf(scenario, gate).passed).toBe(false)
    expect(gateOf(scenario, { ...gate, useConfidenceBound: true })).toEqual({ passed: true, checks: [] })
  })

  it('applies the score limit to the drop itself when one case is scored in both runs (no interval)', () => {
    const one = { baseline: makeBaseline(scored([0.9])), current: makeRun(scored([0.5])) }
    expect(compareRuns(one.baseline, one.current, makeGate()).meanScoreDeltaCI).toBeNull()
    expect(sentences(gateOf(one, { maxMeanScoreDrop: 0.1, useConfidenceBound: true }))).toEqual([
      'mean judge score dropped 0.400 on the cases scored in both runs with the same fingerprint, 0.900 → 0.500 (limit: maxMeanScoreDrop 0.100); scored lower: s-0'
    ])
  })
})

describe('evaluateGate: what is not checked', () => {
  it.each([
    { name: 'maxPassRateDrop unset', scenario: drop8, gate: { maxRegressions: 2 } },
    { name: 'maxMeanScoreDrop unset', scenario: scoreDrop, gate: {} },
    { name: 'minMeanScore 0 without scores', scenario: noScores, gate: { minMeanScore: 0 } },
    { name: 'a missing baseline by default', scenario: seventy, gate: {} },
    {
      name: 'regressions and drops without a baseline',
      scenario: { baseline: null, current: drop8.current },
      gate: { maxPassRateDrop: 0, maxMeanScoreDrop: 0 }
    },
    {
      name: 'score drop when a side has no scores',
      scenario: { baseline: makeBaseline(makeCases('s-0')), current: makeRun(scored([0.1])) },
      gate: { maxMeanScoreDrop: 0 }
    },
    {
      name: 'a better pass rate with the drop limit 0',
      scenario: { baseline: makeBaseline(passing(4, 1)), current: makeRun(passing(4, 3)) },
      gate: { maxPassRateDrop: 0 }
    }
  ])('$name', ({ scenario, gate }) => {
    expect(gateOf(scenario, gate)).toEqual({ passed: true, checks: [] })
  })

  it('is callable on a comparison without its gate', () => {
    const { gate: _omitted, ...rest } = compareRuns(twoRegressed.baseline, twoRegressed.current, makeGate())
    expect(evaluateGate(rest, makeGate({ maxRegressions: 2 }), twoRegressed.current).passed).toBe(true)
  })
})

describe('evaluateGate: flaky flips do not count as a drop; minPassRate is a floor of this run', () => {
  // 20 cases passing on the baseline; now two known-flaky cases failed (flaky), and steady-0 really broke
  const history = 'PPFPPFPPP'
  const baseline = makeBaseline([makeCase('flaky-0', true, { history }), makeCase('flaky-1', true, { history }), ...passing(18, 18)])
  const withFlakyOnly = makeRun([makeCase('flaky-0', false), makeCase('flaky-1', false), ...passing(18, 18)])
  const withRegression = makeRun([makeCase('flaky-0', false), makeCase('flaky-1', false), makeCase('case-0', false), ...passing(18, 18).slice(1)])

  it('two flaky flips alone: the pass rate fell 10 points, but maxPassRateDrop sees no drop', () => {
    const c = compareRuns(baseline, withFlakyOnly, makeGate({ maxPassRateDrop: 0.02 }))
    expect(c.flaky).toEqual(['flaky-0', 'flaky-1'])
    expect(c.common).toMatchObject({ passRateDelta: expect.closeTo(-0.1, 9), gatedPassRateDelta: 0, flakyFlips: 2 })
    expect(c.gate).toMatchObject({ passed: true, checks: [] })
  })

  it('on the confidence bound too', () => {
    expect(compareRuns(baseline, withFlakyOnly, makeGate({ maxPassRateDrop: 0, useConfidenceBound: true })).gate.passed).toBe(true)
  })

  it('a real regression beside them: only it is the drop, and the sentence says the flaky ones were set aside', () => {
    const c = compareRuns(baseline, withRegression, makeGate({ maxRegressions: 5, maxPassRateDrop: 0.02 }))
    expect(c.regressed).toEqual(['case-0'])
    expect(sentences(c.gate)).toEqual([
      'pass rate dropped 5.0 points on the 20 cases in both runs with the same fingerprint, 2 flaky cases counted as in the baseline, 100.0% → 95.0% (limit: maxPassRateDrop 2.0 points); passed before, fail now: case-0'
    ])
  })

  it('minPassRate counts the flaky failures: it is an absolute floor of this run', () => {
    const c = compareRuns(baseline, withFlakyOnly, makeGate({ minPassRate: 0.95 }))
    expect(sentences(c.gate)).toEqual([
      'pass rate 90.0% is below minPassRate 95.0% (18 of 20 cases passed); failing: flaky-0, flaky-1; 2 of the failing cases are flaky and count as failed: minPassRate is a floor of this run'
    ])
  })
})
