/**
 * What a case expects, as the report shows it (the record's `expected`): the
 * seed shorthands' value as written (`expected`, `ideal`), else one line per
 * assertion of the case; with `defaults.assert`, every assertion the case is
 * checked against, the defaults' marked so.
 */
import path from 'node:path'
import type { Assertion } from './case.js'

/** How a threshold reads for the types whose threshold has a unit. */
const THRESHOLD_UNITS: Record<string, (t: unknown) => string> = {
  latency: (t) => `${String(t)} ms`,
  cost: (t) => `$${String(t)}`
}

const OPTIONS = ['threshold', 'flags', 'tolerance', 'relTolerance'] as const

/** "contains: Dublin", "llm-rubric (threshold 0.7): Answers with the city only.", "latency (threshold 500 ms)". */
export function describeAssertion(a: Assertion): string {
  const base = a.type.replace(/^not-/, '')
  const options = OPTIONS.filter((k) => a[k] !== undefined).map((k) =>
    k === 'threshold' && THRESHOLD_UNITS[base] ? `threshold ${THRESHOLD_UNITS[base](a[k])}` : `${k} ${String(a[k])}`
  )
  const value =
    a.file !== undefined ? path.basename(a.file) : typeof a.value === 'string' ? a.value : a.value === undefined ? undefined : JSON.stringify(a.value)
  return `${a.type}${options.length ? ` (${options.join(', ')})` : ''}${value === undefined ? '' : `: ${value}`}`
}

export function expectedText(written: unknown, own: readonly Assertion[], defaults: readonly Assertion[]): unknown {
  if (defaults.length) return [...own.map(describeAssertion), ...defaults.map((a) => `${describeAssertion(a)}  (defaults.assert)`)].join('\n')
  if (written !== undefined) return written
  return own.length ? own.map(describeAssertion).join('\n') : undefined
}
