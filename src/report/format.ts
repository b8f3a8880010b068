/**
 * How figures read in gate sentences and reports — the comment, the job
 * summary and the HTML report — so all say "84.0%", "+2.0 pts", "1.2 s" and
 * "$0.0042" the same way. The one place numbers, lists and durations become text.
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

/** The minus sign (U+2212) of signed figures: a hyphen reads as a dash in tables. */
export const MINUS = '\u2212'

/** A signed figure to `digits` decimals with a true minus sign; zero (after rounding) carries no sign. */
export function signed(value: number, digits: number): string {
  const text = Math.abs(value).toFixed(digits)
  if (Number(text) === 0) return text
  return `${value < 0 ? MINUS : '+'}${text}`
}

/** A difference of rates in signed percentage points: 0.02 → "+2.0 pts". */
export function signedPoints(delta: number): string {
  return `${signed(delta * 100, 1)} pts`
}

/** A relative change as a signed percentage: 0.231 → "+23.1%", −0.05 → "−5.0%". */
export function signedPercent(x: number): string {
  return `${signed(x * 100, 1)}%`
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

/** Case keys for a sentence: the first few, then "and N more"; `total` when `keys` are only the first of them. */
export function formatKeys(keys: readonly string[], limit = KEYS_IN_SENTENCE, total = keys.length): string {
  const shown = keys.slice(0, limit).join(', ')
  return total > limit ? `${shown} and ${formatCount(total - limit)} more` : shown
}

/** "$12.50", "$0.0042"; below a hundredth of a cent, two significant digits ("$0.000042"), never "$0.0000". */
export function formatUsd(usd: number): string {
  if (usd >= 1) return `$${usd.toFixed(2)}`
  if (usd >= 0.0001 || usd <= 0) return `$${usd.toFixed(4)}`
  return `$${usd.toFixed(Math.min(12, 1 - Math.floor(Math.log10(usd))))}`
}

/** How a metric reads in a sentence: "$0.0058", "12,400 tokens", "1.21 s". */
export function formatMetric(kind: 'cost' | 'tokens' | 'latency', value: number): string {
  if (kind === 'cost') return formatUsd(value)
  if (kind === 'tokens') return plural(Math.round(value), 'token')
  return Math.round(value) >= 1000 ? `${(value / 1000).toFixed(2)} s` : formatMs(value)
}

/**
 * Milliseconds below a second: whole from 10 ms up ("850 ms"), two significant
 * digits below ("4.1 ms", "0.041 ms"): an in-process agent answers in
 * microseconds, and "0 ms → 0 ms, −41%" would say nothing.
 */
function formatMs(ms: number): string {
  return `${ms >= 9.5 ? Math.round(ms) : Number(ms.toPrecision(2))} ms`
}

/** "850 ms", "4.1 ms", "12.3 s", "4 min 5 s", "1 h 2 min". */
export function formatDuration(ms: number): string {
  if (Math.round(ms) < 1_000) return formatMs(ms)
  const seconds = ms / 1_000
  if (seconds < 60) return `${seconds.toFixed(1)} s`
  const whole = Math.round(seconds)
  const h = Math.floor(whole / 3_600)
  const m = Math.floor((whole % 3_600) / 60)
  const s = whole % 60
  return h ? `${h} h ${m} min` : `${m} min ${s} s`
}

/** How much older the baseline is than the current run, from the records alone (no clock). */
export function relativeAge(baselineCreatedAt: string, currentCreatedAt: string): string | null {
  const ms = Date.parse(currentCreatedAt) - Date.parse(baselineCreatedAt)
  if (!Number.isFinite(ms)) return null
  const span = formatSpan(Math.abs(ms))
  return ms >= 0 ? `${span} older than this run` : `${span} newer than this run`
}

function formatSpan(ms: number): string {
  const minutes = Math.floor(ms / 60_000)
  if (minutes < 1) return 'less than a minute'
  if (minutes < 60) return plural(minutes, 'minute')
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return plural(hours, 'hour')
  return plural(Math.floor(hours / 24), 'day')
}

/** A record's timestamp as "2026-05-01 14:03 UTC"; anything unparsable as it is. */
export function formatTime(iso: string): string {
  const t = Date.parse(iso)
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` : iso
}

/** A case's input or expectation as text: strings verbatim, anything else as indented JSON. */
export function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value))
}
