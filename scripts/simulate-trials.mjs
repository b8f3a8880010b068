// node scripts/simulate-trials.mjs [--runs 2000] [--lib dist/lib/index.js] [--alpha 0.05]
// What the gate catches at each `repeat` (1–5) and flake rate (0–20%): a
// healthy case passes each trial with probability 1 − flake; a truly broken
// one fails every trial after the change. Each cell draws `runs` broken and
// `runs` healthy cases (seeded: the same table on every machine), folds their
// trials as the runner does and compares them with the bundled library's
// compareRuns — the code the action gates with. `--lib` names another build
// (e.g. one extracted from an older commit) to compare before and after.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { importFixture } from './fixture.mjs'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000' },
    alpha: { type: 'string', default: '0.05' },
    lib: { type: 'string', default: 'dist/lib/index.js' }
  }
})
const RUNS = Number(values.runs)
const ALPHA = Number(values.alpha)
const { compareRuns } = await import(pathToFileURL(path.resolve(values.lib)).href)
const { simulateTrialCells, TRIAL_SIMULATION } = await importFixture('__tests__/compare/trial-simulation.ts')
const { seededRandom } = await importFixture('__tests__/compare/random.ts')

const cells = simulateTrialCells(compareRuns, { runs: RUNS, alpha: ALPHA, seededRandom })
console.log(`${RUNS} broken and ${RUNS} healthy cases per cell, seeded; alpha ${ALPHA}, repeatPassThreshold 0.5; ${values.lib}`)
console.log('')
const flakes = TRIAL_SIMULATION.flakeRates
console.log(`| repeat | ${flakes.map((f) => `flake ${Math.round(f * 100)}%: caught · flagged`).join(' | ')} |`)
console.log(`|--:|${flakes.map(() => '--:').join('|')}|`)
for (const repeat of TRIAL_SIMULATION.repeats) {
  const row = flakes.map((flake) => {
    const cell = cells.find((c) => c.repeat === repeat && c.flake === flake)
    return `${(cell.caught * 100).toFixed(1)}% · ${(cell.flagged * 100).toFixed(1)}%`
  })
  console.log(`| ${repeat} | ${row.join(' | ')} |`)
}
console.log('')
console.log('caught: truly broken cases counted as regressed; flagged: healthy cases counted as regressed.')
