// Mutation testing of the pure core (`npm run mutate`; not part of `npm test`, it takes long).
// A quick partial run (a file, or lines of it), with its own incremental file so that the whole
// run's is kept: `npm run mutate -- --mutate src/compare/stats.ts:69-98 --incrementalFile reports/mutation/stats.json`.
// @ts-check
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/compare/**/*.ts', 'src/assertions/**/*.ts'],
  testRunner: 'jest',
  // jest runs the tests as ES modules (see jest.config.js).
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  jest: {
    configFile: 'jest.config.js',
    // Only the unit tests of these two folders: the report, CLI and action tests also reach
    // compare/ through compareRuns, but they test their own code, and would make a run hours long.
    config: {
      testMatch: ['<rootDir>/__tests__/compare/**/*.test.ts', '<rootDir>/__tests__/assertions/**/*.test.ts'],
      // Leaves out the interval-coverage simulations (1,000 simulated datasets each, up to a thousand
      // bootstrap resamples per dataset): instrumented, the initial run alone took over 20 minutes, and
      // every mutant of the bootstrap would rerun them. The exact-value tests pin the same code.
      testNamePattern: '^(?!.*on simulated paired runs)'
    },
    enableFindRelatedTests: true
  },
  coverageAnalysis: 'perTest',
  // Reuses the results of mutants whose code and covering tests did not change since the last run.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  concurrency: 2,
  // the machine may be shared: a slow mutant is not an infinite loop
  timeoutMS: 15000,
  // the initial run takes all these tests in one process (several minutes on a loaded machine)
  dryRunTimeoutMinutes: 60,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // the sandbox needs the sources, the tests and their fixtures, not the bundle or the examples
  ignorePatterns: ['dist', 'coverage', 'reports', '.evalgate'],
  tempDirName: '.stryker-tmp',
  thresholds: { high: 95, low: 85, break: null }
}
