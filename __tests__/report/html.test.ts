import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import { escapeHtmlText, jsonForScript } from '../../src/report/escape.js'
import { htmlPieces } from '../../src/report/html/index.js'
import { buildReport } from '../../src/report/model.js'
import { caseViews } from '../../src/report/html/view.js'
import { SCRIPT, SCRIPT_HASH, STYLE, STYLE_HASH } from '../../src/report/html/assets.js'
import { renderHtml } from '../__fixtures__/html.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { makeCase, makeGate, makeRun } from '../__fixtures__/records.js'
import { agentReportFixture } from '../browser/agent-report-fixture.js'
import { HOSTILE_NAME, HOSTILE_OUTPUT, reportFixture } from '../browser/report-fixture.js'

/** The page's elements with their content: [tag, attributes, content]. */
function scripts(html: string): Array<{ attributes: string; content: string }> {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attributes: m[1]!, content: m[2]! }))
}

function embedded(html: string): { hasBaseline: boolean; cases: Array<Record<string, unknown>> } {
  const data = scripts(html).find((s) => s.attributes.includes('application/json'))!
  return JSON.parse(data.content)
}

describe('renderHtml', () => {
  const input = reportFixture()
  const html = renderHtml(input)

  it('comes a case at a time: the page is never one string until it is written', () => {
    const pieces = [...htmlPieces(buildReport(input))]
    expect(pieces.length).toBe(caseViews(input).length + 2)
    expect(pieces.join('')).toBe(html)
  })

  it('is one document with exactly its own two scripts and one style, fetching nothing', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(scripts(html).map((s) => s.attributes)).toEqual([' type="application/json" id="evalgate-data"', ''])
    expect(html.match(/<style>/g)).toHaveLength(1)
    const outsideData = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '')
    expect(outsideData).not.toMatch(/\s(src|href|srcset|action)=/i)
    expect(html).not.toMatch(/https?:\/\//)
    expect(html).not.toMatch(/@import|url\(/)
  })

  it('lets only its own script and style run (Content-Security-Policy by hash)', () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!
    const script = scripts(html).find((s) => s.attributes === '')!.content
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!
    const hash = (text: string) => createHash('sha256').update(text).digest('base64')
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain(`script-src 'sha256-${hash(script)}'`)
    expect(csp).toContain(`style-src 'sha256-${hash(style)}'`)
    expect(csp).not.toContain('unsafe')
  })

  it('escapes untrusted text: nothing hostile reaches the HTML parser as markup', () => {
    const outsideData = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '')
    expect(outsideData).not.toContain('<img')
    expect(outsideData).not.toContain('onerror="')
    expect(outsideData).not.toContain('__pwned = 4</script>')
    // inside the data, the characters that could end the element or start markup are \u escapes
    const data = scripts(html).find((s) => s.attributes.includes('application/json'))!.content
    expect(data).not.toMatch(/[<>&]/)
    expect(html.match(/<\/script>/g)).toHaveLength(2)
  })

  it('embeds the cases as JSON that reads back exactly', () => {
    const data = embedded(html)
    expect(data.hasBaseline).toBe(true)
    const hostile = data.cases.find((c) => c.key === 'hostile')!
    expect(hostile.name).toBe(HOSTILE_NAME)
    expect(hostile.output).toBe(HOSTILE_OUTPUT)
    expect(hostile.tags).toEqual(['<b>tag</b>'])
  })

  it("escapes the run name and the verdict's reasons in the summary", () => {
    const current = makeRun([makeCase('<img src=x onerror=alert(1)>', false)], { name: '<i>bot</i>' })
    const gate = makeGate({ minPassRate: 0.5 })
    const page = renderHtml({ comparison: compareRuns(null, current, gate), baseline: null, current, gate })
    expect(page).toContain('<title>evalgate · &lt;i&gt;bot&lt;/i&gt; — gate failed</title>')
    expect(page).toContain('<li>pass rate 0.0% is below minPassRate 50.0% (0 of 1 case passed); failing: &lt;img src=x onerror=alert(1)&gt;</li>')
    expect(page).toContain('no baseline: comparison skipped')
    expect(embedded(page).hasBaseline).toBe(false)
  })

  it("masks secrets everywhere with the redact option, the verdict's words included", () => {
    const secret = 'sk-"<secret>"'
    const current = makeRun([makeCase(`leaked ${secret}`, false, { output: `key ${secret}`, error: null, input: { auth: secret } })], { name: 'bot' })
    const gate = makeGate({ minPassRate: 0.5 })
    const page = renderHtml({ comparison: compareRuns(null, current, gate), baseline: null, current, gate }, { redact: (t) => t.split(secret).join('***') })
    expect(page).toContain('failing: leaked ***')
    expect(page).not.toContain('secret')
    expect(embedded(page).cases[0]!.output).toBe('key ***')
  })
})

