/**
 * Shared bits of the GitHub tests: the fake GitHub, the runner's environment
 * pointed at it, and run records.
 *
 * @actions/github reads GITHUB_API_URL when it is first imported, and the
 * artifact client's download uses that default, so a test file starts the
 * server and sets the environment BEFORE importing anything that imports
 * @actions/github (use `await import(...)` after `startGitHub()`).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { GitHubServer, runtimeToken } from '../__fixtures__/github-server.js'
import type { CaseResult, RunRecord } from '../../src/types.js'

export function tempDir(prefix = 'evalgate-gh-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix))
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

export function caseResult(id: string, passed: boolean, extra: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    name: id,
    tags: [],
    fingerprint: `fp-${id}`,
    input: `input of ${id}`,
    passed,
    passFraction: passed ? 1 : 0,
    output: passed ? 'ok' : 'wrong',
    error: null,
    score: null,
    durationMs: 1,
    assertions: [{ type: 'contains', passed, score: passed ? 1 : 0, reason: passed ? 'found' : "expected output to contain 'ok'" }],
    ...extra
  }
}

export function record(cases: CaseResult[], extra: Partial<RunRecord> = {}): RunRecord {
  const passed = cases.filter((c) => c.passed).length
  return {
    schemaVersion: 1,
    tool: { name: 'evalgate', version: '0.1.0' },
    name: 'demo',
    createdAt: '2026-01-01T00:00:00.000Z',
    complete: true,
    git: { sha: 'a'.repeat(40), ref: 'refs/heads/main', runId: '1' },
    summary: {
      total: cases.length,
      passed,
      failed: cases.length - passed,
      errors: 0,
      passRate: cases.length ? passed / cases.length : 0,
      meanScore: null,
      durationMs: 1,
      judge: { calls: 0, reused: 0, errors: 0, tokens: 0 }
    },
    cases,
    ...extra
  }
}

export const sha = (n: number): string => n.toString(16).padStart(40, '0')
