import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { markdownOf, sentences } from '../__fixtures__/report.js'
import { flippedKeys, mergeReruns, trialsOf } from '../../src/run/rerun.js'
import type { EvalCase, RunRecord } from '../../src/types.js'
import { makeBaseline, makeCase, makeRun, makeTrials } from '../__fixtures__/records.js'
import { tempProject } from '../__fixtures__/cli.js'

describe('flippedKeys: the cases to re-run', () => {
  it('takes flips both ways with the same fingerprint, nothing else', () => {
    const baseline = makeBaseline([makeCase('down'), makeCase('up', false), makeCase('same'), makeCase('edited'), makeCase('gone')])
    const current = makeRun([
      makeCase('down', false),
      makeCase('up'),
      makeCase('same'),
      makeCase('edited', false, { fingerprint: 'fp-new' }),
      makeCase('new', false)
    ])
    expect(flippedKeys(current.cases, baseline)).toEqual(['down', 'up'])
  })
})

describe('mergeReruns: the verdict over the first trials and the re-runs', () => {
  const c: EvalCase = { id: 'q', name: 'q', input: 'q', tags: [], assert: [], fingerprint: 'fp-q', index: 0 }

  it.each([
    { name: 'one failure, five passing re-runs → passes', first: [0, 1], extra: [5, 5], passed: true, trials: 6, reruns: 5 },
    { name: 'one failure, five failing re-runs → fails', first: [0, 1], extra: [0, 5], passed: false, trials: 6, reruns: 5 },
    { name: 'one failure, 2 of 5 re-runs pass → 2 of 6 fails', first: [0, 1], extra: [2, 5], passed: false, trials: 6, reruns: 5 },
    { name: 'one failure, 3 of 5 re-runs pass → 3 of 6 passes', first: [0, 1], extra: [3, 5], passed: true, trials: 6, reruns: 5 },
    { name: 'repeat 3 and one re-run', first: [1, 3], extra: [1, 1], passed: true, trials: 4, reruns: 1 }
  ])('$name', ({ first, extra, passed, trials, reruns }) => {
    const firstResult =
      first[1] === 1 ? makeCase('q', first[0] === 1) : makeCase('q', first[0]! / first[1]! >= 0.5, { trials: makeTrials(first[0]!, first[1]!) })
    const extraResult =
      extra[1] === 1 ? makeCase('q', extra[0] === 1) : makeCase('q', extra[0]! / extra[1]! >= 0.5, { trials: makeTrials(extra[0]!, extra[1]!) })
    const merged = mergeReruns(c, firstResult, extraResult, 0.5)
    expect(merged.passed).toBe(passed)
    expect(merged.trials).toHaveLength(trials)
    expect(merged.reruns).toBe(reruns)
    expect(merged.passFraction).toBeCloseTo((first[0]! + extra[0]!) / trials, 12)
    // the first trials come first, the re-runs last
    expect(merged.trials!.slice(0, first[1])).toEqual(trialsOf(firstResult))
  })

  it('a result of one trial stands for that trial', () => {
    const one = makeCase('q', false, { score: 0.3, durationMs: 7 })
    expect(trialsOf(one)).toEqual([{ passed: false, output: one.output, error: null, score: 0.3, durationMs: 7, assertions: one.assertions }])
  })
})

/**
 * A project whose agent is a module: "good" passes, anything else fails. The
 * v1 agent always answers well; v2 fails `noise` on its first call only (in-module
 * state, fresh per test folder) and always fails `broken`.
 */
function project(rerunFlips: number, repeat = 1): string {
  const config = (agent: string) => `name: flaky
target: { module: ./${agent} }
repeat: ${repeat}
rerunFlips: ${rerunFlips}
cases:
${['steady', 'noise', 'broken'].map((id) => `  - { id: ${id}, input: ${id}, assert: [{ type: equals, value: good }] }`).join('\n')}
`
  return tempProject({
    'v1.yml': config('v1.mjs'),
    'v2.yml': config('v2.mjs'),
    'v1.mjs': 'export default () => "good"\n',
    'v2.mjs': [
      'const calls = new Map()',
      'export default (input) => {',
      '  const n = (calls.get(input) ?? 0) + 1',
      '  calls.set(input, n)',
      '  if (input === "broken") return "bad"',
      '  if (input === "noise") return n === 1 ? "bad" : "good"',
      '  return "good"',
      '}',
      ''
    ].join('\n')
  })
}

async function runBoth(dir: string, baselineEdit?: (r: RunRecord) => RunRecord) {
  const first = await evaluate(await loadEvalConfig(path.join(dir, 'v1.yml')), { env: {} })
  const baseline = baselineEdit ? baselineEdit(first.record) : first.record
  const second = await evaluate(await loadEvalConfig(path.join(dir, 'v2.yml')), { env: {}, baseline })
  return { baseline, ...second }
}

