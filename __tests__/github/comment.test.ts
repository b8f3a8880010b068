/**
 * The sticky comment's pure parts, and finding it as a personal token (GET /user
 * answers) against the fake GitHub.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import type { GitHubServer } from '../__fixtures__/github-server.js'
import { restoreEnv, startGitHub } from './helpers.js'

let server: GitHubServer
let comment: typeof import('../../src/github/comment.js')
let createOctokit: typeof import('../../src/github/context.js').createOctokit

beforeAll(async () => {
  server = await startGitHub()
  comment = await import('../../src/github/comment.js')
  ;({ createOctokit } = await import('../../src/github/context.js'))
})

afterAll(async () => {
  await server.close()
  restoreEnv()
})

beforeEach(() => server.reset())

describe('commentMarker', () => {
  it('names the workflow file and the config', () => {
    expect(comment.commentMarker('evals.yml', 'support-bot')).toBe('<!-- evalgate:evals.yml:support-bot -->')
  })

  it('cannot be closed early by what it names', () => {
    expect(comment.commentMarker('a-->b.yml', 'x>\ny')).toBe('<!-- evalgate:a__b.yml:x__y -->')
  })
})

describe('commentBody', () => {
  const marker = comment_marker()
  function comment_marker() {
    return '<!-- evalgate:evals.yml:demo -->'
  }

  it('puts the marker first and the verdict last', () => {
    const body = comment.commentBody(marker, '### ✅ gate passed', 'pass')
    expect(body).toBe(`${marker}\n### ✅ gate passed\n<!-- evalgate-verdict:pass -->\n`)
    expect(comment.verdictOf(body)).toBe('pass')
  })

  it('keeps a single marker when the report already has one', () => {
    const body = comment.commentBody(marker, `${marker}\nreport`, 'fail')
    expect(body.split(marker)).toHaveLength(2)
  })

  it('never exceeds the limit, cutting at a line', () => {
    const report = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n')
    const body = comment.commentBody(marker, report, 'fail', 10_000)
    expect(body.length).toBeLessThanOrEqual(10_000)
    expect(body).toContain('report truncated')
    expect(comment.verdictOf(body)).toBe('fail')
  })
})

describe('isOurs', () => {
  const marker = '<!-- evalgate:evals.yml:demo -->'
  it.each([
    [{ login: 'github-actions[bot]', type: 'Bot' }, null, true],
    [{ login: 'my-app[bot]', type: 'Bot' }, null, true],
    [{ login: 'mallory', type: 'User' }, null, false],
    [{ login: 'ci-user', type: 'User' }, 'ci-user', true],
    [{ login: 'github-actions[bot]', type: 'Bot' }, 'ci-user', false]
  ])('%j with token login %s → %s', (user, login, expected) => {
    expect(comment.isOurs({ id: 1, body: `${marker}\nhi`, user }, marker, { login })).toBe(expected)
  })

  it('needs the marker', () => {
    expect(comment.isOurs({ id: 1, body: 'hi', user: { type: 'Bot' } }, marker, { login: null })).toBe(false)
  })
})

describe('upsertComment with a personal token', () => {
  const marker = '<!-- evalgate:evals.yml:demo -->'
  function options(body: string) {
    return {
      octokit: createOctokit('ghp_personal', { apiUrl: server.url }),
      owner: server.owner,
      repo: server.repo,
      issueNumber: 9,
      marker,
      body: comment.commentBody(marker, body, 'pass' as const),
      policy: 'always' as const,
      verdict: 'pass' as const,
      changed: false
    }
  }

  it('updates the comment of the token user, not a bot’s with the same marker', async () => {
    server.user = { login: 'ci-user', type: 'User' }
    server.commenter = { login: 'ci-user', type: 'User' }
    const bots = server.addComment(9, `${marker}\nold`, { login: 'other[bot]', type: 'Bot' })
    const mine = server.addComment(9, `${marker}\nold`, { login: 'ci-user', type: 'User' })
    const result = await comment.upsertComment(options('new'))
    expect(result).toMatchObject({ action: 'updated', id: mine.id })
    expect(server.comments.find((c) => c.id === mine.id)!.body).toContain('new')
    expect(server.comments.find((c) => c.id === bots.id)!.body).toContain('old')
  })

  it('creates one when there is none', async () => {
    server.user = { login: 'ci-user', type: 'User' }
    const result = await comment.upsertComment(options('first'))
    expect(result.action).toBe('created')
    expect(server.commentsOn(9)).toHaveLength(1)
  })

  it('turns a 403 into the fork notice', async () => {
    server.canWrite = false
    const result = await comment.upsertComment(options('first'))
    expect(result.action).toBe('skipped')
    expect(result.notice).toMatch(/^comment skipped: the token cannot write to this pull request \(fork\?\) — see README's workflow_run pattern \(403: Resource not accessible by integration/)
  })
})