describe('caseViews', () => {
  const views = caseViews(reportFixture())
  const byKey = new Map(views.map((v) => [v.key, v]))

  it.each([
    ['refund-policy', 'fail', 'regressed'],
    ['capital-australia', 'pass', 'fixed'],
    ['flaky-greeting', 'fail', 'flaky'],
    ['timeout', 'error', 'added'],
    ['rubric-changed', 'fail', 'changed'],
    ['old-case', 'not run', 'removed'],
    ['capital-ireland', 'pass', 'unchanged']
  ])('%s: status %s, flip %s', (key, status, flip) => {
    expect(byKey.get(key)).toMatchObject({ status, flip })
  })

  it('lists the current cases in dataset order, then the removed ones', () => {
    expect(views.map((v) => v.index)).toEqual(views.map((_, i) => i))
    expect(views[views.length - 1]!.key).toBe('old-case')
  })

  it('diffs the outputs only when both exist and differ', () => {
    expect(
      byKey
        .get('refund-policy')!
        .diff!.filter((l) => l.op !== 'equal')
        .map((l) => l.op)
    ).toEqual(['delete', 'insert'])
    expect(byKey.get('capital-ireland')!.diff).toBeNull()
    expect(byKey.get('timeout')!.diff).toBeNull()
    expect(byKey.get('old-case')!.diff).toBeNull()
  })

  it("carries the baseline's assertions only where the page shows them: a flip, or a case this run did not reach", () => {
    const baselineAssertions = (key: string) => byKey.get(key)!.baseline!.assertions.length
    for (const key of ['refund-policy', 'capital-australia', 'flaky-greeting', 'old-case']) expect(baselineAssertions(key)).toBeGreaterThan(0)
    // unchanged, or changed (compared as a new case): this run's assertions say it all
    expect(baselineAssertions('capital-ireland')).toBe(0)
    expect(baselineAssertions('rubric-changed')).toBe(0)
    expect(byKey.get('capital-ireland')!.assertions.length).toBeGreaterThan(0)
  })

  it('says what a flip means', () => {
    expect(byKey.get('flaky-greeting')!.note).toMatch(/^Flaky, not counted as a regression: /)
    expect(byKey.get('rubric-changed')!.note).toMatch(/not counted as a flip/)
    expect(byKey.get('refund-policy')!.note).toBeNull()
  })

  it('shows judge verdicts, scores and repeated trials', () => {
    const tone = byKey.get('tone')!
    expect(tone).toMatchObject({ score: 0.4, cells: { score: '0.900 → 0.400' } })
    expect(tone.assertions[0]!.judge).toBe('judge gpt-4o-mini scored 0.400')
    expect(byKey.get('flaky-greeting')!.trials).toBe('1/3')
  })

  it('cuts long texts, saying how much is left out', () => {
    const current = makeRun([makeCase('long', true, { output: 'x'.repeat(50) })])
    const [view] = caseViews({ comparison: compareRuns(null, current, makeGate()), baseline: null, current }, { maxTextChars: 10 })
    expect(view!.output).toBe(`${'x'.repeat(10)}\n… (40 more characters in the run record)`)
    expect(view!.flip).toBe('none')
  })
})

