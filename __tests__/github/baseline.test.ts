/**
 * The baseline lookup against the fake GitHub with the real @actions/artifact
 * and @actions/github clients: which runs qualify (SPEC §7), and that it
 * fails closed (§9): `found`, `none` with a notice, or `error` with the reason.
 */
import { describe, expect, it, jest } from '@jest/globals'
import { zipOf } from '../__fixtures__/github-server.js'
import { caseResult, record, sha, tempDir, useFakeGitHub } from './helpers.js'

const gh = useFakeGitHub()

const baselineRecord = record([caseResult('a', true), caseResult('b', true)])
/** A record in which every case fails: as a baseline, nothing the PR breaks would count as a regression. */
const poisonedRecord = record([caseResult('a', false), caseResult('b', false)])

async function recordZip(value: unknown = baselineRecord): Promise<Buffer> {
  return zipOf({ 'run.json': JSON.stringify(value), 'report.md': '# report' })
}

function query(overrides: Partial<Parameters<typeof gh.baseline.findBaseline>[0]> = {}) {
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

/**
 * Settle a lookup whose artifact client waits 5 s between its retries of a
 * failing blob download: the clock is faked and moved on while the requests
 * go out for real, so the test does not wait out the client's backoff.
 */
async function withRetriesFastForwarded<T>(work: () => Promise<T>): Promise<T> {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'hrtime', 'performance'] })
  try {
    let settled = false
    const pending = work().finally(() => {
      settled = true
    })
    while (!settled) {
      await jest.advanceTimersByTimeAsync(5_000)
      await new Promise((resolve) => setImmediate(resolve))
    }
    return await pending
  } finally {
    jest.useRealTimers()
  }
}

describe('findBaseline: which run', () => {
  it('takes the newest push run of this repository on the branch', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip(record([caseResult('a', false)])))
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({ status: 'found', run: { id: newer.id, sha: sha(2), createdAt: newer.created_at }, notices: [] })
    expect(result.status === 'found' && result.record.cases.map((c) => c.passed)).toEqual([false])
    // the signed download URL is fetched without the token
    const blobGets = gh.server.requests.filter((r) => r.path.startsWith('/blobs/'))
    expect(blobGets).toHaveLength(1)
    expect(blobGets[0]!.authorization).toBeUndefined()
    // its commit was checked against the branch
    expect(gh.server.requests.filter((r) => r.path.startsWith('/repos/acme/bot/compare/')).map((r) => r.path)).toEqual([
      `/repos/acme/bot/compare/main...${sha(2)}`
    ])
  })

  it('ignores newer runs from forks, of pull requests, of other branches and this run itself', async () => {
    const good = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    const poisoned = await recordZip(poisonedRecord)
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
    const result = await gh.baseline.findBaseline(query({ currentRunId: current.id }))
    expect(result).toMatchObject({ status: 'found', run: { id: good.id }, record: baselineRecord })
  })

  it('takes schedule and workflow_dispatch runs of commits in the branch history', async () => {
    const dispatched = gh.server.addRun({ head_sha: sha(1), event: 'workflow_dispatch' })
    gh.server.addArtifact(dispatched.id, 'evalgate-demo', await recordZip())
    // the branch has moved on since: the run's commit is behind its head
    gh.server.addCommit('main', sha(2))
    expect(await gh.baseline.findBaseline(query())).toMatchObject({ status: 'found', run: { id: dispatched.id } })
    const scheduled = gh.server.addRun({ head_sha: sha(2), event: 'schedule' })
    gh.server.addArtifact(scheduled.id, 'evalgate-demo', await recordZip())
    expect(await gh.baseline.findBaseline(query())).toMatchObject({ status: 'found', run: { id: scheduled.id } })
  })

  it('falls back to an older run when the newest artifact expired, and says so', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip(), { expired: true })
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({ status: 'found', run: { id: older.id } })
    expect(result.notices).toEqual([expect.stringContaining(`"evalgate-demo" of run ${newer.id} has expired`)])
  })

  it('treats a 410 at download as expired', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    // listed as live, gone by the time it is downloaded
    gh.server.failDownload(gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip()).id, 410, 'api')
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({ status: 'found', run: { id: older.id } })
    expect(result.notices).toEqual([expect.stringContaining(`of run ${newer.id} has expired`)])
  })

  it('prefers the run of the base commit', async () => {
    const base = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(base.id, 'evalgate-demo', await recordZip())
    const newer = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(newer.id, 'evalgate-demo', await recordZip())
    expect(await gh.baseline.findBaseline(query({ baseSha: sha(1) }))).toMatchObject({ status: 'found', run: { id: base.id } })
    expect(await gh.baseline.findBaseline(query({ baseSha: sha(9) }))).toMatchObject({ status: 'found', run: { id: newer.id } })
  })

  it('pages through runs without the artifact', async () => {
    const good = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    for (let i = 0; i < 120; i++) gh.server.addRun({ head_sha: sha(100 + i), event: 'pull_request' })
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({ status: 'found', run: { id: good.id } })
    expect(gh.server.requests.filter((r) => r.path.endsWith('/runs') && r.query.page === '2')).toHaveLength(1)
  })
})

