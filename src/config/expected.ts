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

/** what a reader needs beside the value: trajectory-match's `mode`, `args` and `argsByTool` change what it accepts as much as the value */
const OPTIONS = ['mode', 'args', 'argsByTool', 'threshold', 'flags', 'tolerance', 'relTolerance'] as const

/** "contains: Dublin", "llm-rubric (threshold 0.7): Answers with the city only.", "latency (threshold 500 ms)". */
export function describeAssertion(a: Assertion): string {
  // a loop, not filter and map: it runs for every assertion of every case as the dataset loads
  let options = ''
  for (const k of OPTIONS) {
    if (a[k] === undefined) continue
    const unit = k === 'threshold' ? THRESHOLD_UNITS[a.type.startsWith('not-') ? a.type.slice(4) : a.type] : undefined
    options += `${options === '' ? '' : ', '}${unit ? `threshold ${unit(a[k])}` : `${k} ${typeof a[k] === 'object' ? JSON.stringify(a[k]) : String(a[k])}`}`
  }
  const value =
    a.file !== undefined ? path.basename(a.file) : typeof a.value === 'string' ? a.value : a.value === undefined ? undefined : JSON.stringify(a.value)
  return `${a.type}${options === '' ? '' : ` (${options})`}${value === undefined ? '' : `: ${value}`}`
}

export function expectedText(written: unknown, own: readonly Assertion[], defaults: readonly Assertion[]): unknown {
  if (defaults.length) return [...own.map(describeAssertion), ...defaults.map((a) => `${describeAssertion(a)}  (defaults.assert)`)].join('\n')
  if (written !== undefined) return written
  return own.length ? own.map(describeAssertion).join('\n') : undefined
}
