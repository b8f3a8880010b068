/**
 * Shared bits of the GitHub tests: the fake GitHub, the runner's environment
 * pointed at it, and run records.
 *
 * @actions/github reads GITHUB_API_URL when it is first imported, and the
 * artifact client's download uses that default, so a test file starts the
 * server and sets the environment BEFORE importing anything that imports
 * @actions/github (use `await import(...)` after `startGitHub()`).
 */
import { afterAll, beforeAll, beforeEach, jest } from '@jest/globals'
import { GitHubServer, runtimeToken } from '../__fixtures__/github-server.js'
import { tempDir as madeTempDir } from '../__fixtures__/temp.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'
import type { CaseResult, RunRecord } from '../../src/types.js'

/** A temp folder removed after the test file. */
export function tempDir(prefix = 'evalgate-gh-'): string {
  return madeTempDir(prefix)
}

const saved = new Map<string, string | undefined>()

/** Set an environment variable until restoreEnv(); undefined deletes it. */
export function setEnv(name: string, value: string | undefined): void {
  if (!saved.has(name)) saved.set(name, process.env[name])
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
}

export function restoreEnv(): void {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  saved.clear()
}

/** Start the fake GitHub and point the clients at it (before they are imported). */
export async function startGitHub(repository = 'acme/bot'): Promise<GitHubServer> {
  const server = await new GitHubServer(repository).start()
  setEnv('GITHUB_API_URL', server.url)
  setEnv('ACTIONS_RESULTS_URL', `${server.url}/`)
  // the artifact client refuses GHES; github.com (the default) is what runners say
  setEnv('GITHUB_SERVER_URL', undefined)
  setEnv('ACTIONS_RUNTIME_TOKEN', runtimeToken(1))
  setEnv('GITHUB_REPOSITORY', repository)
  return server
}

export interface FakeGitHubSuite {
  server: GitHubServer
  upload: typeof import('../../src/github/artifacts/upload.js')
  download: typeof import('../../src/github/artifacts/download.js')
  shards: typeof import('../../src/github/artifacts/shards.js')
  baseline: typeof import('../../src/github/artifacts/baseline.js')
  context: typeof import('../../src/github/context.js')
  DefaultArtifactClient: typeof import('@actions/artifact').DefaultArtifactClient
}

/**
 * For a test file or a describe block: the fake GitHub started (and reset
 * before each test), the modules that must be imported after it, and the
 * clients' log kept out of the test output. Its fields are set once the
 * block's tests start.
 */
export function useFakeGitHub(): FakeGitHubSuite {
  const suite = {} as FakeGitHubSuite
  beforeAll(async () => {
    suite.server = await startGitHub()
    suite.upload = await import('../../src/github/artifacts/upload.js')
    suite.download = await import('../../src/github/artifacts/download.js')
    suite.shards = await import('../../src/github/artifacts/shards.js')
    suite.baseline = await import('../../src/github/artifacts/baseline.js')
    suite.context = await import('../../src/github/context.js')
    suite.DefaultArtifactClient = (await import('@actions/artifact')).DefaultArtifactClient
  })
  afterAll(async () => {
    await suite.server.close()
    restoreEnv()
  })
  beforeEach(() => {
    suite.server.reset()
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true)
  })
  return suite
}

/** A case result as the GitHub tests use it: the shared factory with short outputs. */
export function caseResult(id: string, passed: boolean, extra: Partial<CaseResult> = {}): CaseResult {
  return makeCase(id, passed, { output: passed ? 'ok' : 'wrong', ...extra })
}

/** A run record of the config "demo" on main: the shared factory with this suite's identity. */
export function record(cases: CaseResult[], extra: Partial<RunRecord> = {}): RunRecord {
  return makeRun(cases, { name: 'demo', createdAt: '2026-01-01T00:00:00.000Z', git: { sha: 'a'.repeat(40), ref: 'refs/heads/main', runId: '1' }, ...extra })
}

export const sha = (n: number): string => n.toString(16).padStart(40, '0')
