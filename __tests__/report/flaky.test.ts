import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import type { FlakyCase } from '../../src/compare/types.js'
import { flakyReason } from '../../src/report/markdown/outcomes.js'
import { markdownOf } from '../__fixtures__/report.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { ids, makeBaseline, makeCase, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

function report(baseline: RunRecord | null, current: RunRecord, maxLength?: number): string {
  return markdownOf({ comparison: compareRuns(baseline, current, makeGate()), baseline, current }, { maxLength })
}

/** A case run once, then re-run (P passed, F failed). */
function rerunCase(id: string, trials: string): CaseResult {
  const list = [...trials].flatMap((t) => makeTrials(t === 'P' ? 1 : 0, 1))
  const passed = list.filter((t) => t.passed).length
  return makeCase(id, passed / list.length >= 0.5, { trials: list, passFraction: passed / list.length, reruns: list.length - 1 })
}

const counts = (passed: number, total: number) => ({ passed, total })

describe('flakyReason: one line in plain words', () => {
  it.each<{ f: Omit<FlakyCase, 'key'>; branch?: string; line: string }>([
    {
      f: { flip: 'failed', because: 'history', current: counts(0, 1), baseline: counts(7, 10) },
      branch: '`main`',
      line: 'failed this time, but failed 3 of its last 10 runs on `main`'
    },
    {
      f: { flip: 'passed', because: 'history', current: counts(1, 1), baseline: counts(4, 10) },
      branch: '`main`',
      line: 'passed this time, but passed 4 of its last 10 runs on `main`'
    },
    {
      f: { flip: 'failed', because: 'history', current: counts(0, 1), baseline: counts(3, 5) },
      line: 'failed this time, but failed 2 of its last 5 recorded runs'
    },
    {
      f: { flip: 'failed', because: 'reruns', current: counts(4, 6), baseline: counts(1, 1), reruns: counts(4, 5) },
      line: 'failed at first, then passed 4 of 5 re-runs'
    },
    {
      f: { flip: 'passed', because: 'reruns', current: counts(1, 4), baseline: counts(0, 1), reruns: counts(0, 3) },
      line: 'passed at first, then failed 3 of 3 re-runs'
    },
    {
      f: { flip: 'failed', because: 'reruns', current: counts(6, 10), baseline: counts(5, 5), reruns: counts(4, 5) },
      line: 'failed 3 of 5 trials at first, then passed 4 of 5 re-runs'
    },
    {
      f: { flip: 'failed', because: 'trials', current: counts(1, 4), baseline: counts(3, 4), p: 17 / 70 },
      line: 'failed 3 of 4 trials, against 1 of 4 in the baseline: within chance (p = 0.24)'
    },
    {
      f: { flip: 'passed', because: 'trials', current: counts(3, 4), baseline: counts(1, 4), p: 17 / 70 },
      line: 'passed 3 of 4 trials, against 1 of 4 in the baseline: within chance (p = 0.24)'
    },
    {
      f: { flip: 'failed', because: 'history', current: counts(2, 6), baseline: counts(8, 10), reruns: counts(2, 5), p: 736 / 8008 },
      branch: '`main`',
      line: 'failed 4 of 6 trials (5 of them re-runs), but failed 2 of its last 10 runs on `main`: within chance (p = 0.092)'
    }
  ])('$line', ({ f, branch, line }) => {
    expect(flakyReason({ key: 'q', ...f }, branch)).toBe(line)
  })
})

