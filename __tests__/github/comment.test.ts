/**
 * The sticky comment: its pure parts, who the token is (a personal token, the
 * workflow's GITHUB_TOKEN, another app's installation token) and which
 * comment is ours, against the fake GitHub through the real Octokit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { GITHUB_ACTIONS_BOT, type GitHubServer } from '../__fixtures__/github-server.js'
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

const A = '<!-- evalgate:evals.yml:config-a -->'
const B = '<!-- evalgate:evals.yml:config-b -->'
const PR = 9

function octokit() {
  return createOctokit('ghs_workflow_token', { apiUrl: server.url })
}

function upsert(marker: string, report: string, verdict: 'pass' | 'fail', extra: { policy?: 'always' | 'on-change'; changed?: boolean } = {}) {
  return comment.upsertComment({
    octokit: octokit(),
    owner: server.owner,
    repo: server.repo,
    issueNumber: PR,
    marker,
    body: comment.commentBody(marker, report, verdict),
    policy: extra.policy ?? 'always',
    verdict,
    changed: extra.changed ?? false
  })
}

function bodyOf(id: number): string {
  return server.comments.find((c) => c.id === id)!.body
}

describe('commentMarker', () => {
  it('names the workflow file and the config', () => {
    expect(comment.commentMarker('evals.yml', 'support-bot')).toBe('<!-- evalgate:evals.yml:support-bot -->')
  })

  it('cannot be closed early by what it names', () => {
    expect(comment.commentMarker('a-->b.yml', 'x>\ny')).toBe('<!-- evalgate:a__b.yml:x__y -->')
  })
})

describe('commentBody and readHeader', () => {
  it('puts the marker and the verdict on the first line, then the report', () => {
    const body = comment.commentBody(A, '### ✅ gate passed', 'pass')
    expect(body).toBe(`${A}<!-- evalgate-verdict:pass -->\n### ✅ gate passed\n`)
    expect(comment.readHeader(body, A)).toEqual({ verdict: 'pass' })
  })

  it.each(['fail', 'accepted', 'could-not-tell'] as const)('keeps the verdict %s', (verdict) => {
    expect(comment.readHeader(comment.commentBody(A, 'report', verdict), A)).toEqual({ verdict })
  })

  it('reads the verdict a comment written before could-not-tell had its name as "error"', () => {
    expect(comment.readHeader(`${A}<!-- evalgate-verdict:error -->\nreport`, A)).toEqual({ verdict: 'could-not-tell' })
  })

  it.each([
    ['another config’s first line', `${B}<!-- evalgate-verdict:pass -->\nreport`],
    ['our marker on a later line', `hello\n${A}<!-- evalgate-verdict:pass -->`],
    ['our marker quoted', `> ${A}<!-- evalgate-verdict:pass -->`],
    ['more after the verdict', `${A}<!-- evalgate-verdict:pass --> and more`],
    ['an unknown verdict', `${A}<!-- evalgate-verdict:maybe -->`],
    ['config B’s marker whose name starts like A’s', `<!-- evalgate:evals.yml:config-a-2 -->\nreport`]
  ])('is not ours: %s', (_label, body) => {
    expect(comment.readHeader(body, A)).toBeNull()
  })

  it('reads a comment of an earlier evalgate (the marker alone) as ours, with no verdict known', () => {
    expect(comment.readHeader(`${A}\r\nreport\n<!-- evalgate-verdict:pass -->\n`, A)).toEqual({ verdict: null })
  })

  it('never exceeds the limit, cutting at a line', () => {
    const report = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n')
    const body = comment.commentBody(A, report, 'fail', 10_000)
    expect(body.length).toBeLessThanOrEqual(10_000)
    expect(body).toContain('report truncated')
    expect(comment.readHeader(body, A)).toEqual({ verdict: 'fail' })
  })
})

describe('isOurs', () => {
  const me = { id: 41898282, login: 'github-actions[bot]' }
  it.each([
    [{ id: 41898282, login: 'github-actions[bot]', type: 'Bot' }, true],
    [{ id: 7, login: 'my-app[bot]', type: 'Bot' }, false],
    // a login is not an identity: a renamed account's old name can be taken
    [{ id: 8, login: 'github-actions[bot]', type: 'Bot' }, false],
    [{ login: 'github-actions[bot]', type: 'Bot' }, false]
  ])('%j → %s', (user, expected) => {
    expect(comment.isOurs({ id: 1, body: `${A}<!-- evalgate-verdict:pass -->\nhi`, user }, A, me)).toBe(expected)
  })

  it('needs the marker on the first line', () => {
    expect(comment.isOurs({ id: 1, body: `hi\n${A}`, user: { id: me.id } }, A, me)).toBe(false)
  })
})

describe('tokenIdentity', () => {
  it('a personal token: GET /user', async () => {
    server.user = { login: 'ci-user', type: 'User', id: 4242 }
    expect(await comment.tokenIdentity(octokit())).toEqual({ id: 4242, login: 'ci-user' })
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /user'])
  })

  it('the workflow GITHUB_TOKEN: GET /user is refused, the GraphQL viewer is github-actions[bot]', async () => {
    expect(await comment.tokenIdentity(octokit())).toEqual({ id: 41898282, login: 'github-actions[bot]' })
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /user 403', 'POST /graphql 200'])
  })

  it("another app's installation token: the viewer is that app's bot", async () => {
    server.commenter = { login: 'my-app[bot]', type: 'Bot', id: 98765 }
    expect(await comment.tokenIdentity(octokit())).toEqual({ id: 98765, login: 'my-app[bot]' })
  })

  it('without GraphQL: the GITHUB_TOKEN bot’s fixed id', async () => {
    server.graphql = false
    expect(await comment.tokenIdentity(octokit())).toEqual({ id: comment.GITHUB_ACTIONS_BOT_ID, login: 'github-actions[bot]' })
  })
})

describe('upsertComment', () => {
  it('with a personal token: updates the token user’s comment, not a bot’s with the same first line', async () => {
    const ciUser = { login: 'ci-user', type: 'User' as const, id: 4242 }
    server.user = ciUser
    server.commenter = ciUser
    const bots = server.addComment(PR, `${A}\nold`, GITHUB_ACTIONS_BOT)
    const mine = server.addComment(PR, `${A}\nold`, ciUser)
    const result = await upsert(A, 'new', 'pass')
    expect(result).toMatchObject({ action: 'updated', id: mine.id })
    expect(bodyOf(mine.id)).toContain('new')
    expect(bodyOf(bots.id)).toBe(`${A}\nold`)
  })

  it("with another app's token: github-actions[bot]'s comment is not ours", async () => {
    server.commenter = { login: 'my-app[bot]', type: 'Bot', id: 98765 }
    const actions = server.addComment(PR, `${A}<!-- evalgate-verdict:fail -->\nold`, GITHUB_ACTIONS_BOT)
    const result = await upsert(A, 'new', 'pass')
    expect(result.action).toBe('created')
    expect(bodyOf(actions.id)).toContain('old')
  })

  it('with the GITHUB_TOKEN: updates its own comment, found behind a page of others', async () => {
    for (let i = 0; i < 120; i++) server.addComment(PR, `comment ${i}`)
    const first = await upsert(A, 'first', 'fail')
    const second = await upsert(A, 'second', 'pass')
    expect(second).toMatchObject({ action: 'updated', id: first.id })
    expect(comment.readHeader(bodyOf(first.id!), A)).toEqual({ verdict: 'pass' })
  })

  it('on-change: quiet while the verdict shown is the verdict now and nothing flipped', async () => {
    expect((await upsert(A, 'a pass', 'pass', { policy: 'on-change' })).action).toBe('unchanged')
    const failed = await upsert(A, 'a fail', 'fail', { policy: 'on-change' })
    expect(failed.action).toBe('created')
    expect(await upsert(A, 'still failing', 'fail', { policy: 'on-change' })).toMatchObject({ action: 'unchanged', id: failed.id })
    expect(await upsert(A, 'a flip', 'fail', { policy: 'on-change', changed: true })).toMatchObject({ action: 'updated', id: failed.id })
  })

  it('on-change: a comment of an earlier evalgate, with no verdict on its first line, is updated', async () => {
    const old = server.addComment(PR, `${A}\nreport\n<!-- evalgate-verdict:fail -->\n`, GITHUB_ACTIONS_BOT)
    expect(await upsert(A, 'still failing', 'fail', { policy: 'on-change' })).toMatchObject({ action: 'updated', id: old.id })
  })

  it('turns a 403 into the fork notice', async () => {
    server.canWrite = false
    const result = await upsert(A, 'first', 'pass')
    expect(result.action).toBe('skipped')
    expect(result.notice).toMatch(
      /^comment skipped: the token cannot write to this pull request \(fork\?\) — the workflow_run comment workflow comments for forks \(evalgate init --fork-safe writes it; docs\/action\.md\) \(403: Resource not accessible by integration/
    )
  })
})

describe('attacks on the sticky comment (issue 12 row 12), with the workflow GITHUB_TOKEN', () => {
  it("never patches another Bot's comment that starts with our marker", async () => {
    const other = server.addComment(PR, `${A}\nrenovate quoting the evalgate comment`, { login: 'renovate[bot]', type: 'Bot' })
    const result = await upsert(A, '### gate passed', 'pass')
    expect(result.action).toBe('created')
    expect(bodyOf(other.id)).toBe(`${A}\nrenovate quoting the evalgate comment`)
    expect(server.commentsOn(PR).find((c) => c.id === result.id)!.user).toEqual(GITHUB_ACTIONS_BOT)
  })

  it("an output carrying config B's marker cannot make B's run overwrite A's comment", async () => {
    // A's comment, written by the same bot, shows a model output that holds B's marker on a line of its own
    const a = await upsert(A, `### ❌ gate failed\n\noutput:\n${B}\n`, 'fail')
    const b = await upsert(B, '### ✅ gate passed', 'pass')
    expect(b.action).toBe('created')
    expect(b.id).not.toBe(a.id)
    expect(bodyOf(a.id!)).toContain('gate failed')
  })

  it('the previous verdict for on-change is read from our first line, not from a forged verdict marker in the output', async () => {
    // the comment we wrote shows a pass; the model output in it carries a forged verdict marker saying "fail"
    const shown = await upsert(
      A,
      '### ✅ gate passed\n\noutput: <!-- evalgate-verdict:fail --> <!-- evalgate:evals.yml:config-a --><!-- evalgate-verdict:fail -->',
      'pass'
    )
    // now the gate fails without any case flipping (a floor): the comment must stop showing a pass
    const now = await upsert(A, '### ❌ gate failed (min-pass-rate)', 'fail', { policy: 'on-change', changed: false })
    expect(now).toMatchObject({ action: 'updated', id: shown.id })
    expect(bodyOf(shown.id!)).toContain('gate failed')
  })
})
