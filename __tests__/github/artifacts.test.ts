/**
 * Upload, baseline lookup and download against the fake GitHub with the real
 * @actions/artifact and @actions/github clients.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals'
import { GitHubServer, zipOf } from '../__fixtures__/github-server.js'
import { caseResult, record, restoreEnv, sha, startGitHub, tempDir } from './helpers.js'

let server: GitHubServer
let artifacts: typeof import('../../src/github/artifacts.js')
let ctxModule: typeof import('../../src/github/context.js')
let DefaultArtifactClient: typeof import('@actions/artifact').DefaultArtifactClient

beforeAll(async () => {
  server = await startGitHub()
  artifacts = await import('../../src/github/artifacts.js')
  ctxModule = await import('../../src/github/context.js')
  ;({ DefaultArtifactClient } = await import('@actions/artifact'))
})

afterAll(async () => {
  await server.close()
  restoreEnv()
})

beforeEach(() => {
  server.reset()
  // the clients log through @actions/core; keep the test output readable
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true)
})

const baselineRecord = record([caseResult('a', true), caseResult('b', true)])

async function recordZip(value: unknown = baselineRecord): Promise<Buffer> {
  return zipOf({ 'run.json': JSON.stringify(value), 'report.md': '# report' })
}

function query(overrides: Partial<Parameters<typeof artifacts.findBaseline>[0]> = {}) {
  return {
    octokit: ctxModule.createOctokit('t0ken', { apiUrl: server.url }),
    client: new DefaultArtifactClient(),
    token: 't0ken',
    owner: server.owner,
    repo: server.repo,
    repository: server.repository,
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
    const run = server.addRun({ id: 1, head_sha: sha(1) })
    const { dir, files: list } = files()
    const result = await artifacts.uploadRunArtifact({ client: new DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 1 })
    expect(result).toMatchObject({ name: 'evalgate-demo', notice: null })
    const [uploaded] = server.uploaded(run.id)
    expect(uploaded?.name).toBe('evalgate-demo')
    expect(await artifacts.recordFromArtifactBytes(uploaded!.bytes, 'uploaded')).toEqual(baselineRecord)
    // the blob went to the signed URL without the runtime token
    const blobPuts = server.requests.filter((r) => r.method === 'PUT')
    expect(blobPuts.length).toBeGreaterThan(0)
    expect(blobPuts.every((r) => r.authorization === undefined)).toBe(true)
  })

  it('takes an -attempt-<n> name when a re-run finds the name taken', async () => {
    server.addRun({ id: 1, head_sha: sha(1) })
    server.addArtifact(1, 'evalgate-demo', await recordZip())
    const { dir, files: list } = files()
    const result = await artifacts.uploadRunArtifact({ client: new DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 2 })
    expect(result.name).toBe('evalgate-demo-attempt-2')
    expect(result.notice).toMatch(/earlier attempt/)
    expect(server.uploaded(1).map((a) => a.name)).toEqual(['evalgate-demo-attempt-2'])
  })

  it('explains a name taken by another job of the same attempt', async () => {
    server.addRun({ id: 1, head_sha: sha(1) })
    server.addArtifact(1, 'evalgate-demo', await recordZip())
    const { dir, files: list } = files()
    await expect(artifacts.uploadRunArtifact({ client: new DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 1 })).rejects.toThrow(
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
    expect(artifacts.isRecordArtifactName(name, 'evalgate-demo')).toBe(expected)
  })
})

describe('shard artifact names', () => {
  it('names shard i of n after the run artifact', () => {
    expect(artifacts.shardArtifactName('evalgate-demo', { index: 2, count: 4 })).toBe('evalgate-demo-shard-2-of-4')
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
    expect(artifacts.shardOfArtifactName(name, 'evalgate-demo')).toEqual(shard)
  })
})

describe('fetchShardRecords', () => {
  const shardRecord = (shard: string | null, cases = [caseResult('a', true)]) => record(cases, { config: { repeat: 1, shard } })

  it('takes the newest live upload of each shard, in shard order', async () => {
    const run = server.addRun({ head_sha: sha(1) })
    server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2', await recordZip(shardRecord('2/2', [caseResult('b', false)])))
    server.addArtifact(run.id, 'evalgate-demo-shard-1-of-2', await recordZip(shardRecord('1/2')))
    server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2-attempt-2', await recordZip(shardRecord('2/2', [caseResult('b', true)])))
    server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2-attempt-3', await recordZip(shardRecord('2/2')), { expired: true })
    server.addArtifact(run.id, 'evalgate-demo', await recordZip())
    const shards = await artifacts.fetchShardRecords(query(), run.id, 'evalgate-demo')
    expect(shards.map((s) => s.file)).toEqual(['artifact "evalgate-demo-shard-1-of-2"', 'artifact "evalgate-demo-shard-2-of-2-attempt-2"'])
    expect(shards[1]!.record.cases.map((c) => c.passed)).toEqual([true])
  })

  it.each<[string, () => Promise<Buffer>, RegExp]>([
    ['unreadable', () => Promise.resolve(Buffer.from('PK\x03\x04 not a zip')), /^the shard artifact "evalgate-demo-shard-1-of-2" of run \d+ is unreadable: /],
    ['of another shard', () => recordZip(shardRecord('2/2')), /holds the record of shard 2\/2, not of shard 1\/2$/],
    ['not a shard record', () => recordZip(shardRecord(null)), /holds a record of no shard, not of shard 1\/2$/]
  ])('refuses a shard artifact that is %s', async (_label, bytes, message) => {
    const run = server.addRun({ head_sha: sha(1) })
    server.addArtifact(run.id, 'evalgate-demo-shard-1-of-2', await bytes())
    const { RecordError } = await import('../../src/errors.js')
    const fetching = artifacts.fetchShardRecords(query(), run.id, 'evalgate-demo')
    await expect(fetching).rejects.toThrow(RecordError)
    await expect(artifacts.fetchShardRecords(query(), run.id, 'evalgate-demo')).rejects.toThrow(message)
  })
})

describe('findBaseline', () => {
  it('takes the newest push run of this repository on the branch', async () => {
    const older = server.addRun({ head_sha: sha(1) })
    server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = server.addRun({ head_sha: sha(2) })
    server.addArtifact(newer.id, 'evalgate-demo', await recordZip(record([caseResult('a', false)])))
    const result = await artifacts.findBaseline(query())
    expect(result.run).toMatchObject({ id: newer.id, sha: sha(2), createdAt: newer.created_at })
    expect(result.record?.cases.map((c) => c.passed)).toEqual([false])
    expect(result.notices).toEqual([])
    // the signed download URL is fetched without the token
    const blobGets = server.requests.filter((r) => r.path.startsWith('/blobs/'))
    expect(blobGets).toHaveLength(1)
    expect(blobGets[0]!.authorization).toBeUndefined()
  })

  it('ignores newer runs from forks, of pull requests, of other branches and this run itself', async () => {
    const good = server.addRun({ head_sha: sha(1) })
    server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    const poisoned = await recordZip(record([caseResult('a', false)]))
    for (const run of [
      server.addRun({ head_sha: sha(2), head_repository: 'mallory/bot' }),
      server.addRun({ head_sha: sha(3), event: 'pull_request' }),
      server.addRun({ head_sha: sha(4), event: 'pull_request_target' }),
      server.addRun({ head_sha: sha(5), head_branch: 'feature' })
    ]) {
      server.addArtifact(run.id, 'evalgate-demo', poisoned)
    }
    const current = server.addRun({ head_sha: sha(6) })
    server.addArtifact(current.id, 'evalgate-demo', poisoned)
    const result = await artifacts.findBaseline(query({ currentRunId: current.id }))
    expect(result.run?.id).toBe(good.id)
    expect(result.record).toEqual(baselineRecord)
  })

  it('falls back to an older run when the newest artifact expired, and says so', async () => {
    const older = server.addRun({ head_sha: sha(1) })
    server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = server.addRun({ head_sha: sha(2) })
    server.addArtifact(newer.id, 'evalgate-demo', await recordZip(), { expired: true })
    const result = await artifacts.findBaseline(query())
    expect(result.run?.id).toBe(older.id)
    expect(result.notices).toEqual([expect.stringContaining(`"evalgate-demo" of run ${newer.id} has expired`)])
  })

  it('treats a 410 at download as expired', async () => {
    const older = server.addRun({ head_sha: sha(1) })
    server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = server.addRun({ head_sha: sha(2) })
    // listed as live, gone by the time it is downloaded
    server.goneOnDownload.add(server.addArtifact(newer.id, 'evalgate-demo', await recordZip()).id)
    const result = await artifacts.findBaseline(query())
    expect(result.run?.id).toBe(older.id)
    expect(result.notices).toEqual([expect.stringContaining(`of run ${newer.id} has expired`)])
  })

  it('prefers the run of the base commit', async () => {
    const base = server.addRun({ head_sha: sha(1) })
    server.addArtifact(base.id, 'evalgate-demo', await recordZip())
    const newer = server.addRun({ head_sha: sha(2) })
    server.addArtifact(newer.id, 'evalgate-demo', await recordZip())
    expect((await artifacts.findBaseline(query({ baseSha: sha(1) }))).run?.id).toBe(base.id)
    expect((await artifacts.findBaseline(query({ baseSha: sha(9) }))).run?.id).toBe(newer.id)
  })

  it('pages through runs without the artifact', async () => {
    const good = server.addRun({ head_sha: sha(1) })
    server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    for (let i = 0; i < 120; i++) server.addRun({ head_sha: sha(100 + i), event: 'pull_request' })
    const result = await artifacts.findBaseline(query())
    expect(result.run?.id).toBe(good.id)
    expect(server.requests.filter((r) => r.path.endsWith('/runs') && r.query.page === '2')).toHaveLength(1)
  })

  it.each([
    ['a corrupt zip', async () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]), /is unreadable: .*zip/],
    ['a zip without run.json', async () => zipOf({ 'other.json': '{}' }), /holds no run\.json/],
    ['a zip whose entries escape the folder', async () => evilZip(), /escape/],
    ['truncated JSON', async () => zipOf({ 'run.json': JSON.stringify(baselineRecord).slice(0, 50) }), /not valid JSON/],
    ['a record of another schemaVersion', async () => recordZip({ ...baselineRecord, schemaVersion: 2 }), /schemaVersion 2; this evalgate reads run records of schemaVersion 1/],
    ['a record with a wrong field', async () => recordZip({ ...baselineRecord, cases: [{ id: 1 }] }), /not a valid run record at cases/]
  ])('gives no baseline and a notice for %s', async (_label, bytes, message) => {
    const older = server.addRun({ head_sha: sha(1) })
    server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const run = server.addRun({ head_sha: sha(2) })
    server.addArtifact(run.id, 'evalgate-demo', await bytes())
    const result = await artifacts.findBaseline(query())
    expect(result.record).toBeNull()
    expect(result.notices).toHaveLength(1)
    expect(result.notices[0]).toMatch(/^no baseline: /)
    expect(result.notices[0]).toMatch(message)
  })

  it('says so when no run has the artifact', async () => {
    server.addRun({ head_sha: sha(1) })
    const result = await artifacts.findBaseline(query())
    expect(result).toMatchObject({ record: null, run: null })
    expect(result.notices[0]).toMatch(/no baseline: no run of evals\.yml on main \(push, schedule, workflow_dispatch from acme\/bot\) has a non-expired artifact "evalgate-demo"/)
  })

  it('gives a notice, not an error, when the API refuses', async () => {
    const result = await artifacts.findBaseline(query({ workflow: 'missing.yml' }))
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
