/**
 * The sensitivity the report states (SPEC §4), checked against seeded
 * simulations of the real comparison: at 20 cases × 1 trial, 100 × 3 and
 * 500 × 5, a case whose pass probability drops by the stated `caseDrop` is
 * counted as regressed 80% ± 5% of the time, and a run whose pass rate drops
 * by the stated `passRateDrop` trips maxPassRateDrop 80% ± 5% of the time —
 * each over at least 1,000 simulated runs.
 */
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/compare.js'
import { caseDetection, passRateSensitivity, sensitivity, type SensitivityInput } from '../../src/compare/sensitivity.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'
import { markdownOf } from '../__fixtures__/report.js'
import { sensitivitySentence } from '../../src/report/words.js'
import { seededRandom } from './random.js'

const SIMULATED_RUNS = 1000

/** A case of `passes` (booleans, one per trial), folded as the runner does at repeatPassThreshold 0.5. */
function simCase(id: string, passes: boolean[]): CaseResult {
  const passed = passes.filter(Boolean).length
  const verdict = passes.length === 1 ? passes[0]! : passed / passes.length >= 0.5
  const c: CaseResult = {
    id,
    name: id,
    tags: [],
    fingerprint: `fp-${id}`,
    input: id,
    passed: verdict,
    passFraction: passed / passes.length,
    output: verdict ? 'good' : 'bad',
    error: null,
    score: null,
    durationMs: 1,
    assertions: []
  }
  if (passes.length > 1) c.trials = makeTrials(passed, passes.length).map((t, i) => ({ ...t, passed: passes[i]! }))
  return c
}

function runOf(cases: CaseResult[], repeat: number): RunRecord {
  return makeRun(cases, { config: { repeat, shard: null } })
}

/** A run of `cases` cases × `trials` trials, trial t of case i passing when `passes(i, t)`. */
function runOfTrials(cases: number, trials: number, passes: (i: number, t: number) => boolean): RunRecord {
  return runOf(
    Array.from({ length: cases }, (_, i) =>
      simCase(
        `c${i}`,
        Array.from({ length: trials }, (_, t) => passes(i, t))
      )
    ),
    trials
  )
}

const SIZES = [
  { cases: 20, trials: 1 },
  { cases: 100, trials: 3 },
  { cases: 500, trials: 5 }
] as const

describe.each(SIZES)('at $cases cases × $trials trials (alpha 0.05)', ({ cases, trials }) => {
  const input: SensitivityInput = {
    cases,
    baselinePassed: cases,
    trials: { baseline: trials, current: trials },
    repeatPassThreshold: 0.5,
    rerunFlips: 0,
    gate: { alpha: 0.05, maxPassRateDrop: 0.05, useConfidenceBound: false }
  }
  const stated = sensitivity(input)!

  it('a case that drops by the stated caseDrop is flagged 80% ± 5% of the time', () => {
    const drop = stated.caseDrop!
    expect(caseDetection(drop, input)).toBeCloseTo(0.8, 6)
    const random = seededRandom(101 + cases)
    const baseline = runOfTrials(cases, trials, () => true)
    let flagged = 0
    for (let r = 0; r < SIMULATED_RUNS; r++) {
      const current = runOfTrials(cases, trials, () => random() >= drop)
      flagged += compareRuns(baseline, current, makeGate({ maxRegressions: cases })).regressed.length
    }
    const share = flagged / (SIMULATED_RUNS * cases)
    expect(Math.abs(share - 0.8)).toBeLessThanOrEqual(0.05)
  })

  it('a pass-rate drop of the stated size trips maxPassRateDrop 80% ± 5% of the time', () => {
    const drop = stated.passRateDrop!.drop!
    // every baseline case passes: each breaks (fails every trial) with probability drop
    const random = seededRandom(202 + cases)
    const baseline = runOfTrials(cases, trials, () => true)
    const gate = makeGate({ maxRegressions: cases, maxPassRateDrop: 0.05 })
    let tripped = 0
    for (let r = 0; r < SIMULATED_RUNS; r++) {
      const broken = Array.from({ length: cases }, () => random() < drop)
      const current = runOfTrials(cases, trials, (i) => !broken[i])
      if (compareRuns(baseline, current, gate).gate.checks.some((f) => f.check === 'maxPassRateDrop')) tripped++
    }
    expect(Math.abs(tripped / SIMULATED_RUNS - 0.8)).toBeLessThanOrEqual(0.05)
  })
})

