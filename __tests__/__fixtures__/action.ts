/**
 * The action end to end, as the main*.test.ts files drive it: the fake GitHub
 * on 127.0.0.1 (reset before each test), one set of runner files per test
 * file, a fresh workspace per test, and the action's run() imported only once
 * the fake's environment is set (@actions/github reads GITHUB_API_URL on
 * import). A push to main publishes the baseline; a pull request of HEAD
 * against BASE is gated on it.
 */
import { afterAll, beforeAll, beforeEach, expect } from '@jest/globals'
import type { GitHubServer } from './github-server.js'
import {
  prPayload,
  runAction,
  runBundle,
  runnerFiles,
  workspace,
  type RunOptions,
  type RunResult,
  type RunnerFiles,
  type Workspace
} from '../github/harness.js'
import { restoreEnv, sha, startGitHub } from '../github/helpers.js'

export const BASE = sha(0xba5e)
export const HEAD = sha(0x4ead)
export const PR = 5
/** The sticky comment's marker for the workspace's config (name "demo", workflow evals.yml). */
export const MARKER = '<!-- evalgate:evals.yml:demo -->'

export type ActionOptions = Partial<RunOptions> & Pick<RunOptions, 'event' | 'runId'>
export type PrOptions = Pick<RunOptions, 'broken' | 'inputs' | 'hang' | 'env'> & { labels?: string[] }

export interface ActionSuite {
  /** the fake GitHub, the runner's files and this test's workspace: set once the file's tests start */
  server: GitHubServer
  files: RunnerFiles
  ws: Workspace
  /** One run of the action's run() with the runner's environment for these options. */
  action(options: ActionOptions): Promise<RunResult>
  /** A push to main that publishes the baseline (the real upload, later found by the lookup); its run id. */
  mainRun(options?: { sha?: string; broken?: string[] }): Promise<number>
  /** A pull_request run of PR's head commit, labelled as given. */
  prRun(options?: PrOptions): Promise<RunResult & { runId: number }>
  /** The same run by a bundle of the action (`node dist/index.js`, a process of its own), in workflow run `runId` when given. */
  prBundle(script: string, options?: PrOptions & { runId?: number }): Promise<RunResult & { runId: number }>
  /** evalgate's comments on PR. */
  ours(): Array<{ id: number; body: string }>
}

/** For a test file: registers the hooks and returns the suite whose fields they set. */
export function useAction(): ActionSuite {
  let run: () => Promise<void>
  const suite = {} as ActionSuite
  suite.action = (options) => runAction(run, { server: suite.server, files: suite.files, ws: suite.ws, ...options })
  suite.mainRun = async (options = {}) => {
    const runRecord = suite.server.addRun({ head_sha: options.sha ?? BASE })
    const result = await suite.action({
      event: 'push',
      runId: runRecord.id,
      sha: runRecord.head_sha,
      broken: options.broken,
      payload: { repository: { default_branch: 'main' } }
    })
    expect(result.exitCode).toBeUndefined()
    expect(suite.server.uploaded(runRecord.id).map((a) => a.name)).toEqual(['evalgate-demo'])
    return runRecord.id
  }
  const prOptions = (labels: string[] | undefined, runId?: number) => {
    const id = runId ?? suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: PR }] }).id
    const payload = prPayload(suite.server, PR, HEAD, BASE)
    if (labels) (payload.pull_request as Record<string, unknown>).labels = labels.map((name) => ({ name }))
    return { event: 'pull_request' as const, runId: id, sha: HEAD, payload }
  }
  suite.prRun = async ({ labels, ...options } = {}) => {
    const pr = prOptions(labels)
    return { ...(await suite.action({ ...pr, ...options })), runId: pr.runId }
  }
  suite.prBundle = async (script, { labels, runId, ...options } = {}) => {
    const pr = prOptions(labels, runId)
    return { ...(await runBundle(script, { server: suite.server, files: suite.files, ws: suite.ws, ...pr, ...options })), runId: pr.runId }
  }
  suite.ours = () => suite.server.commentsOn(PR).filter((c) => c.body.includes(MARKER))

  beforeAll(async () => {
    suite.server = await startGitHub()
    suite.files = runnerFiles()
    ;({ run } = await import('../../src/main.js'))
  })
  afterAll(async () => {
    await suite.server.close()
    restoreEnv()
  })
  beforeEach(() => {
    suite.server.reset()
    suite.ws = workspace()
  })
  return suite
}

/** The action's failure line (`::error::evalgate: …`), if it failed, its workflow-command escapes undone. */
export function errorLine(result: RunResult): string | undefined {
  return result.stdout
    .split('\n')
    .find((l) => l.startsWith('::error::evalgate:'))
    ?.replace(/%0A/g, '\n')
    .replace(/%0D/g, '\r')
    .replace(/%25/g, '%')
}
