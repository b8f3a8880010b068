/**
 * Issue 33's table: what the gate catches at repeat 1–5 and flake rates
 * 0–20%, from seeded simulations of the real comparison (2,000 broken and
 * 2,000 healthy cases per cell). `node scripts/simulate-trials.mjs` prints the
 * same table from a bundled library, before and after a change.
 */
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/compare.js'
import { seededRandom } from './random.js'
import { simulateTrialCells, type CompareRuns } from './trial-simulation.js'

const RUNS = 2000
const cells = simulateTrialCells(compareRuns as unknown as CompareRuns, { runs: RUNS, alpha: 0.05, seededRandom })
const cell = (repeat: number, flake: number) => cells.find((c) => c.repeat === repeat && c.flake === flake)!

/** Within four standard errors of the share `p` over RUNS draws (or of 0 and 1 exactly). */
function near(observed: number, p: number): void {
  expect(Math.abs(observed - p)).toBeLessThanOrEqual(4 * Math.sqrt((p * (1 - p)) / RUNS) + 1e-12)
}

describe('what repeat 1–5 catches (seeded simulation of compareRuns)', () => {
  it('a case that breaks outright is caught at every repeat when nothing is flaky; repeat 2 and 3 caught none before', () => {
    for (const repeat of [1, 2, 3, 4, 5]) expect(cell(repeat, 0)).toMatchObject({ caught: 1, flagged: 0 })
  })

  it.each([0.05, 0.1, 0.15, 0.2])('flake %d: repeat 1, 2 and 3 catch and flag what the rules imply', (flake) => {
    // one trial: every flip counts — caught when the baseline passed, flagged when a healthy case flips by chance
    near(cell(1, flake).caught, 1 - flake)
    near(cell(1, flake).flagged, (1 - flake) * flake)
    // two and three trials: too few for the test, so only all → none counts (a baseline with a failed trial is left to chance)
    for (const k of [2, 3]) {
      near(cell(k, flake).caught, (1 - flake) ** k)
      near(cell(k, flake).flagged, (1 - flake) ** k * flake ** k)
    }
  })

  it('repeated trials flag far fewer healthy cases than one trial, and repeat 5 catches more than repeat 4', () => {
    for (const flake of [0.05, 0.1, 0.15, 0.2]) {
      for (const k of [2, 3, 4, 5]) expect(cell(k, flake).flagged).toBeLessThan(cell(1, flake).flagged / 5)
      expect(cell(5, flake).caught).toBeGreaterThan(cell(4, flake).caught)
    }
  })
})
