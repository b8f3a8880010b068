/**
 * Upload, names and shard collection against the fake GitHub with the real
 * @actions/artifact and @actions/github clients (the baseline lookup: baseline.test.ts).
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { isRecordArtifactName, shardArtifactName, shardOfArtifactName } from '../../src/github/artifacts/names.js'
import { zipOf } from '../__fixtures__/github-server.js'
import { caseResult, record, sha, tempDir, useFakeGitHub } from './helpers.js'

const gh = useFakeGitHub()

const baselineRecord = record([caseResult('a', true), caseResult('b', true)])

async function recordZip(value: unknown = baselineRecord): Promise<Buffer> {
  return zipOf({ 'run.json': JSON.stringify(value), 'report.md': '# report' })
}

function target() {
  return {
    octokit: gh.context.createOctokit('t0ken', { apiUrl: gh.server.url }),
    client: new gh.DefaultArtifactClient(),
    token: 't0ken',
    owner: gh.server.owner,
    repo: gh.server.repo,
    tempDir: tempDir()
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
    const result = await gh.upload.uploadRunArtifact({
      client: new gh.DefaultArtifactClient(),
      name: 'evalgate-demo',
      files: list,
      rootDir: dir,
      runAttempt: 1
    })
    expect(result).toMatchObject({ name: 'evalgate-demo', notice: null })
    const [uploaded] = gh.server.uploaded(run.id)
    expect(uploaded?.name).toBe('evalgate-demo')
    expect(await gh.download.recordFromArtifactBytes(uploaded!.bytes, 'uploaded')).toEqual(baselineRecord)
    // the blob went to the signed URL without the runtime token
    const blobPuts = gh.server.requests.filter((r) => r.method === 'PUT')
    expect(blobPuts.length).toBeGreaterThan(0)
    expect(blobPuts.every((r) => r.authorization === undefined)).toBe(true)
  })

  it('takes an -attempt-<n> name when a re-run finds the name taken', async () => {
    gh.server.addRun({ id: 1, head_sha: sha(1) })
    gh.server.addArtifact(1, 'evalgate-demo', await recordZip())
    const { dir, files: list } = files()
    const result = await gh.upload.uploadRunArtifact({
      client: new gh.DefaultArtifactClient(),
      name: 'evalgate-demo',
      files: list,
      rootDir: dir,
      runAttempt: 2
    })
    expect(result.name).toBe('evalgate-demo-attempt-2')
    expect(result.notice).toMatch(/earlier attempt/)
    expect(gh.server.uploaded(1).map((a) => a.name)).toEqual(['evalgate-demo-attempt-2'])
  })

  it('explains a name taken by another job of the same attempt', async () => {
    gh.server.addRun({ id: 1, head_sha: sha(1) })
    gh.server.addArtifact(1, 'evalgate-demo', await recordZip())
    const { dir, files: list } = files()
    await expect(
      gh.upload.uploadRunArtifact({ client: new gh.DefaultArtifactClient(), name: 'evalgate-demo', files: list, rootDir: dir, runAttempt: 1 })
    ).rejects.toThrow(/already exists in this workflow run: two jobs .* artifact-name/)
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
    expect(isRecordArtifactName(name, 'evalgate-demo')).toBe(expected)
  })
})

describe('shard artifact names', () => {
  it('names shard i of n after the run artifact', () => {
    expect(shardArtifactName('evalgate-demo', { index: 2, count: 4 })).toBe('evalgate-demo-shard-2-of-4')
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
    expect(shardOfArtifactName(name, 'evalgate-demo')).toEqual(shard)
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
    const shards = await gh.shards.fetchShardRecords(target(), run.id, 'evalgate-demo')
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
    const fetching = gh.shards.fetchShardRecords(target(), run.id, 'evalgate-demo')
    await expect(fetching).rejects.toThrow(RecordError)
    await expect(gh.shards.fetchShardRecords(target(), run.id, 'evalgate-demo')).rejects.toThrow(message)
  })
})

describe('fetchShardRecords: what the shard jobs could not vouch for (SPEC §9)', () => {
  const shardRecord = (shard: string) => record([caseResult('a', true)], { config: { repeat: 1, shard } })

  it('refuses a shard whose job found the record it uploaded was not the one it computed', async () => {
    const run = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-1-of-2', await recordZip(shardRecord('1/2')))
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2', await recordZip(shardRecord('2/2')))
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2-unverified', Buffer.from('x'))
    await expect(gh.shards.fetchShardRecords(target(), run.id, 'evalgate-demo', 1)).rejects.toThrow(
      /the shard artifact "evalgate-demo-shard-2-of-2" of run \d+ is not the one its job computed \(the job left "evalgate-demo-shard-2-of-2-unverified"\)/
    )
    // a re-run of that shard job (attempt 2) uploads a record of its own, which is merged
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-2-of-2-attempt-2', await recordZip(shardRecord('2/2')))
    const shards = await gh.shards.fetchShardRecords(target(), run.id, 'evalgate-demo', 2)
    expect(shards.map((s) => s.file)).toEqual(['artifact "evalgate-demo-shard-1-of-2"', 'artifact "evalgate-demo-shard-2-of-2-attempt-2"'])
  })

  it('refuses a shard artifact claiming a later attempt than this one: no shard job of the run uploaded it', async () => {
    const run = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-1-of-1', await recordZip(shardRecord('1/1')))
    gh.server.addArtifact(run.id, 'evalgate-demo-shard-1-of-1-attempt-3', await recordZip(shardRecord('1/1')))
    await expect(gh.shards.fetchShardRecords(target(), run.id, 'evalgate-demo', 2)).rejects.toThrow(
      /"evalgate-demo-shard-1-of-1-attempt-3" of run \d+ claims attempt 3, but this is attempt 2/
    )
  })
})

describe('verifyUploadedRecord: the artifact holds the record written', () => {
  it('reads the upload back and compares its run.json with the digest of what was written', async () => {
    const run = gh.server.addRun({ id: 77, head_sha: sha(1) })
    const dir = tempDir()
    const file = path.join(dir, 'run.json')
    const { writeJsonAtomic } = await import('../../src/util/json-writer.js')
    const { createHash } = await import('node:crypto')
    const { readFileSync } = await import('node:fs')
    const written = await writeJsonAtomic(file, baselineRecord)
    // the digest is that of the bytes on disk, computed as they were written
    expect(written).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'))
    const uploaded = await gh.upload.uploadRunArtifact({
      client: new gh.DefaultArtifactClient(),
      name: 'evalgate-demo',
      files: [file],
      rootDir: dir,
      runAttempt: 1
    })
    const { verifyUploadedRecord } = await import('../../src/github/artifacts/verify.js')
    const artifact = { name: uploaded.name, id: uploaded.id!, digest: uploaded.digest }
    expect(uploaded.digest).toMatch(/^[0-9a-f]{64}$/)
    expect(await verifyUploadedRecord(target(), run.id, artifact, written)).toBeNull()
    // another record than the one written: what it holds instead
    expect(await verifyUploadedRecord(target(), run.id, artifact, 'f'.repeat(64))).toEqual({ found: written })
    // an artifact that cannot be read back: why
    gh.server.failDownload(uploaded.id!, 503)
    expect(await verifyUploadedRecord(target(), run.id, artifact, written)).toMatchObject({ error: expect.stringMatching(/503|Service Unavailable|failed/i) })
  })
})