describe('findBaseline: none', () => {
  it('says so when no run has the artifact', async () => {
    gh.server.addRun({ head_sha: sha(1) })
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({
      status: 'none',
      reason: 'no run of evals.yml on main (push, schedule, workflow_dispatch from acme/bot) has a non-expired artifact "evalgate-demo"'
    })
    expect(result.notices).toEqual([
      'no baseline: no run of evals.yml on main (push, schedule, workflow_dispatch from acme/bot) has a non-expired artifact "evalgate-demo"; comparison skipped, only the absolute floors are gated'
    ])
  })

  it('when every artifact has expired', async () => {
    const run = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(run.id, 'evalgate-demo', await recordZip(), { expired: true })
    const result = await gh.baseline.findBaseline(query())
    expect(result.status).toBe('none')
    expect(result.notices).toEqual([expect.stringContaining(`of run ${run.id} has expired`), expect.stringMatching(/^no baseline: /)])
  })

  it('after looking at a bounded number of runs', async () => {
    for (let i = 0; i < 5; i++) gh.server.addRun({ head_sha: sha(i + 1) })
    const result = await gh.baseline.findBaseline(query({ maxArtifactLookups: 3 }))
    expect(result).toMatchObject({ status: 'none', reason: expect.stringMatching(/^none of the newest 3 runs of evals\.yml on main/) })
    expect(gh.server.requests.filter((r) => r.path.endsWith('/artifacts'))).toHaveLength(3)
  })
})

