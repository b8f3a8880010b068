/**
 * `evalgate trend`: the rows read off the records, the markdown's table and
 * sparklines, and the HTML page's inline SVG — whose points are the records'
 * figures, where the axis puts them.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { axisOf, labelledRuns, pointAt, renderTrendHtml } from '../../src/report/trends/html.js'
import { renderTrendMarkdown, sparkline } from '../../src/report/trends/markdown.js'
import { trendRow, trendSeries, type SeriesKey } from '../../src/report/trends/rows.js'
import type { RunRecord } from '../../src/types.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'

/** Run i of a month: its pass rate, scores, costs and latencies move with i; every fifth has no cost reported. */
function monthOfRuns(n = 30): RunRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const cases = Array.from({ length: 20 }, (_, k) =>
      makeCase(`c${k}`, (k + i) % 7 !== 0 && !(i > 10 && i < 15 && k % 3 === 0), {
        score: k % 2 ? Math.max(0, 1 - ((i * k) % 11) / 20) : null,
        latencyMs: 100 + k * 40 + i * 13,
        ...(i % 5 === 4 ? {} : { usage: { inputTokens: 100 + i, outputTokens: 20, costUsd: 0.0001 * (k + 1) * (1 + i / 30) } })
      })
    )
    return makeRun(cases, {
      createdAt: new Date(Date.UTC(2026, 10, 1 + i, 4)).toISOString(),
      git: { sha: `${String(i).padStart(2, '0')}${'ab'.repeat(19)}`, ref: 'refs/heads/main', runId: String(i) }
    })
  })
}

/** What each figure of a record should be, computed here from its cases. */
function expected(record: RunRecord): Record<SeriesKey, number | null> {
  const latencies = record.cases.map((c) => c.latencyMs!).sort((a, b) => a - b)
  const costs = record.cases.flatMap((c) => (c.usage?.costUsd === undefined ? [] : [c.usage.costUsd]))
  return {
    passRate: record.cases.filter((c) => c.passed).length / record.cases.length,
    meanScore: record.summary.meanScore,
    cost: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
    latencyP95: latencies[Math.ceil(0.95 * latencies.length) - 1]!
  }
}

interface Point {
  run: number
  value: number
  cx: number
  cy: number
}

/** The points of each chart of the page, as the SVG holds them. */
function svgPoints(html: string): Map<string, { top: number; points: Point[] }> {
  const charts = new Map<string, { top: number; points: Point[] }>()
  for (const svg of html.matchAll(/<svg [^>]*data-series="(\w+)" data-top="([\d.e-]+)">([\s\S]*?)<\/svg>/g)) {
    const points = [...svg[3]!.matchAll(/<circle class="point" cx="([\d.]+)" cy="([\d.]+)" [^>]*data-run="(\d+)" data-value="([^"]+)">/g)].map((m) => ({
      cx: Number(m[1]),
      cy: Number(m[2]),
      run: Number(m[3]),
      value: Number(m[4])
    }))
    charts.set(svg[1]!, { top: Number(svg[2]), points })
  }
  return charts
}

