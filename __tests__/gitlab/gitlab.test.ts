/**
 * `evalgate gitlab` end to end against a fake GitLab on 127.0.0.1 (REST v4 as
 * documented: paths, tokens, status codes, pagination headers, JSON shapes,
 * artifacts redirected to object storage): a default-branch pipeline records
 * the baseline; a merge-request pipeline compares with it, posts one sticky
 * note, writes the record and JUnit, and gates; every way the baseline can
 * fail to be read fails closed; parallel slices merge; and the two
 * .gitlab-ci.yml examples of docs/gitlab.md, run job by job with the built CLI.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { parse as parseJunit, type TestSuite } from 'junit2json'
import { globSync } from 'tinyglobby'
import { parse as parseYaml } from 'yaml'
import { isUserError } from '../../src/errors.js'
import { gitlabCommand, type GitLabClientSettings } from '../../src/gitlab/command.js'
import { runCli } from '../__fixtures__/cli.js'
import { startGitLab, type FakeUser, type GitLabServer } from '../__fixtures__/gitlab-server.js'
import { workspace, type Workspace } from '../github/harness.js'
import { sha } from '../github/helpers.js'

const PROJECT = '4242'
const FORK = '5151'
const BASE = sha(0xba5e)
const HEAD = sha(0x4ead)
const TOKEN = 'glpat-evalgate-bot-token'
const BOT: FakeUser = { id: 77, username: 'project_4242_bot' }
const SOMEONE: FakeUser = { id: 12, username: 'someone' }
const MARKER = '<!-- evalgate:gitlab:evals:demo -->'

let gitlab: GitLabServer
let ws: Workspace
beforeAll(async () => {
  gitlab = await startGitLab()
})
afterAll(() => gitlab.close())
beforeEach(() => {
  gitlab.reset()
  gitlab.addProject(PROJECT, 'acme/bot')
  gitlab.addProject(FORK, 'mallory/bot')
  gitlab.addUser(TOKEN, BOT)
  ws = workspace()
  writeFileSync(path.join(ws.dir, 'agent-control.json'), JSON.stringify({ broken: [], hang: null }))
})

const f = (name: string) => path.join(ws.dir, name)

/** The predefined variables of a job of project PROJECT, as GitLab sets them. */
function jobEnv(kind: 'main' | 'mr' | 'fork-mr', extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const jobId = String(gitlab.id())
  const pipelineId = String(gitlab.id())
  const common = {
    CI_PIPELINE_ID: pipelineId,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITLAB_CI: 'true',
    CI: 'true',
    CI_SERVER_URL: gitlab.url,
    CI_API_V4_URL: gitlab.apiUrl,
    CI_JOB_NAME: 'evals',
    CI_JOB_ID: jobId,
    CI_JOB_TOKEN: gitlab.jobToken,
    CI_DEFAULT_BRANCH: 'main',
    CI_PROJECT_DIR: ws.dir
  }
  if (kind === 'main')
    return {
      ...common,
      CI_PROJECT_ID: PROJECT,
      CI_PROJECT_PATH: 'acme/bot',
      CI_PROJECT_URL: `${gitlab.url}/acme/bot`,
      CI_JOB_URL: `${gitlab.url}/acme/bot/-/jobs/${jobId}`,
      CI_COMMIT_SHA: BASE,
      CI_COMMIT_REF_NAME: 'main',
      CI_COMMIT_BRANCH: 'main',
      EVALGATE_GITLAB_TOKEN: TOKEN,
      ...extra
    }
  const fork = kind === 'fork-mr'
  return {
    ...common,
    CI_PROJECT_ID: fork ? FORK : PROJECT,
    CI_PROJECT_PATH: fork ? 'mallory/bot' : 'acme/bot',
    CI_PROJECT_URL: `${gitlab.url}/${fork ? 'mallory' : 'acme'}/bot`,
    CI_JOB_URL: `${gitlab.url}/${fork ? 'mallory' : 'acme'}/bot/-/jobs/${jobId}`,
    CI_COMMIT_SHA: HEAD,
    CI_COMMIT_REF_NAME: 'feature',
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_MERGE_REQUEST_IID: '5',
    CI_MERGE_REQUEST_PROJECT_ID: PROJECT,
    CI_MERGE_REQUEST_PROJECT_URL: `${gitlab.url}/acme/bot`,
    CI_MERGE_REQUEST_SOURCE_PROJECT_ID: fork ? FORK : PROJECT,
    CI_MERGE_REQUEST_DIFF_BASE_SHA: BASE,
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    CI_MERGE_REQUEST_LABELS: '',
    ...(fork ? {} : { EVALGATE_GITLAB_TOKEN: TOKEN }),
    ...extra
  }
}

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** No waiting between retries (the deadline stays the default 60 s: no test depends on the machine's speed). */
const FAST: GitLabClientSettings = { backoffMs: () => 0 }
/** For the request that never answers: a deadline it meets, far above what an answer on 127.0.0.1 takes, and no retry. */
const HUNG: GitLabClientSettings = { backoffMs: () => 0, timeoutMs: 10_000, retries: 0 }

async function gitlabJob(env: Record<string, string | undefined>, args: string[] = [], settings: GitLabClientSettings = FAST): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env }
  const outputs = ['--out', f('evalgate-run.json'), '--junit', f('evalgate-junit.xml'), '--report', f('evalgate-report.md'), '--quiet']
  const code = await gitlabCommand(['-c', ws.config, ...outputs, ...args], io, settings)
  return { code, stdout, stderr }
}

