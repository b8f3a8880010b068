/**
 * A traced case's error spans, for the regressed case's details:
 * the agent named them, so they are escaped like any output.
 */
import type { CaseResult } from '../types.js'
import { escapeInline, inlineCode } from './escape.js'

/** Error spans named in a case's details; the record has every one the trial kept. */
const SPANS_SHOWN = 5

/** "**Error spans** (2 in trace `…`)" and a line per span; null for a case without a trace or without error spans. */
export function errorSpansText(c: CaseResult): string | null {
  const trace = c.trace
  if (!trace || trace.errorCount === 0) return null
  const listed = (trace.errorSpans ?? []).slice(0, SPANS_SHOWN)
  const lines = listed.map((s) => `- ${inlineCode(s.name, 120)}${s.message === undefined ? '' : `: ${escapeInline(s.message, 200)}`}`)
  const more = trace.errorCount - listed.length
  if (more > 0) lines.push(`- and ${more} more (the run record has the trace id)`)
  return [`**Error spans** (${trace.errorCount} in trace ${inlineCode(trace.traceId)})`, '', ...lines].join('\n')
}
