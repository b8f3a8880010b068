/**
 * Attacks on evalgate by what it runs and reads: shell injection through case
 * inputs, the runner's credentials in the agent's environment, workflow
 * commands and markdown/HTML in model output, secrets echoed by the agent or
 * the judge. See SECURITY.md for the threat model.
 *
 * Covered elsewhere and not repeated here:
 * - baselines from forks, pull requests or other branches are never used:
 *   ../github/artifacts.test.ts "ignores newer runs from forks, of pull requests, …";
 * - zip entries escaping the folder, zip bombs, CRC: ../github/zip.test.ts
 *   (the cases it lacks are below, with the download's fresh temp folder);
 * - the HTML report's CSP and escaping, in a real browser: ../report/html.test.ts,
 *   ../browser/html-report.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { renderHtml } from '../__fixtures__/html.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { chatReply, startServer, type FakeServer } from '../__fixtures__/openai-server.js'

const agent = path.resolve('__tests__/__fixtures__/agents/agent.mjs')
const leaky = path.resolve('__tests__/__fixtures__/agents/leaky-agent.mjs')

/** Writes a JSON config (and other files) into a fresh folder; returns the config's path. */
function project(config: unknown, files: Record<string, string> = {}): string {
  const dir = tempProject({ 'evalgate.json': JSON.stringify(config), ...files })
  return path.join(dir, 'evalgate.json')
}

function read(file: string): string {
  return readFileSync(file, 'utf8')
}

// ---------------------------------------------------------------------------
// Shell injection

/** Inputs that would create a file in `dir` if any shell ever saw them. */
function injections(dir: string): string[] {
  const f = (name: string) => path.join(dir, name)
  return [
    `$(touch ${f('dollar')})`,
    `\`touch ${f('backtick')}\``,
    `; touch ${f('semicolon')}`,
    `x | tee ${f('pipe')}`,
    `x && touch ${f('and')}`,
    `x || touch ${f('or')}`,
    `x\ntouch ${f('newline')}\n`,
    `x%0atouch ${f('url-newline')}`,
    `x'; touch ${f('single-quote')}; echo '`,
    `x"; touch ${f('double-quote')}; echo "`,
    `x > ${f('redirect')}`,
    `$(IFS=_;cmd=touch_${f('ifs')};$cmd)`,
    `\${PATH}$(touch ${f('var')})`,
    `{{input}}$(touch ${f('template')})`,
    `--require=${f('node-option')}`,
    `-e require('fs').writeFileSync('${f('node-eval')}','x')`
  ]
}

describe('shell injection through case inputs never executes', () => {
  const markers = tempProject({})
  const inputs = injections(markers)
  const cases = inputs.map((input, i) => ({ id: `inject-${i}`, input }))
  afterAll(() => expect(readdirSync(markers)).toEqual([]))

  it.each([
    ['stdin', ['node', agent, 'upper'], (input: string) => input.toUpperCase()],
    ['{{input}} in argv (list)', ['node', agent, 'argv', '{{input}}'], (input: string) => JSON.stringify([input])],
    ['{{input}} in argv (one string, split without a shell)', `node ${agent} argv {{input}}`, (input: string) => JSON.stringify([input])]
  ])('via %s: the agent gets the input verbatim and nothing runs', async (_how, command, expected) => {
    const config = project({ target: { command, timeoutMs: 10_000 }, cases })
    const out = path.join(path.dirname(config), 'run.json')
    const res = await runCli(['run', '-c', config, '--out', out, '--quiet'])
    expect(res.code).toBe(0)
    const record = JSON.parse(read(out))
    // the output is the input as the agent received it, one argument or the whole stdin
    expect(record.cases.map((c: { output: string }) => c.output)).toEqual(inputs.map(expected))
    expect(readdirSync(markers)).toEqual([])
  })

  it('via an http body template: the input stays one JSON string, the query one parameter', async () => {
    const server = await startServer()
    try {
      server.respond((request) => ({ body: { echo: request.body, url: request.url } }))
      const config = project({
        target: { http: { url: `${server.url}/agent?q={{input}}`, body: { question: '{{input}}', fixed: 'yes' }, output: 'echo' } },
        cases
      })
      const out = path.join(path.dirname(config), 'run.json')
      expect((await runCli(['run', '-c', config, '--out', out, '--quiet'])).code).toBe(0)
      const record = JSON.parse(read(out))
      expect(record.cases.map((c: { output: string }) => JSON.parse(c.output))).toEqual(inputs.map((input) => ({ question: input, fixed: 'yes' })))
      // one request per case (in completion order), each with the whole input as its one `q`
      const queries = server.requests.map((request) => new URL(request.url, server.url).searchParams.getAll('q'))
      expect(queries.map((q) => q.length)).toEqual(inputs.map(() => 1))
      expect(queries.flat().sort()).toEqual([...inputs].sort())
    } finally {
      await server.close()
    }
  })
})

