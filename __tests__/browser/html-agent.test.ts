/**
 * An agent's HTML report as Chromium draws it (SPEC §10): the per-case cost and
 * latency columns, and each case's two trajectories side by side with the
 * first differing step highlighted. The page script builds the table, so the
 * DOM is taken from the browser after it ran and read with parse5. Skipped,
 * saying so, only where /usr/bin/chromium is absent (as html-report.test.ts).
 */
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { parse, type DefaultTreeAdapterMap } from 'parse5'
import { chromium, type BrowserContext } from 'playwright-core'
import { renderHtml } from '../__fixtures__/html.js'
import { tempDir } from '../__fixtures__/temp.js'
import { agentReportFixture } from './agent-report-fixture.js'

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']

const CHROMIUM = process.env.EVALGATE_CHROMIUM || '/usr/bin/chromium'
const available = existsSync(CHROMIUM)
if (!available) console.warn(`SKIPPED: the HTML report browser tests need ${CHROMIUM} (apt-get install -y chromium)`)
const describeInBrowser = available ? describe : describe.skip

const isElement = (n: Node): n is Element => 'tagName' in n
const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value ?? null
const classes = (e: Element) => (attr(e, 'class') ?? '').split(/\s+/).filter(Boolean)

/** The elements under `node` (itself included) that match, in document order. */
function find(node: Node, match: (e: Element) => boolean): Element[] {
  const found: Element[] = []
  const visit = (n: Node) => {
    if (isElement(n) && match(n)) found.push(n)
    const children = 'childNodes' in n ? n.childNodes : []
    for (const child of children) visit(child)
  }
  visit(node)
  return found
}

function text(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value
  return ('childNodes' in node ? node.childNodes : []).map(text).join('')
}

const byTag = (tag: string) => (e: Element) => e.tagName === tag
const byClass = (cls: string) => (e: Element) => classes(e).includes(cls)

describeInBrowser('an agent’s HTML report in Chromium, read with parse5', () => {
  // made in beforeAll: a skipped suite (no Chromium) runs no hooks, so a folder made here would be left behind
  let dir: string
  let file: string
  let context: BrowserContext
  let dom: DefaultTreeAdapterMap['document']
  const errors: string[] = []

  beforeAll(async () => {
    dir = tempDir('evalgate-html-agent-')
    file = path.join(dir, 'report.html')
    writeFileSync(file, renderHtml(agentReportFixture()))
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ],
      headless: true
    })
    const page = await context.newPage()
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(pathToFileURL(file).href)
    await page.click('#expand') // one regression is open: opens the rest
    dom = parse(await page.content())
  }, 60_000)

  afterAll(async () => {
    await context?.close()
  })

  /** The case's row and the row that opened under it. */
  function rows(key: string): { row: Element; detail: Element } {
    const all = find(find(dom, (e) => attr(e, 'id') === 'cases-body')[0]!, byTag('tr'))
    const i = all.findIndex((r) => attr(r, 'data-key') === key)
    expect(classes(all[i + 1]!)).toContain('detail')
    return { row: all[i]!, detail: all[i + 1]! }
  }

  it('heads the table with cost and latency columns, and ran without errors', () => {
    const head = find(find(dom, byTag('thead'))[0]!, byTag('th')).map((th) => attr(th, 'data-sort'))
    expect(head).toEqual(['case', 'status', 'flip', 'tags', 'score', 'duration', 'cost', 'latency'])
    expect(errors).toEqual([])
  })

  it.each([
    ['where-is-b7', '$0.0006 → $0.0009', '560 ms → 1.3 s'],
    ['returns-policy', '$0.0006', '560 ms → 680 ms'],
    ['extra-step', '$0.0006', '400 ms → 450 ms'],
    ['greeting', '$0.0001 → $0.0005', '200 ms'],
    ['new-case', '$0.0004', '300 ms']
  ])('%s: cost %s, latency %s, in the last two cells', (key, cost, latency) => {
    const cells = find(rows(key).row, byTag('td'))
    expect(cells).toHaveLength(8)
    expect(cells.slice(6).map((td) => [classes(td), text(td)])).toEqual([
      [['num', 'cost'], cost],
      [['num', 'latency'], latency]
    ])
  })

  /** Each side's steps as [text, highlighted], and the line under them. */
  function trajectory(key: string) {
    const block = find(rows(key).detail, byClass('trajectory'))
    if (!block.length) return null
    const sides = find(block[0]!, byClass('steps')).map((ol) => find(ol, byTag('li')).map((li) => [text(li), classes(li).includes('first-diff')]))
    const note = find(block[0]!, byClass('trajectory-note')).map(text)
    return { headings: find(block[0]!, byTag('h3')).map(text), sides, note }
  }

  it('puts both trajectories side by side and highlights the first differing step on each', () => {
    expect(trajectory('where-is-b7')).toEqual({
      headings: ['Baseline tool calls', 'Current tool calls'],
      sides: [
        [['lookup_order {"order_id":"B7"}', true]],
        [
          ['search_kb {"query":"returns"}', true],
          ['lookup_order {"order_id":"B7"}', false],
          ['refund {"order_id":"B7","amount":64}', false]
        ]
      ],
      note: ['first difference at step 1']
    })
  })

  it('highlights a later step when the first ones agree', () => {
    expect(trajectory('refund-late')!.sides.map((side) => side.map(([, first]) => first))).toEqual([
      [false, true],
      [false, true]
    ])
    expect(trajectory('refund-late')!.note).toEqual(['first difference at step 2'])
  })

  it('marks where the shorter trajectory ends when the other goes on', () => {
    expect(trajectory('extra-step')!.sides).toEqual([
      [
        ['lookup_order {"order_id":"B7"}', false],
        ['no further calls', true]
      ],
      [
        ['lookup_order {"order_id":"B7"}', false],
        ['refund {"order_id":"B7","amount":64}', true]
      ]
    ])
  })

  it('highlights nothing when both runs called the same tools, and says so', () => {
    const same = trajectory('returns-policy')!
    expect(same.sides.flat().some(([, first]) => first)).toBe(false)
    expect(same.note).toEqual(['the same tool calls in both runs'])
  })

  it('shows an added case’s tool calls alone, and none where no tool was called', () => {
    const added = trajectory('new-case')!
    expect(added.sides).toEqual([[['lookup_order {"order_id":"B7"}', false]]])
    expect(added.headings).toEqual(['Baseline tool calls', 'Current tool calls'])
    expect(added.note).toEqual([])
    expect(trajectory('greeting')).toBeNull()
  })

  it('says a side reported no tool calls, rather than showing it as calling none', () => {
    const lost = trajectory('lost-calls')!
    expect(lost.sides).toEqual([[['lookup_order {"order_id":"B7"}', false]]])
    expect(lost.note).toEqual(['this run reported no tool calls'])
    const current = find(find(rows('lost-calls').detail, byClass('trajectory'))[0]!, byTag('p')).map(text)
    expect(current).toContain('not reported')
  })
})
