/**
 * One verdict on every surface: in each situation a pull request can be in,
 * the bundled action (dist/index.js, as the runner starts it) against a fake
 * GitHub on 127.0.0.1 — the exit code, the `gate` and `verdict` outputs, the
 * comment's marker and first line, the job summary's headline, the annotations'
 * level, the HTML report's headline, report.md's and the JSON's verdict — all
 * say the same thing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { parse as parseJunit, type TestSuite } from 'junit2json'
import { zipOf } from './__fixtures__/github-server.js'
import { BASE, HEAD, MARKER, PR, useAction } from './__fixtures__/action.js'
import { startServer, type FakeServer } from './__fixtures__/openai-server.js'
import { prPayload, runBundle, type RunResult } from './github/harness.js'
import { sha } from './github/helpers.js'

const suite = useAction()
const dist = process.env.EVALGATE_DIST ?? path.join(process.cwd(), 'dist', 'index.js')
const maybe = existsSync(dist) ? it : it.skip

/** The judge's server: answers every verdict with `score`, or with 429 while `down`. */
let judge: FakeServer
let judgeDown = false
beforeAll(async () => {
  judge = await startServer()
  judge.respond(() =>
    judgeDown
      ? { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached for requests' } } }
      : {
          body: {
            choices: [{ index: 0, message: { role: 'assistant', content: '{"score": 1, "reason": "fine"}' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 }
          }
        }
  )
})
afterAll(() => judge.close())

interface Situation {
  name: string
  /** before the pull request's run: the baseline and the world it meets */
  setup?: () => Promise<void>
  broken?: string[]
  labels?: string[]
  inputs?: Record<string, string>
  env?: Record<string, string | undefined>
  /** what every surface says */
  status: 'pass' | 'fail' | 'accepted' | 'could-not-tell'
  exitCode: 0 | 1
  gate: 'pass' | 'fail' | 'accepted'
  alert: 'TIP' | 'NOTE' | 'WARNING' | 'CAUTION'
  /** the words the headlines begin with */
  words: string
  /** the regressed cases' annotations; null when none is expected */
  annotations: 'error' | 'warning' | null
  /** whether a comment is posted */
  comments?: boolean
  /** a reason every surface names */
  reason?: RegExp
}

const judged = `judge:
  provider: openai
  model: judge-mini
  baseUrl: \${JUDGE_URL}
  apiKeyEnv: JUDGE_KEY
  retries: 0
`
const judgedCases = `- id: capital
  input: What is the capital of Ireland?
  assert: [{ type: llm-rubric, value: Names Dublin }]
- id: math
  input: What is 2 + 2?
  assert: [{ type: llm-rubric, value: Says 4 }]
- id: greet
  input: Say hello
  expected: hello
`

/** The variables the judge's settings read: the fake judge's address and a key. */
const judgeEnv = (): Record<string, string> => ({ JUDGE_URL: judge.baseUrl, JUDGE_KEY: 'judge-key-1234' })

/** A push to main that publishes the baseline (the in-process action: the same code, built from src). */
async function withBaseline(): Promise<void> {
  const run = suite.server.addRun({ head_sha: BASE })
  const result = await suite.action({ event: 'push', runId: run.id, sha: BASE, payload: { repository: { default_branch: 'main' } }, env: judgeEnv() })
  expect(result.exitCode).toBeUndefined()
  expect(suite.server.uploaded(run.id)).toHaveLength(1)
}

/**
 * A baseline made at an older commit of main, and a pull request whose base
 * commit was committed 20½ days after it: stale (gate.maxBaselineAgeDays 14).
 */
function withStaleBaseline(failOnStale: boolean): () => Promise<void> {
  return async () => {
    if (failOnStale) writeFileSync(suite.ws.config, readFileSync(suite.ws.config, 'utf8') + 'gate:\n  failOnStaleBaseline: true\n')
    const old = sha(0x01d)
    const run = suite.server.addRun({ head_sha: old })
    const result = await suite.action({ event: 'push', runId: run.id, sha: old, payload: { repository: { default_branch: 'main' } }, env: judgeEnv() })
    expect(result.exitCode).toBeUndefined()
    suite.server.commitDates.set(BASE, new Date(Date.now() + 20.5 * 86_400_000).toISOString())
  }
}
const STALE = /the baseline \(commit 0000000\) is stale: it was made 20 days before the base commit/

/** What every surface says of a failed gate. */
const gateFailed = { status: 'fail', exitCode: 1, gate: 'fail', alert: 'CAUTION', words: 'gate failed', annotations: 'error' } as const

/** What every surface says of a run that could not tell. */
const couldNotTell = {
  status: 'could-not-tell',
  exitCode: 1,
  gate: 'fail',
  alert: 'CAUTION',
  words: 'evalgate could not tell',
  annotations: null
} as const

const situations: Situation[] = [
  { name: 'pass', setup: withBaseline, status: 'pass', exitCode: 0, gate: 'pass', alert: 'TIP', words: 'gate passed', annotations: null },
  {
    name: 'fail',
    setup: withBaseline,
    broken: ['capital'],
    ...gateFailed,
    reason: /1 case regressed \(limit: maxRegressions 0\): capital/
  },
  {
    name: 'accepted by label',
    setup: withBaseline,
    broken: ['capital'],
    labels: ['evalgate:accept'],
    status: 'accepted',
    exitCode: 0,
    gate: 'accepted',
    alert: 'WARNING',
    words: 'gate failed, accepted by the label "evalgate:accept"',
    annotations: 'warning',
    reason: /1 case regressed/
  },
  {
    name: 'no baseline',
    status: 'pass',
    exitCode: 0,
    gate: 'pass',
    alert: 'NOTE',
    words: 'gate passed',
    annotations: null,
    reason: /no baseline yet: nothing compared/
  },
  {
    name: 'judge outage (429 on every verdict)',
    setup: async () => {
      writeFileSync(path.join(suite.ws.dir, 'cases.yaml'), judgedCases)
      writeFileSync(suite.ws.config, readFileSync(suite.ws.config, 'utf8') + judged)
      await withBaseline()
      judgeDown = true
    },
    // new outputs (the baseline's verdicts cannot be reused) that the judge, down, cannot grade: not two regressions
    broken: ['capital', 'math'],
    ...couldNotTell,
    reason: /the judge failed on 2 of 2 verdicts: .*HTTP 429/
  },
  {
    name: 'baseline download error',
    setup: async () => {
      await withBaseline()
      for (const a of suite.server.artifacts) suite.server.failDownload(a.id, 503, 'api')
    },
    ...couldNotTell,
    reason: /the baseline exists but could not be read/
  },
  {
    name: 'incompatible baseline',
    setup: async () => {
      // a baseline of an evalgate that fingerprinted with version 1
      const run = suite.server.addRun({ head_sha: BASE })
      const record = {
        schemaVersion: 1,
        tool: { name: 'evalgate', version: '0.0.1' },
        fingerprintVersion: 1,
        name: 'demo',
        createdAt: '2026-01-01T00:00:00.000Z',
        git: { sha: BASE, ref: 'refs/heads/main', runId: String(run.id) },
        summary: {
          total: 0,
          passed: 0,
          failed: 0,
          errors: 0,
          passRate: 0,
          meanScore: null,
          durationMs: 1,
          judge: { calls: 0, reused: 0, errors: 0, tokens: 0 }
        },
        cases: []
      }
      suite.server.addArtifact(run.id, 'evalgate-demo', await zipOf({ 'run.json': JSON.stringify(record) }))
    },
    ...couldNotTell,
    reason: /the baseline cannot be compared with this run: the baseline was fingerprinted with version 1/
  },
  {
    name: 'upload failure',
    setup: async () => {
      await withBaseline()
      suite.server.uploadFailure = 403
    },
    ...couldNotTell,
    reason: /the run record could not be uploaded as artifact "evalgate-demo"/
  },
  {
    name: 'upload without a runtime token',
    setup: withBaseline,
    env: { ACTIONS_RUNTIME_TOKEN: undefined },
    ...couldNotTell,
    reason: /the run record could not be uploaded as artifact "evalgate-demo": .*ACTIONS_RUNTIME_TOKEN/
  },
  {
    name: 'comment post refused (403)',
    setup: async () => {
      await withBaseline()
      suite.server.canWrite = false
    },
    broken: ['capital'],
    ...gateFailed,
    comments: false,
    reason: /1 case regressed/
  },
  {
    name: 'budget-stopped run',
    setup: async () => {
      await withBaseline()
      // an agent that spends $1 a case, one at a time, against a budget of $1.50
      writeFileSync(
        path.join(suite.ws.dir, 'agent.mjs'),
        "export default (input) => ({ output: String(input).includes('2 + 2') ? 'It is 4' : String(input).includes('Ireland') ? 'Dublin' : 'hello', usage: { costUsd: 1 } })\n"
      )
      writeFileSync(suite.ws.config, readFileSync(suite.ws.config, 'utf8') + 'concurrency: 1\nbudget:\n  maxCostUsd: 1.5\n')
    },
    ...couldNotTell,
    reason: /the run stopped at its budget: \$2\.00 spent of budget\.maxCostUsd \$1\.50/
  },
  {
    name: 'stale baseline (a warning)',
    setup: withStaleBaseline(false),
    status: 'pass',
    exitCode: 0,
    gate: 'pass',
    alert: 'WARNING',
    words: 'gate passed',
    annotations: null,
    reason: STALE
  },
  {
    name: 'stale baseline (failOnStaleBaseline: true)',
    setup: withStaleBaseline(true),
    status: 'fail',
    exitCode: 1,
    gate: 'fail',
    alert: 'CAUTION',
    words: 'gate failed',
    annotations: null,
    reason: STALE
  },
  {
    name: 'advisory (fail-on-regression: false)',
    setup: withBaseline,
    broken: ['capital'],
    inputs: { 'fail-on-regression': 'false' },
    status: 'fail',
    exitCode: 0,
    gate: 'fail',
    alert: 'WARNING',
    words: 'gate failed (advisory)',
    annotations: 'warning',
    reason: /the check was left green on purpose/
  }
]

/** The pull request's run of the bundled action, as the runner starts it. */
async function bundledPrRun(s: Situation): Promise<RunResult> {
  const current = suite.server.addRun({ head_sha: HEAD, event: 'pull_request', head_branch: 'feature', pull_requests: [{ number: PR }] })
  const payload = prPayload(suite.server, PR, HEAD, BASE)
  if (s.labels) (payload.pull_request as Record<string, unknown>).labels = s.labels.map((name) => ({ name }))
  return runBundle(dist, {
    server: suite.server,
    files: suite.files,
    ws: suite.ws,
    event: 'pull_request',
    runId: current.id,
    sha: HEAD,
    payload,
    broken: s.broken,
    inputs: { junit: junitPath(), ...s.inputs },
    env: { ...judgeEnv(), ...s.env }
  })
}

/** Where the action is asked to write the JUnit XML (input junit). */
const junitPath = () => path.join(suite.ws.dir, 'reports', 'evalgate-junit.xml')

/** The bold first line of a markdown report's verdict alert, and the alert's kind. */
function headlineOf(markdown: string): { alert: string; title: string } {
  const m = /^> \[!(\w+)\]\n> \*\*evalgate · demo: (.*)\*\*$/m.exec(markdown)
  if (!m) throw new Error(`no verdict alert in:\n${markdown.slice(0, 500)}`)
  return { alert: m[1]!, title: m[2]! }
}

describe('one verdict on every surface (the bundled action against a fake GitHub)', () => {
  // only the judge situation needs the judge's server up; it is reset for each
  beforeAll(() => {
    judgeDown = false
  })

  maybe.each(situations)(
    '$name',
    async (s) => {
      judgeDown = false
      // the baseline is made with the in-process action (the same code, built from src)
      await s.setup?.()
      const result = await bundledPrRun(s)

      // the exit code and the outputs
      expect(result.exitCode ?? 0).toBe(s.exitCode)
      expect(result.outputs.gate).toBe(s.gate)
      expect(result.outputs.verdict).toBe(s.status)

      // the job summary and report.md: the same report, the same headline
      const summary = headlineOf(result.summary)
      expect(summary.alert).toBe(s.alert)
      expect(summary.title.startsWith(s.words)).toBe(true)
      const reportMd = readFileSync(result.outputs['report-path']!, 'utf8')
      expect(headlineOf(reportMd)).toEqual(summary)

      // the comment: the marker and the verdict on its first line, then the same headline
      const comments = suite.server.commentsOn(PR).filter((c) => c.body.startsWith(MARKER))
      if (s.comments === false) {
        expect(comments).toHaveLength(0)
        expect(result.stdout).toMatch(/comment skipped: the token cannot write to this pull request/)
      } else {
        expect(comments).toHaveLength(1)
        const body = comments[0]!.body
        expect(body.split('\n', 1)[0]).toBe(`${MARKER}<!-- evalgate-verdict:${s.status} -->`)
        expect(headlineOf(body)).toEqual(summary)
      }

      // the annotations of regressed cases: errors only when the check fails
      // (workflow-command properties escape ':' as %3A)
      const annotated = [...result.stdout.matchAll(/^::(error|warning) [^\n]*title=evalgate%3A regressed/gm)].map((m) => m[1])
      if (s.annotations === null) expect(annotated).toEqual([])
      else expect(new Set(annotated)).toEqual(new Set([s.annotations]))
      // the step's own error line exactly when the check fails
      expect(/^::error::evalgate: /m.test(result.stdout)).toBe(s.exitCode === 1)

      // the HTML report and the JSON beside report.md
      const html = readFileSync(result.outputs['html-path']!, 'utf8')
      expect(unescapeHtml(html)).toMatch(new RegExp(`<title>evalgate · demo — ${escapeRegExp(s.words)}`))
      const json = JSON.parse(readFileSync(result.outputs['json-path']!, 'utf8')) as {
        verdict: { status: string; headline: string; exitCode: number; reasons: { message: string }[]; notices: string[] }
      }
      expect(json.verdict.status).toBe(s.status)
      expect(json.verdict.exitCode).toBe(s.status === 'pass' || s.status === 'accepted' || s.inputs?.['fail-on-regression'] === 'false' ? 0 : 1)

      // the JUnit XML: the verdict and its reasons in the suite's properties
      const junit = ((await parseJunit(readFileSync(junitPath(), 'utf8'))) as { testsuite: TestSuite[] }).testsuite[0]!
      const junitProperty = (name: string) => (junit.properties ?? []).filter((p) => p.name === name).map((p) => String(p.value))
      expect(junitProperty('verdict')).toEqual([s.status])
      expect(junitProperty('gate')).toEqual([s.gate])

      // the reason, wherever the verdict is shown
      if (s.reason) {
        const shown = {
          junit: [...junitProperty('headline'), ...junitProperty('reason'), ...junitProperty('notice')].join('\n'),
          summary: unescapeMarkdown(result.summary),
          html: unescapeHtml(html),
          json: [json.verdict.headline, ...json.verdict.reasons.map((r) => r.message), ...json.verdict.notices].join('\n'),
          ...(comments[0] ? { comment: unescapeMarkdown(comments[0].body) } : {})
        }
        for (const [where, text] of Object.entries(shown)) expect([where, s.reason.test(text)]).toEqual([where, true])
      }
    },
    120_000
  )
})

/** Markdown as read: the backslashes that keep `$`, `_` and the like from formatting taken away. */
function unescapeMarkdown(markdown: string): string {
  return markdown.replace(/\\([\\`*_{}[\]()#+\-.!|$<>~@])/g, '$1')
}

function unescapeHtml(html: string): string {
  return html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
