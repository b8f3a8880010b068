import { describe, expect, it } from '@jest/globals'
import { failureSentence } from '../__fixtures__/report.js'
import { compareRuns } from '../../src/compare/index.js'
import type { CaseResult } from '../../src/types.js'
import { makeBaseline, makeCase, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

/** The gate checks (by name) a comparison fails. */
function failedChecks(
  baseline: CaseResult[],
  current: CaseResult[],
  gate = {},
  currentConfig?: { repeat: number; shard?: string | null; filter?: string | null }
) {
  const c = compareRuns(makeBaseline(baseline), makeRun(current, currentConfig ? { config: currentConfig } : {}), makeGate(gate))
  return { c, checks: c.gate.checks.map((f) => f.check), failure: (name: string) => c.gate.checks.find((f) => f.check === name) }
}

const changedCase = (id: string, passed = true) => makeCase(id, passed, { fingerprint: `changed-${id}` })

describe('coverage gate (SPEC §9): a pull request cannot drop or rewrite the cases that fail', () => {
  it('fails when the failing cases are deleted, naming them (maxRemoved defaults to 0)', () => {
    const { checks, failure } = failedChecks(makeCases('a', 'b', 'c', 'd'), makeCases('a', 'b'))
    expect(checks).toEqual(['maxRemoved'])
    expect(failure('maxRemoved')).toMatchObject({ limit: 0, measured: 2, keys: ['c', 'd'] })
    expect(failureSentence(failure('maxRemoved')!)).toBe('2 baseline cases are missing from this run (limit: maxRemoved 0): c, d')
  })

  it('allows removals up to maxRemoved', () => {
    expect(failedChecks(makeCases('a', 'b', 'c', 'd'), makeCases('a', 'b', 'c'), { maxRemoved: 1 }).checks).toEqual([])
    expect(failedChecks(makeCases('a', 'b', 'c', 'd'), makeCases('a', 'b'), { maxRemoved: 1 }).checks).toEqual(['maxRemoved'])
    expect(failureSentence(failedChecks(makeCases('a', 'b'), makeCases('a')).failure('maxRemoved')!)).toBe(
      '1 baseline case is missing from this run (limit: maxRemoved 0): b'
    )
  })

  it('renaming the failing cases is a removal plus an addition', () => {
    const { c, checks } = failedChecks(makeCases('a', 'b', 'c'), makeCases('a', 'b', '!c-renamed'))
    expect(c.removed).toEqual(['c'])
    expect(c.added).toEqual(['c-renamed'])
    expect(checks).toEqual(['maxRemoved'])
  })

  it('editing the assertions of the failing cases is capped by maxChanged and minComparable', () => {
    const baseline = makeCases('a', 'b', 'c', 'd')
    const edited = [makeCase('a'), changedCase('b', false), changedCase('c', false), changedCase('d', false)]
    const { c, checks, failure } = failedChecks(baseline, edited)
    expect(c.changed).toEqual(['b', 'c', 'd'])
    expect(c.regressed).toEqual([])
    // 1 of 4 compared is below the default share of 0.5
    expect(checks).toEqual(['minComparable'])
    expect(failure('minComparable')).toMatchObject({ limit: 0.5, measured: 0.25 })
    expect(failureSentence(failure('minComparable')!)).toMatch(/^only 1 of 4 baseline cases could be compared \(25\.0%; limit: minComparable 50\.0%\)/)
    const overChanged = failedChecks(baseline, edited, { maxChanged: 2, minComparable: 0 }).failure('maxChanged')
    expect(overChanged).toMatchObject({ limit: 2, measured: 3, keys: ['b', 'c', 'd'] })
    expect(failureSentence(overChanged!)).toBe("3 cases changed (input, assertions or judge settings differ from the baseline's; limit: maxChanged 2): b, c, d")
    expect(failedChecks(baseline, edited, { maxChanged: 3, minComparable: 0 }).checks).toEqual([])
  })

  it('minComparable passes at exactly its limit', () => {
    const baseline = makeCases('a', 'b', 'c', 'd')
    expect(failedChecks(baseline, [makeCase('a'), makeCase('b'), changedCase('c'), changedCase('d')]).checks).toEqual([])
  })

  it('baseline cases left out by --filter or a shard slice are not removed', () => {
    const baseline = [makeCase('geo-1', true, { tags: ['geo'] }), makeCase('geo-2', true, { tags: ['geo'] }), makeCase('math-1', true, { tags: ['math'] })]
    const filtered = failedChecks(
      baseline,
      [makeCase('geo-1', true, { tags: ['geo'] }), makeCase('geo-2', true, { tags: ['geo'] })],
      {},
      { repeat: 1, filter: 'geo' }
    )
    expect(filtered.c.removed).toEqual([])
    expect(filtered.c.coverage).toEqual({ baseline: 2, compared: 2 })
    expect(filtered.checks).toEqual([])
    // the same run without its filter recorded: math-1 is missing
    expect(failedChecks(baseline, baseline.slice(0, 2)).c.removed).toEqual(['math-1'])
  })
})