// ---------------------------------------------------------------------------
// The agent's environment

describe("the runner's credentials never reach the agent or the judge", () => {
  const runnerEnv = {
    GITHUB_TOKEN: 'ghs_runner_token_0001',
    ACTIONS_RUNTIME_TOKEN: 'actions-runtime-0002',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-0003',
    ACTIONS_RESULTS_URL: 'https://results.example/',
    'INPUT_GITHUB-TOKEN': 'ghs_input_token_0004',
    INPUT_CONFIG: 'evalgate.yml',
    GITHUB_SHA: 'c0ffee',
    AWS_SECRET_ACCESS_KEY: 'aws-unrelated-0005',
    MY_API_KEY: 'sk-mine-0006'
  }
  // what a config may try: set them by name, in another case (reading them by ${VAR} is refused at load: below)
  const asked = {
    GITHUB_TOKEN: 'x',
    github_token: 'x',
    ACTIONS_RUNTIME_TOKEN: 'x',
    Actions_Id_Token_Request_Token: 'x',
    'INPUT_GITHUB-TOKEN': '${INPUT_GITHUB-TOKEN}',
    INPUT_CONFIG: 'x',
    GITLAB_TOKEN: 'x',
    AGENT_KEY: '${MY_API_KEY}'
  }
  const forbidden = (name: string) => /^(INPUT_|ACTIONS_)/i.test(name) || ['GITHUB_TOKEN', 'GITLAB_TOKEN'].includes(name.toUpperCase())

  it.each(['GITHUB_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'INPUT_CONFIG', 'CI_JOB_TOKEN'])(
    'reading %s by ${VAR} in target.env or judge.env is refused at load (exit 2), naming it',
    async (name) => {
      for (const where of ['target', 'judge'] as const) {
        const env = { LEAK: `\${${name}}` }
        const config = project({
          target: { command: ['node', agent, 'env'], ...(where === 'target' ? { env } : {}) },
          judge: { provider: 'command', command: ['node', 'judge.mjs'], ...(where === 'judge' ? { env } : {}) },
          cases: [{ id: 'env', input: 'x' }]
        })
        const res = await runCli(['validate', '-c', config])
        expect(res.code).toBe(2)
        expect(res.stderr).toContain(`${where}.env.LEAK reads ${name}`)
      }
    }
  )

  it('an agent dumping its environment finds none of INPUT_*, ACTIONS_*, GITHUB_TOKEN, nor the runner’s other variables', async () => {
    const judge =
      'process.stdin.resume(); process.stdin.on("end", () => process.stdout.write(JSON.stringify({ score: 1, reason: Object.keys(process.env).join(",") })))'
    const config = project(
      {
        target: { command: ['node', agent, 'env'], env: asked },
        judge: { provider: 'command', command: ['node', 'judge.mjs'], env: asked },
        cases: [{ id: 'env', input: 'x', assert: [{ type: 'llm-rubric', value: 'anything' }] }]
      },
      { 'judge.mjs': judge }
    )
    // '${INPUT_GITHUB-TOKEN}' is not a ${VAR} name: the hyphen keeps it literal, and the name is refused anyway
    const result = await evaluate(await loadEvalConfig(config), { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...runnerEnv } })
    const [c] = result.record.cases
    const agentEnv = Object.keys(JSON.parse(c!.output!).env)
    expect(agentEnv.filter(forbidden)).toEqual([])
    expect(agentEnv).not.toContain('AWS_SECRET_ACCESS_KEY')
    expect(agentEnv).not.toContain('GITHUB_SHA')
    expect(agentEnv).toContain('AGENT_KEY')
    const judgeEnv = c!.assertions[0]!.reason.split(',')
    expect(judgeEnv.filter(forbidden)).toEqual([])
    expect(judgeEnv).not.toContain('AWS_SECRET_ACCESS_KEY')
  })
})

// ---------------------------------------------------------------------------
// Workflow commands in the action log

