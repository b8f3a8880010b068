/**
 * `evalgate baseline pull` from GitLab, against the fake GitLab on 127.0.0.1
 * (REST v4, artifacts through a redirect to object storage): the record
 * `evalgate gitlab` would compare a merge request opened now with, written
 * for a local `run --baseline`.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { startGitLab, type GitLabServer } from '../__fixtures__/gitlab-server.js'
import { caseResult, record, sha } from '../github/helpers.js'
import { sourceOfRemote } from '../../src/baseline/sources.js'
import { gitLabRemote } from '../../src/baseline/gitlab.js'
import type { RunRecord } from '../../src/types.js'

const TOKEN = 'glpat-local'
let server: GitLabServer

beforeAll(async () => {
  server = await startGitLab()
})

afterAll(async () => {
  await server.close()
})

beforeEach(() => {
  server.reset()
  server.addProject('acme/bot', 'acme/bot')
  server.addUser(TOKEN, { id: 7, username: 'dev' })
})

/** A checkout of acme/bot whose origin is the fake server (a self-managed GitLab: GITLAB_HOST names it). */
function checkout(): string {
  const dir = tempProject({})
  execFileSync('git', ['init', '-q', dir])
  execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', `${server.url}/acme/bot.git`])
  return dir
}

const env = (extra: NodeJS.ProcessEnv = {}) => ({ GITLAB_HOST: server.url, GITLAB_TOKEN: TOKEN, ...extra })

function pipeline(ref: string, job: string, value: RunRecord | null, status: 'success' | 'failed' = 'success') {
  return server.addPipeline({
    projectId: 'acme/bot',
    ref,
    sha: value?.git.sha ?? sha(9),
    status,
    jobs: [server.job(job, value ? { 'evalgate-run.json': JSON.stringify(value) } : null, status)]
  })
}

const at = (n: number, runId: string) => ({ git: { sha: sha(n), ref: 'refs/heads/main', runId } })