/** A default-branch pipeline of the job: its record becomes the artifact of a successful pipeline on main. */
async function mainPipeline(broken: string[] = [], extra: Record<string, string> = {}): Promise<string> {
  writeFileSync(f('agent-control.json'), JSON.stringify({ broken, hang: null }))
  const run = await gitlabJob(jobEnv('main', extra))
  expect(run.code).toBe(0)
  const record = readFileSync(f('evalgate-run.json'), 'utf8')
  gitlab.addPipeline({ projectId: PROJECT, ref: 'main', sha: BASE, jobs: [gitlab.job('evals', { 'evalgate-run.json': record })] })
  writeFileSync(f('agent-control.json'), JSON.stringify({ broken: [], hang: null }))
  return record
}

/** The merge request's pipeline: the agent breaks `broken`. */
async function mrPipeline(broken: string[] = [], extra: Record<string, string | undefined> = {}, kind: 'mr' | 'fork-mr' = 'mr'): Promise<Run> {
  writeFileSync(f('agent-control.json'), JSON.stringify({ broken, hang: null }))
  return gitlabJob(jobEnv(kind, extra))
}

const ourNotes = () => gitlab.notesOf(PROJECT, '5').filter((n) => n.body.startsWith(MARKER))

async function junitVerdict(): Promise<string> {
  const suite = ((await parseJunit(readFileSync(f('evalgate-junit.xml'), 'utf8'))) as { testsuite: TestSuite[] }).testsuite[0]!
  return String(suite.properties!.find((p) => p.name === 'verdict')!.value)
}