describe('model output cannot issue workflow commands in the action log', () => {
  let summary: typeof import('../../src/github/summary.js')
  let stdout: string[]
  beforeAll(async () => {
    summary = await import('../../src/github/summary.js')
  })
  afterEach(() => {
    jest.restoreAllMocks()
  })
  function captureStdout(): void {
    stdout = []
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout.push(String(chunk))
      return true
    })
  }
  const commands = '::error::pwned\n::add-mask::secret\n::set-output name=gate::pass\n::stop-commands::guess\n::guess::\n::endgroup::\n##[error]legacy'

  it('logUntrusted wraps the text in stop-commands with a fresh token the text cannot know', () => {
    captureStdout()
    const lines: string[] = []
    summary.logUntrusted('evalgate report', commands, (line) => lines.push(line))
    summary.logUntrusted('evalgate report', commands, (line) => lines.push(line))
    const token = /^::stop-commands::([0-9a-f]{32})$/.exec(lines[0]!)![1]!
    expect(lines.slice(0, 3)).toEqual([`::stop-commands::${token}`, commands, `::${token}::`])
    const second = /^::stop-commands::([0-9a-f]{32})$/.exec(lines[3]!)![1]!
    expect(second).not.toBe(token)
    expect(commands).not.toContain(token)
    // the group around it is ours
    expect(stdout.join('')).toMatch(/^::group::evalgate report\n::endgroup::\n::group::evalgate report\n::endgroup::\n$/)
  })

  it('annotations carry model text as escaped data: one line, no second command', () => {
    captureStdout()
    summary.annotate([
      { level: 'error', message: `case failed: ${commands}`, properties: { title: 'regressed: x\n::warning::y', file: 'a.yaml', startLine: 3 } }
    ])
    const written = stdout.join('')
    expect(written.trimEnd().split('\n')).toHaveLength(1)
    expect(written).toMatch(/^::error title=regressed%3A x%0A%3A%3Awarning%3A%3Ay,file=a\.yaml,line=3::case failed: ::error::pwned%0A::add-mask::secret%0A/)
  })
})

// ---------------------------------------------------------------------------
// Secrets and injection in everything evalgate writes

/** Markdown without its code blocks and code spans, where markup is inert. */
function outsideCode(markdown: string): string {
  const lines: string[] = []
  let fence: string | null = null
  for (const line of markdown.split('\n')) {
    const opening = /^(`{3,})/.exec(line)?.[1]
    if (fence === null && opening) fence = opening
    else if (fence !== null && line === fence) fence = null
    else if (fence === null) lines.push(line)
  }
  // a code span opens at an unescaped run of backticks and closes at the next run of the same length
  return lines.join('\n').replace(/(?<![\\`])(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, '')
}

/** What a markdown report must not contain outside code: live markup, mentions, script links. */
function expectInertMarkdown(markdown: string): void {
  const text = outsideCode(markdown)
  expect(text).not.toMatch(/(?<!\\)<img|(?<!\\)<script/i)
  expect(text).not.toMatch(/(?<![\\])@(everyone|octo-org)/)
  expect(text).not.toMatch(/(?<!\\)\]\(javascript:/)
  // every <details> the payload opened or closed is escaped: the report's own stay balanced
  const open = text.match(/(?<![\\])<details>/g)?.length ?? 0
  const close = text.match(/(?<![\\])<\/details>/g)?.length ?? 0
  expect(close).toBe(open)
}

function expectInertHtml(html: string): void {
  const outsideData = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '')
  expect(outsideData).not.toMatch(/<img|onerror=|javascript:/i)
  expect(html.match(/<script/g)).toHaveLength(2)
}