describe('evalgate baseline pull (GitLab)', () => {
  it("writes the record of the default branch's latest successful pipeline's job, found from the remote, and it reads as a run record", async () => {
    pipeline('main', 'evals', record([caseResult('a', true), caseResult('b', true)], at(1, '900')))
    pipeline('main', 'evals', record([caseResult('a', true), caseResult('b', false)], at(2, '901')))
    // a later failed pipeline and another branch's are no baseline
    pipeline('main', 'evals', record([caseResult('a', false)], at(3, '902')), 'failed')
    pipeline('feature', 'evals', record([caseResult('a', false)], at(4, '903')))
    const dir = checkout()
    const res = await runCli(['baseline', 'pull'], env(), { cwd: dir })
    expect(res.stderr).toContain(
      `evalgate: baseline: acme/bot, pipeline 901 "evals" on main (2026-01-01T00:00:00.000Z, commit ${sha(2).slice(0, 7)}) ${server.url}/acme/bot/-/pipelines/901`
    )
    expect(res.stderr).toContain('2 cases, pass rate 50.0%')
    expect(res.code).toBe(0)
    const written = JSON.parse(readFileSync(path.join(dir, 'baseline.json'), 'utf8')) as RunRecord
    expect(written.git.runId).toBe('901')
    expect(written.cases.map((c) => c.id)).toEqual(['a', 'b'])
    // the default branch was asked; the token went to the API and never to object storage
    expect(server.requestsTo(/^GET \/api\/v4\/projects\/acme%2Fbot$/)).toHaveLength(1)
    for (const r of server.requestsTo(/^GET \/api\/v4\//)) expect(r.headers['private-token']).toBe(TOKEN)
    const storage = server.requestsTo(/^GET \/storage\//)
    expect(storage.length).toBeGreaterThan(0)
    for (const r of storage) expect(r.headers['private-token']).toBeUndefined()
    const compare = await runCli(['compare', path.join(dir, 'baseline.json'), path.join(dir, 'baseline.json'), '--quiet'], {}, { cwd: dir })
    expect(compare.code).toBe(0)
  })

  it('takes the project, job, branch and file as told, and an older job when the latest pipeline lacks it', async () => {
    server.addProject('group/sub/agent', 'group/sub/agent', 'trunk')
    server.addPipeline({
      projectId: 'group/sub/agent',
      ref: 'release',
      sha: sha(5),
      jobs: [server.job('nightly-evals', { 'evalgate-run.json': JSON.stringify(record([caseResult('a', true)], at(5, '700'))) })]
    })
    // the latest pipeline of the branch did not run the job
    server.addPipeline({ projectId: 'group/sub/agent', ref: 'release', sha: sha(6), jobs: [server.job('lint', null)] })
    const job = server.pipelines[0]!.jobs[0]!
    const res = await runCli(
      ['baseline', 'pull', '--from', 'gitlab', '--repo', 'group/sub/agent', '--job', 'nightly-evals', '--branch', 'release', '--out', 'base/main.json'],
      env(),
      { cwd: tempProject({}) }
    )
    expect(res.stderr).toContain(`group/sub/agent, job ${job.id} "nightly-evals" on release`)
    expect(res.stderr).toContain(`${server.url}/group/sub/agent/-/jobs/${job.id}`)
    expect(res.code).toBe(0)
    expect(server.requestsTo(/^GET \/api\/v4\/projects\/group%2Fsub%2Fagent$/)).toHaveLength(0)
  })

  it.each([
    {
      name: 'no pipeline ran the job (404)',
      setup: () => void pipeline('main', 'lint', null),
      args: [],
      env: {},
      message:
        'baseline pull: no baseline in acme/bot: no successful job "evals" on main of project acme/bot among the newest 1 successful jobs has evalgate-run.json in its artifacts (is the job that runs evalgate gitlab named otherwise? say it with --job NAME)'
    },
    {
      name: 'no such project (404)',
      setup: () => {},
      args: ['--repo', 'acme/gone'],
      env: {},
      message: "baseline pull: cannot read project acme/gone's default branch at"
    },
    {
      name: 'a token GitLab refuses (401)',
      setup: () => {},
      args: [],
      env: { GITLAB_TOKEN: 'revoked' },
      message:
        'HTTP 401: 401 Unauthorized: GitLab refused the token in GITLAB_TOKEN; it must be a personal, project or group access token with the read_api scope'
    },
    {
      name: 'the artifact refused (401)',
      setup: () => server.fail('artifact-by-ref', 401),
      args: ['--branch', 'main'],
      env: {},
      message: 'baseline pull: the baseline of acme/bot could not be read: cannot download evalgate-run.json'
    },
    {
      name: 'a record that is not a run record',
      setup: () =>
        void server.addPipeline({
          projectId: 'acme/bot',
          ref: 'main',
          sha: sha(1),
          jobs: [server.job('evals', { 'evalgate-run.json': '{"schemaVersion": 99}' })]
        }),
      args: [],
      env: {},
      message: 'baseline pull: the baseline of acme/bot could not be read: evalgate-run.json of the latest successful pipeline'
    },
    { name: 'no token', setup: () => {}, args: [], env: { GITLAB_TOKEN: undefined }, message: 'baseline pull needs a GitLab token' },
    { name: 'a GitHub flag', setup: () => {}, args: ['--workflow', 'evalgate.yml'], env: {}, message: 'say it with --job NAME' },
    { name: 'not a project path', setup: () => {}, args: ['--repo', 'bot'], env: {}, message: '"bot" is neither a project id nor group/name' }
  ])('exits 2 and writes nothing: $name', async ({ setup, args, env: extra, message }) => {
    setup()
    const dir = checkout()
    const res = await runCli(['baseline', 'pull', ...args], env(extra), { cwd: dir })
    expect(res.stderr).toContain(message)
    expect(res.code).toBe(2)
    expect(() => readFileSync(path.join(dir, 'baseline.json'))).toThrow()
  })

  it('the 401 hint names the scope, and a GitHub --job is refused the other way', async () => {
    server.fail('artifact-by-ref', 401)
    const res = await runCli(['baseline', 'pull', '--branch', 'main'], env(), { cwd: checkout() })
    expect(res.stderr).toContain('with read_api scope')
    const github = await runCli(
      ['baseline', 'pull', '--from', 'github', '--repo', 'acme/bot', '--artifact-name', 'x', '--job', 'evals'],
      { GITHUB_TOKEN: 't' },
      { cwd: tempProject({}) }
    )
    expect(github.stderr).toContain('--job names a GitLab job')
    expect(github.code).toBe(2)
  })
})

describe('reading a GitLab remote', () => {
  it.each([
    ['https://gitlab.com/acme/bot.git', {}, 'gitlab', 'gitlab.com', 'acme/bot'],
    ['git@gitlab.com:group/sub/bot.git', {}, 'gitlab', 'gitlab.com', 'group/sub/bot'],
    ['ssh://git@gitlab.example.com:2222/acme/bot.git', {}, 'gitlab', 'gitlab.example.com', 'acme/bot'],
    ['https://git.example.com:8443/acme/bot', { GITLAB_HOST: 'git.example.com' }, 'gitlab', 'git.example.com:8443', 'acme/bot'],
    ['https://git.example.com/acme/bot', { CI_SERVER_URL: 'https://git.example.com' }, 'gitlab', 'git.example.com', 'acme/bot'],
    ['https://git.example.com/acme/bot', {}, undefined, 'git.example.com', 'acme/bot']
  ])('%s (%j): forge %s, host %s, project %s', (url, env, forge, host, project) => {
    expect(sourceOfRemote(url, env)).toBe(forge)
    expect(gitLabRemote(url)).toMatchObject({ host, project })
  })
})
