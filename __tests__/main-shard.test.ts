/**
 * Sharded runs of the action end to end (SPEC §7 "Sharding"): shard jobs of
 * one workflow run each upload `<artifact>-shard-i-of-n`; the merge job of the
 * same run downloads them, merges, and publishes and gates as one run would —
 * against the fake GitHub, through the real @actions clients and engine.
 */
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { BASE, errorLine, HEAD, PR, useAction } from './__fixtures__/action.js'
import { prPayload, runBundle, type RunOptions, type RunResult } from './github/harness.js'
import type { RunRecord } from '../src/types.js'

const suite = useAction()
const { action, mainRun, ours } = suite
let shardOf: (caseId: string, count: number) => number
let recordFromArtifactBytes: (bytes: Buffer, label: string) => Promise<RunRecord>

beforeAll(async () => {
  // imported only now, after the fake GitHub's environment is set
  ;({ shardOf } = await import('../src/engine.js'))
  ;({ recordFromArtifactBytes } = await import('../src/github/artifacts/download.js'))
})

const QUESTIONS: Array<[string, string]> = [
  ['What is the capital of Ireland?', 'Dublin'],
  ['What is 2 + 2?', '"4"'],
  ['Say hello', 'hello']
]
/** Twelve cases, enough for every one of four shards to get some. */
const IDS = Array.from({ length: 12 }, (_, i) => `case-${String(i + 1).padStart(2, '0')}`)

beforeEach(() => {
  const cases = IDS.map((id, i) => `- id: ${id}\n  input: ${QUESTIONS[i % 3]![0]}\n  expected: ${QUESTIONS[i % 3]![1]}\n`).join('')
  writeFileSync(path.join(suite.ws.dir, 'cases.yaml'), cases)
})

function prRunId(): number {
  return suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: PR }] }).id
}

/** One job of the PR's workflow run `runId`. */
function prJob(runId: number, inputs: Record<string, string>, options: Pick<RunOptions, 'broken' | 'attempt'> = {}): Promise<RunResult> {
  return action({ event: 'pull_request', runId, sha: HEAD, payload: prPayload(suite.server, PR, HEAD, BASE), inputs, ...options })
}

function uploadedRecord(runId: number, name: string): Promise<RunRecord> {
  const artifact = suite.server.uploaded(runId).find((a) => a.name === name)
  expect(artifact).toBeDefined()
  return recordFromArtifactBytes(artifact!.bytes, name)
}

/** A record's cases without their timings, which differ from run to run. */
function casesOf(record: RunRecord): unknown {
  return JSON.parse(JSON.stringify(record.cases), (key, value: unknown) => (key === 'durationMs' || key === 'latencyMs' ? undefined : value))
}

function countsOf(record: RunRecord) {
  const { total, passed, failed, errors, passRate, meanScore } = record.summary
  return { total, passed, failed, errors, passRate, meanScore }
}

const inShard = (index: number, count: number) => IDS.filter((id) => shardOf(id, count) === index)

