// ESM jest: @actions/* are ESM-only, so tests run as ES modules through ts-jest.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json', diagnostics: false }]
  },
  testMatch: ['**/__tests__/**/*.test.ts'],
  // Stryker's sandboxes (npm run mutate) are copies of the tree: neither their tests nor their package.json are ours.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/.stryker-tmp/'],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
  testTimeout: 30000
}
