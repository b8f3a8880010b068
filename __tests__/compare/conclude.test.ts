import { describe, expect, it } from '@jest/globals'
import { conclude, type ConcludeContext } from '../../src/compare/conclude.js'
import { compareRuns } from '../../src/compare/index.js'
import { buildReport } from '../../src/report/model.js'
import type { AssertionResult, CaseResult, RunRecord } from '../../src/types.js'
import { makeBaseline, makeCase, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

const baseline = makeBaseline(makeCases('a', 'b', 'c'))
const same = makeRun(makeCases('a', 'b', 'c'))
const regressed = makeRun(makeCases('a', '!b', 'c'))
const cutShort = makeRun(makeCases('a'), { complete: false })

/** The verdict of `current` and the words every surface shows of it. */
function verdictOf(current: RunRecord, context: Partial<ConcludeContext>, withBaseline = true) {
  const base = withBaseline ? baseline : null
  const comparison = compareRuns(base, current, makeGate())
  const verdict = conclude(comparison, current, { baselineStatus: withBaseline ? 'found' : 'none', ...context })
  const model = buildReport({ comparison, baseline: base, current, verdict })
  return { ...verdict, reasons: model.reasons.map((r) => r.message), codes: model.reasons.map((r) => r.code), notices: model.notices, headline: model.headline }
}

describe('conclude: one verdict from the comparison and what the entry point knows', () => {
  it.each([
    { name: 'no regressions', current: same, context: {}, status: 'pass', exitCode: 0 },
    { name: 'a regression', current: regressed, context: {}, status: 'fail', exitCode: 1 },
    { name: 'a regression, accept label', current: regressed, context: { acceptLabel: 'evalgate:accept' }, status: 'accepted', exitCode: 0 },
    { name: 'a regression, advisory (fail-on-regression false)', current: regressed, context: { failOnRegression: false }, status: 'fail', exitCode: 0 },
    { name: 'clean run, accept label: nothing to accept', current: same, context: { acceptLabel: 'evalgate:accept' }, status: 'pass', exitCode: 0 },
    { name: 'cut short', current: cutShort, context: {}, status: 'could-not-tell', exitCode: 1 },
    // advisory leaves a failing gate's check green, never a run that could not tell
    { name: 'cut short, advisory', current: cutShort, context: { failOnRegression: false }, status: 'could-not-tell', exitCode: 1 },
    { name: 'cut short, accept label', current: cutShort, context: { acceptLabel: 'evalgate:accept' }, status: 'accepted', exitCode: 0 },
    {
      name: 'upload failed',
      current: same,
      context: { problems: [{ code: 'upload-failed', artifact: 'evalgate-x', error: 'HTTP 500' }] },
      status: 'could-not-tell',
      exitCode: 1
    }
  ] as const)('$name → $status, exit $exitCode', ({ current, context, status, exitCode }) => {
    const v = verdictOf(current, context as Partial<ConcludeContext>)
    expect(v.status).toBe(status)
    expect(v.exitCode).toBe(exitCode)
    expect(v.reasons.length > 0).toBe(status !== 'pass')
  })

  it('a baseline in error fails closed, even though no case regressed', () => {
    const v = verdictOf(same, { baselineStatus: 'error', baselineProblem: 'downloading artifact 7 failed: 503 Service Unavailable' }, false)
    expect(v.status).toBe('could-not-tell')
    expect(v.baselineStatus).toBe('error')
    expect(v.reasons).toEqual([
      'the baseline exists but could not be read, so regressions cannot be ruled out: downloading artifact 7 failed: 503 Service Unavailable'
    ])
    expect(v.codes).toEqual(['baseline-error'])
    expect(v.headline).toBe(`evalgate could not tell: ${v.reasons[0]}`)
  })

  it('files that grade changed while the run was in progress: the run could not tell, naming them', () => {
    const tampered = { ...same, changedDuringRun: ['checks/answer.mjs'] }
    const v = verdictOf(tampered, {})
    expect(v.status).toBe('could-not-tell')
    expect(v.codes).toEqual(['files-changed'])
    expect(v.reasons).toEqual([
      '1 file that grades the cases changed while the run was in progress (checks/answer.mjs): the cases were graded by something other than what their fingerprints say, by code running on the runner'
    ])
    const many = verdictOf({ ...same, changedDuringRun: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }, {})
    expect(many.reasons[0]).toMatch(/^7 files that grade the cases changed while the run was in progress \(a, b, c, d, e and 2 more\)/)
  })

  it('on-baseline-error: warn turns it into a notice; the floors still apply', () => {
    const v = verdictOf(same, { baselineStatus: 'error', baselineProblem: 'bad zip', onBaselineError: 'warn' }, false)
    expect(v.status).toBe('pass')
    expect(v.reasons).toEqual([])
    expect(v.notices.join(' ')).toMatch(/bad zip.*on-baseline-error: warn/)
  })

  it('an incompatible baseline fails closed; the accept label accepts it, saying what it accepted', () => {
    const problem = { baselineStatus: 'incompatible', baselineProblem: 'fingerprint version 1, this run 2' } as const
    const v = verdictOf(same, problem, false)
    expect(v.status).toBe('could-not-tell')
    expect(v.reasons).toEqual(['the baseline cannot be compared with this run: fingerprint version 1, this run 2'])
    const accepted = verdictOf(same, { ...problem, acceptLabel: 'evalgate:accept' }, false)
    expect(accepted.status).toBe('accepted')
    expect(accepted.acceptedBy).toBe('evalgate:accept')
    expect(accepted.reasons).toEqual(v.reasons)
  })

  it('an accepted verdict keeps the gate failures in full and says which label', () => {
    const v = verdictOf(regressed, { acceptLabel: 'evalgate:accept' })
    expect(v.reasons).toEqual(['1 case regressed (limit: maxRegressions 0): b'])
    expect(v.headline).toBe('gate failed, accepted by the label "evalgate:accept": 1 case regressed (limit: maxRegressions 0): b')
  })

  it('names an incomplete run by the cases it set out to run', () => {
    const v = verdictOf(cutShort, { expected: 3 }, false)
    expect(v.reasons).toEqual(['the run is incomplete: 1 of 3 cases finished'])
    expect(v.headline).toBe('evalgate could not tell: the run is incomplete: 1 of 3 cases finished')
  })

  it('an incomplete run is not also blamed on coverage', () => {
    const v = verdictOf(makeRun(makeCases('a'), { complete: false }), { expected: 3 })
    expect(v.codes).toEqual(['incomplete'])
  })

  it('the headline of a pass counts the cases; without a baseline it says what was and was not gated', () => {
    expect(verdictOf(same, {}).headline).toBe('gate passed: 3 of 3 cases passed, 0 regressions')
    expect(verdictOf(same, {}, false).headline).toBe(
      'gate passed: 3 of 3 cases passed; no baseline yet: nothing compared; no floor set (gate.minPassRate, gate.minMeanScore)'
    )
    const comparison = compareRuns(null, same, makeGate({ minPassRate: 0.8 }))
    const model = buildReport({ comparison, baseline: null, current: same, gate: makeGate({ minPassRate: 0.8 }) })
    expect(model.headline).toBe('gate passed: 3 of 3 cases passed; no baseline yet: nothing compared; floors checked: minPassRate 80.0%')
  })

  it('carries the config changes and dedupes notices', () => {
    const changes = [{ key: 'gate.maxRegressions', base: 0, head: 5 }]
    const v = verdictOf(same, { configChanges: changes, notices: ['x', 'x'] })
    expect(v.configChanges).toEqual(changes)
    expect(v.notices).toEqual(['x'])
  })
})

describe('conclude: a target that fails most cases', () => {
  it('is a run that could not tell, named first, not counted as regressions', () => {
    const broken = makeRun(makeCases('!a', '!b', '!c').map((c) => ({ ...c, output: null, error: 'cannot run "pyhton3": not found on PATH' })))
    const v = verdictOf(broken, {})
    expect(v.status).toBe('could-not-tell')
    expect(v.headline).toBe('evalgate could not tell: the target failed on 3 of 3 cases: cannot run "pyhton3": not found on PATH')
    expect(v.codes[0]).toBe('target-failed')
  })

  it('also without a baseline, where nothing could regress', () => {
    const broken = makeRun(makeCases('!a', '!b', '!c').map((c) => ({ ...c, output: null, error: 'connection refused' })))
    const v = verdictOf(broken, {}, false)
    expect(v.status).toBe('could-not-tell')
    expect(v.reasons).toEqual(['the target failed on 3 of 3 cases: connection refused'])
  })

  it('a target failing a minority of cases leaves the verdict to the gate', () => {
    const some = makeRun([...makeCases('a', 'b'), makeCase('c', false, { output: null, error: 'timed out' })])
    const v = verdictOf(some, {})
    expect(v.status).toBe('fail')
    expect(v.codes).toEqual(['maxRegressions'])
  })
})

/** A judged case: its llm-rubric verdict failed with `error` (an outage unless `answered`), or scored `score`. */
function judged(id: string, verdict: { error: string; answered?: true } | { score: number }, others: AssertionResult[] = []): CaseResult {
  const error = 'error' in verdict ? verdict.error : undefined
  const unavailable = 'error' in verdict && !verdict.answered ? { unavailable: true as const } : {}
  const score = 'score' in verdict ? verdict.score : 0
  const rubric: AssertionResult = {
    type: 'llm-rubric',
    passed: error === undefined && score >= 0.5,
    score,
    reason: error ?? 'graded',
    ...(error ? { error } : {}),
    judge: { model: 'judge-mini', score, reason: error ?? 'graded', key: `k-${id}`, ...(error ? { error } : {}), ...unavailable }
  }
  const assertions = [...others, rubric]
  const passed = assertions.every((a) => a.passed)
  return makeCase(id, passed, { assertions, score: error ? null : score })
}

describe('conclude: a judge that could not grade', () => {
  const judgedBaseline = makeBaseline([judged('a', { score: 1 }), judged('b', { score: 1 }), makeCase('c')])

  it('an outage of the grader is a run that could not tell, not two regressions', () => {
    const outage = makeRun([
      judged('a', { error: 'HTTP 429 Too Many Requests (after 4 attempts)' }),
      judged('b', { error: 'HTTP 429 slow down' }),
      makeCase('c')
    ])
    const comparison = compareRuns(judgedBaseline, outage, makeGate())
    expect(comparison.regressed).toEqual([])
    expect(comparison.notGraded).toEqual(['a', 'b'])
    const verdict = conclude(comparison, outage, { baselineStatus: 'found' })
    const model = buildReport({ comparison, baseline: judgedBaseline, current: outage, verdict })
    expect(verdict.status).toBe('could-not-tell')
    expect(model.reasons.map((r) => r.message)).toEqual([
      'the judge failed on 2 of 2 verdicts: HTTP 429 Too Many Requests (after 4 attempts); the cases it could not grade are not counted as regressions'
    ])
  })

  it('a case the judge could not grade is left out of the figures and the floors', () => {
    const one = makeRun([judged('a', { error: 'HTTP 503' }), judged('b', { score: 1 }), makeCase('c'), makeCase('d')])
    const comparison = compareRuns(null, one, makeGate({ minPassRate: 1 }))
    expect(comparison.current).toMatchObject({ total: 3, passed: 3, passRate: 1 })
    expect(comparison.gate.passed).toBe(true)
    const verdict = conclude(comparison, one, { baselineStatus: 'none' })
    expect(verdict.status).toBe('pass')
    const model = buildReport({ comparison, baseline: null, current: one, verdict })
    expect(model.notices).toContain('1 case could not be graded (the judge failed on its verdict) and is left out of the comparison: a')
  })

  it('a judge error the output provoked (an unreadable answer) fails the case: an agent cannot talk its way out of a verdict', () => {
    const injected = makeRun([judged('a', { error: 'judge reply is not JSON: lol', answered: true }), judged('b', { score: 1 }), makeCase('c')])
    const comparison = compareRuns(judgedBaseline, injected, makeGate())
    expect(comparison.notGraded).toEqual([])
    expect(comparison.regressed).toEqual(['a'])
    expect(conclude(comparison, injected, { baselineStatus: 'found' }).status).toBe('fail')
    // on most verdicts it is a judge that could not grade, whatever caused it: the run could not tell
    const most = makeRun([
      judged('a', { error: 'judge reply is not JSON: lol', answered: true }),
      judged('b', { error: 'judge reply is not JSON: x', answered: true }),
      makeCase('c')
    ])
    expect(conclude(compareRuns(judgedBaseline, most, makeGate()), most, { baselineStatus: 'found' }).status).toBe('could-not-tell')
  })

  it('a case that fails another check is graded whatever the judge did', () => {
    const failingContains: AssertionResult = { type: 'contains', passed: false, score: 0, reason: 'no' }
    const run = makeRun([judged('a', { error: 'HTTP 503' }, [failingContains]), judged('b', { score: 1 }), makeCase('c')])
    const comparison = compareRuns(judgedBaseline, run, makeGate())
    expect(comparison.notGraded).toEqual([])
    expect(comparison.regressed).toEqual(['a'])
  })
})

describe('conclude: notices', () => {
  it('a budget that could not count some spending says so, and the verdict is unchanged', () => {
    const run = makeRun(makeCases('a'), { budget: { maxCostUsd: 1, spentUsd: 0.0042, uncountedTrials: 3, uncountedJudgeTokens: 1200 } })
    const v = verdictOf(run, {}, false)
    expect(v.status).toBe('pass')
    expect(v.notices).toContain(
      "budget.maxCostUsd $1.00 counted $0.0042 but could not count 3 trials that reported no cost (no usage, or a model missing from pricing) and 1,200 judge tokens (the judge's model has no price in pricing): a budget cannot stop what it cannot count"
    )
  })

  it('a metric limit with no figures to hold says so, and the verdict is unchanged', () => {
    const gate = makeGate({ maxCostIncrease: 0.1, maxTokensIncrease: 0.1 })
    const comparison = compareRuns(baseline, same, gate)
    const model = buildReport({ comparison, baseline, current: same, verdict: conclude(comparison, same, { baselineStatus: 'found' }) })
    expect(model.verdict.status).toBe('pass')
    expect(model.notices).toEqual([
      'maxCostIncrease 10.0% was not checked: no compared case has a cost in both runs (the target reports no usage, or names a model missing from pricing, or the baseline was made before it did)',
      'maxTokensIncrease 10.0% was not checked: no compared case has a token count in both runs (the target reports no usage, or the baseline was made before it did)'
    ])
  })

  it('an advisory verdict says the check was left green on purpose', () => {
    const v = verdictOf(regressed, { failOnRegression: false })
    expect(v.advisory).toBe(true)
    expect(v.notices[0]).toBe('gate failed, but fail-on-regression is false: the check was left green on purpose, so pull requests are not blocked')
    expect(v.headline).toBe('gate failed (advisory: the check was left green): 1 case regressed (limit: maxRegressions 0): b')
  })

  it('a run stopped at its budget: the budget sentence', () => {
    const spent = makeRun(makeCases('a'), { complete: false, planned: 3, stopReason: 'budget', budget: { maxCostUsd: 2, spentUsd: 2.04 } })
    const v = verdictOf(spent, {}, false)
    expect(v.status).toBe('could-not-tell')
    expect(v.reasons).toEqual([
      'the run stopped at its budget: $2.04 spent of budget.maxCostUsd $2.00 (target plus judge); 1 of 3 cases finished, and a run cut short is never a pass'
    ])
  })
})
