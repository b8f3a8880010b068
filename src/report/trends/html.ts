/**
 * The trend as an HTML page: one inline SVG chart per figure (pass rate and
 * mean score on a 0–100% axis, cost and p95 latency from zero, so a change is
 * never exaggerated by a cut axis), a table of every run, no script and
 * nothing fetched. Every point carries its run and value (`data-run`,
 * `data-value`) and a <title> tooltip. Pure.
 */
import { escapeHtmlText } from '../escape.js'
import { formatCount, formatTime, plural } from '../format.js'
import { formatFigure } from './markdown.js'
import { mixedNames, trendSeries, type Series, type TrendRow } from './rows.js'

const WIDTH = 760
const HEIGHT = 200
const MARGIN = { left: 64, right: 20, top: 28, bottom: 44 }

const COLOURS: Record<Series['key'], string> = { passRate: '#1a7f37', meanScore: '#8250df', cost: '#bc4c00', latencyP95: '#0969da' }

/** Round tops of an axis (times a power of ten) and the gridlines that divide each into round steps. */
const TOPS: readonly [number, number][] = [
  [1, 4],
  [1.2, 4],
  [1.5, 3],
  [2, 4],
  [2.5, 5],
  [3, 3],
  [4, 4],
  [5, 5],
  [6, 3],
  [8, 4],
  [10, 5]
]

/** The axis of a series: 0–1 in quarters for rates and scores, else from 0 to a round number above the largest value. */
export function axisOf(s: Pick<Series, 'unit' | 'values'>): { top: number; ticks: number } {
  if (s.unit === 'rate' || s.unit === 'score') return { top: 1, ticks: 4 }
  const high = Math.max(0, ...s.values.filter((v): v is number => v !== null))
  if (high === 0) return { top: 1, ticks: 4 }
  const step = 10 ** Math.floor(Math.log10(high))
  const [m, ticks] = TOPS.find(([m]) => m * step >= high * (1 - 1e-9)) ?? [10, 5]
  return { top: m * step, ticks }
}

/** The runs whose labels are written under the axis: all of them when few, else about eight spread evenly, the last included. */
export function labelledRuns(n: number, max = 8): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i)
  return [...new Set(Array.from({ length: max }, (_, k) => Math.round((k * (n - 1)) / (max - 1))))]
}

/** Where run i of n sits, and where a value sits on an axis from 0 to top. */
export function pointAt(i: number, n: number, value: number, top: number): { x: number; y: number } {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const x = MARGIN.left + (n === 1 ? plotWidth / 2 : (i * plotWidth) / (n - 1))
  const y = MARGIN.top + plotHeight * (1 - Math.min(1, Math.max(0, value / top)))
  return { x: round(x), y: round(y) }
}

function round(n: number): number {
  return Math.round(n * 100) / 100
}

const text = (s: string) => escapeHtmlText(s)

