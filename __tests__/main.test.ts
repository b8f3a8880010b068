/**
 * The action end to end: run() with the runner's environment against a fake
 * GitHub on 127.0.0.1, through the real @actions/core, @actions/github and
 * @actions/artifact clients and the real engine (a `module` agent).
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { BASE, HEAD, MARKER, PR, useAction } from './__fixtures__/action.js'
import { GITHUB_ACTIONS_BOT, zipOf } from './__fixtures__/github-server.js'
import { prPayload, runBundle, type RunResult } from './github/harness.js'
import { sha } from './github/helpers.js'

const suite = useAction()
const { action, mainRun, prRun, ours } = suite

function notices(result: RunResult): string[] {
  return result.stdout
    .split('\n')
    .filter((l) => l.startsWith('::notice'))
    .map((l) => l.replace(/^::notice[^:]*::/, ''))
}

/** Workflow commands in model output are only ever printed between ::stop-commands:: and its token. */
function expectCommandsStopped(stdout: string): void {
  const lines = stdout.split('\n')
  let stoppedBy: string | null = null
  let seen = 0
  for (const line of lines) {
    const stop = /^::stop-commands::(\S+)$/.exec(line)
    if (stop) stoppedBy = stop[1]!
    else if (stoppedBy && line === `::${stoppedBy}::`) stoppedBy = null
    else if (line.startsWith('::warning::injected')) {
      expect(stoppedBy).not.toBeNull()
      seen++
    }
  }
  expect(stoppedBy).toBeNull()
  expect(seen).toBeGreaterThan(0)
}

