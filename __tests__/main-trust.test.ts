/**
 * SPEC §9 end to end: the action against the fake GitHub (contents and compare
 * endpoints included), with the real clients and engine. A pull request cannot
 * weaken its own gate; an intended regression is accepted by label, in the open.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { BASE, errorLine, useAction } from './__fixtures__/action.js'
import { CASES } from './github/harness.js'

const suite = useAction()
const { mainRun, prRun, ours } = suite

/** The base commit's config, as the contents API serves it at BASE. */
function serveBaseConfig(): void {
  suite.server.addFile(BASE, 'evalgate.yml', readFileSync(suite.ws.config, 'utf8'))
}

function comment(): string {
  const [c] = ours()
  expect(c).toBeDefined()
  return c!.body
}

describe('a gate the pull request cannot weaken (SPEC §9)', () => {
  it('the PR raises its own gate: the base commit’s gate applies, the change is listed for after merge', async () => {
    serveBaseConfig()
    await mainRun()
    writeFileSync(suite.ws.config, `${readFileSync(suite.ws.config, 'utf8')}gate:\n  maxRegressions: 5\nrepeatPassThreshold: 0.01\n`)
    const result = await prRun({ broken: ['capital'] })
    expect(result.exitCode).toBe(1)
    expect(errorLine(result)).toMatch(/1 case regressed \(limit: maxRegressions 0\): capital/)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '1', 'baseline-status': 'found' })
    const body = comment()
    expect(body).toContain('Config changes (apply after merge)')
    expect(body).toMatch(/gate\.maxRegressions.*\| `0` \| `5` \|/)
    expect(body).toMatch(/repeatPassThreshold.*\| `0\.5` \| `0\.01` \|/)
    // read at the base commit, through the contents API
    expect(suite.server.requests.some((r) => r.path === '/repos/acme/bot/contents/evalgate.yml' && r.query.ref === BASE)).toBe(true)
  })

  it('with gate-from: head the PR’s own gate applies (for repositories that trust their PR authors)', async () => {
    serveBaseConfig()
    await mainRun()
    writeFileSync(suite.ws.config, `${readFileSync(suite.ws.config, 'utf8')}gate:\n  maxRegressions: 5\n`)
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
    writeFileSync(path.join(suite.ws.dir, 'cases.yaml'), CASES.replace(/- id: capital\n( {2}.*\n)+?(?=- id:)/, ''))
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

  it('a baseline whose artifact answers 503 fails the check with baseline-status=error; the accept label accepts it, saying so', async () => {
    serveBaseConfig()
    await mainRun()
    for (const a of suite.server.artifacts) suite.server.failDownload(a.id, 503, 'api')
    const result = await prRun()
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', verdict: 'could-not-tell', 'baseline-status': 'error' })
    expect(errorLine(result)).toMatch(/the baseline exists but could not be read/)
    const accepted = await prRun({ labels: ['evalgate:accept'] })
    expect(accepted.exitCode).toBeUndefined()
    expect(accepted.outputs).toMatchObject({ gate: 'accepted', verdict: 'accepted', 'baseline-status': 'error' })
    expect(accepted.summary).toMatch(/evalgate could not tell, accepted by the label "evalgate:accept"[\s\S]*the baseline exists but could not be read/)
    // on-baseline-error: warn opts out: a warning, the floors still gated
    const warned = await prRun({ inputs: { 'on-baseline-error': 'warn' } })
    expect(warned.exitCode).toBeUndefined()
    expect(warned.outputs).toMatchObject({ gate: 'pass', 'baseline-status': 'error' })
  })
})
