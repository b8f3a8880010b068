/**
 * `evalgate gitlab` end to end against a fake GitLab on 127.0.0.1 (REST v4 as
 * documented: paths, tokens, status codes, pagination headers, JSON shapes,
 * artifacts redirected to object storage): a default-branch pipeline records
 * the baseline; a merge-request pipeline compares with it, posts one sticky
 * note, writes the record and JUnit, and gates; every way the baseline can
 * fail to be read fails closed; parallel slices merge.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { parse as parseJunit, type TestSuite } from 'junit2json'
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
  const common = {
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

/** No waiting between retries, and a deadline that a hung request meets. */
const FAST: GitLabClientSettings = { backoffMs: () => 0, timeoutMs: 3_000 }

async function gitlabJob(env: Record<string, string | undefined>, args: string[] = [], settings: GitLabClientSettings = FAST): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, env }
  const outputs = ['--out', f('evalgate-run.json'), '--junit', f('evalgate-junit.xml'), '--report', f('evalgate-report.md'), '--quiet']
  const code = await gitlabCommand(['-c', ws.config, ...outputs, ...args], io, settings)
  return { code, stdout, stderr }
}

/** A default-branch pipeline of the job: its record becomes the artifact of a successful pipeline on main. */
async function mainPipeline(broken: string[] = []): Promise<string> {
  writeFileSync(f('agent-control.json'), JSON.stringify({ broken, hang: null }))
  const run = await gitlabJob(jobEnv('main'))
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