describe('mode: run', () => {
  it('on a push without a baseline: a notice, floors only, the record uploaded', async () => {
    const runRecord = suite.server.addRun({ head_sha: BASE })
    const result = await action({ event: 'push', runId: runRecord.id, sha: BASE, payload: { repository: { default_branch: 'main' } } })
    expect(result.exitCode).toBeUndefined()
    expect(notices(result)).toEqual([
      expect.stringMatching(
        /^no baseline: no run of evals\.yml on main .* has a non-expired artifact "evalgate-demo"; comparison skipped, only the absolute floors are gated$/
      )
    ])
    expect(result.outputs).toMatchObject({
      gate: 'pass',
      total: '3',
      passed: '3',
      'pass-rate': '1',
      'mean-score': '',
      regressed: '0',
      fixed: '0',
      'baseline-run-id': '',
      'badge-message': '100%',
      'badge-color': 'brightgreen'
    })
    const [uploaded] = suite.server.uploaded(runRecord.id)
    const { recordFromArtifactBytes } = await import('../src/github/artifacts/download.js')
    const record = await recordFromArtifactBytes(uploaded!.bytes, 'uploaded')
    expect(record.cases.map((c) => c.id)).toEqual(['capital', 'math', 'greet'])
    expect(JSON.parse(readFileSync(result.outputs['results-path']!, 'utf8'))).toEqual(record)
    expect(readFileSync(result.outputs['report-path']!, 'utf8')).toBe(result.summary.trimEnd())
    expect(result.summary).toContain('gate passed')
    // said once: the lookup's notice, not a second generic one
    expect(result.summary.match(/no baseline:/g)).toHaveLength(1)
    // not a pull request: nothing to comment on
    expect(suite.server.requests.some((r) => r.path.includes('/comments'))).toBe(false)
  })

  it('with regressions: uploads, comments, summarises and sets outputs, then fails the check', async () => {
    const baselineRun = await mainRun()
    const result = await prRun({ broken: ['capital'] })

    expect(result.exitCode).toBe(1)
    const failure = result.stdout.split('\n').find((l) => l.startsWith('::error::evalgate:'))
    expect(failure).toMatch(/regress/)
    expect(failure).not.toMatch(/\bat .*\.ts:\d+/)

    // everything written before the verdict
    const verdictAt = result.timeline.findIndex((l) => l.startsWith('::error::evalgate:'))
    const finalizeAt = result.timeline.indexOf('POST /twirp/github.actions.results.api.v1.ArtifactService/FinalizeArtifact')
    const commentAt = result.timeline.indexOf(`POST /repos/acme/bot/issues/${PR}/comments`)
    expect(finalizeAt).toBeGreaterThan(-1)
    expect(commentAt).toBeGreaterThan(-1)
    expect(finalizeAt).toBeLessThan(verdictAt)
    expect(commentAt).toBeLessThan(verdictAt)
    expect(suite.server.uploaded(result.runId).map((a) => a.name)).toEqual(['evalgate-demo'])

    expect(result.outputs).toMatchObject({
      gate: 'fail',
      total: '3',
      passed: '2',
      'pass-rate': '0.6667',
      regressed: '1',
      fixed: '0',
      'baseline-run-id': String(baselineRun),
      'badge-message': '66.6%',
      'badge-color': 'orange'
    })

    const [comment] = ours()
    expect(suite.server.commentsOn(PR)).toHaveLength(1)
    expect(comment!.body.startsWith(MARKER)).toBe(true)
    expect(comment!.body).toContain('gate failed')
    expect(comment!.body).toContain('capital')
    expect(comment!.body.length).toBeLessThanOrEqual(60_000)
    expect(comment!.body).toContain(`[workflow run ${baselineRun}](https://github.com/acme/bot/actions/runs/${baselineRun})`)
    expect(comment!.body).toContain(`[workflow run ${result.runId}](https://github.com/acme/bot/actions/runs/${result.runId})`)
    expect(result.summary).toContain('capital')

    // an annotation at the case's line in the dataset
    expect(result.stdout).toMatch(
      /^::error title=evalgate%3A regressed%3A capital,file=cases\.yaml,line=2::case "capital" passed on the baseline and fails now: contains: /m
    )
    expectCommandsStopped(result.stdout)
  })

  it('updates its one comment, found behind 120 others, on the next push', async () => {
    await mainRun()
    for (let i = 0; i < 120; i++) suite.server.addComment(PR, `comment ${i}`, i % 3 ? { login: `user${i}`, type: 'User' } : GITHUB_ACTIONS_BOT)
    // someone quoting the marker is not the sticky comment
    suite.server.addComment(PR, `> ${MARKER}\n> quoted`, { login: 'mallory', type: 'User' })

    const first = await prRun({ broken: ['capital'] })
    expect(first.exitCode).toBe(1)
    const [created] = ours().filter((c) => c.body.startsWith(MARKER))
    expect(created!.body).toContain('gate failed')

    const second = await prRun({ broken: [] })
    expect(second.exitCode).toBeUndefined()
    const sticky = ours().filter((c) => c.body.startsWith(MARKER))
    expect(sticky).toHaveLength(1)
    expect(sticky[0]!.id).toBe(created!.id)
    expect(sticky[0]!.body).toContain('gate passed')
    expect(suite.server.commentsOn(PR)).toHaveLength(122)
    expect(suite.server.requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([`/repos/acme/bot/issues/comments/${created!.id}`])
    expect(suite.server.requests.some((r) => r.path.endsWith(`/issues/${PR}/comments`) && r.method === 'GET' && r.query.page === '2')).toBe(true)
  })

  it('never takes the baseline from a newer run of a fork', async () => {
    const baselineRun = await mainRun()
    // a fork's run that claims to be on main, with an artifact in which every case fails (so nothing would regress)
    const fork = suite.server.addRun({ head_sha: sha(0xf04c), head_repository: 'mallory/bot', event: 'push' })
    const poisoned = JSON.parse(readFileSync(path.join(suite.files.temp, 'evalgate-evalgate-demo', 'run.json'), 'utf8')) as {
      cases: Array<{ passed: boolean }>
    }
    for (const c of poisoned.cases) c.passed = false
    suite.server.addArtifact(fork.id, 'evalgate-demo', await zipOf({ 'run.json': JSON.stringify(poisoned) }))

    const result = await prRun({ broken: ['capital'] })
    expect(result.outputs['baseline-run-id']).toBe(String(baselineRun))
    expect(result.outputs.regressed).toBe('1')
    expect(result.exitCode).toBe(1)
  })

  it('never takes the baseline from a workflow_dispatch on a tag named like the branch', async () => {
    // not the PR's base commit: the lookup goes newest first and meets the tag's run first
    const baselineRun = await mainRun({ sha: sha(1) })
    // the tag "main" points at a commit that is on no branch; the dispatch on it reports head_branch "main"
    const onTag = suite.server.addRun({ head_sha: sha(0x7a9), event: 'workflow_dispatch' }, { onBranch: false })
    const poisoned = JSON.parse(readFileSync(path.join(suite.files.temp, 'evalgate-evalgate-demo', 'run.json'), 'utf8')) as {
      cases: Array<{ passed: boolean }>
    }
    for (const c of poisoned.cases) c.passed = false
    suite.server.addArtifact(onTag.id, 'evalgate-demo', await zipOf({ 'run.json': JSON.stringify(poisoned) }))

    const result = await prRun({ broken: ['capital'] })
    expect(result.outputs).toMatchObject({ 'baseline-run-id': String(baselineRun), 'baseline-status': 'found', regressed: '1', gate: 'fail' })
    expect(notices(result)).toContainEqual(
      expect.stringContaining(`run ${onTag.id} (workflow_dispatch, commit 0000000) says it ran on main, but its commit is not in main's history`)
    )
    expect(result.exitCode).toBe(1)
  })

  it('falls back to an older baseline when the newest artifact expired', async () => {
    const older = await mainRun({ sha: sha(1) })
    const newer = await mainRun({ sha: sha(2) })
    for (const a of suite.server.artifacts) if (a.run_id === newer) a.expired = true
    const result = await prRun()
    expect(result.outputs['baseline-run-id']).toBe(String(older))
    expect(notices(result)).toContainEqual(expect.stringContaining(`of run ${newer} has expired`))
  })

  it('finds the workflow from the run and the default branch from the repository when the runner does not say', async () => {
    suite.server.defaultBranch = 'trunk'
    const baselineRun = suite.server.addRun({ head_sha: BASE, head_branch: 'trunk' })
    await action({ event: 'push', runId: baselineRun.id, sha: BASE })
    const current = suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature' })
    const payload = { number: PR, pull_request: { number: PR, head: { sha: HEAD }, base: { sha: BASE, ref: 'trunk' } } }
    const result = await action({ event: 'pull_request', runId: current.id, sha: HEAD, payload, broken: ['math'], env: { GITHUB_WORKFLOW_REF: undefined } })
    expect(result.outputs).toMatchObject({ 'baseline-run-id': String(baselineRun.id), regressed: '1' })
    expect(suite.server.requests.some((r) => r.path === `/repos/acme/bot/actions/runs/${current.id}`)).toBe(true)
    expect(suite.server.requests.some((r) => r.path === '/repos/acme/bot')).toBe(true)
    // the marker falls back to the workflow's name
    expect(suite.server.commentsOn(PR)[0]!.body.startsWith('<!-- evalgate:evals:demo -->')).toBe(true)
  })

  it('prefers the run of the PR base commit to a newer one', async () => {
    const atBase = await mainRun({ sha: BASE })
    await mainRun({ sha: sha(3) })
    const result = await prRun()
    expect(result.outputs['baseline-run-id']).toBe(String(atBase))
  })

  it('with a read-only token (fork PR): a notice, the summary and outputs still written', async () => {
    await mainRun()
    suite.server.canWrite = false
    const result = await prRun({ broken: ['math'] })
    expect(result.exitCode).toBe(1)
    expect(notices(result)).toContainEqual(
      expect.stringMatching(
        /^comment skipped: the token cannot write to this pull request \(fork\?\) — the workflow_run comment workflow comments for forks \(evalgate init --fork-safe writes it; docs\/action\.md\)/
      )
    )
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
    expect(result.summary).toContain('math')
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '1' })
    expect(suite.server.uploaded(result.runId)).toHaveLength(1)
  })

  it.each([
    ['a corrupt zip', () => Promise.resolve(Buffer.from('PK\x03\x04 this is not a zip'))],
    ['a record of another schemaVersion', () => zipOf({ 'run.json': JSON.stringify({ schemaVersion: 99, cases: [] }) })]
  ])('fails closed on %s: the check fails with the reason, never "no baseline"', async (_label, bytes) => {
    const baselineRun = suite.server.addRun({ head_sha: BASE })
    suite.server.addArtifact(baselineRun.id, 'evalgate-demo', await bytes())
    const result = await prRun({ broken: ['capital'] })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /^::error::evalgate: .*the baseline exists but could not be read, so regressions cannot be ruled out: the baseline artifact "evalgate-demo" of run \d+ could not be read: /m
    )
    expect(notices(result).some((n) => n.startsWith('no baseline'))).toBe(false)
    expect(result.outputs).toMatchObject({ gate: 'fail', 'baseline-status': 'error', 'baseline-run-id': '' })
    expect(ours()[0]!.body).toContain('could not be read, so regressions cannot be ruled out: the baseline artifact')
  })

  it('fails closed when the blob store answers 503 for the baseline', async () => {
    await mainRun()
    // the REST redirect answers 503 (the blob store's 503 is the same error after the client's 5 s retries: ../github/baseline.test.ts)
    for (const a of suite.server.artifacts) suite.server.failDownload(a.id, 503, 'api')
    const result = await prRun()
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(
      /^::error::evalgate: the baseline exists but could not be read, so regressions cannot be ruled out: .*could not be read: .*Service Unavailable/m
    )
    expect(result.outputs).toMatchObject({ gate: 'fail', 'baseline-status': 'error' })
    expect(ours()[0]!.body).toMatch(/^> \[!CAUTION\]|evalgate could not tell/m)
  })

  it('fails on the min-pass-rate floor without a baseline', async () => {
    const result = await prRun({ broken: ['capital'], inputs: { 'min-pass-rate': '90%' } })
    expect(result.exitCode).toBe(1)
    expect(result.outputs.gate).toBe('fail')
  })

  it('reports a failed gate without failing the check when fail-on-regression is false', async () => {
    await mainRun()
    const result = await prRun({ broken: ['capital'], inputs: { 'fail-on-regression': 'false' } })
    expect(result.exitCode).toBeUndefined()
    expect(result.outputs.gate).toBe('fail')
    expect(result.stdout).toMatch(/^::warning::evalgate: gate failed, but fail-on-regression is false: the check was left green on purpose/m)
  })

  it('lets max-regressions override the config', async () => {
    await mainRun()
    const result = await prRun({ broken: ['capital'], inputs: { 'max-regressions': '1', 'max-pass-rate-drop': '0.5' } })
    expect(result.exitCode).toBeUndefined()
    expect(result.outputs).toMatchObject({ gate: 'pass', regressed: '1' })
  })

  it('compares with a local baseline file without looking one up', async () => {
    const baselineRun = await mainRun()
    const local = path.join(suite.ws.dir, 'baseline.json')
    writeFileSync(local, readFileSync(path.join(suite.files.temp, 'evalgate-evalgate-demo', 'run.json')))
    suite.server.requests = []
    const result = await prRun({ broken: ['greet'], inputs: { baseline: local } })
    expect(result.outputs).toMatchObject({ regressed: '1', 'baseline-run-id': '' })
    expect(suite.server.requests.some((r) => r.path.includes('/actions/workflows/'))).toBe(false)
    expect(baselineRun).toBeGreaterThan(0)
  })

  it('comment: never posts nothing; on-change stays quiet while nothing flips', async () => {
    await mainRun()
    await prRun({ inputs: { comment: 'never' }, broken: ['capital'] })
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
    await prRun({ inputs: { comment: 'on-change' } })
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
    await prRun({ inputs: { comment: 'on-change' }, broken: ['capital'] })
    expect(ours()).toHaveLength(1)
    const id = ours()[0]!.id
    // still failing, the same flip: updated (a flip is a change worth showing)
    await prRun({ inputs: { comment: 'on-change' }, broken: ['capital'] })
    expect(ours().map((c) => c.id)).toEqual([id])
  })

  it('writes a badge SVG where badge-path says', async () => {
    const badge = path.join(suite.ws.dir, 'badges', 'evals.svg')
    const result = await prRun({ broken: ['capital'], inputs: { 'badge-path': badge } })
    expect(result.outputs['badge-message']).toBe('66.6%')
    expect(readFileSync(badge, 'utf8')).toContain('66.6%')
  })

  it('never passes a run cut short by cancellation, and still publishes what finished', async () => {
    // one call at a time: greet's call starts (and hangs) only once capital's and math's have answered,
    // so both are graded before the cancellation, however slow the machine
    appendFileSync(suite.ws.config, 'concurrency: 1\n')
    await mainRun()
    const file = path.join(suite.ws.dir, 'hanging')
    const pending = prRun({ hang: { id: 'greet', file }, inputs: { 'fail-on-regression': 'false' } })
    while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 10))
    // what the runner sends when the workflow is cancelled
    process.emit('SIGTERM')
    const result = await pending
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/^::error::evalgate: .*the run is incomplete/m)
    expect(result.outputs).toMatchObject({ gate: 'fail', total: '2' })
    const { recordFromArtifactBytes } = await import('../src/github/artifacts/download.js')
    const uploaded = await recordFromArtifactBytes(suite.server.uploaded(result.runId)[0]!.bytes, 'uploaded')
    expect(uploaded.complete).toBe(false)
    expect(uploaded.cases.map((c) => c.id)).toEqual(['capital', 'math'])
    expect(ours()).toHaveLength(1)
    expect(process.listenerCount('SIGTERM')).toBe(0)
  })

  it('uploads under -attempt-<n> on a re-run', async () => {
    const runRecord = suite.server.addRun({ head_sha: BASE })
    await action({ event: 'push', runId: runRecord.id, sha: BASE })
    const again = await action({ event: 'push', runId: runRecord.id, sha: BASE, attempt: 2 })
    expect(again.exitCode).toBeUndefined()
    expect(suite.server.uploaded(runRecord.id).map((a) => a.name)).toEqual(['evalgate-demo', 'evalgate-demo-attempt-2'])
    expect(notices(again)).toContainEqual(expect.stringContaining('uploaded as "evalgate-demo-attempt-2"'))
  })
})