describe('the trend page', () => {
  const records = monthOfRuns()
  const rows = records.map((r, i) => trendRow(`run-${i}.json`, r))
  const html = renderTrendHtml(rows)

  it('draws a point for every run that has the figure, with the record’s value, where the axis puts it', () => {
    const charts = svgPoints(html)
    expect([...charts.keys()]).toEqual(['passRate', 'meanScore', 'cost', 'latencyP95'])
    for (const [key, chart] of charts) {
      const wanted = records.map((r) => expected(r)[key as SeriesKey])
      expect(chart.points.map((p) => p.run)).toEqual(wanted.flatMap((v, i) => (v === null ? [] : [i])))
      for (const p of chart.points) {
        expect(p.value).toBeCloseTo(wanted[p.run]!, 12)
        const at = pointAt(p.run, records.length, wanted[p.run]!, chart.top)
        expect([p.cx, p.cy]).toEqual([at.x, at.y])
      }
    }
    // every fifth run reports no cost: 24 of 30 points, and the line is broken there
    expect(charts.get('cost')!.points).toHaveLength(24)
    expect(html.match(/<polyline [^>]*stroke="#bc4c00"/g)).toHaveLength(6)
  })

  it('puts a higher value higher, and a zero on the axis', () => {
    const { top } = axisOf({ unit: 'ms', values: [0, 1234] })
    expect(top).toBe(1500)
    expect(pointAt(0, 2, 1234, top).y).toBeLessThan(pointAt(0, 2, 600, top).y)
    expect(pointAt(0, 2, 0, top).y).toBe(pointAt(1, 2, 0, top).y)
    expect(axisOf({ unit: 'rate', values: [0.2, 0.3] })).toEqual({ top: 1, ticks: 4 })
    expect(axisOf({ unit: 'usd', values: [0.0079, null] })).toEqual({ top: 0.008, ticks: 4 })
    expect(axisOf({ unit: 'usd', values: [0.008] })).toEqual({ top: 0.008, ticks: 4 })
    expect(axisOf({ unit: 'usd', values: [0.0081] })).toEqual({ top: 0.01, ticks: 5 })
  })

  it('labels about eight runs, the first and the last among them', () => {
    expect(labelledRuns(5)).toEqual([0, 1, 2, 3, 4])
    expect(labelledRuns(30)).toEqual([0, 4, 8, 12, 17, 21, 25, 29])
  })

  it('needs nothing from the network: no script, no remote reference', () => {
    expect(html).not.toMatch(/<script|<link|<img|https?:\/\/(?!www\.w3\.org\/2000\/svg)/)
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`)
  })

  it('escapes what the records say', () => {
    const hostile = trendRow('x.json', makeRun([makeCase('a')], { name: '<script>alert(1)</script>', git: { sha: null, ref: null, runId: null } }))
    const page = renderTrendHtml([hostile, hostile])
    expect(page).not.toContain('<script>')
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })
})

describe('the trend markdown', () => {
  const records = monthOfRuns(6)
  const rows = records.map((r, i) => trendRow(`run-${i}.json`, r))

  it('a row per figure with first, last, change, range and a sparkline of every run', () => {
    const md = renderTrendMarkdown(rows)
    const passRates = records.map((r) => expected(r).passRate!)
    const line = md.split('\n').find((l) => l.startsWith('| pass rate |'))!
    const change = (passRates[5]! - passRates[0]!) * 100
    const changeText = Math.abs(change) < 0.05 ? '0.0 pts' : `${change > 0 ? '+' : '−'}${Math.abs(change).toFixed(1)} pts`
    expect(line).toBe(
      `| pass rate | ${(passRates[0]! * 100).toFixed(1)}% | ${(passRates[5]! * 100).toFixed(1)}% | ${changeText} | ` +
        `${(Math.min(...passRates) * 100).toFixed(1)}% | ${(Math.max(...passRates) * 100).toFixed(1)}% | \`${sparkline(passRates)}\` |`
    )
    expect(md).toContain('| 1 | 00ababa | 2026-11-01 04:00 UTC | 20 |')
  })

  it('sparklines: lowest ▁, highest █, a run without the figure a space, a flat line in the middle', () => {
    expect(sparkline([0, 0.5, 1])).toBe('▁▅█')
    expect(sparkline([2, null, 4])).toBe('▁ █')
    expect(sparkline([3, 3])).toBe('▄▄')
    expect(sparkline([null])).toBe('')
  })

  it('leaves out a figure no run has, and warns about runs of different configs', () => {
    const plain = [makeRun([makeCase('a')], { name: 'one' }), makeRun([makeCase('a', false)], { name: 'two' })].map((r) => trendRow('f', r))
    expect(trendSeries(plain).map((s) => s.key)).toEqual(['passRate'])
    expect(renderTrendMarkdown(plain)).toContain('These records are runs of different configs (one, two)')
  })
})

describe('evalgate trend', () => {
  it('writes the page and the markdown from record files, in the order given', async () => {
    const records = monthOfRuns(3)
    const dir = tempProject(Object.fromEntries(records.map((r, i) => [`r${i}.json`, JSON.stringify(r)])))
    const f = (name: string) => path.join(dir, name)
    const res = await runCli(['trend', f('r2.json'), f('r0.json'), f('r1.json'), '--html', f('out/t.html'), '--markdown', f('out/t.md')])
    expect(res.code).toBe(0)
    expect(res.stderr).toBe(`evalgate: trend of 3 runs written to ${f('out/t.html')} and ${f('out/t.md')}\n`)
    const points = svgPoints(readFileSync(f('out/t.html'), 'utf8')).get('passRate')!.points
    expect(points.map((p) => p.value)).toEqual([2, 0, 1].map((i) => expected(records[i]!).passRate))
    expect(readFileSync(f('out/t.md'), 'utf8')).toMatch(/^## evalgate trend · support-bot \(3 runs\)/)
  })

  it('prints the markdown without a flag; no record, or a bad one, is a usage error', async () => {
    const dir = tempProject({ 'r.json': JSON.stringify(monthOfRuns(1)[0]), 'bad.json': '{"schemaVersion": 2}' })
    const printed = await runCli(['trend', path.join(dir, 'r.json')])
    expect(printed.code).toBe(0)
    expect(printed.stdout).toMatch(/^## evalgate trend · support-bot \(1 run\)/)
    expect((await runCli(['trend'])).code).toBe(2)
    const bad = await runCli(['trend', path.join(dir, 'r.json'), path.join(dir, 'bad.json')])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('bad.json')
  })
})
