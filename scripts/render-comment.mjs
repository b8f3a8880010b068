// Renders the PR comment the way a reviewer sees it: GitHub's markdown
// renderer (cmark-gfm, which GitHub's is built on) wrapped in a GitHub-like
// stylesheet, screenshot by headless Chromium. Scenarios: the quick start
// (examples/quickstart against its baseline), the conversation example
// (examples/conversation against its baseline), 60 and 180 regressions made with
// the tests' record factories (__tests__/__fixtures__/records.ts).
//
//   node scripts/render-comment.mjs [out-dir]      (default: ../comment-shots)
//
// Needs /usr/bin/cmark-gfm and /usr/bin/chromium. The sources are transpiled
// (no type-check) into node_modules/.cache, so nothing is built into dist/.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, '..', 'comment-shots'))
const CACHE = path.join(ROOT, 'node_modules/.cache/evalgate-render')

/** src/ and the record factories as plain ES modules, in the same tree so relative imports resolve. */
async function transpile() {
  const { default: ts } = await import('typescript')
  rmSync(CACHE, { recursive: true, force: true })
  const files = [...walk(path.join(ROOT, 'src')), path.join(ROOT, '__tests__/__fixtures__/records.ts')]
  for (const file of files) {
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true }
    })
    const out = path.join(CACHE, path.relative(ROOT, file)).replace(/\.ts$/, '.js')
    mkdirSync(path.dirname(out), { recursive: true })
    writeFileSync(out, outputText)
  }
  writeFileSync(path.join(CACHE, 'package.json'), '{"type": "module"}\n')
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name)
    if (statSync(file).isDirectory()) yield* walk(file)
    else if (file.endsWith('.ts')) yield file
  }
}

const load = (file) => import(pathToFileURL(path.join(CACHE, file)).href)

/** An example as README runs it (the quick start, the conversation example): `evalgate run` against its committed baseline, --report. */
async function example(name) {
  const { main } = await load('src/cli.js')
  const dir = path.join(ROOT, 'examples', name)
  const report = path.join(mkdtempSync(path.join(tmpdir(), 'evalgate-render-')), 'report.md')
  let stderr = ''
  const io = { stdout: { write: () => true }, stderr: { write: (t) => ((stderr += t), true) }, env: { PATH: process.env.PATH, HOME: process.env.HOME } }
  const cwd = process.cwd()
  process.chdir(dir)
  try {
    await main(['run', '--baseline', 'baseline.json', '--report', report, '--quiet'], io)
  } finally {
    process.chdir(cwd)
  }
  const md = readFileSync(report, 'utf8')
  rmSync(path.dirname(report), { recursive: true, force: true })
  if (!md.trim()) throw new Error(`examples/${name} wrote no report:\n${stderr}`)
  return md
}

const TOPICS = ['refund', 'shipping', 'billing', 'account', 'returns', 'warranty']
const OUTPUTS = [
  'I am sorry to hear that.\nYour order is on its way and should arrive soon.',
  'As per our policy, refunds are possible within a month.\n\nIs there anything else I can help you with?',
  '{"status": "pending", "eta_days": 5}'
]