describe('user errors', () => {
  it.each([
    [{ 'max-regressions': 'x' }, 'evalgate: max-regressions: "x" is not a whole number (0, 1, 2, …)'],
    [{ 'min-pass-rate': '1.5' }, 'evalgate: min-pass-rate: "1.5" is not a fraction between 0 and 1 (0.02 or 2% = two points)'],
    [{ comment: 'sometimes' }, 'evalgate: comment: "sometimes" is not one of always, on-change, never'],
    [{ 'fail-on-regression': 'yes' }, 'evalgate: fail-on-regression: "yes" is not a boolean; use true or false'],
    [{ shard: '3/2' }, 'evalgate: shard "3/2": use i/n with 1 ≤ i ≤ n, e.g. 1/4'],
    [{ mode: 'merge', shard: '1/2' }, 'evalgate: shard: only for mode: run']
  ])('%j fails with a message and no stack', async (inputs, message) => {
    const result = await prRun({ inputs })
    expect(result.exitCode).toBe(1)
    // workflow command data escapes %, CR and LF
    const error = result.stdout
      .split('\n')
      .find((l) => l.startsWith('::error::'))
      ?.replace(/%0A/g, '\n')
      .replace(/%0D/g, '\r')
      .replace(/%25/g, '%')
    expect(error).toContain(message)
    expect(error).not.toMatch(/\n\s+at /)
    expect(suite.server.requests).toHaveLength(0)
  })

  it('names a missing config file', async () => {
    const result = await prRun({ inputs: { config: path.join(suite.ws.dir, 'nope.yml') } })
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/^::error::evalgate: .*nope\.yml/m)
    expect(result.stdout).not.toMatch(/internal error/)
  })
})