describe('caseViews of an agent: cost, latency and both trajectories (SPEC §10)', () => {
  const byKey = new Map(caseViews(agentReportFixture()).map((v) => [v.key, v]))

  it.each([
    ['where-is-b7', '$0.0006 → $0.0009', '560 ms → 1.3 s'],
    ['returns-policy', '$0.0006', '560 ms → 680 ms'],
    ['refund-late', '$0.0007', '870 ms'],
    // 0.0006 → 0.00062 reads the same: shown once, not as "$0.0006 → $0.0006"
    ['extra-step', '$0.0006', '400 ms → 450 ms'],
    ['greeting', '$0.0001 → $0.0005', '200 ms'],
    ['new-case', '$0.0004', '300 ms']
  ])('%s: cost %s, latency %s', (key, cost, latency) => {
    expect(byKey.get(key)!.cells).toMatchObject({ cost, latency })
  })

  it.each([
    [
      'where-is-b7',
      ['lookup_order {"order_id":"B7"}'],
      ['search_kb {"query":"returns"}', 'lookup_order {"order_id":"B7"}', 'refund {"order_id":"B7","amount":64}'],
      0
    ],
    ['returns-policy', ['search_kb {"query":"returns"}'], ['search_kb {"query":"returns"}'], -1],
    [
      'refund-late',
      ['lookup_order {"order_id":"B7"}', 'refund {"order_id":"B7","amount":64}'],
      ['lookup_order {"order_id":"B7"}', 'search_kb {"query":"returns"}'],
      1
    ],
    ['extra-step', ['lookup_order {"order_id":"B7"}'], ['lookup_order {"order_id":"B7"}', 'refund {"order_id":"B7","amount":64}'], 1],
    // no baseline case: nothing to differ from
    ['new-case', null, ['lookup_order {"order_id":"B7"}'], -1]
  ])('%s: trajectories side by side, first difference at index %#', (key, baseline, current, first) => {
    expect(byKey.get(key)!.trajectory).toEqual({ baseline, current, first })
  })

  it('has no trajectory where neither run called a tool', () => {
    expect(byKey.get('greeting')!.trajectory).toBeNull()
  })

  it('names the side that reported no tool calls at all, and marks no step', () => {
    expect(byKey.get('lost-calls')!.trajectory).toEqual({ baseline: ['lookup_order {"order_id":"B7"}'], current: [], first: -1, unreported: 'current' })
  })

  it('shows the cost and latency columns only for runs that carry usage or tool calls', () => {
    const head = (page: string) => [...page.matchAll(/<th data-sort="(\w+)"/g)].map((m) => m[1])
    expect(head(renderHtml(agentReportFixture()))).toEqual(['case', 'status', 'flip', 'tags', 'score', 'duration', 'cost', 'latency'])
    expect(head(renderHtml(reportFixture()))).toEqual(['case', 'status', 'flip', 'tags', 'score', 'duration'])
    expect(embedded(renderHtml(reportFixture())).cases[0]!.cells).toEqual({ score: '—', duration: '1 ms', cost: '—', latency: '—' })
  })
})

describe("the page's stylesheet and script", () => {
  const hash = (text: string) => createHash('sha256').update(text).digest('base64')

  it('are report.css and report.js as they are now, with their hashes (else: node scripts/report-assets.mjs)', () => {
    expect(STYLE).toBe(readFileSync('src/report/html/report.css', 'utf8'))
    expect(SCRIPT).toBe(readFileSync('src/report/html/report.js', 'utf8'))
    expect([STYLE_HASH, SCRIPT_HASH]).toEqual([hash(STYLE), hash(SCRIPT)])
  })

  it('are inlined whole, once each', () => {
    const page = renderHtml(reportFixture())
    expect(page.split(`<style>${STYLE}</style>`)).toHaveLength(2)
    expect(page.split(`<script>${SCRIPT}</script>`)).toHaveLength(2)
  })
})

describe('escaping helpers', () => {
  it.each([
    ['<script>', '&lt;script&gt;'],
    ['"><img onerror=x>', '&quot;&gt;&lt;img onerror=x&gt;'],
    ["a & b 'c'", 'a &amp; b &#39;c&#39;']
  ])('escapeHtmlText(%j)', (text, escaped) => {
    expect(escapeHtmlText(text)).toBe(escaped)
  })

  it('jsonForScript leaves no "<", ">", "&" or line separators, and parses back', () => {
    const value = { a: '</script><!-- & -->', b: '\u2028\u2029' }
    const json = jsonForScript(value)
    expect(json).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(json)).toEqual(value)
  })
})

describe('--html', () => {
  const quickstart = path.resolve('examples/quickstart')

  it('evalgate run writes the HTML report beside the markdown one', async () => {
    const dir = tempProject({})
    const html = path.join(dir, 'out', 'report.html')
    const out = path.join(dir, 'run.json')
    const res = await runCli([
      'run',
      '-c',
      path.join(quickstart, 'evalgate.yml'),
      '--baseline',
      path.join(quickstart, 'baseline.json'),
      '--out',
      out,
      '--html',
      html,
      '--quiet'
    ])
    expect(res.code).toBe(1)
    const page = readFileSync(html, 'utf8')
    expect(page).toContain('<title>evalgate · quickstart — gate failed</title>')
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(embedded(page).cases.filter((c) => c.status !== 'not run')).toHaveLength(record.cases.length)
  })

  it('evalgate compare writes it for two records', async () => {
    const dir = tempProject({})
    const html = path.join(dir, 'report.html')
    const baseline = path.join(quickstart, 'baseline.json')
    const res = await runCli(['compare', baseline, baseline, '--html', html, '--quiet'])
    expect(res.code).toBe(0)
    expect(readFileSync(html, 'utf8')).toContain('gate passed')
  })

  it('is refused by validate', async () => {
    expect((await runCli(['validate', '--html', 'x.html'])).code).toBe(2)
  })
})
