/**
 * How figures read in gate sentences and reports, so both say "84.0%" the same way.
 */

/** How many case keys a sentence names before "and N more". */
export const KEYS_IN_SENTENCE = 10

/** A count with thousands separators: 60,000. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A rate as a percentage: 0.84 → "84.0%". */
export function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`
}

/** The size of a rate difference in percentage points, unsigned: −0.08 → "8.0". */
export function formatPoints(delta: number): string {
  return (Math.abs(delta) * 100).toFixed(1)
}

/** A judge score (or a difference of scores) unsigned, to three decimals. */
export function formatScore(score: number): string {
  return Math.abs(score).toFixed(3)
}

/** "1 case" / "2 cases". */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : nouns}`
}

/** "a, b and c", "a and b", "a". */
export function formatList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** Case keys for a sentence: the first few, then "and N more". */
export function formatKeys(keys: readonly string[], limit = KEYS_IN_SENTENCE): string {
  const shown = keys.slice(0, limit).join(', ')
  return keys.length > limit ? `${shown} and ${formatCount(keys.length - limit)} more` : shown
}

/** "$0.0042", "$12.50". */
export function formatUsd(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`
}

/** How a metric reads in a sentence: "$0.0058", "12,400 tokens", "1.21 s". */
export function formatMetric(kind: 'cost' | 'tokens' | 'latency', value: number): string {
  if (kind === 'cost') return formatUsd(value)
  if (kind === 'tokens') return plural(Math.round(value), 'token')
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`
}