describe('mode: comment (workflow_run)', () => {
  /** A fork PR's run (no write token): it uploads its record; the workflow_run job comments. */
  async function forkRun(broken: string[]): Promise<number> {
    const forkRunRecord = suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', head_repository: 'mallory/bot' })
    suite.server.canWrite = false
    await action({ event: 'pull_request', runId: forkRunRecord.id, sha: HEAD, payload: prPayload(suite.server, PR, HEAD, BASE), broken })
    suite.server.canWrite = true
    return forkRunRecord.id
  }

  function workflowRunPayload(runId: number) {
    const r = suite.server.runs.find((x) => x.id === runId)!
    return {
      action: 'completed',
      workflow_run: {
        id: r.id,
        workflow_id: r.workflow_id,
        path: r.path,
        event: r.event,
        head_sha: r.head_sha,
        head_branch: r.head_branch,
        // GitHub lists no pull requests for runs from forks
        pull_requests: [],
        head_repository: { full_name: r.head_repository, owner: { login: r.head_repository.split('/')[0] } }
      },
      repository: { full_name: suite.server.repository, default_branch: 'main' }
    }
  }

  it('comments for a fork PR from its run artifact, compared with the baseline it looks up', async () => {
    const baselineRun = await mainRun()
    const triggering = await forkRun(['greet'])
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
    suite.server.pulls.push({ number: PR, state: 'open', head: { sha: HEAD, ref: 'feature', owner: 'mallory' }, base: { sha: BASE, ref: 'main' } })

    const commenter = suite.server.addRun({ head_sha: BASE, event: 'workflow_run' })
    const result = await action({ event: 'workflow_run', runId: commenter.id, sha: BASE, payload: workflowRunPayload(triggering), inputs: { mode: 'comment' } })
    expect(result.exitCode).toBeUndefined()
    const comments = ours()
    expect(comments).toHaveLength(1)
    expect(comments[0]!.body).toContain('gate failed')
    expect(comments[0]!.body).toContain('greet')
    expect(result.outputs).toMatchObject({ regressed: '1', 'baseline-run-id': String(baselineRun), gate: 'fail' })
    // it published nothing of its own
    expect(suite.server.uploaded(commenter.id)).toHaveLength(0)
  })

  it('skips the comment when the PR has moved on since the run', async () => {
    await mainRun()
    const triggering = await forkRun([])
    suite.server.pulls.push({ number: PR, state: 'open', head: { sha: sha(0x1a7e), ref: 'feature', owner: 'mallory' }, base: { sha: BASE, ref: 'main' } })
    const commenter = suite.server.addRun({ head_sha: BASE, event: 'workflow_run' })
    const result = await action({ event: 'workflow_run', runId: commenter.id, sha: BASE, payload: workflowRunPayload(triggering), inputs: { mode: 'comment' } })
    expect(result.exitCode).toBeUndefined()
    expect(notices(result)).toEqual([expect.stringMatching(/^comment skipped: no open pull request has run \d+'s commit/)])
    expect(suite.server.commentsOn(PR)).toHaveLength(0)
  })

  it('skips with a notice when the triggering run has no artifact', async () => {
    const triggering = suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', head_repository: 'mallory/bot' })
    suite.server.pulls.push({ number: PR, state: 'open', head: { sha: HEAD, ref: 'feature', owner: 'mallory' }, base: { sha: BASE, ref: 'main' } })
    const commenter = suite.server.addRun({ head_sha: BASE, event: 'workflow_run' })
    const result = await action({
      event: 'workflow_run',
      runId: commenter.id,
      sha: BASE,
      payload: workflowRunPayload(triggering.id),
      inputs: { mode: 'comment' }
    })
    expect(result.exitCode).toBeUndefined()
    expect(notices(result)).toEqual([`comment skipped: run ${triggering.id} has no artifact "evalgate-demo"`])
  })
})

describe('dist/index.js', () => {
  // EVALGATE_DIST checks another build of the bundle
  const dist = process.env.EVALGATE_DIST ?? path.join(process.cwd(), 'dist', 'index.js')
  // Skipped only until the build (scripts/build.mjs) has produced the committed bundle.
  const maybe = existsSync(dist) ? it : it.skip
  maybe('runs as the action does: node dist/index.js', async () => {
    await mainRun()
    const result = await runBundle(dist, {
      server: suite.server,
      files: suite.files,
      ws: suite.ws,
      event: 'pull_request',
      runId: suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature' }).id,
      sha: HEAD,
      payload: prPayload(suite.server, PR, HEAD, BASE),
      broken: ['capital']
    })
    expect(result.exitCode).toBe(1)
    expect(result.outputs).toMatchObject({ gate: 'fail', regressed: '1' })
    expect(ours()).toHaveLength(1)
  })
})

describe("the runner's credentials", () => {
  it('are hidden from in-process agents while the cases run, and back for the upload and the comment', async () => {
    const seen = path.join(suite.ws.dir, 'seen.jsonl')
    writeFileSync(
      path.join(suite.ws.dir, 'agent.mjs'),
      `import { appendFileSync } from 'node:fs'
const leaked = () => Object.keys(process.env).filter((k) => /^(INPUT_|ACTIONS_)/i.test(k) || k === 'GITHUB_TOKEN')
appendFileSync(${JSON.stringify(seen)}, JSON.stringify(leaked()) + '\\n')
export default (input) => { appendFileSync(${JSON.stringify(seen)}, JSON.stringify(leaked()) + '\\n'); return String(input) }
`
    )
    const result = await prRun({ env: { GITHUB_TOKEN: 'ghs_runner_token' } })
    const lines = readFileSync(seen, 'utf8').trim().split('\n')
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) expect(JSON.parse(line)).toEqual([])
    expect(suite.server.uploaded(result.runId)).toHaveLength(1)
    expect(ours()).toHaveLength(1)
  })
})

describe('the trend on the baseline branch', () => {
  it('carries the last runs forward in the record and charts them in the job summary', async () => {
    await mainRun({ sha: sha(1) })
    await mainRun({ sha: sha(2) })
    const third = suite.server.addRun({ head_sha: sha(3) })
    const result = await action({ event: 'push', runId: third.id, sha: sha(3), payload: { repository: { default_branch: 'main' } } })
    const record = JSON.parse(readFileSync(result.outputs['results-path']!, 'utf8'))
    expect(record.trend.map((p: { sha: string }) => p.sha)).toEqual([sha(1), sha(2)])
    expect(result.summary).toContain('```mermaid')
    expect(result.summary).toContain('xychart-beta')
    expect(result.summary).toContain(`"${sha(1).slice(0, 7)}", "${sha(2).slice(0, 7)}", "${sha(3).slice(0, 7)}"`)
    // the comment of a PR stays without it: the chart is for the summary
    const pr = await prRun()
    expect(ours()[0]!.body).not.toContain('xychart-beta')
    expect(pr.summary).toContain('xychart-beta')
  })
})

describe('a 3,000-case run that regressed everywhere', () => {
  it('keeps the comment under 60,000 characters, says what was left out, and the summary has more', async () => {
    const cases = Array.from({ length: 3000 }, (_, i) => `- { id: case-${i}, input: "question ${i} ${'x'.repeat(80)}", expected: "ok ${i}" }`)
    writeFileSync(path.join(suite.ws.dir, 'cases.yaml'), `${cases.join('\n')}\n`)
    writeFileSync(
      path.join(suite.ws.dir, 'agent.mjs'),
      "import { readFileSync } from 'node:fs'\n" +
        "const broken = () => JSON.parse(readFileSync(new URL('agent-control.json', import.meta.url), 'utf8')).broken.length > 0\n" +
        "export default (input) => (broken() ? 'a wrong answer, at length: ' + 'y'.repeat(300) : 'ok ' + String(input).split(' ')[1])\n"
    )
    await mainRun()
    const result = await prRun({ broken: ['all'] })
    expect(result.exitCode).toBe(1)
    expect(result.outputs.regressed).toBe('3000')
    const [comment] = ours()
    expect(comment!.body.length).toBeLessThanOrEqual(60_000)
    expect(comment!.body).toMatch(/did not fit/)
    expect(comment!.body).toContain('case-0')
    expect(result.summary.length).toBeGreaterThan(comment!.body.length)
    // two runs of 3,000 cases through the whole action: past the default 30 s on a loaded 2-core machine
  }, 300_000)
})
