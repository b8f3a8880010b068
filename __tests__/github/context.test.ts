import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { readContext, runUrl, workflowPathFromRef } from '../../src/github/context.js'
import { triggeringRun } from '../../src/github/workflow-run.js'
import { tempDir } from './helpers.js'

describe('workflowPathFromRef', () => {
  it.each([
    ['acme/bot/.github/workflows/evals.yml@refs/heads/main', '.github/workflows/evals.yml'],
    ['acme/bot/.github/workflows/evals.yml@refs/pull/5/merge', '.github/workflows/evals.yml'],
    ['other/repo/.github/workflows/reusable.yml@v1', '.github/workflows/reusable.yml'],
    [undefined, null]
  ])('%s → %s', (ref, expected) => {
    expect(workflowPathFromRef(ref, 'acme/bot')).toBe(expected)
  })
})

describe('runUrl', () => {
  it.each([
    { serverUrl: 'https://github.com', runId: 42, url: 'https://github.com/acme/bot/actions/runs/42' },
    { serverUrl: 'https://ghe.example.com/', runId: '7', url: 'https://ghe.example.com/acme/bot/actions/runs/7' },
    { serverUrl: 'https://github.com', runId: null, url: null },
    { serverUrl: 'https://github.com', runId: '42) [x](y', url: null }
  ])('$serverUrl, run $runId → $url', ({ serverUrl, runId, url }) => {
    expect(runUrl({ serverUrl, repository: 'acme/bot' }, runId)).toBe(url)
  })
})

describe('readContext', () => {
  it('reads the pull request and default branch from the event payload', () => {
    const event = path.join(tempDir(), 'event.json')
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { number: 3, head: { sha: 'h' }, base: { sha: 'b', ref: 'main' } }, repository: { default_branch: 'trunk' } })
    )
    const ctx = readContext({ GITHUB_REPOSITORY: 'acme/bot', GITHUB_EVENT_PATH: event, GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '2', RUNNER_TEMP: '/rt' })
    expect(ctx).toMatchObject({
      owner: 'acme',
      repo: 'bot',
      runId: 77,
      runAttempt: 2,
      tempDir: '/rt',
      defaultBranch: 'trunk',
      apiUrl: 'https://api.github.com',
      pullRequest: { number: 3, headSha: 'h', baseSha: 'b', baseRef: 'main' }
    })
  })

  it('needs GITHUB_REPOSITORY', () => {
    expect(() => readContext({})).toThrow(/GITHUB_REPOSITORY is not set/)
  })

  it('refuses a payload that is not JSON', () => {
    const event = path.join(tempDir(), 'event.json')
    writeFileSync(event, '{')
    expect(() => readContext({ GITHUB_REPOSITORY: 'a/b', GITHUB_EVENT_PATH: event })).toThrow(/not valid JSON/)
  })
})

describe('triggeringRun', () => {
  it('reads the workflow_run of the payload', () => {
    expect(
      triggeringRun({
        workflow_run: {
          id: 9,
          workflow_id: 7,
          path: '.github/workflows/evals.yml@refs/heads/x',
          event: 'pull_request',
          head_sha: 'abc',
          head_branch: 'feature',
          pull_requests: [{ number: 4 }],
          head_repository: { owner: { login: 'mallory' } }
        }
      })
    ).toEqual({
      id: 9,
      workflowId: 7,
      workflowPath: '.github/workflows/evals.yml',
      event: 'pull_request',
      headSha: 'abc',
      headBranch: 'feature',
      headOwner: 'mallory',
      pullRequestNumbers: [4]
    })
  })

  it('explains when the event is not workflow_run', () => {
    expect(() => triggeringRun({ pull_request: {} })).toThrow(/on: workflow_run/)
  })
})
