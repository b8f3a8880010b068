/** Stale baselines (SPEC §14): the age against the base commit, the notice, the failure. */
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import { conclude } from '../../src/compare/conclude.js'
import { staleBaseline, type AgeReference } from '../../src/compare/staleness.js'
import { buildReport } from '../../src/report/model.js'
import { makeBaseline, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

const baseline = makeBaseline(makeCases('a', 'b'), { createdAt: '2026-11-01T12:00:00.000Z' })
const current = makeRun(makeCases('a', 'b'), { createdAt: '2026-12-20T12:00:00.000Z' })
const BASE_SHA = 'b'.repeat(40)
const at = (date: string | null, sha: string | null = BASE_SHA): AgeReference => ({ sha, date })

describe('staleBaseline', () => {
  it.each([
    ['13 days 23 hours before the base commit: fresh', at('2026-11-15T11:00:00.000Z'), null],
    ['exactly 14 days: stale', at('2026-11-15T12:00:00.000Z'), { ageDays: 14, against: 'base-commit' }],
    ['20½ days: 20 days', at('2026-11-22T00:00:00.000Z'), { ageDays: 20, against: 'base-commit' }],
    ['made after the base commit (a nightly run): fresh', at('2026-10-01T00:00:00.000Z'), null],
    ["the base commit's date unknown: against this run (49 days)", at(null), { ageDays: 49, against: 'run' }],
    ['outside a pull request: against this run', at(null, null), { ageDays: 49, against: 'run' }],
    ['an unreadable date: against this run', at('not a date'), { ageDays: 49, against: 'run' }]
  ])('%s', (_name, reference, expected) => {
    const stale = staleBaseline(baseline, current, reference, makeGate())
    if (expected === null) expect(stale).toBeNull()
    else expect(stale).toEqual({ ...expected, limitDays: 14, fail: false, baselineSha: baseline.git.sha })
  })

  it('a baseline made at the base commit is never stale, however old', () => {
    expect(staleBaseline(baseline, current, at('2027-06-01T00:00:00.000Z', baseline.git.sha), makeGate())).toBeNull()
  })

  it('maxBaselineAgeDays and failOnStaleBaseline are the gate’s', () => {
    expect(staleBaseline(baseline, current, at('2026-11-04T12:00:00.000Z'), makeGate({ maxBaselineAgeDays: 3 }))).toMatchObject({ ageDays: 3, limitDays: 3 })
    expect(staleBaseline(baseline, current, at('2026-11-04T12:00:00.000Z'), makeGate({ maxBaselineAgeDays: 3.5 }))).toBeNull()
    expect(staleBaseline(baseline, current, at(null), makeGate({ failOnStaleBaseline: true }))!.fail).toBe(true)
  })

  it('no baseline, or a baseline with an unreadable date: nothing to say', () => {
    expect(staleBaseline(null, current, at(null), makeGate())).toBeNull()
    expect(staleBaseline({ ...baseline, createdAt: 'yesterday' }, current, at(null), makeGate())).toBeNull()
  })
})

describe('a stale baseline in the verdict', () => {
  const comparison = compareRuns(baseline, current, makeGate())
  const stale = staleBaseline(baseline, current, at('2026-11-22T00:00:00.000Z'), makeGate())

  it('warns: the verdict passes with a notice saying its age, and the comment is a warning', () => {
    const verdict = conclude(comparison, current, { baselineStatus: 'found', staleBaseline: stale })
    expect(verdict.status).toBe('pass')
    expect(verdict.exitCode).toBe(0)
    const model = buildReport({ comparison, baseline, current, verdict })
    expect(model.alert).toBe('WARNING')
    expect(model.notices).toContain(
      "the baseline (commit ba5e110) is stale: it was made 20 days before the base commit, so whatever changed on the branch since counts as this change's doing; " +
        'run the evals on the default branch to refresh it (gate.maxBaselineAgeDays 14; gate.failOnStaleBaseline: true makes this a failure)'
    )
  })

  it('fails with failOnStaleBaseline: a reason of the gate, named in the headline', () => {
    const failing = staleBaseline(baseline, current, at('2026-11-22T00:00:00.000Z'), makeGate({ failOnStaleBaseline: true }))
    const verdict = conclude(comparison, current, { baselineStatus: 'found', staleBaseline: failing })
    expect(verdict.status).toBe('fail')
    expect(verdict.exitCode).toBe(1)
    expect(verdict.notices).toEqual([])
    const model = buildReport({ comparison, baseline, current, verdict })
    expect(model.reasons).toEqual([
      {
        code: 'stale-baseline',
        keys: [],
        message:
          "the baseline (commit ba5e110) is stale: it was made 20 days before the base commit, so whatever changed on the branch since counts as this change's doing; " +
          'run the evals on the default branch to refresh it (limit: maxBaselineAgeDays 14, and failOnStaleBaseline is true)'
      }
    ])
    expect(model.headline).toMatch(/^gate failed: the baseline \(commit ba5e110\) is stale/)
  })

  it('against this run when the base commit could not be read, saying so', () => {
    const verdict = conclude(comparison, current, { baselineStatus: 'found', staleBaseline: staleBaseline(baseline, current, at(null), makeGate()) })
    expect(buildReport({ comparison, baseline, current, verdict }).notices[0]).toMatch(/it was made 49 days before this run,/)
  })
})
