/**
 * A simulation of what the gate catches at each `repeat` and flake rate
 * (issue 33): a healthy case passes each trial with probability 1 − flake, a
 * truly broken one fails every trial after the change. Shared by the test
 * (trial-simulation.test.ts) and `scripts/simulate-trials.mjs`, which runs it
 * against a bundled library (before and after a change): it imports nothing by
 * relative path, and takes the comparison and the seeded generator it uses.
 */

interface SimTrial {
  passed: boolean
  output: string
  error: null
  score: null
  durationMs: number
  assertions: never[]
}

interface SimCase {
  id: string
  name: string
  tags: string[]
  fingerprint: string
  passed: boolean
  passFraction: number
  output: string
  error: null
  score: null
  durationMs: number
  assertions: never[]
  trials?: SimTrial[]
}

/** What a simulation needs of compareRuns: the regressed keys. */
export type CompareRuns = (baseline: unknown, current: unknown, gate: unknown) => { regressed: string[] }

export const TRIAL_SIMULATION = {
  repeats: [1, 2, 3, 4, 5],
  flakeRates: [0, 0.05, 0.1, 0.15, 0.2]
} as const

export interface TrialCell {
  repeat: number
  flake: number
  /** share of truly broken cases counted as regressed */
  caught: number
  /** share of healthy cases counted as regressed */
  flagged: number
}

/** The runner's fold (repeatPassThreshold 0.5): a case of one trial is that trial. */
function simCase(id: string, passes: boolean[]): SimCase {
  const trials = passes.map((passed): SimTrial => ({ passed, output: passed ? 'good' : 'bad', error: null, score: null, durationMs: 1, assertions: [] }))
  const passedTrials = passes.filter(Boolean).length
  const passed = passes.length === 1 ? passes[0]! : passedTrials / passes.length >= 0.5
  const c: SimCase = {
    id,
    name: id,
    tags: [],
    fingerprint: `fp-${id}`,
    passed,
    passFraction: passedTrials / passes.length,
    output: passed ? 'good' : 'bad',
    error: null,
    score: null,
    durationMs: 1,
    assertions: []
  }
  if (passes.length > 1) c.trials = trials
  return c
}

function simRecord(cases: SimCase[]): unknown {
  const passed = cases.filter((c) => c.passed).length
  return {
    schemaVersion: 1,
    tool: { name: 'evalgate', version: 'simulation' },
    name: 'simulation',
    createdAt: '2026-12-01T00:00:00.000Z',
    complete: true,
    git: { sha: null, ref: 'refs/heads/main', runId: null },
    summary: {
      total: cases.length,
      passed,
      failed: cases.length - passed,
      errors: 0,
      passRate: passed / cases.length,
      meanScore: null,
      durationMs: 0,
      judge: { calls: 0, reused: 0, errors: 0, tokens: 0 }
    },
    cases
  }
}

/**
 * Every cell of repeats × flake rates: `runs` broken and `runs` healthy cases,
 * their baseline and current trials drawn from `seededRandom(seed of the cell)`.
 */
export function simulateTrialCells(
  compareRuns: CompareRuns,
  options: { runs: number; alpha: number; seededRandom: (seed: number) => () => number }
): TrialCell[] {
  const gate = {
    maxRegressions: 0,
    minPassRate: 0,
    minMeanScore: 0,
    failOnMissingBaseline: false,
    alpha: options.alpha,
    maxRemoved: 0,
    minComparable: 0,
    useConfidenceBound: false
  }
  const cells: TrialCell[] = []
  for (const repeat of TRIAL_SIMULATION.repeats) {
    for (const flake of TRIAL_SIMULATION.flakeRates) {
      const random = options.seededRandom(1000 * repeat + Math.round(flake * 100))
      const draw = (pass: number) => Array.from({ length: repeat }, () => random() < pass)
      const baseline: SimCase[] = []
      const current: SimCase[] = []
      for (let i = 0; i < options.runs; i++) {
        baseline.push(simCase(`broken-${i}`, draw(1 - flake)), simCase(`healthy-${i}`, draw(1 - flake)))
        current.push(simCase(`broken-${i}`, draw(0)), simCase(`healthy-${i}`, draw(1 - flake)))
      }
      const { regressed } = compareRuns(simRecord(baseline), simRecord(current), gate)
      const broken = regressed.filter((k) => k.startsWith('broken-')).length
      cells.push({ repeat, flake, caught: broken / options.runs, flagged: (regressed.length - broken) / options.runs })
    }
  }
  return cells
}