/** n regressions among 4n cases of a support bot, each failing in one of a few realistic ways. */
async function regressions(n) {
  const { compareRuns } = await load('src/compare/index.js')
  const { buildReport, renderReport } = await load('src/report/index.js')
  const { commentBody, commentMarker, MAX_COMMENT_LENGTH } = await load('src/github/comment.js')
  const { makeBaseline, makeCase, makeGate, makeRun } = await load('__tests__/__fixtures__/records.js')
  const total = n * 4
  const id = (i) => `${TOPICS[i % TOPICS.length]}-${String(i).padStart(4, '0')}`
  const input = (i) => `Customer ${i}: my ${TOPICS[i % TOPICS.length]} question is still open after two weeks, what now?`
  const baseline = makeBaseline(
    Array.from({ length: total }, (_, i) =>
      makeCase(id(i), true, {
        tags: [TOPICS[i % TOPICS.length]],
        input: input(i),
        output: 'Your refund of $20.50 was issued today; allow 3–5 days.',
        expected: 'contains: refund\nnot-icontains: as an ai language model  (defaults.assert)',
        score: i % 3 === 0 ? 0.9 : null
      })
    )
  )
  const failing = (i) => {
    const output = OUTPUTS[i % OUTPUTS.length]
    switch (i % 4) {
      case 0:
        return {
          output,
          score: 0.3,
          assertions: [
            {
              type: 'llm-rubric',
              passed: false,
              score: 0.3,
              reason: 'The reply apologises but gives no refund date and no next step; the rubric asks for both.',
              judge: {
                model: 'gpt-4o-mini',
                score: 0.3,
                reason: 'The reply apologises but gives no refund date and no next step; the rubric asks for both.',
                key: 'k'
              }
            }
          ]
        }
      case 1:
        return {
          output,
          assertions: [{ type: 'contains', passed: false, score: 0, reason: `expected output to contain "refund", got: ${JSON.stringify(output)}` }]
        }
      case 2:
        return { output: null, error: 'timeout after 60000 ms: the target did not answer', assertions: [] }
      default:
        return {
          output,
          assertions: [
            { type: 'is-json', passed: false, score: 0, reason: `expected output to be valid JSON (Unexpected token 'I'), got: ${JSON.stringify(output)}` }
          ]
        }
    }
  }
  const current = makeRun(
    Array.from({ length: total }, (_, i) => {
      const base = {
        tags: [TOPICS[i % TOPICS.length]],
        input: input(i),
        expected: 'contains: refund\nnot-icontains: as an ai language model  (defaults.assert)'
      }
      // every fourth case regresses; a few others keep passing with a lower judge score
      if (i % 4 === 1) return makeCase(id(i), false, { ...base, ...failing((i - 1) / 4) })
      if (i % 3 === 0)
        return makeCase(id(i), true, {
          ...base,
          output: 'Your refund was issued today.',
          score: i % 2 ? 0.6 : 0.9,
          assertions: [
            {
              type: 'llm-rubric',
              passed: true,
              score: i % 2 ? 0.6 : 0.9,
              reason: i % 2 ? 'Gives the date, but not the amount.' : 'Complete answer.',
              judge: { model: 'gpt-4o-mini', score: i % 2 ? 0.6 : 0.9, reason: i % 2 ? 'Gives the date, but not the amount.' : 'Complete answer.', key: 'k' }
            }
          ]
        })
      return makeCase(id(i), true, { ...base, output: 'Your refund of $20.50 was issued today; allow 3–5 days.' })
    })
  )
  const comparison = compareRuns(baseline, current, makeGate({ maxPassRateDrop: 0.02 }))
  const marker = commentMarker('evals.yml', 'support-bot')
  const links = { baselineRun: 'https://github.com/acme/support-bot/actions/runs/41', currentRun: 'https://github.com/acme/support-bot/actions/runs/42' }
  const hint = 'the job summary and the artifact `evalgate-support-bot`'
  const notes = ''
  const model = buildReport({ comparison, baseline, current, links, gate: makeGate({ maxPassRateDrop: 0.02 }) })
  const report = renderReport(model, { maxLength: MAX_COMMENT_LENGTH - 300 - notes.length, fullReportHint: hint })
  return commentBody(marker, report, model.verdict.status)
}

/**
 * The three verdicts a check can fail or pass with but not as a plain pass: a
 * failed gate, the same accepted by the label, and a run that could not tell
 * (the judge down on every verdict) — each as the comment and the HTML report.
 */
