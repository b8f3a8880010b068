// Mutation testing of the pure core (`npm run mutate`; not part of `npm test`, it takes long).
//
// One folder, or one file, at a time, each with its own tests, incremental file and report, so that
// a run finishes and a rerun only redoes the mutants whose code or tests changed:
//   EVALGATE_MUTATE=assertions nice -n 19 npm run mutate             (src/assertions, __tests__/assertions)
//   EVALGATE_MUTATE=compare nice -n 19 npm run mutate                (src/compare, __tests__/compare)
//   EVALGATE_MUTATE=src/compare/gate.ts nice -n 19 npm run mutate    (one file, its folder's tests)
// Each writes reports/mutation/<name>.json, .html and <name>-incremental.json (name: the folder, or
// folder-file). Without EVALGATE_MUTATE both folders are mutated against both test folders in one run.
// The scores of every report so far, per file and per folder: node scripts/mutation-table.mjs
// Lines of a file: add `-- --mutate src/compare/stats.ts:69-98` (keep EVALGATE_MUTATE for the tests).
// Every file of a folder, one run each (each run finishes and keeps its own results):
//   for f in src/assertions/*.ts; do EVALGATE_MUTATE=$f nice -n 19 npm run mutate -- --ignoreStatic; done
// `--ignoreStatic` skips the mutants of module constants (handler tables, patterns: reached while the
// modules load, so each would rerun every test) and reports them as Ignored, outside the score.
// How long it takes here (2 cores shared with other work, nice 19, load 3–6): measured 2 Dec 2026,
// one file per run with --ignoreStatic, after the simulations moved out by path (testPathIgnorePatterns):
// compare/compatibility.ts 10 mutants in 10 s, selection.ts 34 in 63 s, target-errors.ts 78 in 193 s,
// metrics.ts 135 in about 9 min, assertions/numeric.ts 86 in 5 min: 1–4 s a mutant. The tests are not
// the cost: the assertions dry run was 867 tests in 2.4 s net (Stryker's figure), and a mutant runs ~3
// of them; the rest is jest's setup for each run in the Stryker worker and the machine's load.
// Earlier sessions saw 8–10 s a mutant (text.ts 168 mutants in 24 min, numeric.ts 86 in 26 min), on a
// busier machine; not remeasured side by side, so the cause of the difference is not known.
// @ts-check
const folders = ['compare', 'assertions']
const only = process.env.EVALGATE_MUTATE
const file = only?.match(/^src\/(compare|assertions)\/([\w-]+)\.ts$/)
if (only !== undefined && !folders.includes(only) && !file) {
  throw new Error(`EVALGATE_MUTATE=${only}: use "compare", "assertions" or a file such as src/compare/gate.ts`)
}
const picked = file ? [file[1]] : only === undefined ? folders : [only]
const mutate = file ? [only] : picked.map((folder) => `src/${folder}/**/*.ts`)
const name = file ? `${file[1]}-${file[2]}` : (only ?? 'all')
// EVALGATE_MUTATE_TESTS=a.test.ts,b.test.ts (under __tests__/): only those tests, for a file whose folder's
// tests are slow to rerun per mutant (stats.ts: every gate and metrics test reaches it). The score is then
// a lower bound: a mutant the other tests would kill counts as survived.
const tests = process.env.EVALGATE_MUTATE_TESTS?.split(',').map((t) => `<rootDir>/__tests__/${t.trim()}`)

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate,
  testRunner: 'jest',
  // jest runs the tests as ES modules (see jest.config.js).
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  jest: {
    configFile: 'jest.config.js',
    // Only the unit tests of the mutated folders: the report, CLI and action tests also reach
    // compare/ through compareRuns, but they test their own code, and would make a run hours long.
    config: {
      testMatch: tests ?? picked.map((folder) => `<rootDir>/__tests__/${folder}/**/*.test.ts`),
      // Leaves out the interval-coverage simulations (1,000 simulated datasets each, up to a thousand
      // bootstrap resamples per dataset): instrumented, the initial run alone took over 20 minutes, and
      // every mutant of the bootstrap would rerun them. The exact-value tests pin the same code.
      // By path, not by testNamePattern: jest reports tests skipped by name with a start but no end,
      // and Stryker then counts the static mutants charged to them as Survived instead of Ignored.
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/__tests__/compare/interval-coverage\\.test\\.ts$']
    },
    enableFindRelatedTests: true
  },
  // Each mutant runs only the tests that reached its code. A mutant reached while jest collects the
  // tests ("static": module constants, or a test file calling src/ in a describe body or an it.each
  // table) runs every test instead, so the tests compute inside their `it` bodies.
  coverageAnalysis: 'perTest',
  // Reuses the results of mutants whose code and covering tests did not change since the last run.
  incremental: true,
  incrementalFile: `reports/mutation/${name}-incremental.json`,
  concurrency: 2,
  // the machine may be shared: a slow mutant is not an infinite loop
  timeoutMS: 15000,
  // the initial run takes all these tests in one process (several minutes on a loaded machine)
  dryRunTimeoutMinutes: 60,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // the sandbox needs the sources, the tests and their fixtures, not the bundle or the examples
  // (nor other runs' temp dirs: runs of different files may go on side by side)
  ignorePatterns: ['dist', 'coverage', 'reports', '.evalgate', '.stryker-tmp'],
  // one per run name, so that runs of different files may go on side by side
  tempDirName: `.stryker-tmp/${name}`,
  thresholds: { high: 95, low: 85, break: null }
}
