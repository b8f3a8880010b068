/**
 * Fault injection in ONE run: a command target that crashes, dies of signals,
 * hangs (even ignoring SIGTERM), floods, writes invalid UTF-8, closes stdout
 * and leaves children behind, graded by an OpenAI judge that rate-limits,
 * stalls and answers garbage. The run finishes, every case has exactly one
 * result, no process is left behind and memory stays bounded.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { chatReply, startServer, type FakeServer, type Reply } from '../__fixtures__/openai-server.js'

const agent = path.resolve('__tests__/__fixtures__/agents/faults-agent.mjs')
const MiB = 1024 * 1024
/** In every argv the agent and its children start: finds leftovers in the process table. */
const marker = `evalgate-fault-${randomBytes(6).toString('hex')}`

/** What each target fault must end as: the case's error, or its output. */
const targetFaults: [input: string, expected: { error: RegExp } | { output: (o: string) => boolean }][] = [
  ['ok:hello', { output: (o) => o === 'hello' }],
  ['crash', { error: /^exited with code 1: agent crashed on purpose$/ }],
  ['sigkill', { error: /^killed by SIGKILL/ }],
  ['sigsegv', { error: /^killed by SIGSEGV/ }],
  ['hang', { error: /^timed out after 30000 ms$/ }],
  ['hang-ignoring-sigterm', { error: /^timed out after 30000 ms$/ }],
  ['slow', { output: (o) => o === 'slow but in time' }],
  ['over-cap', { error: /^output exceeded 10485760 bytes \(target\.maxOutputBytes\)$/ }],
  // every character a `u`, found by searching for any other one: V8 can overflow its stack matching /^u+$/ over 10 MB
  ['under-cap', { output: (o) => o.length === 10 * MiB - 1 && !/[^u]/.test(o) }],
  ['flood-forever', { error: /^output exceeded 10485760 bytes/ }],
  // only the tail of stderr is kept, from its first whole line: the cause, not 8 MB of noise
  ['stderr-flood', { error: /^exited with code 2: …the real cause is here$/ }],
  ['bad-utf8', { output: (o) => o === 'a\uFFFD\uFFFDb\uFFFD' }],
  ['close-stdout', { output: (o) => o === '' }],
  ['close-stdout-and-hang', { error: /^timed out after 30000 ms$/ }],
  ['orphan-holding-stdout', { output: (o) => o === 'parent done' }],
  ['orphan-daemon', { output: (o) => o === 'started helper' }],
  ['many-children-then-hang', { error: /^timed out after 30000 ms$/ }],
  ['escape-process-group', { output: (o) => o === 'parent done' }]
]

/** Judge faults, keyed by the token the agent echoes into the output the judge sees. */
const judgeFaults: [token: string, expected: { score: number } | { error: RegExp }][] = [
  ['judge-ok', { score: 0.9 }],
  ['judge-429-then-ok', { score: 0.9 }],
  ['judge-429-storm', { error: /HTTP 429.*rate limited/ }],
  ['judge-500', { error: /HTTP 500: internal/ }],
  ['judge-slow', { error: /no reply within 10000 ms \(after 3 attempts\)/ }],
  ['judge-drop', { error: /other side closed .*\(after 3 attempts\)/ }],
  ['judge-garbage', { error: /reply has no choices\[0\]\.message: <html>502 Bad Gateway<\/html>/ }],
  ['judge-null-content', { error: /the judge gave an empty reply/ }],
  ['judge-empty-choices', { error: /reply has no choices\[0\]\.message/ }],
  ['judge-bad-score', { error: /judge score is not a number/ }],
  ['judge-refusal', { error: /the judge refused to grade/ }],
  // a reply past 10,000 characters is not read further: not a verdict
  ['judge-huge', { error: /judge reply is not JSON/ }],
  ['judge-out-of-range', { score: 1 }],
  ['judge-prose', { score: 0.4 }]
]

const verdict = (score: number, reason = 'graded') => chatReply(JSON.stringify({ score, reason }))

function judgeReply(token: string, seen: number): Reply | Promise<Reply> {
  switch (token) {
    case 'judge-ok':
      return { body: verdict(0.9) }
    case 'judge-429-then-ok':
      return seen <= 2 ? { status: 429, headers: { 'retry-after-ms': '20' }, body: { error: { message: 'slow down' } } } : { body: verdict(0.9) }
    case 'judge-429-storm':
      return { status: 429, headers: { 'retry-after-ms': '20' }, body: { error: { message: 'rate limited' } } }
    case 'judge-500':
      return { status: 500, body: { error: { message: 'internal' } } }
    case 'judge-slow':
      // never answers: each attempt times out however slow the machine is
      return new Promise<Reply>(() => {})
    case 'judge-drop':
      return 'drop'
    case 'judge-garbage':
      return { body: '<html>502 Bad Gateway</html>' }
    case 'judge-null-content':
      return { body: chatReply(null) }
    case 'judge-empty-choices':
      return { body: { choices: [] } }
    case 'judge-bad-score':
      return { body: chatReply('{"score": "high", "reason": "x"}') }
    case 'judge-refusal':
      return { body: chatReply("I'm sorry, I can't grade this.") }
    case 'judge-huge':
      return { body: chatReply(`{"score": 0.8, "reason": "${'r'.repeat(2 * MiB)}"}`) }
    case 'judge-out-of-range':
      return { body: verdict(7) }
    case 'judge-prose':
      return { body: chatReply('Sure! {"score": 0.4, "reason": "meh"} Hope this helps.') }
    default:
      return { status: 400, body: { error: { message: `unscripted ${token}` } } }
  }
}