describe('secrets and hostile output, end to end', () => {
  const SECRETS = { AGENT_SECRET: 'agent-secret-value-7f3a', JUDGE_KEY: 'sk-judge-secret-key-91c2', HTTP_TOKEN: 'http-token-value-55d1' }
  let judge: FakeServer

  beforeAll(async () => {
    // a judge that quotes the key it was sent when it dislikes the output
    judge = (await startServer()).respond((request) => {
      const leaked = JSON.stringify(request.body).includes('the key is')
      return {
        body: chatReply(
          JSON.stringify(leaked ? { score: 0.1, reason: `bad, and your header was ${request.headers.authorization}` } : { score: 0.9, reason: 'fine' })
        )
      }
    })
  })
  afterAll(() => judge.close())

  function config(behave: boolean) {
    return {
      name: 'leaks',
      target: { command: ['node', leaky], env: { API_KEY: '${AGENT_SECRET}', ...(behave ? { BEHAVE: 'yes' } : {}) } },
      judge: { provider: 'openai', model: 'judge-model', baseUrl: judge.baseUrl, apiKeyEnv: 'JUDGE_KEY' },
      cases: [
        {
          id: 'print-key',
          name: 'prints its key',
          input: 'print-key',
          assert: [
            { type: 'equals', value: 'fine' },
            { type: 'llm-rubric', value: 'says fine' }
          ]
        },
        { id: 'fail-with-key', input: 'fail-with-key', expected: 'fine' },
        { id: 'hostile', name: '<img src=x onerror=alert(1)> @everyone', tags: ['</details>', '@everyone'], input: 'hostile', expected: 'fine' }
      ]
    }
  }
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...SECRETS }

  function expectNoSecret(what: string, text: string): void {
    for (const secret of Object.values(SECRETS)) expect({ what, leaked: text.includes(secret) }).toEqual({ what, leaked: false })
  }

  it('the CLI: record, comparison, markdown report, HTML report, stdout and stderr', async () => {
    const baselineConfig = project(config(true))
    const dir = path.dirname(baselineConfig)
    const baseline = path.join(dir, 'baseline.json')
    expect((await runCli(['run', '-c', baselineConfig, '--out', baseline, '--quiet'], env)).code).toBe(0)

    const currentConfig = project(config(false))
    const files = Object.fromEntries(['run.json', 'cmp.json', 'report.md', 'report.html'].map((f) => [f, path.join(dir, `current-${f}`)]))
    const res = await runCli(
      [
        'run',
        '-c',
        currentConfig,
        '--baseline',
        baseline,
        '--out',
        files['run.json']!,
        '--json',
        files['cmp.json']!,
        '--report',
        files['report.md']!,
        '--html',
        files['report.html']!
      ],
      env
    )
    expect(res.code).toBe(1)
    expect(JSON.parse(read(files['cmp.json']!)).regressed).toEqual(['print-key', 'fail-with-key', 'hostile'])

    const record = read(files['run.json']!)
    // the leaks happened, and were caught
    expect(JSON.parse(record).cases.map((c: { output: string | null; error: string | null }) => c.output ?? c.error)).toEqual([
      'the key is ***',
      expect.stringContaining('could not authenticate with ***'),
      expect.stringContaining('<img src=x onerror=alert(1)>')
    ])
    expect(record).toContain('your header was Bearer ***')
    for (const [what, text] of [
      ...Object.entries(files).map(([name, file]) => [name, read(file)] as const),
      ['stdout', res.stdout] as const,
      ['stderr', res.stderr] as const
    ]) {
      expectNoSecret(what, text)
    }
    expectInertMarkdown(read(files['report.md']!))
    expectInertMarkdown(res.stdout)
    expectInertHtml(read(files['report.html']!))
  })

  it('the action: the PR comment, the job summary, the annotations and the HTML report', async () => {
    const { commentBody } = await import('../../src/github/comment.js')
    const { renderReport, buildReport } = await import('../../src/report/index.js')
    const { regressionAnnotations } = await import('../../src/github/summary.js')
    const { redact } = await import('../../src/util/env.js')
    const baseline = (await evaluate(await loadEvalConfig(project(config(true))), { env })).record
    const loaded = await loadEvalConfig(project(config(false)))
    const { record, comparison, secrets } = await evaluate(loaded, { env, baseline })
    expect(comparison.regressed).toHaveLength(3)
    const { conclude } = await import('../../src/compare/conclude.js')
    const verdict = conclude(comparison, record, { baselineStatus: 'found' })
    const model = buildReport({ comparison, baseline, current: record, verdict })
    // as github/publish.ts renders them: the comment and the full summary, each redacted
    const summary = redact(renderReport(model, { maxLength: 1_000_000, details: Infinity, fullReportHint: 'the job summary' }), secrets)
    const comment = commentBody('<!-- evalgate:leaks -->', redact(renderReport(model, { maxLength: 60_000 }), secrets), 'fail')
    const annotations = regressionAnnotations(model, process.cwd(), (s) => redact(s, secrets))
    const html = renderHtml({ comparison, baseline, current: record, verdict }, { redact: (t) => redact(t, secrets) })
    for (const [what, text] of [
      ['record', JSON.stringify(record)],
      ['job summary', summary],
      ['comment', comment],
      ['annotations', JSON.stringify(annotations)],
      ['html', html]
    ] as const) {
      expectNoSecret(what, text)
    }
    expect(comment.length).toBeLessThanOrEqual(65_536)
    expectInertMarkdown(comment)
    expectInertMarkdown(summary)
    expectInertHtml(html)
  })
})