describe('sensitivity: what the gate could see, in numbers', () => {
  const base: SensitivityInput = {
    cases: 6,
    baselinePassed: 6,
    trials: { baseline: 1, current: 1 },
    repeatPassThreshold: 0.5,
    rerunFlips: 0,
    gate: { alpha: 0.05, useConfidenceBound: false }
  }

  it.each([
    // trials each side → the smallest per-trial failure rate flagged 80% of the time (closed forms where there is one)
    [1, 0.8], // one trial: flagged when that trial fails
    [2, Math.sqrt(0.8)], // only 0 of 2 counts (1 of 2 still passes at 0.5)
    [3, Math.cbrt(0.8)], // only 0 of 3 (1 of 3 fails, but 3/3 → 1/3 has p = 0.2)
    [4, 0.8 ** 0.25] // 4/4 → 0/4 is significant, 1 of 4 is not (p = 5/70)
  ])('%d trials a side: caseDrop %d', (k, drop) => {
    expect(sensitivity({ ...base, trials: { baseline: k, current: k } })!.caseDrop).toBeCloseTo(drop, 6)
  })

  it('re-runs of a flip count: one baseline trial and rerunFlips 4 needs the re-runs to fail too', () => {
    const d = sensitivity({ ...base, rerunFlips: 4 })!.caseDrop!
    // flagged when the first trial fails and at most 2 of the 5 pass: P = d · P(Bin(4, 1 − d) ≤ 1 more pass…) — just check it is between
    expect(d).toBeGreaterThan(0.8)
    expect(caseDetection(d, { ...base, rerunFlips: 4 })).toBeCloseTo(0.8, 6)
  })

  it('is coarse with few cases, or when only a large drop trips the pass-rate limit', () => {
    expect(sensitivity(base)!.coarse).toBe(true)
    expect(sensitivity({ ...base, cases: 200, baselinePassed: 200 })!.coarse).toBe(false)
    const limited = sensitivity({ ...base, cases: 200, baselinePassed: 200, gate: { ...base.gate, maxPassRateDrop: 0.3 } })!
    expect(limited.passRateDrop!.drop).toBeGreaterThan(0.3)
    expect(limited.coarse).toBe(true)
  })

  it('the pass-rate drop tripping the limit, on the point and on the bound', () => {
    const n = { ...base, cases: 100, baselinePassed: 100, gate: { ...base.gate, maxPassRateDrop: 0.05 } }
    // more than 5 of 100 must break: P(Bin(100, q) ≥ 6) = 0.8 at q ≈ 0.076
    const point = passRateSensitivity(n, 0.05)!
    expect(point).toBeGreaterThan(0.06)
    expect(point).toBeLessThan(0.09)
    // with the bound the drop must be larger, for the interval's optimistic end to pass the limit
    const bound = passRateSensitivity({ ...n, gate: { ...n.gate, useConfidenceBound: true } }, 0.05)!
    expect(bound).toBeGreaterThan(point)
    // a limit no drop can trip: every case breaking is a 100-point drop
    expect(passRateSensitivity(n, 1)).toBeNull()
  })

  it('has nothing to say of a run without cases', () => {
    expect(sensitivity({ ...base, cases: 0, baselinePassed: 0 })).toBeNull()
  })
})

describe('the comparison states its sensitivity, and the comment says it', () => {
  const cases = (n: number) => Array.from({ length: n }, (_, i) => simCase(`c${i}`, [true, true, true]))

  it('at the compared cases and the trials each side ran (--json `sensitivity`)', () => {
    const c = compareRuns(runOf(cases(30), 3), runOf(cases(30), 3), makeGate({ maxPassRateDrop: 0.1 }))
    expect(c.sensitivity).toMatchObject({ cases: 30, trials: { baseline: 3, current: 3 }, alpha: 0.05, coarse: false })
    expect(c.sensitivity!.caseDrop).toBeCloseTo(Math.cbrt(0.8), 6)
    expect(c.sensitivity!.passRateDrop!.limit).toBe(0.1)
    // without a baseline: this run's cases, as the next run would compare them
    expect(compareRuns(null, runOf(cases(5), 3), makeGate()).sensitivity).toMatchObject({ cases: 5, coarse: true })
  })

  it('one line under the figures: small print, or first saying that it sees only large breaks', () => {
    const fine = markdownOf({
      comparison: compareRuns(runOf(cases(30), 3), runOf(cases(30), 3), makeGate({ maxPassRateDrop: 0.1 })),
      baseline: null,
      current: runOf(cases(30), 3)
    })
    expect(fine).toMatch(
      /<sub>Sensitivity at 30 cases × 3 trials \(alpha 0\.05\): a case that starts failing 92\.8% of its trials is caught 80% of the time; a pass-rate drop of \d+\.\d points trips maxPassRateDrop 10\.0 points 80% of the time\.<\/sub>/
    )
    const few = compareRuns(
      null,
      runOf(
        cases(6).map((c) => ({ ...c, trials: undefined, passFraction: 1 })),
        1
      ),
      makeGate()
    )
    expect(sensitivitySentence(few.sensitivity!)).toBe(
      'This check can see only large breaks. Sensitivity at 6 cases × 1 trial (alpha 0.05): a case that starts failing 80.0% of its trials is caught 80% of the time.'
    )
  })
})
