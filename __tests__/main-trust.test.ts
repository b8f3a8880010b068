/**
 * SPEC §9 end to end: the action against the fake GitHub (contents and compare
 * endpoints included), with the real clients and engine. A pull request cannot
 * weaken its own gate; an intended regression is accepted by label, in the open.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import type { GitHubServer } from './__fixtures__/github-server.js'
import { CASES, prPayload, runAction, runnerFiles, workspace, type RunOptions, type RunResult, type RunnerFiles, type Workspace } from './github/harness.js'
import { restoreEnv, sha, startGitHub } from './github/helpers.js'

let server: GitHubServer
let files: RunnerFiles
let run: () => Promise<void>

beforeAll(async () => {
  server = await startGitHub()
  files = runnerFiles()
  ;({ run } = await import('../src/main.js'))
})

afterAll(async () => {
  await server.close()
  restoreEnv()
})

const BASE = sha(0xba5e)
const HEAD = sha(0x4ead)
const PR = 9
const MARKER = '<!-- evalgate:evals.yml:demo -->'

let ws: Workspace
beforeEach(() => {
  server.reset()
  ws = workspace()
})

function action(options: Partial<RunOptions> & Pick<RunOptions, 'event' | 'runId'>): Promise<RunResult> {
  return runAction(run, { server, files, ws, ...options })
}

/** The base commit's config, as the contents API serves it at BASE. */
function serveBaseConfig(): void {
  server.addFile(BASE, 'evalgate.yml', readFileSync(ws.config, 'utf8'))
}

async function mainRun(): Promise<number> {
  const r = server.addRun({ head_sha: BASE })
  const result = await action({ event: 'push', runId: r.id, sha: BASE, payload: { repository: { default_branch: 'main' } } })
  expect(result.exitCode).toBeUndefined()
  return r.id
}

async function prRun(options: Pick<RunOptions, 'broken' | 'inputs'> & { labels?: string[] } = {}): Promise<RunResult> {
  const current = server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: PR }] })
  const payload = prPayload(server, PR, HEAD, BASE)
  ;(payload.pull_request as Record<string, unknown>).labels = (options.labels ?? []).map((name) => ({ name }))
  return action({ event: 'pull_request', runId: current.id, sha: HEAD, payload, broken: options.broken, inputs: options.inputs })
}

function comment(): string {
  const [c] = server.commentsOn(PR).filter((x) => x.body.startsWith(MARKER))
  expect(c).toBeDefined()
  return c!.body
}

function errorLine(result: RunResult): string | undefined {
  return result.stdout.split('\n').find((l) => l.startsWith('::error::evalgate:'))
}

describe('a gate the pull request cannot weaken (SPEC §9)', () => {
  it('the PR raises its own gate: the base commit’s gate applies, the change is listed for after merge', async () => {
    serveBaseConfig()
    await mainRun()
    writeFileSync(ws.config, `${readFileSync(ws.config, 'utf8')}gate:\n  maxRegressions: 5\nrepeatPassThreshold: 0.01\n`)
    const result = await prRun({ broken: ['capital'] })
    expect(result.exitCode).toBe(1)
    expect(errorLine(result)).toMatch(/1 case regressed \(limit: maxRegressions 0\): capital/)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '1', 'baseline-status': 'found' })
    const body = comment()
    expect(body).toContain('Config changes (apply after merge)')
    expect(body).toMatch(/gate\.maxRegressions.*\| `0` \| `5` \|/)
    expect(body).toMatch(/repeatPassThreshold.*\| `0\.5` \| `0\.01` \|/)
    // read at the base commit, through the contents API
    expect(server.requests.some((r) => r.path === '/repos/acme/bot/contents/evalgate.yml' && r.query.ref === BASE)).toBe(true)
  })

  it('with gate-from: head the PR’s own gate applies (for repositories that trust their PR authors)', async () => {
    serveBaseConfig()
    await mainRun()
    writeFileSync(ws.config, `${readFileSync(ws.config, 'utf8')}gate:\n  maxRegressions: 5\n`)
    const result = await prRun({ broken: ['capital'], inputs: { 'gate-from': 'head' } })
    expect(result.exitCode).toBeUndefined()
    expect(result.outputs).toMatchObject({ gate: 'pass', regressed: '1' })
    expect(comment()).not.toContain('Config changes')
  })

  it('no config at the base commit (first adoption): the PR’s own settings, with a notice', async () => {
    await mainRun()
    const result = await prRun()
    expect(result.exitCode).toBeUndefined()
    expect(result.stdout).toMatch(/^::notice::evalgate\.yml at the base commit [0-9a-f]{7} does not exist \(first adoption\?\)/m)
  })

  it('the PR deletes the failing case: still ❌, naming it', async () => {
    serveBaseConfig()
    await mainRun()
    writeFileSync(path.join(ws.dir, 'cases.yaml'), CASES.replace(/- id: capital\n( {2}.*\n)+?(?=- id:)/, ''))
    const result = await prRun({ broken: ['capital'] })
    expect(result.exitCode).toBe(1)
    expect(errorLine(result)).toMatch(/1 baseline case is missing from this run \(limit: maxRemoved 0\): capital/)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '0', total: '2' })
    expect(comment()).toContain('capital')
  })

  it('labelled evalgate:accept: the failure is reported in full, the check passes as "accepted"', async () => {
    serveBaseConfig()
    await mainRun()
    const result = await prRun({ broken: ['capital'], labels: ['bug', 'evalgate:accept'] })
    expect(result.exitCode).toBeUndefined()
    expect(result.outputs).toMatchObject({ gate: 'accepted', regressed: '1' })
    const body = comment()
    expect(body).toMatch(/accepted/i)
    expect(body).toContain('evalgate:accept')
    expect(body).toContain('1 case regressed (limit: maxRegressions 0): capital')
  })

  it('another label does not accept; accept-label: none turns accepting off', async () => {
    serveBaseConfig()
    await mainRun()
    expect((await prRun({ broken: ['capital'], labels: ['evalgate:accepted'] })).outputs.gate).toBe('fail')
    const off = await prRun({ broken: ['capital'], labels: ['evalgate:accept'], inputs: { 'accept-label': 'none' } })
    expect(off.exitCode).toBe(1)
    expect(off.outputs.gate).toBe('fail')
  })

  it('a baseline whose artifact answers 503 fails the check with baseline-status=error, and a label does not accept it', async () => {
    serveBaseConfig()
    await mainRun()
    for (const a of server.artifacts) server.failDownload(a.id, 503, 'api')
    const result = await prRun({ labels: ['evalgate:accept'] })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', 'baseline-status': 'error' })
    expect(errorLine(result)).toMatch(/the baseline exists but could not be read/)
    // on-baseline-error: warn opts out: a warning, the floors still gated
    const warned = await prRun({ inputs: { 'on-baseline-error': 'warn' } })
    expect(warned.exitCode).toBeUndefined()
    expect(warned.outputs).toMatchObject({ gate: 'pass', 'baseline-status': 'error' })
  })
})
