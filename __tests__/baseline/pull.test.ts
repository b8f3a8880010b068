/**
 * `evalgate baseline pull` against the fake GitHub on 127.0.0.1 (REST and
 * artifact download, with the real @actions/github and @actions/artifact
 * clients): the default branch's latest baseline record, as the action's
 * lookup finds it, written for a local `run --baseline`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { zipOf, type GitHubServer } from '../__fixtures__/github-server.js'
import type { CliRun } from '../__fixtures__/cli.js'
import { caseResult, record, restoreEnv, sha, startGitHub } from '../github/helpers.js'
import { tempProject } from '../__fixtures__/cli.js'
import type { RunRecord } from '../../src/types.js'

let server: GitHubServer
let runCli: (argv: string[], env?: NodeJS.ProcessEnv, extra?: object) => Promise<CliRun>
let sourceOfRemote: (url: string | null) => string | undefined
let repositoryOfRemote: (url: string) => string | null

beforeAll(async () => {
  server = await startGitHub('acme/bot')
  // the clients read GITHUB_API_URL when first imported: after the server is up
  runCli = (await import('../__fixtures__/cli.js')).runCli
  sourceOfRemote = (await import('../../src/baseline/sources.js')).sourceOfRemote
  repositoryOfRemote = (await import('../../src/baseline/github.js')).repositoryOfRemote
})

afterAll(async () => {
  await server.close()
  restoreEnv()
})

beforeEach(() => {
  server.reset()
  server.workflows = [{ id: 7, path: '.github/workflows/evalgate.yml' }]
})

const CONFIG = 'version: 1\nname: demo\ntarget:\n  command: [node, agent.js]\ncases:\n  - {id: a, input: q, expected: ok}\n'

/** A project folder with evalgate.yml (config name "demo": artifact evalgate-demo). */
function project(): string {
  return tempProject({ 'evalgate.yml': CONFIG })
}

async function publish(runSha: string, value: RunRecord, options: { event?: string; headRepository?: string } = {}) {
  const run = server.addRun({ head_sha: runSha, event: options.event ?? 'push', head_repository: options.headRepository ?? server.repository })
  server.addArtifact(run.id, 'evalgate-demo', await zipOf({ 'run.json': JSON.stringify(value), 'report.md': '# report' }))
  return run
}

const env = (extra: NodeJS.ProcessEnv = {}) => ({ GITHUB_API_URL: server.url, GITHUB_TOKEN: 't0ken', ...extra })