async function verdicts() {
  const { compareRuns, conclude } = await load('src/compare/index.js')
  const { buildReport, renderReport } = await load('src/report/index.js')
  const { htmlPieces } = await load('src/report/html/index.js')
  const { commentBody, commentMarker, MAX_COMMENT_LENGTH } = await load('src/github/comment.js')
  const { makeBaseline, makeCase, makeGate, makeRun } = await load('__tests__/__fixtures__/records.js')
  const rubric = (score, error) => ({
    type: 'llm-rubric',
    passed: !error && score >= 0.7,
    score,
    reason: error ?? (score >= 0.7 ? 'Gives the refund window and the next step.' : 'No refund window given.'),
    ...(error ? { error } : {}),
    judge: { model: 'gpt-4o-mini', score, reason: error ?? 'graded', key: 'k', ...(error ? { error, unavailable: true } : {}) }
  })
  const ids = ['refund-window', 'refund-status', 'shipping-eta', 'warranty', 'greeting', 'escalation']
  const baseline = makeBaseline(
    ids.map((id) => makeCase(id, true, { tags: ['support'], input: `Customer asks about ${id}`, output: 'Refunds within 30 days of delivery.' }))
  )
  const regressed = makeRun(
    ids.map((id, i) =>
      i < 2
        ? makeCase(id, false, {
            tags: ['support'],
            input: `Customer asks about ${id}`,
            output: 'Refunds are possible within a month.',
            assertions: [
              { type: 'contains', passed: false, score: 0, reason: 'expected output to contain "30 days", got: "Refunds are possible within a month."' }
            ]
          })
        : makeCase(id, true, { tags: ['support'], input: `Customer asks about ${id}`, output: 'Refunds within 30 days of delivery.' })
    )
  )
  const judgedBaseline = makeBaseline(ids.map((id) => makeCase(id, true, { tags: ['support'], score: 0.9, assertions: [rubric(0.9)] })))
  const outage = makeRun(
    ids.map((id, i) =>
      i < 4
        ? makeCase(id, false, {
            tags: ['support'],
            score: null,
            assertions: [rubric(0, 'judge request failed: HTTP 429 from http://judge/v1/chat/completions after 5 attempts: Rate limit reached')]
          })
        : makeCase(id, true, { tags: ['support'], score: 0.9, assertions: [rubric(0.9)] })
    )
  )
  const gate = makeGate({ maxPassRateDrop: 0.05 })
  const links = { baselineRun: 'https://github.com/acme/support-bot/actions/runs/41', currentRun: 'https://github.com/acme/support-bot/actions/runs/42' }
  const situations = [
    ['verdict-fail', baseline, regressed, {}],
    ['verdict-accepted', baseline, regressed, { acceptLabel: 'evalgate:accept' }],
    ['verdict-could-not-tell', judgedBaseline, outage, {}]
  ]
  return situations.map(([name, base, current, context]) => {
    const comparison = compareRuns(base, current, gate)
    const verdict = conclude(comparison, current, { baselineStatus: 'found', ...context })
    const model = buildReport({ comparison, baseline: base, current, verdict, links, gate, title: 'evalgate · support-bot' })
    const marker = commentMarker('evalgate.yml', 'support-bot')
    const md = commentBody(marker, renderReport(model, { maxLength: MAX_COMMENT_LENGTH - 300, fullReportHint: 'the job summary' }), verdict.status)
    return { name, md, html: [...htmlPieces(model)].join('') }
  })
}

/** GitHub renders `> [!KIND]` blockquotes as alerts; cmark-gfm leaves them blockquotes. */
function alerts(html) {
  let out = ''
  let rest = html
  const open = /<blockquote>\n<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\n?/
  for (let m = open.exec(rest); m; m = open.exec(rest)) {
    const close = rest.indexOf('</blockquote>', m.index)
    const kind = m[1]
    const title = kind[0] + kind.slice(1).toLowerCase()
    out += rest.slice(0, m.index)
    out += `<div class="alert alert-${kind.toLowerCase()}"><p class="alert-title">${title}</p>\n<p>`
    out += rest.slice(m.index + m[0].length, close) + '</div>'
    rest = rest.slice(close + '</blockquote>'.length)
  }
  return out + rest
}

const CSS = `
body { margin: 0; background: #fff; font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.5; color: #1f2328; }
.comment { width: 860px; margin: 16px auto; border: 1px solid #d1d9e0; border-radius: 6px; }
.comment-header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e; border-radius: 6px 6px 0 0; }
.markdown-body { padding: 16px; }
.markdown-body > *:first-child { margin-top: 0 !important; }
h1, h2, h3, h4 { margin: 24px 0 16px; font-weight: 600; line-height: 1.25; } h3 { font-size: 1.25em; } h4 { font-size: 1em; }
p, ul, ol, table, pre, blockquote, details, .alert { margin: 0 0 16px; }
ul { padding-left: 2em; } li + li { margin-top: .25em; }
code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 85%; background: rgba(129,139,152,.12); padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; overflow: auto; font-size: 85%; line-height: 1.45; } pre code { background: none; padding: 0; font-size: 100%; white-space: pre; }
table { border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; } th { font-weight: 600; } tr:nth-child(2n) { background: #f6f8fa; }
blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
.alert { padding: .5rem 1rem; border-left: .25em solid; } .alert > :last-child { margin-bottom: 0; }
.alert-title { font-weight: 500; margin-bottom: 4px; }
.alert-note { border-color: #0969da; } .alert-note .alert-title { color: #0969da; }
.alert-tip { border-color: #1a7f37; } .alert-tip .alert-title { color: #1a7f37; }
.alert-warning { border-color: #9a6700; } .alert-warning .alert-title { color: #9a6700; }
.alert-caution { border-color: #cf222e; } .alert-caution .alert-title { color: #cf222e; }
.alert-important { border-color: #8250df; } .alert-important .alert-title { color: #8250df; }
details summary { cursor: pointer; } sub { font-size: 75%; color: #59636e; }
a { color: #0969da; text-decoration: none; }
`

