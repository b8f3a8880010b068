/**
 * Upload, baseline lookup and download against the fake GitHub with the real
 * @actions/artifact and @actions/github clients.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { zipOf } from '../__fixtures__/github-server.js'
import { caseResult, record, sha, tempDir, useFakeGitHub } from './helpers.js'

const gh = useFakeGitHub()

const baselineRecord = record([caseResult('a', true), caseResult('b', true)])

async function recordZip(value: unknown = baselineRecord): Promise<Buffer> {
  return zipOf({ 'run.json': JSON.stringify(value), 'report.md': '# report' })
}

function query(overrides: Partial<Parameters<typeof gh.artifacts.findBaseline>[0]> = {}) {
  return {
    octokit: gh.context.createOctokit('t0ken', { apiUrl: gh.server.url }),
    client: new gh.DefaultArtifactClient(),
    token: 't0ken',
    owner: gh.server.owner,
    repo: gh.server.repo,
    repository: gh.server.repository,
    tempDir: tempDir(),
    workflow: 'evals.yml',
    branch: 'main',
    artifactName: 'evalgate-demo',
    baseSha: null,
    currentRunId: null,
    ...overrides
  }
}

describe('uploadRunArtifact', () => {
  function files() {
    const dir = tempDir()
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify(baselineRecord))
    writeFileSync(path.join(dir, 'report.md'), '# report')
    return { dir, files: [path.join(dir, 'run.json'), path.join(dir, 'report.md')] }
  }

  it('uploads the record as a zip the baseline reader reads back', async () => {
    const run = gh.server.addRun({ id: 1, head_sha: sha(1) })
    const { dir, files: list } = files()
    const result = await gh.artifacts.uploadRunArtifact({ client: new gh.DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 1 })
    expect(result).toMatchObject({ name: 'evalgate-demo', notice: null })
    const [uploaded] = gh.server.uploaded(run.id)
    expect(uploaded?.name).toBe('evalgate-demo')
    expect(await gh.artifacts.recordFromArtifactBytes(uploaded!.bytes, 'uploaded')).toEqual(baselineRecord)
    // the blob went to the signed URL without the runtime token
    const blobPuts = gh.server.requests.filter((r) => r.method === 'PUT')
    expect(blobPuts.length).toBeGreaterThan(0)
    expect(blobPuts.every((r) => r.authorization === undefined)).toBe(true)
  })

  it('takes an -attempt-<n> name when a re-run finds the name taken', async () => {
    gh.server.addRun({ id: 1, head_sha: sha(1) })
    gh.server.addArtifact(1, 'evalgate-demo', await recordZip())
    const { dir, files: list } = files()
    const result = await gh.artifacts.uploadRunArtifact({ client: new gh.DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 2 })
    expect(result.name).toBe('evalgate-demo-attempt-2')
    expect(result.notice).toMatch(/earlier attempt/)
    expect(gh.server.uploaded(1).map((a) => a.name)).toEqual(['evalgate-demo-attempt-2'])
  })

  it('explains a name taken by another job of the same attempt', async () => {
    gh.server.addRun({ id: 1, head_sha: sha(1) })
    gh.server.addArtifact(1, 'evalgate-demo', await recordZip())
    const { dir, files: list } = files()
    await expect(gh.artifacts.uploadRunArtifact({ client: new gh.DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 1 })).rejects.toThrow(
      /already exists in this workflow run: two jobs .* artifact-name/
    )
  })
})

describe('isRecordArtifactName', () => {
  it.each([
    ['evalgate-demo', true],
    ['evalgate-demo-attempt-3', true],
    ['evalgate-demo-attempt-x', false],
    ['evalgate-demo-2', false],
    ['evalgate-demox', false]
  ])('%s → %s', (name, expected) => {
    expect(gh.artifacts.isRecordArtifactName(name, 'evalgate-demo')).toBe(expected)
  })
})

describe('shard artifact names', () => {
  it('names shard i of n after the run artifact', () => {
    expect(gh.artifacts.shardArtifactName('evalgate-demo', { index: 2, count: 4 })).toBe('evalgate-demo-shard-2-of-4')
  })

  it.each([
    ['evalgate-demo-shard-2-of-4', { index: 2, count: 4 }],
    ['evalgate-demo-shard-12-of-12-attempt-3', { index: 12, count: 12 }],
    ['evalgate-demo', null],
    ['evalgate-demo-attempt-2', null],
    ['evalgate-demo-shard-5-of-4', null],
    ['evalgate-demo-shard-0-of-4', null],
    ['evalgate-demo-shard-2-of-4-x', null],
    ['evalgate-demox-shard-2-of-4', null],
    ['evalgate-demo-shard-2-of-4-attempt-', null]
  ])('%s → %j', (name, shard) => {
    expect(gh.artifacts.shardOfArtifactName(name, 'evalgate-demo')).toEqual(shard)
  })
})

describe('fetchShardRecords', () => {
  const shardRecord = (shard: string | null, cases = [caseResult('a', true)]) => record(cases, { config: { repeat: 1, shard } })

  it('takes the newest live upload of each shard, in shard order', async () => {
    const run = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2', await recordZip(shardRecord('2/2', [caseResult('b', false)])))
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-1-of-2', await recordZip(shardRecord('1/2')))
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2-attempt-2', await recordZip(shardRecord('2/2', [caseResult('b', true)])))
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2-attempt-3', await recordZip(shardRecord('2/2')), { expired: true })
    gh.server.addArtifact(run.id, 'evalgate-demo', await recordZip())
    const shards = await gh.artifacts.fetchShardRecords(query(), run.id, 'evalgate-demo')
    expect(shards.map((s) => s.file)).toEqual(['artifact "evalgate-demo-shard-1-of-2"', 'artifact "evalgate-demo-shard-2-of-2-attempt-2"'])
    expect(shards[1]!.record.cases.map((c) => c.passed)).toEqual([true])
  })

  it.each<[string, () => Promise<Buffer>, RegExp]>([
    ['unreadable', () => Promise.resolve(Buffer.from('PK\x03\x04 not a zip')), /^the shard artifact "evalgate-demo-shard-1-of-2" of run \d+ is unreadable: /],
    ['of another shard', () => recordZip(shardRecord('2/2')), /holds the record of shard 2\/2, not of shard 1\/2$/],
    ['not a shard record', () => recordZip(shardRecord(null)), /holds a record of no shard, not of shard 1\/2$/]
  ])('refuses a shard artifact that is %s', async (_label, bytes, message) => {
    const run = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-1-of-2', await bytes())
    const { RecordError } = await import('../../src/errors.js')
    const fetching = gh.artifacts.fetchShardRecords(query(), run.id, 'evalgate-demo')
    await expect(fetching).rejects.toThrow(RecordError)
    await expect(gh.artifacts.fetchShardRecords(query(), run.id, 'evalgate-demo')).rejects.toThrow(message)
  })
})

describe('findBaseline', () => {
  it('takes the newest push run of this repository on the branch', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip(record([caseResult('a', false)])))
    const result = await gh.artifacts.findBaseline(query())
    expect(result.run).toMatchObject({ id: newer.id, sha: sha(2), createdAt: newer.created_at })
    expect(result.record?.cases.map((c) => c.passed)).toEqual([false])
    expect(result.notices).toEqual([])
    // the signed download URL is fetched without the token
    const blobGets = gh.server.requests.filter((r) => r.path.startsWith('/blobs/'))
    expect(blobGets).toHaveLength(1)
    expect(blobGets[0]!.authorization).toBeUndefined()
  })

  it('ignores newer runs from forks, of pull requests, of other branches and this run itself', async () => {
    const good = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    const poisoned = await recordZip(record([caseResult('a', false)]))
    for (const run of [
      gh.server.addRun({ head_sha: sha(2), head_repository: 'mallory/bot' }),
      gh.server.addRun({ head_sha: sha(3), event: 'pull_request' }),
      gh.server.addRun({ head_sha: sha(4), event: 'pull_request_target' }),
      gh.server.addRun({ head_sha: sha(5), head_branch: 'feature' })
    ]) {
      gh.server.addArtifact(run.id, 'evalgate-demo', poisoned)
    }
    const current = gh.server.addRun({ head_sha: sha(6) })
    gh.server.addArtifact(current.id, 'evalgate-demo', poisoned)
    const result = await gh.artifacts.findBaseline(query({ currentRunId: current.id }))
    expect(result.run?.id).toBe(good.id)
    expect(result.record).toEqual(baselineRecord)
  })

  it('falls back to an older run when the newest artifact expired, and says so', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip(), { expired: true })
    const result = await gh.artifacts.findBaseline(query())
    expect(result.run?.id).toBe(older.id)
    expect(result.notices).toEqual([expect.stringContaining(`"evalgate-demo" of run ${newer.id} has expired`)])
  })

  it('treats a 410 at download as expired', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    // listed as live, gone by the time it is downloaded
    gh.server.goneOnDownload.add(gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip()).id)
    const result = await gh.artifacts.findBaseline(query())
    expect(result.run?.id).toBe(older.id)
    expect(result.notices).toEqual([expect.stringContaining(`of run ${newer.id} has expired`)])
  })

  it('prefers the run of the base commit', async () => {
    const base = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(base.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip())
    expect((await gh.artifacts.findBaseline(query({ baseSha: sha(1) }))).run?.id).toBe(base.id)
    expect((await gh.artifacts.findBaseline(query({ baseSha: sha(9) }))).run?.id).toBe(newer.id)
  })

  it('pages through runs without the artifact', async () => {
    const good = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    for (let i = 0; i < 120; i++) gh.server.addRun({ head_sha: sha(100 + i), event: 'pull_request' })
    const result = await gh.artifacts.findBaseline(query())
    expect(result.run?.id).toBe(good.id)
    expect(gh.server.requests.filter((r) => r.path.endsWith('/runs') && r.query.page === '2')).toHaveLength(1)
  })

  it.each([
    ['a corrupt zip', async () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]), /is unreadable: .*zip/],
    ['a zip without run.json', async () => zipOf({ 'other.json': '{}' }), /holds no run\.json/],
    ['a zip whose entries escape the folder', async () => evilZip(), /escape/],
    ['truncated JSON', async () => zipOf({ 'run.json': JSON.stringify(baselineRecord).slice(0, 50) }), /not valid JSON/],
    ['a record of another schemaVersion', async () => recordZip({ ...baselineRecord, schemaVersion: 2 }), /schemaVersion 2; this evalgate reads run records of schemaVersion 1/],
    ['a record with a wrong field', async () => recordZip({ ...baselineRecord, cases: [{ id: 1 }] }), /not a valid run record at cases/]
  ])('gives no baseline and a notice for %s', async (_label, bytes, message) => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const run = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(run.id, 'evalgate-demo', await bytes())
    const result = await gh.artifacts.findBaseline(query())
    expect(result.record).toBeNull()
    expect(result.notices).toHaveLength(1)
    expect(result.notices[0]).toMatch(/^no baseline: /)
    expect(result.notices[0]).toMatch(message)
  })

  it('says so when no run has the artifact', async () => {
    gh.server.addRun({ head_sha: sha(1) })
    const result = await gh.artifacts.findBaseline(query())
    expect(result).toMatchObject({ record: null, run: null })
    expect(result.notices[0]).toMatch(/no baseline: no run of evals\.yml on main \(push, schedule, workflow_dispatch from acme\/bot\) has a non-expired artifact "evalgate-demo"/)
  })

  it('gives a notice, not an error, when the API refuses', async () => {
    const result = await gh.artifacts.findBaseline(query({ workflow: 'missing.yml' }))
    expect(result.record).toBeNull()
    expect(result.notices[0]).toMatch(/cannot list the runs .*Not Found.*actions: read/)
  })
})

/** A zip with an entry named "../run.json": archiver will not write one, so a safe name is patched. */
async function evilZip(): Promise<Buffer> {
  const zip = await zipOf({ 'xx/run.json': JSON.stringify(baselineRecord) })
  let at = zip.indexOf('xx/run.json')
  while (at !== -1) {
    zip.write('..', at)
    at = zip.indexOf('xx/run.json', at + 1)
  }
  return zip
}
