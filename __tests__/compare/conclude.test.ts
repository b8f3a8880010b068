import { describe, expect, it } from '@jest/globals'
import { conclude, type ConcludeContext } from '../../src/compare/conclude.js'
import { compareRuns } from '../../src/compare/index.js'
import type { RunRecord } from '../../src/types.js'
import { makeBaseline, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

const baseline = makeBaseline(makeCases('a', 'b', 'c'))
const same = makeRun(makeCases('a', 'b', 'c'))
const regressed = makeRun(makeCases('a', '!b', 'c'))
const cutShort = makeRun(makeCases('a'), { complete: false })

function verdictOf(current: RunRecord, context: Partial<ConcludeContext>, withBaseline = true) {
  const comparison = compareRuns(withBaseline ? baseline : null, current, makeGate())
  return conclude(comparison, current, { baselineStatus: withBaseline ? 'found' : 'none', ...context })
}

describe('conclude: one verdict from the comparison and what the entry point knows', () => {
  it.each([
    { name: 'no regressions', current: same, context: {}, outcome: 'pass', fails: false },
    { name: 'a regression', current: regressed, context: {}, outcome: 'fail', fails: true },
    { name: 'a regression, accept label', current: regressed, context: { acceptLabel: 'evalgate:accept' }, outcome: 'accepted', fails: false },
    { name: 'a regression, fail-on-regression false', current: regressed, context: { failOnRegression: false }, outcome: 'fail', fails: false },
    { name: 'clean run, accept label: nothing to accept', current: same, context: { acceptLabel: 'evalgate:accept' }, outcome: 'pass', fails: false },
    { name: 'cut short, fail-on-regression false', current: cutShort, context: { failOnRegression: false }, outcome: 'fail', fails: true },
    { name: 'cut short, accept label: never accepted', current: cutShort, context: { acceptLabel: 'evalgate:accept' }, outcome: 'fail', fails: true },
    { name: 'upload problem', current: same, context: { problems: ['the run record could not be uploaded'] }, outcome: 'fail', fails: true }
  ] as const)('$name → $outcome', ({ current, context, outcome, fails }) => {
    const v = verdictOf(current, context)
    expect(v.outcome).toBe(outcome)
    expect(v.reasons.length > 0).toBe(fails)
  })

  it('a baseline in error fails closed, even though no case regressed', () => {
    const v = verdictOf(same, { baselineStatus: 'error', baselineProblem: 'downloading artifact 7 failed: 503 Service Unavailable' }, false)
    expect(v.outcome).toBe('error')
    expect(v.baselineStatus).toBe('error')
    expect(v.reasons).toEqual([
      'the baseline exists but could not be read, so regressions cannot be ruled out: downloading artifact 7 failed: 503 Service Unavailable'
    ])
    expect(v.headline).toBe(`evalgate could not tell: ${v.reasons[0]}`)
  })

  it('on-baseline-error: warn turns it into a notice; the floors still apply', () => {
    const v = verdictOf(same, { baselineStatus: 'error', baselineProblem: 'bad zip', onBaselineError: 'warn' }, false)
    expect(v.outcome).toBe('pass')
    expect(v.reasons).toEqual([])
    expect(v.notices.join(' ')).toMatch(/bad zip.*on-baseline-error: warn/)
  })

  it('an incompatible baseline fails closed too, and an accept label does not accept it', () => {
    const v = verdictOf(same, { baselineStatus: 'incompatible', baselineProblem: 'fingerprint version 1, this run 2', acceptLabel: 'evalgate:accept' }, false)
    expect(v.outcome).toBe('error')
    expect(v.reasons[0]).toBe('the baseline cannot be compared with this run: fingerprint version 1, this run 2')
  })

  it('an accepted verdict keeps the gate failures in full and says which label', () => {
    const v = verdictOf(regressed, { acceptLabel: 'evalgate:accept' })
    expect(v.gate.failures).toEqual(['1 case regressed (limit: maxRegressions 0): b'])
    expect(v.headline).toBe('gate failed, accepted by the label "evalgate:accept": 1 case regressed (limit: maxRegressions 0): b')
  })

  it('names an incomplete run by the cases it set out to run', () => {
    const v = verdictOf(cutShort, { expected: 3 }, false)
    expect(v.reasons[0]).toMatch(/^the run is incomplete: 1 of/)
    expect(v.headline).toBe(v.reasons[0])
  })

  it('the headline of a pass counts the cases', () => {
    expect(verdictOf(same, {}).headline).toBe('gate passed: 3 of 3 cases passed, 0 regressions')
    expect(verdictOf(same, {}, false).headline).toBe('gate passed: 3 of 3 cases passed (no baseline to compare against)')
  })

  it('carries the config changes and dedupes notices', () => {
    const changes = [{ key: 'gate.maxRegressions', base: 0, head: 5 }]
    const v = verdictOf(same, { configChanges: changes, notices: ['x', 'x'] })
    expect(v.configChanges).toEqual(changes)
    expect(v.notices).toEqual(['x'])
  })
})

describe('conclude: a target that fails most cases the same way', () => {
  it('is named in the headline, not counted as regressions', () => {
    const broken = makeRun(makeCases('!a', '!b', '!c').map((c) => ({ ...c, output: null, error: 'cannot run "pyhton3": not found on PATH' })))
    const v = verdictOf(broken, {})
    expect(v.outcome).toBe('fail')
    expect(v.headline).toBe('gate failed: the target failed on 3 of 3 cases: cannot run "pyhton3": not found on PATH')
  })

  it('is named in the headline of a gate that passes too (no baseline, nothing regressed)', () => {
    const broken = makeRun(makeCases('!a', '!b', '!c').map((c) => ({ ...c, output: null, error: 'connection refused' })))
    const v = verdictOf(broken, {}, false)
    expect(v.outcome).toBe('pass')
    expect(v.headline).toBe('gate passed: 0 of 3 cases passed, but the target failed on 3 of 3 cases: connection refused (no baseline to compare against)')
    const failedBefore = makeBaseline(makeCases('!a', '!b', '!c'))
    const w = conclude(compareRuns(failedBefore, broken, makeGate()), broken, { baselineStatus: 'found' })
    expect(w.headline).toBe('gate passed: 0 of 3 cases passed, 0 regressions, but the target failed on 3 of 3 cases: connection refused')
  })
})

describe('conclude: the exact sentences of each branch', () => {
  const regression = '1 case regressed (limit: maxRegressions 0): b'
  const removal = '1 baseline case is missing from this run (limit: maxRemoved 0): c'

  it('a clean run has no reasons, no notices and no config changes', () => {
    const v = verdictOf(same, {})
    expect(v.reasons).toEqual([])
    expect(v.notices).toEqual([])
    expect(v.configChanges).toEqual([])
  })

  it('a regression is the reason and, after "gate failed: ", the headline', () => {
    const v = verdictOf(regressed, {})
    expect(v.reasons).toEqual([regression])
    expect(v.notices).toEqual([])
    expect(v.headline).toBe(`gate failed: ${regression}`)
  })

  it('fail-on-regression false: every limit exceeded is one notice, the headline still says the gate failed', () => {
    const v = verdictOf(makeRun(makeCases('a', '!b')), { failOnRegression: false })
    expect(v.outcome).toBe('fail')
    expect(v.reasons).toEqual([])
    expect(v.notices).toEqual([`the gate failed, but fail-on-regression is false: ${regression} ${removal}`])
    expect(v.headline).toBe(`gate failed: ${regression}`)
  })

  it('fail-on-regression false on a clean run: no notice', () => {
    const v = verdictOf(same, { failOnRegression: false })
    expect(v.outcome).toBe('pass')
    expect(v.notices).toEqual([])
  })

  it('an accepted failure is not also a notice, and has no reasons', () => {
    const v = verdictOf(regressed, { acceptLabel: 'evalgate:accept', notices: ['config from the base commit'] })
    expect(v.outcome).toBe('accepted')
    expect(v.reasons).toEqual([])
    expect(v.notices).toEqual(['config from the base commit'])
  })

  it('a problem publishing a clean run is the headline after "gate failed: "', () => {
    const v = verdictOf(same, { problems: ['the run record could not be uploaded'] })
    expect(v.reasons).toEqual(['the run record could not be uploaded'])
    expect(v.headline).toBe('gate failed: the run record could not be uploaded')
  })

  it('a baseline in error without a stated problem says it could not be used', () => {
    const v = verdictOf(same, { baselineStatus: 'error' }, false)
    expect(v.reasons).toEqual(['the baseline exists but could not be read, so regressions cannot be ruled out: the baseline could not be used'])
  })

  it('a run cut short with nothing more known: the cases it finished', () => {
    const v = verdictOf(cutShort, {}, false)
    expect(v.reasons).toEqual(['the run is incomplete: it stopped after 1 case finished'])
    expect(v.headline).toBe('the run is incomplete: it stopped after 1 case finished')
  })

  it('a run cut short, of more cases than finished: one reason naming them, not the gate’s sentence besides', () => {
    const v = verdictOf(cutShort, { expected: 3 }, false)
    expect(v.reasons).toEqual(['the run is incomplete: 1 of 3 cases finished'])
    expect(v.headline).toBe('the run is incomplete: 1 of 3 cases finished')
  })

  it('a run cut short with fail-on-regression false: the reason, and no notice of a gate failure', () => {
    const v = verdictOf(cutShort, { failOnRegression: false, expected: 3 }, false)
    expect(v.reasons).toEqual(['the run is incomplete: 1 of 3 cases finished'])
    expect(v.notices).toEqual([])
  })

  it('a run cut short that finished all the cases the entry point expected: the gate’s sentence, from the record’s plan', () => {
    const planned = makeRun(makeCases('a', 'b'), { complete: false, planned: 3 })
    expect(verdictOf(planned, { expected: 2 }, false).reasons).toEqual(['the run is incomplete: 2 of 3 cases finished'])
    expect(verdictOf(planned, {}, false).reasons).toEqual(['the run is incomplete: 2 of 3 cases finished'])
  })

  it('a run stopped at its budget: the budget sentence, however many cases were expected', () => {
    const spent = makeRun(makeCases('a'), { complete: false, planned: 3, stopReason: 'budget', budget: { maxCostUsd: 2, spentUsd: 2.04 } })
    const sentence =
      'the run stopped at its budget: $2.04 spent of budget.maxCostUsd $2.00 (target plus judge); 1 of 3 cases finished, and a run cut short is never a pass'
    for (const expected of [3, undefined]) {
      const v = verdictOf(spent, { expected }, false)
      expect(v.outcome).toBe('fail')
      expect(v.reasons).toEqual([sentence])
      expect(v.headline).toBe(sentence)
    }
  })

  it('a budget that could not count some spending says so in a notice, and the verdict is unchanged', () => {
    const run = makeRun(makeCases('a'), { budget: { maxCostUsd: 1, spentUsd: 0.0042, uncountedTrials: 3, uncountedJudgeTokens: 1200 } })
    const v = verdictOf(run, {}, false)
    expect(v.outcome).toBe('pass')
    expect(v.notices).toEqual([
      "budget.maxCostUsd $1.00 counted $0.0042 but could not count 3 trials that reported no cost (no usage, or a model missing from pricing) and 1,200 judge tokens (the judge's model has no price in pricing): a budget cannot stop what it cannot count"
    ])
    expect(verdictOf(makeRun(makeCases('a'), { budget: { maxCostUsd: 1, spentUsd: 0.0042 } }), {}, false).notices).toEqual([])
  })

  it('a metric limit with no figures to hold says so in a notice, and the verdict is unchanged', () => {
    const gate = makeGate({ maxCostIncrease: 0.1, maxTokensIncrease: 0.1 })
    const v = conclude(compareRuns(baseline, same, gate), same, { baselineStatus: 'found' })
    expect(v.outcome).toBe('pass')
    expect(v.notices).toEqual([
      'maxCostIncrease 10.0% was not checked: no compared case has a cost in both runs (the target reports no usage, or names a model missing from pricing, or the baseline was made before it did)',
      'maxTokensIncrease 10.0% was not checked: no compared case has a token count in both runs (the target reports no usage, or the baseline was made before it did)'
    ])
  })
})