describe('rerunFlips through the engine (module target)', () => {
  it('re-runs the flipped cases n times and decides on all their trials', async () => {
    const { record, comparison, baseline } = await runBoth(project(5))
    const byKey = new Map(record.cases.map((c) => [c.id, c]))
    expect(byKey.get('noise')).toMatchObject({ passed: true, reruns: 5, passFraction: 5 / 6 })
    expect(byKey.get('noise')!.trials!.map((t) => t.output)).toEqual(['bad', 'good', 'good', 'good', 'good', 'good'])
    expect(byKey.get('broken')).toMatchObject({ passed: false, reruns: 5, passFraction: 0 })
    expect(byKey.get('steady')!.reruns).toBeUndefined()
    expect(byKey.get('steady')!.trials).toBeUndefined()
    expect(record.summary.reruns).toBe(10)
    expect(comparison.regressed).toEqual(['broken'])
    expect(comparison.flaky).toEqual(['noise'])
    expect(sentences(comparison.gate)).toEqual(['1 case regressed (limit: maxRegressions 0): broken'])
    const md = markdownOf({ comparison, baseline, current: record })
    // the baseline ran each case once: "broken" (1/1 → 0/6, p = 1/7) still counts, but nothing could confirm it
    expect(comparison.notTestable).toEqual(['broken'])
    expect(md).toContain('2 flipped cases re-run 5 times each to confirm: 0 confirmed, 1 flaky, 1 not testable (a single baseline trial: counted as flipped).')
    expect(md).toContain('- `noise` failed at first, then passed 5 of 5 re-runs')
  })

  it('re-runs nothing with rerunFlips 0: every single-trial flip counts', async () => {
    const { record, comparison } = await runBoth(project(0))
    expect(record.summary.reruns).toBeUndefined()
    expect(record.cases.every((c) => c.reruns === undefined)).toBe(true)
    expect(comparison.regressed).toEqual(['noise', 'broken'])
  })

  it('re-runs nothing without a baseline', async () => {
    const dir = project(5)
    const alone = await evaluate(await loadEvalConfig(path.join(dir, 'v2.yml')), { env: {} })
    expect(alone.record.summary.reruns).toBeUndefined()
    expect(alone.record.cases.find((c) => c.id === 'noise')!.passed).toBe(false)
  })

  it('adds the re-runs to repeated trials', async () => {
    const { record, comparison } = await runBoth(project(2, 3))
    // noise: bad, good, good in the main pass → passes, no flip, no re-run; broken: 0 of 3, then 0 of 2 more
    expect(record.cases.find((c) => c.id === 'noise')!.reruns).toBeUndefined()
    expect(record.cases.find((c) => c.id === 'broken')).toMatchObject({ reruns: 2, passFraction: 0 })
    expect(record.cases.find((c) => c.id === 'broken')!.trials).toHaveLength(5)
    // 3 of 3 against 0 of 5: p = 1/56, significant
    expect(comparison.regressed).toEqual(['broken'])
    expect(record.summary.reruns).toBe(2)
  })
})

describe('flake history through the engine', () => {
  it('carries each case history forward from its baseline, only with the same fingerprint', async () => {
    const dir = project(0)
    const { record } = await runBoth(dir, (r) => ({ ...r, cases: r.cases.map((c) => ({ ...c, history: c.id === 'steady' ? 'PFP' : 'PP' })) }))
    expect(Object.fromEntries(record.cases.map((c) => [c.id, c.history]))).toEqual({ steady: 'PFPP', noise: 'PPP', broken: 'PPP' })
    const third = await evaluate(await loadEvalConfig(path.join(dir, 'v1.yml')), { env: {}, baseline: record })
    expect(Object.fromEntries(third.record.cases.map((c) => [c.id, c.history]))).toEqual({ steady: 'PFPPP', noise: 'PPPF', broken: 'PPPF' })
  })

  it('a known-flaky case that fails once is flaky, not regressed', async () => {
    const { comparison, record, baseline } = await runBoth(project(0), (r) => ({
      ...r,
      cases: r.cases.map((c) => (c.id === 'noise' ? { ...c, history: 'PFPPFPPPP' } : c))
    }))
    expect(comparison.regressed).toEqual(['broken'])
    expect(comparison.flaky).toEqual(['noise'])
    const md = markdownOf({ comparison, baseline, current: record })
    expect(md).toContain('- `noise` failed this time, but failed 2 of its last 10 recorded runs')
  })
})
