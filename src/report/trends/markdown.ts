/**
 * The trend as markdown: a table of the four figures — first run, last run,
 * the change, lowest and highest, and a sparkline — then every run in a
 * collapsed table. Pure.
 */
import { escapeInline } from '../escape.js'
import { formatCount, formatDuration, formatPercent, formatScore, formatTime, formatUsd, plural, signed, signedPoints } from '../format.js'
import { mixedNames, trendSeries, type Series, type TrendRow } from './rows.js'

const BARS = '▁▂▃▄▅▆▇█'

/** One character per run: its value's height between the series' lowest and highest; a run without it is a space. */
export function sparkline(values: readonly (number | null)[]): string {
  const present = values.filter((v): v is number => v !== null)
  if (!present.length) return ''
  const low = Math.min(...present)
  const high = Math.max(...present)
  return values
    .map((v) => {
      if (v === null) return ' '
      if (high === low) return BARS[3]!
      return BARS[Math.round(((v - low) / (high - low)) * (BARS.length - 1))]!
    })
    .join('')
}

export function formatFigure(unit: Series['unit'], value: number | null): string {
  if (value === null) return '—'
  if (unit === 'rate') return formatPercent(value)
  if (unit === 'score') return formatScore(value)
  if (unit === 'usd') return formatUsd(value)
  return formatDuration(value)
}

function change(unit: Series['unit'], first: number | null, last: number | null): string {
  if (first === null || last === null) return '—'
  if (unit === 'rate') return signedPoints(last - first)
  if (unit === 'score') return signed(last - first, 3)
  if (first === 0) return last === 0 ? '0' : 'from zero'
  return `${signed(((last - first) / first) * 100, 1)}%`
}

export function renderTrendMarkdown(rows: readonly TrendRow[]): string {
  const series = trendSeries(rows)
  const first = (s: Series) => s.values.find((v) => v !== null) ?? null
  const last = (s: Series) => [...s.values].reverse().find((v) => v !== null) ?? null
  const lines = [
    `## evalgate trend · ${escapeInline(rows[0]?.name ?? 'runs', 80)} (${plural(rows.length, 'run')})`,
    '',
    `From ${escapeInline(rows[0]!.label, 40)} (${rows[0]!.createdAt.slice(0, 10)}) to ${escapeInline(rows[rows.length - 1]!.label, 40)} (${rows[rows.length - 1]!.createdAt.slice(0, 10)}), in the order given.`,
    '',
    '| figure | first | last | change | lowest | highest | trend |',
    '|---|--:|--:|--:|--:|--:|---|',
    ...series.map((s) => {
      const present = s.values.filter((v): v is number => v !== null)
      const cells = [
        s.label,
        formatFigure(s.unit, first(s)),
        formatFigure(s.unit, last(s)),
        change(s.unit, first(s), last(s)),
        formatFigure(s.unit, Math.min(...present)),
        formatFigure(s.unit, Math.max(...present)),
        `\`${sparkline(s.values)}\``
      ]
      return `| ${cells.join(' | ')} |`
    })
  ]
  const mixed = mixedNames(rows)
  if (mixed.length)
    lines.push(
      '',
      `> [!WARNING]\n> These records are runs of different configs (${mixed.map((n) => escapeInline(n, 60)).join(', ')}): their figures are of different datasets.`
    )
  const incomplete = rows.filter((r) => !r.complete).length
  if (incomplete)
    lines.push(
      '',
      `_${plural(incomplete, 'run')} of these ${incomplete === 1 ? 'was' : 'were'} cut short: ${incomplete === 1 ? 'its' : 'their'} figures are of the cases that finished._`
    )
  lines.push(
    '',
    '<details><summary>Every run</summary>',
    '',
    '| # | run | date | cases | pass rate | mean score | cost | p95 latency |',
    '|--:|---|---|--:|--:|--:|--:|--:|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${escapeInline(r.label, 40)}${r.complete ? '' : ' (cut short)'} | ${escapeInline(formatTime(r.createdAt), 30)} | ${formatCount(r.total)} | ${formatFigure('rate', r.passRate)} | ${formatFigure('score', r.meanScore)} | ${formatFigure('usd', r.cost)} | ${formatFigure('ms', r.latencyP95)} |`
    ),
    '',
    '</details>',
    ''
  )
  return lines.join('\n')
}
