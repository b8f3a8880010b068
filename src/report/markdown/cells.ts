/** The comment's small pieces: tables, cells and case labels its sections share. */
import type { RunFigures } from '../../compare/types.js'
import type { CaseResult } from '../../types.js'
import { escapeInline, inlineCode } from '../escape.js'
import { formatCount, formatPercent, formatScore, signed } from '../format.js'

/** Each record's cases by key, made once: several sections look cases up, and at 100,000 cases making a map per section was most of the report's time. */
const keyed = new WeakMap<readonly CaseResult[], Map<string, CaseResult>>()

export function byKey(cases: readonly CaseResult[]): Map<string, CaseResult> {
  let map = keyed.get(cases)
  if (!map) {
    map = new Map()
    for (const c of cases) map.set(c.id, c)
    keyed.set(cases, map)
  }
  return map
}

export function caseLabel(key: string, c: CaseResult | undefined): string {
  return c && c.name !== key ? `${inlineCode(key)} ${escapeInline(c.name, 200)}` : inlineCode(key)
}

export function trialsText(c: CaseResult): string {
  if (!c.trials || c.trials.length < 2) return ''
  const reruns = c.reruns ? `, ${formatCount(c.reruns)} of them re-runs` : ''
  return `, ${c.trials.filter((t) => t.passed).length} of ${c.trials.length} trials${reruns}`
}

export function rateCell(f: RunFigures): string {
  return `${formatPercent(f.passRate)} (${formatCount(f.passed)}/${formatCount(f.total)})`
}

/** A markdown table of escaped cells: the first column left-aligned, the others right-aligned (figures) or left (text). */
export function table(header: string[], rows: string[][], align: 'right' | 'left' = 'right'): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  const alignment = `|:--|${(align === 'right' ? '--:|' : ':--|').repeat(header.length - 1)}`
  return [line(header), alignment, ...rows.map(line)].join('\n')
}

export function percentOrDash(rate: number | null): string {
  return rate === null ? '—' : formatPercent(rate)
}

export function scoreOrDash(score: number | null): string {
  return score === null ? '—' : formatScore(score)
}

export function signedScore(delta: number | null): string {
  return delta === null ? '—' : signed(delta, 3)
}

export function confidenceText(ci: [number, number] | null): string {
  return ci ? ` (95% CI ${signed(ci[0] * 100, 1)} to ${signed(ci[1] * 100, 1)})` : ''
}

export function scoreConfidenceText(ci: [number, number] | null): string {
  return ci ? ` (95% CI ${signed(ci[0], 3)} to ${signed(ci[1], 3)})` : ''
}

/** "`a`, `b`, `c` and 7 more": the first `limit` ids as code spans. */
export function idList(keys: readonly string[], limit: number): string {
  const shown = keys
    .slice(0, limit)
    .map((k) => inlineCode(k))
    .join(', ')
  return keys.length > limit ? `${shown} and ${formatCount(keys.length - limit)} more` : shown
}
