import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { gitInfo, localGit } from '../../src/util/git.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'

describe('the commit of a local run', () => {
  let repo: string
  let plain: string
  let head: string
  beforeAll(() => {
    repo = mkdtempSync(path.join(tmpdir(), 'evalgate-git-'))
    plain = mkdtempSync(path.join(tmpdir(), 'evalgate-nogit-'))
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' }).trim()
    git('init', '-q', '-b', 'feature')
    git('commit', '-q', '--allow-empty', '-m', 'first')
    head = git('rev-parse', 'HEAD')
  })
  afterAll(() => {
    rmSync(repo, { recursive: true, force: true })
    rmSync(plain, { recursive: true, force: true })
  })

  it('is HEAD of the repository, on its branch', () => {
    expect(localGit(repo)).toEqual({ sha: head, ref: 'refs/heads/feature', runId: null })
    expect(head).toMatch(/^[0-9a-f]{40}$/)
  })

  it('is unknown where git finds no repository', () => {
    // a broken .git stops git's search here, whatever folders the temp dir sits in
    writeFileSync(path.join(plain, '.git'), 'not a repository\n')
    expect(localGit(plain)).toEqual({ sha: null, ref: null, runId: null })
  })

  it.each([
    {
      name: 'the runner says',
      env: { GITHUB_SHA: 'abc', GITHUB_REF: 'refs/pull/5/merge', GITHUB_RUN_ID: '9' },
      git: { sha: 'abc', ref: 'refs/pull/5/merge', runId: '9' }
    },
    { name: 'git says', env: {}, git: 'local' as const }
  ])('gitInfo: $name', ({ env, git }) => {
    expect(gitInfo(env, repo)).toEqual(git === 'local' ? { sha: head, ref: 'refs/heads/feature', runId: null } : git)
  })
})

describe('evalgate run on a laptop', () => {
  let dir: string
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('records and reports the commit the config sits in', async () => {
    dir = tempProject({
      'evalgate.yml': 'version: 1\ncases: [{id: math, input: "2+2", expected: "4"}]\ntarget: {command: ["node", "-e", "process.stdout.write(\'4\')"]}\n'
    })
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' }).trim()
    git('init', '-q', '-b', 'main')
    git('commit', '-q', '--allow-empty', '-m', 'first')
    const out = path.join(dir, 'run.json')
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out])
    expect(res.code).toBe(0)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.git).toEqual({ sha: git('rev-parse', 'HEAD'), ref: 'refs/heads/main', runId: null })
    expect(res.stdout).toContain(`This run: commit \`${record.git.sha.slice(0, 7)}\`.`)
  })
})