describe('evalgate baseline pull (GitHub)', () => {
  it("writes the newest push run's record of the workflow on the default branch, and says where it came from", async () => {
    const older = record([caseResult('a', true), caseResult('b', true)])
    const newer = record([caseResult('a', true), caseResult('b', false)])
    await publish(sha(1), older)
    const run = await publish(sha(2), newer)
    // a newer pull request run is no baseline
    await publish(sha(3), record([caseResult('a', false)]), { event: 'pull_request' })
    const dir = project()
    const res = await runCli(['baseline', 'pull', '--repo', 'acme/bot'], env(), { cwd: dir })
    expect(res.stderr).toContain(`evalgate: baseline: acme/bot, run ${run.id} of evalgate.yml on main (commit ${sha(2).slice(0, 7)}, ${run.created_at})`)
    expect(res.stderr).toContain('2 cases, pass rate 50.0%')
    expect(res.stderr).toContain('written to baseline.json; compare with it: evalgate run --baseline baseline.json')
    expect(res.code).toBe(0)
    expect(JSON.parse(readFileSync(path.join(dir, 'baseline.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(newer)))
    // the token went to the API, and no further than GitHub's signed blob URL
    const api = server.requests.filter((r) => r.path.startsWith('/repos/'))
    expect(api.length).toBeGreaterThan(0)
    for (const r of api) expect(r.authorization).toMatch(/t0ken/)
    for (const r of server.requests.filter((r) => r.path.startsWith('/blobs/'))) expect(r.authorization).toBeUndefined()
    // the record it wrote is a baseline a local run reads
    const compare = await runCli(['compare', path.join(dir, 'baseline.json'), path.join(dir, 'baseline.json'), '--quiet'], {}, { cwd: dir })
    expect(compare.code).toBe(0)
  })

  it('names the workflow, the branch, the artifact and the file as told', async () => {
    server.workflows = [{ id: 8, path: '.github/workflows/nightly.yml' }]
    server.defaultBranch = 'trunk'
    const run = server.addRun({ head_sha: sha(4), head_branch: 'release' })
    server.addArtifact(run.id, 'custom', await zipOf({ 'run.json': JSON.stringify(record([caseResult('a', true)])) }))
    const dir = project()
    const res = await runCli(
      [
        'baseline',
        'pull',
        '--repo',
        'acme/bot',
        '--workflow',
        '.github/workflows/nightly.yml',
        '--branch',
        'release',
        '--artifact-name',
        'custom',
        '--out',
        'base/main.json'
      ],
      env(),
      { cwd: dir }
    )
    expect(res.code).toBe(0)
    expect(res.stderr).toContain(`run ${run.id} of nightly.yml on release`)
    expect((JSON.parse(readFileSync(path.join(dir, 'base', 'main.json'), 'utf8')) as RunRecord).cases).toHaveLength(1)
  })

  it('finds the repository and the forge from the git remote, and the token from gh auth token', async () => {
    await publish(sha(1), record([caseResult('a', true)]))
    const dir = project()
    execFileSync('git', ['init', '-q', dir])
    execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'git@github.com:acme/bot.git'])
    const bin = tempProject({ gh: '#!/bin/sh\n[ "$1 $2" = "auth token" ] && echo gh-t0ken\n' })
    chmodSync(path.join(bin, 'gh'), 0o755)
    const res = await runCli(['baseline', 'pull'], { GITHUB_API_URL: server.url, PATH: `${bin}:${process.env.PATH}` }, { cwd: dir })
    expect(res.stderr).toContain('evalgate: baseline: acme/bot, run')
    expect(res.code).toBe(0)
    expect(server.requests.find((r) => r.path === '/repos/acme/bot')?.authorization).toMatch(/gh-t0ken/)
  })

  it.each([
    {
      name: 'no baseline run yet',
      setup: async () => {},
      args: ['--repo', 'acme/bot'],
      env: {},
      message: 'baseline pull: no baseline in acme/bot: no run of evalgate.yml on main'
    },
    {
      name: 'only a fork has a run on main',
      setup: async () => void (await publish(sha(1), record([caseResult('a', true)]), { headRepository: 'mallory/bot' })),
      args: ['--repo', 'acme/bot'],
      env: {},
      message: 'no baseline in acme/bot'
    },
    {
      name: 'an artifact that is not a run record',
      setup: async () => {
        const run = server.addRun({ head_sha: sha(1) })
        server.addArtifact(run.id, 'evalgate-demo', await zipOf({ 'run.json': '{"schemaVersion": 99}' }))
      },
      args: ['--repo', 'acme/bot'],
      env: {},
      message: 'baseline pull: the baseline of acme/bot could not be read: the baseline artifact "evalgate-demo"'
    },
    {
      name: 'no token and no gh',
      setup: async () => {},
      args: ['--repo', 'acme/bot'],
      env: { GITHUB_TOKEN: undefined, PATH: '/nonexistent' },
      message: 'baseline pull needs a GitHub token'
    },
    {
      name: 'a repository that is not owner/name',
      setup: async () => {},
      args: ['--repo', 'acme'],
      env: {},
      message: '"acme" is not owner/name; say it with --repo OWNER/NAME'
    },
    {
      name: 'a source evalgate does not know',
      setup: async () => {},
      args: ['--from', 'bitbucket'],
      env: {},
      message: '--from "bitbucket": evalgate pulls baselines from github'
    }
  ])('exits 2 and writes nothing: $name', async ({ setup, args, env: extra, message }) => {
    await setup()
    const dir = project()
    const res = await runCli(['baseline', 'pull', ...args], env(extra), { cwd: dir })
    expect(res.stderr).toContain(message)
    expect(res.code).toBe(2)
    expect(() => readFileSync(path.join(dir, 'baseline.json'))).toThrow()
  })

  it('without a config, asks for it or for the artifact name', async () => {
    const dir = tempProject({})
    const res = await runCli(['baseline', 'pull', '--repo', 'acme/bot'], env(), { cwd: dir })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('no evalgate.yml here to name the artifact (evalgate-<name>): give the config with -c, or --artifact-name')
  })
})

describe('the bundled CLI (dist/cli)', () => {
  it("prints the baseline it wrote and nothing of the artifact client's own log (::debug:: lines, progress)", async () => {
    const run = await publish(sha(1), record([caseResult('a', true)]))
    const dir = project()
    const child = spawn(process.env.EVALGATE_NODE ?? process.execPath, [path.resolve('dist/cli/index.js'), 'baseline', 'pull', '--repo', 'acme/bot'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env() }
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' })
    expect(stderr).toContain(`evalgate: baseline: acme/bot, run ${run.id} of evalgate.yml on main`)
    expect(stderr).not.toMatch(/::debug::|Downloading artifact/)
  })
})

describe('reading a remote', () => {
  it.each([
    ['https://github.com/acme/bot.git', 'github', 'acme/bot'],
    ['https://github.com/acme/bot', 'github', 'acme/bot'],
    ['git@github.com:acme/bot.git', 'github', 'acme/bot'],
    ['ssh://git@github.com/acme/bot.git', 'github', 'acme/bot'],
    ['ssh://git@ssh.github.com:443/acme/bot.git', 'github', 'acme/bot'],
    ['https://gitlab.com/acme/bot.git', 'gitlab', 'acme/bot']
  ])('%s: forge %s, repository %s', (url, forge, repository) => {
    expect(sourceOfRemote(url)).toBe(forge)
    expect(repositoryOfRemote(url)).toBe(repository)
  })
})
