/**
 * The HTML report in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core; no browser is downloaded): filter, sort, open a case, see
 * the diff, and nothing injected runs. Skipped, saying so, only where
 * /usr/bin/chromium is absent; CI installs it. EVALGATE_CHROMIUM names another
 * Chromium-based browser (e.g. /usr/bin/google-chrome on GitHub's runners).
 */
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { renderHtml } from '../__fixtures__/html.js'
import { reportFixture } from './report-fixture.js'
import { tempDir } from '../__fixtures__/temp.js'

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

const available = existsSync(CHROMIUM)
if (!available) console.warn(`SKIPPED: the HTML report browser tests need ${CHROMIUM} (apt-get install -y chromium)`)
const describeInBrowser = available ? describe : describe.skip

describeInBrowser('the HTML report in Chromium', () => {
  // made in beforeAll: a skipped suite (no Chromium) runs no hooks, so a folder made here would be left behind
  let dir: string
  let file: string
  let context: BrowserContext
  let page: Page
  const consoleErrors: string[] = []
  const requests: string[] = []

  beforeAll(async () => {
    dir = tempDir('evalgate-html-')
    file = path.join(dir, 'report.html')
    writeFileSync(file, renderHtml(reportFixture()))
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      args: ARGS,
      headless: true,
      viewport: { width: 1280, height: 900 }
    })
    page = await context.newPage()
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text())
    })
    page.on('pageerror', (e) => consoleErrors.push(e.message))
    page.on('request', (r) => requests.push(r.url()))
    await page.goto(pathToFileURL(file).href)
  }, 60_000)

  afterAll(async () => {
    await context?.close()
  })

  const rowKeys = () => page.$$eval('#cases-body tr.case-row', (rows) => rows.map((r) => r.getAttribute('data-key')))
  const count = () => page.textContent('#count')

  it('shows every case, worst flips first, with the regressions open; runs without errors or requests', async () => {
    expect(await rowKeys()).toEqual([
      'refund-policy',
      'tone',
      'hostile',
      'flaky-greeting',
      'rubric-changed',
      'timeout',
      'capital-australia',
      'old-case',
      'capital-ireland',
      'math-0',
      'math-1',
      'math-2',
      'math-3',
      'math-4',
      'math-5'
    ])
    expect(await count()).toBe('15 cases')
    expect(await page.$$eval('tr.detail', (rows) => rows.length)).toBe(3)
    expect(consoleErrors).toEqual([])
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([])
    expect(await page.title()).toBe('evalgate · support-bot — gate failed')
  })

  it('runs nothing injected: hostile text shows as text', async () => {
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    expect(await page.$$eval('#cases-body img', (imgs) => imgs.length)).toBe(0)
    const hostileRow = page.locator('tr.case-row[data-key="hostile"]')
    expect(await hostileRow.textContent()).toContain('"><img src=x onerror="window.__pwned = 3">')
    expect(await page.locator('tr.detail').nth(2).textContent()).toContain('<script>window.__pwned = 1</script>')
  })

  it('filters rows as the user types', async () => {
    await page.fill('#filter', 'capital')
    expect(await rowKeys()).toEqual(['capital-australia', 'capital-ireland'])
    expect(await count()).toBe('2 of 15 cases')
    await page.fill('#filter', 'math geo')
    expect(await rowKeys()).toEqual([])
    // words in the output count too
    await page.fill('#filter', 'canberra')
    expect(await rowKeys()).toEqual(['capital-australia'])
    await page.fill('#filter', '')
    await page.selectOption('#flip-filter', 'regressed')
    expect(await rowKeys()).toEqual(['refund-policy', 'tone', 'hostile'])
    await page.selectOption('#flip-filter', '')
    await page.selectOption('#status-filter', 'error')
    expect(await rowKeys()).toEqual(['timeout'])
    await page.selectOption('#status-filter', '')
    expect(await count()).toBe('15 cases')
  })

  it('sorts by a column when its header is clicked, and reverses on a second click', async () => {
    await page.click('th[data-sort="score"] button')
    // the one scored case first; unscored ones last in either direction, in dataset order
    expect((await rowKeys()).slice(0, 3)).toEqual(['tone', 'capital-ireland', 'capital-australia'])
    expect(await page.getAttribute('th[data-sort="score"]', 'aria-sort')).toBe('ascending')
    await page.click('th[data-sort="case"] button')
    const ascending = await rowKeys()
    // the hostile case's name starts with a quote
    expect(ascending.slice(0, 4)).toEqual(['hostile', 'capital-australia', 'capital-ireland', 'flaky-greeting'])
    await page.click('th[data-sort="case"] button')
    expect(await page.getAttribute('th[data-sort="case"]', 'aria-sort')).toBe('descending')
    expect(await rowKeys()).toEqual([...ascending].reverse())
  })

  it('opens a case on a click: input, expected, both outputs and the word-level diff', async () => {
    await page.click('th[data-sort="flip"] button')
    await page.click('#expand') // some are closed: opens all
    expect(await page.$$eval('tr.detail', (rows) => rows.length)).toBe(15)
    await page.click('#expand') // all are open: closes all
    expect(await page.$$eval('tr.detail', (rows) => rows.length)).toBe(0)
    await page.click('tr.case-row[data-key="refund-policy"]')
    const detail = page.locator('tr.detail')
    expect(await detail.count()).toBe(1)
    const text = (await detail.textContent())!
    for (const part of [
      'How do refunds work?',
      '30 days',
      'Baseline output (passed)',
      'Current output (failed)',
      'Diff, baseline → current',
      "missing: '30 days'"
    ])
      expect(text).toContain(part)
    expect(await detail.locator('.diff .del').allTextContents()).toEqual(['- You can request a refund within 30 days of delivery.'])
    expect(await detail.locator('.diff .ins').allTextContents()).toEqual(['- Refunds are possible within a month.'])
    expect(await detail.locator('.diff .ins mark').allTextContents()).toEqual(['Refunds are possible', 'a month'])
    await page.click('tr.case-row[data-key="capital-australia"]')
    await page.click('tr.case-row[data-key="flaky-greeting"]')
    expect(await page.locator('tr.detail').count()).toBe(3)
    expect(await page.locator('tr.detail .case-note').first().textContent()).toMatch(
      /^Flaky, not counted as a regression: failed 2 of 3 trials, against 1 of 3 in the baseline: within chance \(p = [0-9.]+\)\.$/
    )
    await page.evaluate('window.scrollTo(0, 0)')
    // EVALGATE_SCREENSHOT_DIR=folder keeps the picture, to look at the report
    const shots = process.env.EVALGATE_SCREENSHOT_DIR ?? dir
    await page.screenshot({ path: path.join(shots, 'html-report.png'), fullPage: true })
    await page.click('tr.case-row[data-key="refund-policy"]')
    expect(await page.locator('tr.detail').count()).toBe(2)
  })
})