function chart(s: Series, rows: readonly TrendRow[]): string {
  const { top, ticks } = axisOf(s)
  const n = rows.length
  const parts: string[] = []
  // the axis: gridlines and their labels
  for (let t = 0; t <= ticks; t++) {
    const value = (top * t) / ticks
    const { y } = pointAt(0, n, value, top)
    parts.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}"/>`)
    parts.push(`<text class="tick" x="${MARGIN.left - 8}" y="${y + 4}" text-anchor="end">${text(formatFigure(s.unit, value))}</text>`)
  }
  for (const i of labelledRuns(n)) {
    const { x } = pointAt(i, n, 0, top)
    // the first and last labels are kept inside the chart
    const anchor = n > 1 && i === 0 ? 'start' : n > 1 && i === n - 1 ? 'end' : 'middle'
    parts.push(`<text class="run" x="${x}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="${anchor}">${text(rows[i]!.label)}</text>`)
  }
  // the line, broken where a run has no value
  const segments: string[][] = [[]]
  s.values.forEach((v, i) => {
    if (v === null) segments.push([])
    else {
      const { x, y } = pointAt(i, n, v, top)
      segments[segments.length - 1]!.push(`${x},${y}`)
    }
  })
  for (const points of segments.filter((p) => p.length > 1))
    parts.push(`<polyline class="line" fill="none" stroke="${COLOURS[s.key]}" stroke-width="2" points="${points.join(' ')}"/>`)
  s.values.forEach((v, i) => {
    if (v === null) return
    const { x, y } = pointAt(i, n, v, top)
    const r = rows[i]!
    parts.push(
      `<circle class="point" cx="${x}" cy="${y}" r="3.5" fill="${COLOURS[s.key]}" data-run="${i}" data-value="${v}">` +
        `<title>${text(`${r.label} (${formatTime(r.createdAt)}): ${s.label} ${formatFigure(s.unit, v)}`)}</title></circle>`
    )
  })
  const present = s.values.filter((v): v is number => v !== null)
  const last = present[present.length - 1] ?? null
  return [
    `<figure class="chart" id="chart-${s.key}">`,
    `<figcaption><strong>${text(s.label)}</strong> <span class="last">${text(formatFigure(s.unit, last))}</span></figcaption>`,
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${text(`${s.label} over ${n} runs`)}" data-series="${s.key}" data-top="${top}">`,
    ...parts,
    '</svg>',
    '</figure>'
  ].join('\n')
}

const STYLE = `
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 24px auto; max-width: 820px; padding: 0 16px; }
h1 { font-size: 20px; margin: 0 0 4px; }
p.sub { color: #59636e; margin: 0 0 16px; }
.chart { margin: 0 0 20px; border: 1px solid #d1d9e0; border-radius: 6px; padding: 8px 12px 4px; }
figcaption { margin-bottom: 4px; }
figcaption .last { margin-left: 8px; font-variant-numeric: tabular-nums; }
svg { display: block; max-width: 100%; height: auto; }
.grid { stroke: #d1d9e0; stroke-width: 1; }
.tick, .run { font-size: 11px; fill: #59636e; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.warning { border-left: 4px solid #9a6700; background: #fff8c5; padding: 8px 12px; margin: 0 0 16px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d1d9e0; padding: 4px 8px; text-align: right; }
th { background: #f6f8fa; }
td.l, th.l { text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
`

export function renderTrendHtml(rows: readonly TrendRow[]): string {
  const name = rows[0]?.name ?? 'runs'
  const mixed = mixedNames(rows)
  const first = rows[0]!
  const last = rows[rows.length - 1]!
  const table = [
    '<table>',
    '<thead><tr><th>#</th><th class="l">run</th><th class="l">date</th><th>cases</th><th>pass rate</th><th>mean score</th><th>cost</th><th>p95 latency</th></tr></thead>',
    '<tbody>',
    ...rows.map(
      (r, i) =>
        `<tr><td>${i + 1}</td><td class="l" title="${text(r.file)}">${text(r.label)}${r.complete ? '' : ' (cut short)'}</td><td class="l">${text(formatTime(r.createdAt))}</td>` +
        `<td>${formatCount(r.total)}</td><td>${text(formatFigure('rate', r.passRate))}</td><td>${text(formatFigure('score', r.meanScore))}</td>` +
        `<td>${text(formatFigure('usd', r.cost))}</td><td>${text(formatFigure('ms', r.latencyP95))}</td></tr>`
    ),
    '</tbody>',
    '</table>'
  ]
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    // nothing to fetch: no scripts, no remote styles or images
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>evalgate trend · ${text(name)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>evalgate trend · ${text(name)}</h1>`,
    `<p class="sub">${plural(rows.length, 'run')}, in the order given: ${text(first.label)} (${text(formatTime(first.createdAt))}) to ${text(last.label)} (${text(formatTime(last.createdAt))}).</p>`,
    ...(mixed.length
      ? [`<p class="warning">These records are runs of different configs (${text(mixed.join(', '))}): their figures are of different datasets.</p>`]
      : []),
    ...trendSeries(rows).map((s) => chart(s, rows)),
    ...table,
    '</body>',
    '</html>',
    ''
  ].join('\n')
}