describe('evalgate gitlab: the sticky note', () => {
  it('a merge request: compared with main, one note created, then updated in place on the next pipeline (never duplicated)', async () => {
    await mainPipeline()
    const first = await mrPipeline(['capital'])
    expect(first.code).toBe(1)
    expect(ourNotes()).toHaveLength(1)
    const note = ourNotes()[0]!
    expect(note.author.id).toBe(BOT.id)
    expect(note.body.split('\n', 1)[0]).toBe(`${MARKER}<!-- evalgate-verdict:fail -->`)
    expect(note.body).toMatch(/^> \[!CAUTION\]\n> \*\*evalgate · demo: gate failed\*\*/m)
    expect(note.body).toContain('capital')
    expect(await junitVerdict()).toBe('fail')
    expect(first.stderr).toContain('merge request note created')

    const second = await mrPipeline([])
    expect(second.code).toBe(0)
    expect(ourNotes()).toHaveLength(1)
    expect(ourNotes()[0]!.id).toBe(note.id)
    expect(ourNotes()[0]!.body.split('\n', 1)[0]).toBe(`${MARKER}<!-- evalgate-verdict:pass -->`)
    expect(second.stderr).toContain('merge request note updated')
    expect(await junitVerdict()).toBe('pass')
    // the record for artifacts: the next baseline
    expect(JSON.parse(readFileSync(f('evalgate-run.json'), 'utf8')).git).toMatchObject({ sha: HEAD, ref: 'feature' })
  })

  it('finds its note past 100 notes (page 2 by X-Next-Page), and leaves others’ notes that quote the marker alone', async () => {
    await mainPipeline()
    // someone quoting our marker first, then 150 notes, then ours
    gitlab.addNote(PROJECT, '5', `${MARKER}<!-- evalgate-verdict:pass -->\nforged`, SOMEONE)
    for (let i = 0; i < 150; i++) gitlab.addNote(PROJECT, '5', `comment ${i}`, i % 10 ? SOMEONE : BOT, i % 7 === 0)
    const ours = gitlab.addNote(PROJECT, '5', `${MARKER}<!-- evalgate-verdict:pass -->\nold report`, BOT)
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    expect(ourNotes().map((n) => n.id)).toEqual([ourNotes()[0]!.id, ours.id])
    expect(ours.body).toMatch(/evalgate-verdict:fail/)
    expect(ourNotes()[0]!.body).toContain('forged')
    const pages = gitlab.requestsTo(/^GET \/api\/v4\/projects\/4242\/merge_requests\/5\/notes$/).map((r) => r.query.get('page') ?? '1')
    expect(pages).toEqual(['1', '2'])
    expect(gitlab.requestsTo(/^POST .*\/notes$/)).toHaveLength(0)
  })

  it('reads pages by the Link header where X-Next-Page is not sent (keyset pagination, proxies)', async () => {
    const { nextPage } = await import('../../src/gitlab/client.js')
    const headers = new Headers({ link: `<${gitlab.apiUrl}/projects/4242/merge_requests/5/notes?id_after=9&per_page=100>; rel="next", <x>; rel="first"` })
    expect(nextPage('/projects/4242/merge_requests/5/notes?per_page=100', headers, gitlab.apiUrl)).toBe(
      '/projects/4242/merge_requests/5/notes?id_after=9&per_page=100'
    )
    expect(nextPage('/p?page=3', new Headers({ 'x-next-page': '' }), gitlab.apiUrl)).toBeNull()
    expect(nextPage('/p?per_page=100&page=3', new Headers({ 'x-next-page': '4' }), gitlab.apiUrl)).toBe('/p?per_page=100&page=4')
  })

  it('a note that cannot be posted is a warning; the verdict stands', async () => {
    await mainPipeline()
    gitlab.fail('note-write', 500)
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/warning: could not post the merge request note \(the verdict stands; .*\): POST .*HTTP 500/)
    expect(await junitVerdict()).toBe('fail')
  })
})