/** Lines of the process table that carry the marker. */
function leftovers(): string[] {
  const table = execFileSync('ps', ['-eo', 'pid,pgid,stat,args'], { encoding: 'utf8' })
  return table.split('\n').filter((line) => line.includes(marker) && !/\sZ\S*\s/.test(line))
}

async function settle(check: () => string[], ms = 30_000): Promise<string[]> {
  const deadline = Date.now() + ms
  let left = check()
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100))
    left = check()
  }
  return left
}

let server: FakeServer
beforeAll(async () => {
  const seen = new Map<string, number>()
  server = (await startServer()).respond((request) => {
    const token = /judge-(?!model)[a-z0-9-]+/.exec(JSON.stringify(request.body))?.[0] ?? 'none'
    seen.set(token, (seen.get(token) ?? 0) + 1)
    return judgeReply(token, seen.get(token)!)
  })
})
afterAll(() => server.close())

describe('one run through every fault of the target and the judge', () => {
  it('finishes with one result per case, no process left behind and bounded memory', async () => {
    const pidDir = path.join(tempProject({}), 'pids')
    mkdirSync(pidDir)
    const cases = [
      ...targetFaults.map(([input]) => ({ id: input.replace(/^ok:/, ''), input })),
      ...judgeFaults.map(([token]) => ({ id: token, input: `ok:${token}`, assert: [{ type: 'llm-rubric', value: 'answers well' }] }))
    ]
    const config = {
      name: 'faults',
      concurrency: 8,
      // deadlines that only a hang reaches, however busy the machine: a case that works is never cut short
      target: { command: ['node', agent, marker, pidDir], timeoutMs: 30_000, maxOutputBytes: 10 * MiB },
      judge: {
        provider: 'openai',
        model: 'judge-model',
        baseUrl: server.baseUrl,
        apiKeyEnv: 'EVALGATE_FAULTS_NO_KEY',
        timeoutMs: 10_000,
        retries: 2,
        concurrency: 4
      },
      cases
    }
    const dir = tempProject({ 'evalgate.json': JSON.stringify(config) })
    const out = path.join(dir, 'run.json')
    const rssBefore = process.memoryUsage().rss
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.json'), '--out', out, '--quiet'])
    const rssGrowth = process.memoryUsage().rss - rssBefore

    try {
      expect(res.stderr).not.toMatch(/internal error|\n\s+at /)
      // most verdicts hit a fault of the judge: the run could not tell (exit 1), saying so, and it still finished whole
      expect(res.code).toBe(1)
      expect(res.stderr).toMatch(/^evalgate: evalgate could not tell: the judge failed on 10 of 14 verdicts: /m)
      // finished (within the test's timeout): no fault hangs the run; the slowest are the hangs (30 s, + 2 s past SIGTERM) and the judge that never answers (3 × 10 s)
      const record = JSON.parse(readFileSync(out, 'utf8'))
      expect(record.complete).toBe(true)
      expect(record.cases.map((c: { id: string }) => c.id)).toEqual(cases.map((c) => c.id))
      const byId = new Map<
        string,
        {
          output: string | null
          error: string | null
          passed: boolean
          assertions: { passed: boolean; score: number; reason: string; judge?: { error?: string; score: number } }[]
        }
      >(record.cases.map((c: { id: string }) => [c.id, c]))

      for (const [input, expected] of targetFaults) {
        const c = byId.get(input.replace(/^ok:/, ''))!
        if ('error' in expected) {
          expect({ input, output: c.output, error: c.error }).toEqual({ input, output: null, error: expect.stringMatching(expected.error) })
          expect(c.passed).toBe(false)
        } else {
          expect({ input, error: c.error }).toEqual({ input, error: null })
          expect({ input, ok: expected.output(c.output ?? '') }).toEqual({ input, ok: true })
        }
      }

      for (const [token, expected] of judgeFaults) {
        const [rubric] = byId.get(token)!.assertions
        expect(rubric!.score).toBeGreaterThanOrEqual(0)
        expect(rubric!.score).toBeLessThanOrEqual(1)
        expect(rubric!.reason.length).toBeLessThan(5_000)
        if ('score' in expected) {
          expect({ token, score: rubric!.score, error: rubric!.judge?.error }).toEqual({ token, score: expected.score, error: undefined })
        } else {
          expect({ token, score: rubric!.score, passed: rubric!.passed, error: rubric!.judge?.error }).toEqual({
            token,
            score: 0,
            passed: false,
            error: expect.stringMatching(expected.error)
          })
        }
      }
      const judgeErrors = judgeFaults.filter(([, e]) => 'error' in e).length
      expect(record.summary.judge).toMatchObject({ calls: judgeFaults.length, errors: judgeErrors })

      // the 10 MiB output is held once, the 10 MiB floods are dropped: growth stays far below the bytes that went by
      expect(rssGrowth).toBeLessThan(400 * MiB)
    } finally {
      // the one child that left the process group (setsid) is out of reach by design: the test cleans it up
      const escaped = readdirSync(pidDir)
        .filter((f) => f.startsWith('escaped-'))
        .map((f) => Number(f.replace('escaped-', '')))
      for (const pid of escaped) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // already gone
        }
      }
      expect(escaped).toHaveLength(1)
    }
    expect(await settle(leftovers)).toEqual([])
  }, 120_000)
})