describe('renderReport: flaky cases, re-runs and judge noise', () => {
  const baseline = makeBaseline([
    makeCase('known', true, { history: 'PPFPFPPFP' }),
    makeCase('steady', true),
    makeCase('noise', true),
    makeCase('broken', true),
    makeCase('real', true)
  ])
  const current = makeRun(
    [makeCase('known', false), makeCase('steady', true), rerunCase('noise', 'FPPPPP'), rerunCase('broken', 'FFFFFF'), makeCase('real', false)],
    { summary: { ...makeRun([]).summary, reruns: 10, judge: { calls: 40, reused: 0, errors: 0, tokens: 0, sampled: 40, disagreements: 4 } } }
  )
  const md = report(baseline, current)

  it('keeps regressions and flaky cases apart', () => {
    expect(md).toContain('#### Regressed (2)')
    expect(md).toContain('<code>broken</code>')
    expect(md).toContain('<code>real</code>')
    expect(md).toContain('**Current output** (failed, 0 of 6 trials, 5 of them re-runs)')
    expect(md).not.toContain('<code>known</code>')
    expect(md).toContain(
      [
        '#### Flaky (2): flipped, but within chance, not counted',
        '- `known` failed this time, but failed 3 of its last 10 runs on `main`',
        '- `noise` failed at first, then passed 5 of 5 re-runs'
      ].join('\n')
    )
  })

  it('says how many flips were re-run and what came of it; against a single baseline trial, not testable rather than confirmed', () => {
    // "broken" passed its one baseline trial and failed 6 of 6 now: p = 1/7, no result could be significant
    expect(md).toContain('2 flipped cases re-run 5 times each to confirm: 0 confirmed, 1 flaky, 1 not testable (a single baseline trial: counted as flipped).')
  })

  it('calls re-runs confirmed when the baseline has trials to test against', () => {
    const repeated = makeBaseline([makeCase('broken', true, { trials: makeTrials(5, 5), passFraction: 1 })])
    const rerun = makeRun([rerunCase('broken', 'FFFFFF')])
    expect(report(repeated, rerun)).toContain('1 flipped case re-run 5 times each to confirm: 1 confirmed, 0 flaky.')
  })

  it('shows how often the sampled judge disagreed with itself', () => {
    expect(md).toContain(
      'Judge noise: asked several times about the same output (judge.samples), the judge disagreed with itself on pass/fail for 4 of 40 verdicts (10.0%); each verdict is the median of its samples.'
    )
  })

  it('orders the sections: regressions, counts, re-runs, flaky list, errors', () => {
    const order = ['#### Regressed', '2 flaky · 0 added', 'flipped cases re-run', '#### Flaky (2)', 'Judge noise', '<sub>']
    const positions = order.map((text) => md.indexOf(text))
    expect(positions.every((p) => p >= 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
  })

  it('says nothing of re-runs, flaky cases or judge noise when there are none', () => {
    const plain = report(makeBaseline([makeCase('a')]), makeRun([makeCase('a', false)]))
    expect(plain).not.toMatch(/re-run|#### Flaky|Judge noise/)
  })

  it('lists at most 20 flaky cases, then how many more', () => {
    const keys = ids(23)
    const many = report(makeBaseline(keys.map((id) => makeCase(id, true, { history: 'PFPFPFPFP' }))), makeRun(keys.map((id) => makeCase(id, false))))
    expect(many).toContain('#### Flaky (23)')
    expect(many).toContain('- `case-19` failed this time, but failed 4 of its last 10 runs on `main`\n- and 3 more')
    expect(many).not.toContain('`case-20`')
  })

  it('drops the flaky list whole when it does not fit, and says so', () => {
    const keys = ids(20)
    const baselineRun = makeBaseline(keys.map((id) => makeCase(id, true, { history: 'PFPFPFPFP' })))
    const currentRun = makeRun(keys.map((id) => makeCase(id, false)))
    const full = report(baselineRun, currentRun)
    const flakyBlock = full.slice(full.indexOf('#### Flaky'), full.lastIndexOf('<sub>'))
    const short = report(baselineRun, currentRun, full.length - flakyBlock.length + 150)
    expect(short).not.toContain('#### Flaky')
    expect(short).toContain('⚠️ the flaky list did not fit within')
  })
})

describe('too few trials for the test (SPEC §4)', () => {
  const repeated = (id: string, passed: number, total: number) =>
    makeCase(id, passed / total >= 0.5, { trials: makeTrials(passed, total), passFraction: passed / total })

  it('says why all → none counted without the test, and a re-run of it is not "confirmed"', () => {
    const baseline = makeBaseline([repeated('a', 3, 3), repeated('b', 3, 3), repeated('c', 0, 3), repeated('d', 3, 3)])
    const current = makeRun([repeated('a', 0, 3), repeated('b', 0, 3), repeated('c', 3, 3), repeated('d', 1, 3)])
    const md = report(baseline, current)
    expect(md).toContain(
      '`a`, `b` passed all 3 trials on the baseline and failed all 3 now: with too few trials for the significance test to tell a break from chance whatever happened, they count as regressed, as with one trial.'
    )
    expect(md).toContain('`c` failed all 3 trials on the baseline and passed all 3 now: with too few trials')
    expect(md).toContain('it counts as fixed, as with one trial.')
    // the regressions' sentence sits under their table, the fixes' after the fixed list
    expect(md.indexOf('they count as regressed')).toBeLessThan(md.indexOf('#### Fixed'))
    expect(md.indexOf('it counts as fixed')).toBeGreaterThan(md.indexOf('#### Fixed'))
    // a fix alone (nothing regressed) is still explained
    expect(report(makeBaseline([repeated('c', 0, 3)]), makeRun([repeated('c', 3, 3)]))).toContain('it counts as fixed, as with one trial.')
    // d dropped only partly: left to the test (p = 0.2), flaky
    expect(md).toContain('- `d` failed 2 of 3 trials, against 0 of 3 in the baseline')
    const rerun = makeRun([makeCase('a', false, { trials: makeTrials(0, 4), passFraction: 0, reruns: 1 })])
    expect(report(makeBaseline([repeated('a', 2, 2)]), rerun)).toContain(
      '1 flipped case re-run 1 time each to confirm: 0 confirmed, 0 flaky, 1 with too few trials to test (every trial flipped: counted as flipped).'
    )
  })
})