describe('findBaseline fails closed (issue 12 row 1): a baseline that exists but cannot be used is an error, never "no baseline"', () => {
  it('a 503 from the blob store on every try', async () => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const run = gh.server.addRun({ head_sha: sha(2) })
    gh.server.failDownload(gh.server.addArtifact(run.id, 'evalgate-demo', await recordZip()).id, 503, 'blob')
    const result = await withRetriesFastForwarded(() => gh.baseline.findBaseline(query()))
    expect(result).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(new RegExp(`^the baseline artifact "evalgate-demo" of run ${run.id} could not be read: .*download`))
    })
    // the client tried the blob more than once before giving up, and the older run was not taken instead
    expect(gh.server.requests.filter((r) => r.path.startsWith('/blobs/') && r.status === 503).length).toBeGreaterThan(1)
    expect(result.notices.some((n) => /no baseline/.test(n))).toBe(false)
  })

  it('a 503 from the API that redirects to the blob', async () => {
    const run = gh.server.addRun({ head_sha: sha(1) })
    gh.server.failDownload(gh.server.addArtifact(run.id, 'evalgate-demo', await recordZip()).id, 503, 'api')
    expect(await gh.baseline.findBaseline(query())).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/could not be read: .*Service Unavailable/)
    })
  })

  it.each([
    ['a corrupt zip', async () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]), /could not be read: .*zip/],
    ['a zip without run.json', async () => zipOf({ 'other.json': '{}' }), /holds no run\.json/],
    ['a zip whose entries escape the folder', async () => evilZip(), /escape/],
    ['truncated JSON', async () => zipOf({ 'run.json': JSON.stringify(baselineRecord).slice(0, 50) }), /not valid JSON/],
    [
      'a record of another schemaVersion',
      async () => recordZip({ ...baselineRecord, schemaVersion: 2 }),
      /schemaVersion 2; this evalgate reads run records of schemaVersion 1/
    ],
    ['a record with a wrong field', async () => recordZip({ ...baselineRecord, cases: [{ id: 1 }] }), /not a valid run record at cases/]
  ])('%s', async (_label, bytes, message) => {
    const older = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(older.id, 'evalgate-demo', await recordZip())
    const run = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(run.id, 'evalgate-demo', await bytes())
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({ status: 'error', reason: expect.stringMatching(message), notices: [] })
  })

  it('the API refusing to list the runs', async () => {
    const result = await gh.baseline.findBaseline(query({ workflow: 'missing.yml' }))
    expect(result).toMatchObject({ status: 'error', reason: expect.stringMatching(/^cannot list the runs of missing\.yml on main .*Not Found.*actions: read/) })
  })

  it('the compare API failing', async () => {
    // a branch the server cannot resolve (no commits): compare answers 404
    const run = gh.server.addRun({ head_sha: sha(1) }, { onBranch: false })
    gh.server.addArtifact(run.id, 'evalgate-demo', await recordZip())
    expect(await gh.baseline.findBaseline(query())).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/^cannot tell whether commit 0000000 is in main's history .*Not Found/)
    })
  })
})

describe("findBaseline: a candidate's commit must be in the branch's history (issue 12 row 11)", () => {
  /** A workflow_dispatch on a tag named "main": GitHub reports head_branch "main", but the commit is only on the tag. */
  async function dispatchOnTagMain(): Promise<{ good: number; poisoned: number }> {
    const good = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(good.id, 'evalgate-demo', await recordZip())
    gh.server.tags.set('main', sha(0xbad))
    const poisoned = gh.server.addRun({ head_sha: sha(0xbad), event: 'workflow_dispatch' }, { onBranch: false })
    gh.server.addArtifact(poisoned.id, 'evalgate-demo', await recordZip(poisonedRecord))
    return { good: good.id, poisoned: poisoned.id }
  }

  it('a run of a tag named like the branch is skipped with a notice once the tag is gone', async () => {
    const { good, poisoned } = await dispatchOnTagMain()
    gh.server.tags.delete('main')
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({ status: 'found', run: { id: good }, record: baselineRecord })
    expect(result.notices).toEqual([
      `baseline: run ${poisoned} (workflow_dispatch, commit 0000000) says it ran on main, but its commit is not in main's history (compare: diverged); skipped`
    ])
  })

  it('while the tag exists, the branch name is ambiguous: error, naming the tag', async () => {
    await dispatchOnTagMain()
    const result = await gh.baseline.findBaseline(query())
    expect(result).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/^the repository has a tag named "main".*delete the tag \(git push origin :refs\/tags\/main\)$/)
    })
    // nothing was downloaded
    expect(gh.server.requests.some((r) => r.path.startsWith('/blobs/'))).toBe(false)
  })

  it('even as the run of the base commit', async () => {
    const { good } = await dispatchOnTagMain()
    gh.server.tags.delete('main')
    expect(await gh.baseline.findBaseline(query({ baseSha: sha(0xbad) }))).toMatchObject({ status: 'found', run: { id: good } })
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
