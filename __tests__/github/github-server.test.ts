/**
 * The fake GitHub's own endpoints that tests elsewhere rely on: file contents
 * at a ref (trusted config, SPEC §9) and commit comparison (baseline
 * candidates), read through the real Octokit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import type { GitHubServer } from '../__fixtures__/github-server.js'
import { restoreEnv, sha, startGitHub } from './helpers.js'

let server: GitHubServer
let octokit: ReturnType<typeof import('../../src/github/context.js').createOctokit>

beforeAll(async () => {
  server = await startGitHub()
  const { createOctokit } = await import('../../src/github/context.js')
  octokit = createOctokit('t0ken', { apiUrl: server.url })
})

afterAll(async () => {
  await server.close()
  restoreEnv()
})

beforeEach(() => server.reset())

describe('GET /repos/{owner}/{repo}/contents/{path}?ref=', () => {
  const config = `version: 1\nname: demo\ngate:\n  maxRegressions: 0\n# ${'a long comment line, longer than the 60 characters GitHub wraps base64 at'}\n`

  it('serves the file at that ref, base64 as GitHub wraps it', async () => {
    server.addFile(sha(1), 'evalgate.yml', config)
    server.addFile(sha(1), '.github/evals/evalgate.yml', 'nested')
    const { data } = await octokit.rest.repos.getContent({ owner: server.owner, repo: server.repo, path: 'evalgate.yml', ref: sha(1) })
    const file = data as { type: string; encoding: string; content: string; path: string }
    expect(file).toMatchObject({ type: 'file', encoding: 'base64', path: 'evalgate.yml' })
    expect(file.content).toContain('\n')
    expect(Buffer.from(file.content, 'base64').toString('utf8')).toBe(config)
    const nested = await octokit.rest.repos.getContent({ owner: server.owner, repo: server.repo, path: '.github/evals/evalgate.yml', ref: sha(1) })
    expect(Buffer.from((nested.data as { content: string }).content, 'base64').toString()).toBe('nested')
  })

  it('answers 404 for a file absent at that ref, and without a ref reads the default branch', async () => {
    server.addFile(sha(1), 'evalgate.yml', config)
    server.addFile('main', 'evalgate.yml', 'on main')
    await expect(octokit.rest.repos.getContent({ owner: server.owner, repo: server.repo, path: 'evalgate.yml', ref: sha(2) })).rejects.toMatchObject({
      status: 404
    })
    await expect(octokit.rest.repos.getContent({ owner: server.owner, repo: server.repo, path: 'other.yml', ref: sha(1) })).rejects.toMatchObject({
      status: 404
    })
    const { data } = await octokit.rest.repos.getContent({ owner: server.owner, repo: server.repo, path: 'evalgate.yml' })
    expect(Buffer.from((data as { content: string }).content, 'base64').toString()).toBe('on main')
  })
})

describe('GET /repos/{owner}/{repo}/compare/{base}...{head}', () => {
  async function status(basehead: string): Promise<string> {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner: server.owner, repo: server.repo, basehead })
    return data.status
  }

  it('says how a commit stands to a branch', async () => {
    for (const n of [1, 2, 3]) server.addCommit('main', sha(n))
    server.addCommit('feature', sha(1))
    server.addCommit('feature', sha(9))
    expect(await status(`main...${sha(3)}`)).toBe('identical')
    expect(await status(`main...${sha(1)}`)).toBe('behind')
    expect(await status(`main...${sha(9)}`)).toBe('diverged')
    expect(await status(`${sha(1)}...${sha(3)}`)).toBe('ahead')
    await expect(status(`main...${sha(7)}`)).rejects.toMatchObject({ status: 404 })
  })

  it('resolves a short name as a tag before a branch, as git does', async () => {
    server.addCommit('main', sha(1))
    server.tags.set('main', sha(0xbad))
    expect(await status(`main...${sha(0xbad)}`)).toBe('identical')
    server.tags.delete('main')
    // the tag's commit is still known once the tag is gone: on no branch
    server.addRun({ head_sha: sha(0xbad) }, { onBranch: false })
    expect(await status(`main...${sha(0xbad)}`)).toBe('diverged')
  })
})