describe('evalgate gitlab: where it runs', () => {
  it('on the default branch it only runs and records: no note, exit 0 whatever the gate says', async () => {
    await mainPipeline()
    writeFileSync(f('agent-control.json'), JSON.stringify({ broken: ['capital', 'math'], hang: null }))
    const run = await gitlabJob(jobEnv('main'))
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('on the default branch (main) evalgate records the run for the next baseline')
    expect(gitlab.requestsTo(/notes/)).toHaveLength(0)
    expect(JSON.parse(readFileSync(f('evalgate-run.json'), 'utf8')).summary).toMatchObject({ total: 3, passed: 1 })
  })

  it("a fork's merge request without a token: runs and reports with its own settings, posts nothing", async () => {
    await mainPipeline()
    gitlab.requests = []
    const run = await mrPipeline(['capital'], {}, 'fork-mr')
    // the job token reads the target project's artifacts: the baseline is found, the regression seen
    expect(run.code).toBe(1)
    expect(readFileSync(f('evalgate-report.md'), 'utf8')).toMatch(/gate failed/)
    expect(run.stderr).toContain("note skipped: no token that can post to the merge request (a fork's merge request)")
    expect(gitlab.requestsTo(/^(POST|PUT) /)).toHaveLength(0)
    // the baseline came from the target project's main, not the fork's
    expect(gitlab.requestsTo(/jobs\/artifacts\/main\/raw/).map((r) => r.path)).toEqual(['/api/v4/projects/4242/jobs/artifacts/main/raw/evalgate-run.json'])
    expect(run.stderr).toContain("the merge request's own gate settings apply")
  })

  it('the gate settings are the diff base’s: a merge request cannot loosen its own gate', async () => {
    await mainPipeline()
    gitlab.addFile(PROJECT, BASE, 'evalgate.yml', readFileSync(ws.config, 'utf8') + 'gate:\n  maxRegressions: 0\n')
    writeFileSync(ws.config, readFileSync(ws.config, 'utf8') + 'gate:\n  maxRegressions: 5\n')
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    expect(ourNotes()[0]!.body).toMatch(/Config changes \(apply after merge\)/)
    expect(run.stderr).toContain('this merge request changes a setting that decide its own verdict (gate.maxRegressions)')
  })

  it('which credentials reach the agent is the diff base’s: a merge request handing it the judge’s key is refused before anything runs', async () => {
    await mainPipeline()
    gitlab.addFile(PROJECT, BASE, 'evalgate.yml', readFileSync(ws.config, 'utf8'))
    writeFileSync(ws.config, readFileSync(ws.config, 'utf8') + '  env:\n    JK: ${JUDGE_API_KEY}\n')
    const err = await mrPipeline([], { JUDGE_API_KEY: 'sk-judge-0003' }).then(
      () => null,
      (e: unknown) => e
    )
    expect(isUserError(err)).toBe(true)
    expect((err as Error).message).toMatch(
      /this merge request sends credentials where evalgate\.yml at the merge request's diff base [0-9a-f]{7} does not.*target\.env\.JK reads JUDGE_API_KEY/
    )
    expect(ourNotes()).toHaveLength(0)
  })

  it('no config at the diff base (first adoption): the merge request’s own settings, with a notice', async () => {
    await mainPipeline()
    const run = await mrPipeline([])
    expect(run.code).toBe(0)
    expect(run.stderr).toMatch(/evalgate\.yml at the diff base [0-9a-f]{7} does not exist \(first adoption\?\): this merge request's own gate settings apply/)
  })

  it.each([
    [
      'cannot be read (500 after its retries)',
      () => gitlab.fail('file', 500),
      /cannot read evalgate\.yml at the diff base [0-9a-f]{7}, whose gate settings a merge request must use: .*HTTP 500/
    ],
    [
      'is not valid',
      () => gitlab.addFile(PROJECT, BASE, 'evalgate.yml', 'version: 1\nname: demo\ngate: { maxRegressions: lots }\n'),
      /the diff base's config is not valid, so this merge request's gate cannot be trusted/
    ]
  ] as const)('a config at the diff base that %s stops the job before anything runs (exit 2)', async (_name, arrange, message) => {
    await mainPipeline()
    arrange()
    const err = await mrPipeline([]).then(
      () => null,
      (e: unknown) => e
    )
    // a user error: the CLI exits 2 with its message
    expect(isUserError(err)).toBe(true)
    expect((err as Error).message).toMatch(message)
    expect(ourNotes()).toHaveLength(0)
  })

  it('the accept label on the merge request accepts a failing verdict', async () => {
    await mainPipeline()
    const run = await mrPipeline(['capital'], { CI_MERGE_REQUEST_LABELS: 'bug,evalgate:accept' })
    expect(run.code).toBe(0)
    expect(ourNotes()[0]!.body.split('\n', 1)[0]).toBe(`${MARKER}<!-- evalgate-verdict:accepted -->`)
  })

  it('outside a GitLab job: a usage error naming the variables', async () => {
    const run = await runCli(['gitlab', '-c', ws.config])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('evalgate gitlab runs inside a GitLab CI job: GITLAB_CI, CI_API_V4_URL, CI_PROJECT_ID and CI_JOB_NAME are not all set')
  })
})

describe('evalgate gitlab: the baseline fails closed', () => {
  /** A merge request whose agent is fine: only the baseline decides the verdict. */
  async function withBaselineFailing(route: Parameters<GitLabServer['fail']>[0], status: number | 'hang'): Promise<Run> {
    await mainPipeline()
    gitlab.fail(route, status)
    writeFileSync(f('agent-control.json'), JSON.stringify({ broken: [], hang: null }))
    return gitlabJob(jobEnv('mr'), [], status === 'hang' ? HUNG : FAST)
  }

  it.each([
    ['401 (a revoked token)', 'artifact-by-ref', 401, /HTTP 401: 401 Unauthorized \(is the token valid, with read_api scope/],
    ['403', 'artifact-by-ref', 403, /HTTP 403: 403 Forbidden/],
    ['500, after its retries', 'artifact-by-ref', 500, /HTTP 500/],
    ['503 from object storage', 'storage', 503, /HTTP 503/],
    ['no answer (a deadline)', 'artifact-by-ref', 'hang', /no answer within 10 s/]
  ] as const)(
    '%s: could not tell, exit 1, said on every surface',
    async (_name, route, status, reason) => {
      const run = await withBaselineFailing(route, status)
      expect(run.code).toBe(1)
      expect(await junitVerdict()).toBe('could-not-tell')
      const note = ourNotes()[0]!.body
      expect(note.split('\n', 1)[0]).toBe(`${MARKER}<!-- evalgate-verdict:could-not-tell -->`)
      expect(note).toMatch(/the baseline exists but could not be read, so regressions cannot be ruled out: cannot download evalgate-run\.json/)
      expect(note.replace(/\\/g, '')).toMatch(reason)
      expect(run.stderr).toMatch(reason)
    },
    60_000
  )

  it('GitLab unreachable (connection refused, after its retries): the job stops (exit 2) saying so, never "no baseline"', async () => {
    await mainPipeline()
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const err = await mrPipeline([], { CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4` }).then(
      () => null,
      (e: unknown) => e
    )
    expect(isUserError(err)).toBe(true)
    expect((err as Error).message).toMatch(
      /cannot read evalgate\.yml at the diff base [0-9a-f]{7}, whose gate settings a merge request must use: GET .*ECONNREFUSED/
    )
    expect(ourNotes()).toHaveLength(0)
  })

  it('a 5xx once is retried, and the baseline is read', async () => {
    await mainPipeline()
    gitlab.fail('artifact-by-ref', 502, 1)
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    expect(await junitVerdict()).toBe('fail')
    expect(gitlab.requestsTo(/jobs\/artifacts\/main\/raw/).length).toBeGreaterThanOrEqual(2)
  })

  it('a record that does not read is an error, not "no baseline"', async () => {
    gitlab.addPipeline({
      projectId: PROJECT,
      ref: 'main',
      sha: BASE,
      jobs: [gitlab.job('evals', { 'evalgate-run.json': '{"schemaVersion": 1, "cases": "nope"}' })]
    })
    const run = await mrPipeline([])
    expect(run.code).toBe(1)
    expect(ourNotes()[0]!.body).toMatch(/evalgate-run\.json of the latest successful pipeline.*could not be read/)
  })

  it('404 (no successful pipeline has the job): a notice, and only the floors gate', async () => {
    const passing = await mrPipeline(['capital'])
    expect(passing.code).toBe(0)
    expect(ourNotes()[0]!.body).toMatch(/no baseline: .*comparison skipped, only the absolute floors are gated/)
    expect(await junitVerdict()).toBe('pass')
    writeFileSync(ws.config, readFileSync(ws.config, 'utf8') + 'gate:\n  minPassRate: 0.9\n')
    const floored = await mrPipeline(['capital'])
    expect(floored.code).toBe(1)
    expect(ourNotes()[0]!.body).toMatch(/pass rate 66\.7% is below minPassRate 90\.0%/)
  })

  it('a tag named like the default branch stops the lookup (the ref would be ambiguous)', async () => {
    await mainPipeline()
    gitlab.project(PROJECT).tags.add('main')
    const run = await mrPipeline([])
    expect(run.code).toBe(1)
    expect(ourNotes()[0]!.body).toMatch(/the project has a tag named "main"/)
  })

  it('the baseline is always the default branch’s: a pipeline of a tag or of another branch never is', async () => {
    const record = await mainPipeline()
    // newer successful pipelines of a tag "main" of another project's… and of a branch: not looked at
    gitlab.addPipeline({
      projectId: PROJECT,
      ref: 'release',
      sha: HEAD,
      jobs: [gitlab.job('evals', { 'evalgate-run.json': record.replace(/"passed": true/g, '"passed": false') })]
    })
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    expect(await junitVerdict()).toBe('fail')
  })
})

describe('evalgate gitlab: finding the baseline', () => {
  it('follows the redirect to object storage without sending the token there', async () => {
    await mainPipeline()
    gitlab.requests = []
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    const api = gitlab.requestsTo(/jobs\/artifacts\/main\/raw/)
    expect(api[0]!.headers['private-token']).toBe(TOKEN)
    const storage = gitlab.requestsTo(/^GET \/storage\//)
    expect(storage).toHaveLength(1)
    expect(storage[0]!.headers['private-token']).toBeUndefined()
    expect(storage[0]!.headers['job-token']).toBeUndefined()
  })

  it('where the latest successful pipeline lacks the job, the newest successful job of that name on the branch, by job id', async () => {
    const record = await mainPipeline()
    // a newer successful pipeline of main that did not run the eval job (e.g. docs only)
    gitlab.addPipeline({ projectId: PROJECT, ref: 'main', sha: HEAD, jobs: [gitlab.job('lint', null)] })
    // and a newer failed one that did
    gitlab.addPipeline({ projectId: PROJECT, ref: 'main', sha: HEAD, status: 'failed', jobs: [gitlab.job('evals', { 'evalgate-run.json': record }, 'failed')] })
    const run = await mrPipeline(['capital'])
    expect(run.code).toBe(1)
    expect(await junitVerdict()).toBe('fail')
    const byJob = gitlab.requestsTo(/^GET \/api\/v4\/projects\/4242\/jobs\/\d+\/artifacts\/evalgate-run\.json$/)
    expect(byJob).toHaveLength(1)
    const listed = gitlab.requestsTo(/^GET \/api\/v4\/projects\/4242\/jobs$/)
    expect(listed[0]!.query.getAll('scope[]')).toEqual(['success'])
  })

  it('with only the job token it cannot list jobs: no baseline, saying a token would look further', async () => {
    const record = await mainPipeline()
    gitlab.addPipeline({ projectId: PROJECT, ref: 'main', sha: HEAD, jobs: [gitlab.job('lint', null)] })
    void record
    const run = await mrPipeline([], {}, 'fork-mr')
    expect(run.code).toBe(0)
    expect(readFileSync(f('evalgate-report.md'), 'utf8')).toMatch(/evalgate looks at older jobs with a token in EVALGATE\\_GITLAB\\_TOKEN/)
  })
})

describe('evalgate gitlab: a stale baseline', () => {
  it('warns with its age against the diff base commit; failOnStaleBaseline fails', async () => {
    // the baseline ran at an older commit of main than the merge request's diff base
    await mainPipeline([], { CI_COMMIT_SHA: sha(0x01d) })
    gitlab.project(PROJECT).commits.set(BASE, new Date(Date.now() + 30.5 * 86_400_000).toISOString())
    const warned = await mrPipeline([])
    expect(warned.code).toBe(0)
    const note = ourNotes()[0]!.body
    expect(note).toMatch(/^> \[!WARNING\]/m)
    expect(note).toMatch(/the baseline \(commit 0000000\) is stale: it was made 30 days before the base commit/)
    writeFileSync(ws.config, readFileSync(ws.config, 'utf8') + 'gate:\n  failOnStaleBaseline: true\n')
    const failed = await mrPipeline([])
    expect(failed.code).toBe(1)
    expect(await junitVerdict()).toBe('fail')
    expect(ourNotes()[0]!.body).toMatch(/limit: maxBaselineAgeDays 14, and failOnStaleBaseline is true/)
  })
})

describe('evalgate gitlab: parallel slices', () => {
  const PIPELINE = '9001'
  const slice = (index: number) => jobEnv('mr', { CI_NODE_INDEX: String(index), CI_NODE_TOTAL: '2', CI_JOB_NAME: `evals ${index}/2`, CI_PIPELINE_ID: PIPELINE })

  it('each parallel job runs its slice and writes it; the merge job merges, compares, notes and gates', async () => {
    await mainPipeline()
    writeFileSync(f('agent-control.json'), JSON.stringify({ broken: ['capital'], hang: null }))
    const written: string[] = []
    for (const i of [1, 2]) {
      const file = f(`evalgate-shard-${i}-of-2.json`)
      const run = await gitlabCommand(
        ['-c', ws.config, '--out', file, '--quiet'],
        { stdout: { write: () => true }, stderr: { write: () => true }, env: slice(i) },
        FAST
      )
      expect(run).toBe(0)
      written.push(file)
    }
    const slices = written.map((file) => JSON.parse(readFileSync(file, 'utf8')) as { cases: { id: string }[] })
    expect(slices.flatMap((s) => s.cases.map((c) => c.id)).sort()).toEqual(['capital', 'greet', 'math'])
    expect(gitlab.requestsTo(/notes/)).toHaveLength(0)
    const merged = await gitlabJob(jobEnv('mr', { CI_JOB_NAME: 'evals', CI_PIPELINE_ID: PIPELINE }), ['--merge', ...written])
    expect(merged.code).toBe(1)
    expect(merged.stderr).toContain('merged 2 slices: 3 cases')
    expect(ourNotes()).toHaveLength(1)
    expect(ourNotes()[0]!.body).toMatch(/1 case regressed \(limit: maxRegressions 0\): capital/)
    expect(await junitVerdict()).toBe('fail')
  })

  it('a missing slice is refused (the same completeness checks as mode: merge)', async () => {
    const file = f('evalgate-shard-1-of-2.json')
    expect(
      await gitlabCommand(['-c', ws.config, '--out', file, '--quiet'], { stdout: { write: () => true }, stderr: { write: () => true }, env: slice(1) }, FAST)
    ).toBe(0)
    const run = await runCli(
      ['gitlab', '-c', ws.config, '--out', f('m.json'), '--junit', f('j.xml'), '--report', f('r.md'), '--merge', file],
      jobEnv('mr', { CI_JOB_NAME: 'evals', CI_PIPELINE_ID: PIPELINE })
    )
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/shard 2\/2 is missing|missing/)
  })
})

describe('the .gitlab-ci.yml of docs/gitlab.md, as a reader pastes it', () => {
  interface CiJob {
    parallel?: number
    needs?: string[]
    script: string[]
    artifacts?: { paths?: string[]; reports?: { junit?: string } }
  }
  const CLI = path.resolve('dist/cli/index.js')
  const examples = [...readFileSync(path.resolve('docs/gitlab.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) =>
    Object.entries(parseYaml(m[1]!) as Record<string, unknown>).filter((e): e is [string, CiJob] => Array.isArray((e[1] as CiJob).script))
  )

  /** A job's script as GitLab runs it, from the checkout: `npm ci` is the install (the checkout has evalgate built), `npx evalgate` the built CLI, globs expanded by the shell. */
  async function runJob(name: string, job: CiJob, env: Record<string, string | undefined>): Promise<number[]> {
    const codes: number[] = []
    const slices = job.parallel ?? 1
    for (let i = 1; i <= slices; i++) {
      const sliceEnv = { ...env, CI_JOB_NAME: name, ...(slices > 1 ? { CI_NODE_INDEX: String(i), CI_NODE_TOTAL: String(slices) } : {}) }
      for (const line of job.script) {
        if (line === 'npm ci') continue
        const command = /^npx evalgate (.+)$/.exec(line)
        expect(command).not.toBeNull()
        const args = command![1]!.split(/\s+/).flatMap((a) => (a.includes('*') ? globSync(a, { cwd: ws.dir }).sort() : [a]))
        codes.push(
          await new Promise<number>((resolve) =>
            execFile(process.execPath, [CLI, ...args], { cwd: ws.dir, env: sliceEnv }, (err) => resolve(err ? Number(err.code) : 0))
          )
        )
      }
      // what artifacts: keeps is there
      for (const p of job.artifacts?.paths ?? []) expect(globSync(p, { cwd: ws.dir })).not.toHaveLength(0)
      if (job.artifacts?.reports?.junit) expect(existsSync(f(job.artifacts.reports.junit))).toBe(true)
    }
    return codes
  }

  /** One pipeline: the jobs in the order their needs: put them; the exit codes of each job's evalgate commands. */
  async function pipeline(jobs: [string, CiJob][], kind: 'main' | 'mr'): Promise<Map<string, number[]>> {
    const env = jobEnv(kind, { CI_PIPELINE_ID: String(gitlab.id()) })
    const codes = new Map<string, number[]>()
    for (const [name, job] of [...jobs.filter(([, j]) => !j.needs), ...jobs.filter(([, j]) => j.needs)]) codes.set(name, await runJob(name, job, env))
    return codes
  }

  it('has both examples: one job, and parallel slices with a merge job', () => {
    expect(examples.map((jobs) => jobs.map(([name]) => name))).toEqual([['evals'], ['evals', 'evals-verdict']])
  })

  it.each([0, 1])(
    'example %i: the default branch records the baseline; a merge request is compared with it, noted and gated',
    async (i) => {
      const jobs = examples[i]!
      writeFileSync(f('agent-control.json'), JSON.stringify({ broken: [], hang: null }))
      const onMain = await pipeline(jobs, 'main')
      expect([...onMain.values()].flat().every((code) => code === 0)).toBe(true)
      // GitLab keeps the artifacts of the successful pipeline: the record is the next baseline
      const recorder = jobs.find(([, job]) => job.artifacts?.paths?.includes('evalgate-run.json'))!
      gitlab.addPipeline({
        projectId: PROJECT,
        ref: 'main',
        sha: BASE,
        jobs: [gitlab.job(recorder[0], { 'evalgate-run.json': readFileSync(f('evalgate-run.json'), 'utf8') })]
      })

      writeFileSync(f('agent-control.json'), JSON.stringify({ broken: ['capital'], hang: null }))
      const inMr = await pipeline(jobs, 'mr')
      // the slices pass their records on; the job that compares fails the gate
      expect(inMr.get(recorder[0])).toEqual([1])
      for (const [name, codes] of inMr) if (name !== recorder[0]) expect(codes.every((code) => code === 0)).toBe(true)
      const notes = gitlab.notesOf(PROJECT, '5')
      expect(notes).toHaveLength(1)
      expect(notes[0]!.body.split('\n', 1)[0]).toBe(`<!-- evalgate:gitlab:${recorder[0]}:demo --><!-- evalgate-verdict:fail -->`)
      expect(notes[0]!.body).toContain('capital')
      expect(await junitVerdict()).toBe('fail')
    },
    180_000
  )
})