function page(markdown, title) {
  const body = execFileSync(
    '/usr/bin/cmark-gfm',
    ['--extension', 'table', '--extension', 'strikethrough', '--extension', 'autolink', '--extension', 'tagfilter', '--unsafe'],
    { input: markdown, encoding: 'utf8' }
  )
  return `<!doctype html><meta charset="utf-8"><title>${title}</title><style>${CSS}</style>
<div class="comment"><div class="comment-header"><b>github-actions</b> bot commented</div><div class="markdown-body">${alerts(body)}</div></div>`
}

function chromium(args) {
  const profile = mkdtempSync(path.join(tmpdir(), 'evalgate-chromium-'))
  try {
    return execFileSync(
      '/usr/bin/chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        '--hide-scrollbars',
        '--window-size=1000,3000',
        ...args
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 }
    )
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

/** The page in screens of 3,000 px: name.png, name-2.png, …; returns their files. */
function screenshots(html, out, name) {
  const file = path.join(out, `${name}.html`)
  // the page's height, read by the page itself: --dump-dom prints the DOM after scripts ran
  writeFileSync(file, `${html}<script>document.body.dataset.height = document.documentElement.scrollHeight</script>`)
  const height = Number(/data-height="(\d+)"/.exec(chromium(['--dump-dom', pathToFileURL(file).href]))?.[1] ?? 3000)
  const pngs = []
  for (let top = 0, i = 1; top < height; top += SCREEN, i++) {
    const png = path.join(out, i === 1 ? `${name}.png` : `${name}-${i}.png`)
    writeFileSync(file, `${html}<style>body { margin-top: -${top}px }</style>`)
    chromium([`--screenshot=${png}`, pathToFileURL(file).href])
    pngs.push(png)
  }
  writeFileSync(file, html)
  return { height, pngs }
}

const SCREEN = 3000

await transpile()
mkdirSync(OUT, { recursive: true })
const scenarios = [
  ['quickstart', await example('quickstart')],
  ['conversation', await example('conversation')],
  ['regressions-60', await regressions(60)],
  ['regressions-180', await regressions(180)]
]
// the 60-regression comment again with every collapsed block open: what a reviewer sees on clicking
scenarios.push(['regressions-60-open', scenarios[2][1].replaceAll('<details>', '<details open>')])
// the conversation example with its regressed cases open, the folded transcripts still folded
scenarios.push(['conversation-open', scenarios[1][1].replaceAll('<details><summary><code>', '<details open><summary><code>')])
const reports = await verdicts()
for (const { name, md } of reports) scenarios.push([name, md])
for (const { name, html } of reports) {
  // the HTML report as a browser shows it, its first screen
  const file = path.join(OUT, `${name}-report.html`)
  writeFileSync(file, html)
  chromium([`--screenshot=${path.join(OUT, `${name}-report.png`)}`, '--window-size=1280,900', pathToFileURL(file).href])
  console.log(`${name}-report: ${html.length.toLocaleString('en-US')} characters → ${name}-report.png`)
}
for (const [name, md] of scenarios) {
  writeFileSync(path.join(OUT, `${name}.md`), md)
  const { height, pngs } = screenshots(page(md, name), OUT, name)
  console.log(
    `${name}: ${md.length.toLocaleString('en-US')} characters, ${height.toLocaleString('en-US')} px → ${pngs.map((p) => path.basename(p)).join(', ')}`
  )
}
