// The pictures on the front page, made from the bundled example as a reader
// would make it: docs/images/comment.png (the PR comment, rendered by
// scripts/render-comment.mjs with cmark-gfm and a GitHub-like stylesheet) and
// docs/images/html-report.png (the HTML report of the same run, in Chromium,
// its first regression opened).
//
//   npm run bundle && node scripts/docs-images.mjs
//
// Needs /usr/bin/cmark-gfm and /usr/bin/chromium (EVALGATE_CHROMIUM names
// another Chromium-based browser). Runs the CLI in dist/, so bundle first.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const IMAGES = path.join(ROOT, 'docs', 'images')
const CHROMIUM = process.env.EVALGATE_CHROMIUM || '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

const work = mkdtempSync(path.join(tmpdir(), 'evalgate-docs-images-'))
try {
  // the comment, as render-comment.mjs renders it (its page, not its tall screenshots)
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'render-comment.mjs'), work], { stdio: ['ignore', 'ignore', 'inherit'] })
  // the HTML report of the same run: the quick start, as getting-started.md runs it
  const report = path.join(work, 'report.html')
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'dist', 'cli', 'index.js'),
      'run',
      '-c',
      'examples/quickstart/evalgate.yml',
      '--baseline',
      'examples/quickstart/baseline.json',
      '--html',
      report,
      '--quiet'
    ],
    { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } }
  )
  if (run.status !== 1) throw new Error(`the quick start exited ${run.status}, not 1 (its gate fails on purpose):\n${run.stderr}`)

  mkdirSync(IMAGES, { recursive: true })
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true })
  try {
    const comment = await browser.newPage({ viewport: { width: 900, height: 1200 }, deviceScaleFactor: 1 })
    await comment.goto(pathToFileURL(path.join(work, 'quickstart.html')).href)
    // the top of the comment: the verdict, the figures and the regressions table
    await comment.screenshot({ path: path.join(IMAGES, 'comment.png'), clip: { x: 0, y: 0, width: 900, height: 1200 } })

    const html = await browser.newPage({ viewport: { width: 1280, height: 1000 }, deviceScaleFactor: 1 })
    await html.goto(pathToFileURL(report).href)
    // a reader's first click: the first regressed case, open
    const first = html.locator('tr.case-row').first()
    if ((await html.locator('tr.detail').count()) === 0) await first.click()
    await html.screenshot({ path: path.join(IMAGES, 'html-report.png') })
  } finally {
    await browser.close()
  }
  console.log(`wrote ${path.relative(ROOT, path.join(IMAGES, 'comment.png'))} and ${path.relative(ROOT, path.join(IMAGES, 'html-report.png'))}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