describe('shard: i/n and mode: merge', () => {
  it('four shard jobs and a merge job publish and gate the record one unsharded run would have', async () => {
    expect([1, 2, 3, 4].map((i) => inShard(i, 4).length).every((n) => n > 0)).toBe(true)
    const broken = ['case-03']
    await mainRun()
    // the same commit in one job, for reference (no comment, so that the PR keeps only the merge job's)
    const single = prRunId()
    await prJob(single, { comment: 'never' }, { broken })
    const reference = await uploadedRecord(single, 'evalgate-demo')

    const runId = prRunId()
    for (const i of [1, 2, 3, 4]) {
      const result = await prJob(runId, { shard: `${i}/4` }, { broken })
      const holdsBroken = shardOf('case-03', 4) === i
      // a shard never gates, not even the one with the regression
      expect(result.exitCode).toBeUndefined()
      expect(result.stdout).not.toMatch(/^::error::/m)
      expect(result.outputs).toMatchObject({ total: String(inShard(i, 4).length), regressed: holdsBroken ? '1' : '0' })
      expect(result.outputs.gate).toBeUndefined()
      expect(result.summary).toContain(`shard ${i} of 4: ${inShard(i, 4).length} case`)
      expect(result.summary).toContain('mode: merge')
      expect(suite.server.commentsOn(PR)).toHaveLength(0)
      const shard = await uploadedRecord(runId, `evalgate-demo-shard-${i}-of-4`)
      expect(shard.cases.map((c) => c.id)).toEqual(inShard(i, 4))
      expect(shard.config?.shard).toBe(`${i}/4`)
    }
    expect(suite.server.uploaded(runId).map((a) => a.name)).toEqual([1, 2, 3, 4].map((i) => `evalgate-demo-shard-${i}-of-4`))

    // other artifacts of the run push the shards onto the listing's second page
    for (let k = 0; k < 120; k++) suite.server.addArtifact(runId, `coverage-${k}`, Buffer.from('not a record'))
    suite.server.requests = []
    const merge = await prJob(runId, { mode: 'merge' })

    expect(merge.exitCode).toBe(1)
    expect(errorLine(merge)).toMatch(/regress/)
    expect(suite.server.requests.some((r) => r.path === `/repos/acme/bot/actions/runs/${runId}/artifacts` && r.query.page === '2')).toBe(true)
    const merged = await uploadedRecord(runId, 'evalgate-demo')
    expect(merged.cases.map((c) => c.id)).toEqual(IDS)
    expect(casesOf(merged)).toEqual(casesOf(reference))
    expect(countsOf(merged)).toEqual(countsOf(reference))
    expect(merged.config?.shard).toBeNull()
    expect(merged.git.runId).toBe(String(runId))
    // flake history carried from the baseline, as the unsharded run carries it
    expect(merged.cases[0]!.history).toBe('P')

    expect(merge.outputs).toMatchObject({ gate: 'fail', total: '12', passed: '11', regressed: '1', fixed: '0' })
    const comments = ours()
    expect(suite.server.commentsOn(PR)).toHaveLength(1)
    expect(comments[0]!.body).toContain('gate failed')
    expect(comments[0]!.body).toContain('case-03')
    expect(merge.summary).toContain('case-03')
  })

  it('fails the merge when a shard is missing, naming it, and gates nothing as a pass', async () => {
    const runId = prRunId()
    for (const i of [1, 2, 4]) expect((await prJob(runId, { shard: `${i}/4` })).exitCode).toBeUndefined()
    const merge = await prJob(runId, { mode: 'merge' })
    expect(merge.exitCode).toBe(1)
    const error = errorLine(merge)
    expect(error).toContain(`evalgate: cannot merge the shards of run ${runId}: missing shard 3/4: a run split in 4 needs all 4 shard records`)
    expect(error).not.toMatch(/internal error|\n\s+at /)
    expect(merge.outputs.gate).toBeUndefined()
    expect(suite.server.uploaded(runId).map((a) => a.name)).not.toContain('evalgate-demo')
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
  })

  it('fails the merge when the run has no shard artifacts', async () => {
    const runId = prRunId()
    const merge = await prJob(runId, { mode: 'merge' })
    expect(merge.exitCode).toBe(1)
    expect(errorLine(merge)).toContain(`evalgate: run ${runId} has no shard artifacts "evalgate-demo-shard-<i>-of-<n>"`)
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
  })

  it('refuses shards of different splits', async () => {
    const runId = prRunId()
    for (const shard of ['1/2', '2/2', '1/3']) await prJob(runId, { shard })
    const merge = await prJob(runId, { mode: 'merge' })
    expect(merge.exitCode).toBe(1)
    expect(errorLine(merge)).toMatch(/shards of different splits: .*shard 1\/2, .*shard 1\/3/)
    expect(suite.server.uploaded(runId).map((a) => a.name)).not.toContain('evalgate-demo')
  })

  it("takes a re-run shard job's newer record", async () => {
    await mainRun()
    const runId = prRunId()
    const flaky = shardOf('case-05', 2)
    for (const i of [1, 2]) await prJob(runId, { shard: `${i}/2` }, { broken: ['case-05'] })
    // "re-run failed jobs": the shard again, on attempt 2, now passing; then the merge
    const again = await prJob(runId, { shard: `${flaky}/2` }, { attempt: 2 })
    expect(again.exitCode).toBeUndefined()
    expect(suite.server.uploaded(runId).map((a) => a.name)).toContain(`evalgate-demo-shard-${flaky}-of-2-attempt-2`)
    const merge = await prJob(runId, { mode: 'merge' }, { attempt: 2 })
    expect(merge.exitCode).toBeUndefined()
    expect(merge.outputs).toMatchObject({ gate: 'pass', total: '12', passed: '12', regressed: '0' })
    expect(ours()[0]!.body).toContain('gate passed')
  })
})

describe('dist/index.js', () => {
  const dist = process.env.EVALGATE_DIST ?? path.join(process.cwd(), 'dist', 'index.js')
  const maybe = existsSync(dist) ? it : it.skip
  maybe('merges the shards as the action does: node dist/index.js', async () => {
    const runId = prRunId()
    for (const i of [1, 2]) await prJob(runId, { shard: `${i}/2` }, { broken: ['case-07'] })
    const merge = await runBundle(dist, {
      server: suite.server,
      files: suite.files,
      ws: suite.ws,
      event: 'pull_request',
      runId,
      sha: HEAD,
      payload: prPayload(suite.server, PR, HEAD, BASE),
      inputs: { mode: 'merge', 'min-pass-rate': '95%' }
    })
    expect(merge.exitCode).toBe(1)
    expect(merge.outputs).toMatchObject({ gate: 'fail', total: '12', passed: '11' })
    expect((await uploadedRecord(runId, 'evalgate-demo')).cases.map((c) => c.id)).toEqual(IDS)
    expect(ours()).toHaveLength(1)
  })
})
