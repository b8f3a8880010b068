/**
 * A regressed traced case shows its error spans beside both runs' tool calls
 * (SPEC §12); the agent named the spans, so they are escaped like its output.
 */
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import { errorSpansText } from '../../src/report/trace.js'
import { makeBaseline, makeCase, makeGate, makeRun } from '../__fixtures__/records.js'
import { markdownOf } from '../__fixtures__/report.js'

const TRACE = 'c'.repeat(32)

describe('error spans', () => {
  it('none without a trace, or without error spans', () => {
    expect(errorSpansText(makeCase('a'))).toBeNull()
    expect(errorSpansText(makeCase('a', false, { trace: { traceId: TRACE, spans: 4, errorCount: 0 } }))).toBeNull()
  })

  it('names the first five, escaped, and counts the rest', () => {
    const errorSpans = [
      { name: 'execute_tool refund', message: 'refund service @octocat <b>down</b>' },
      ...Array.from({ length: 6 }, (_, i) => ({ name: `db ${i}` }))
    ]
    const text = errorSpansText(makeCase('a', false, { trace: { traceId: TRACE, spans: 12, errorCount: 9, errorSpans } }))!
    expect(text.split('\n')).toEqual([
      `**Error spans** (9 in trace \`${TRACE}\`)`,
      '',
      expect.stringMatching(/^- `execute_tool refund`: refund service .*octocat .*down/),
      '- `db 0`',
      '- `db 1`',
      '- `db 2`',
      '- `db 3`',
      '- and 4 more (the run record has the trace id)'
    ])
    expect(text).not.toContain('@octocat')
    expect(text).not.toContain('<b>')
  })

  it('are in a regressed case’s details, after its tool calls', () => {
    const calls = [{ name: 'lookup_order', args: { order_id: 'A18' } }]
    const baseline = makeBaseline([makeCase('refund', true, { toolCalls: calls, trace: { traceId: 'd'.repeat(32), spans: 5, errorCount: 0 } })])
    const current = makeRun([
      makeCase('refund', false, {
        toolCalls: [...calls, { name: 'delete_order', args: {} }],
        trace: { traceId: TRACE, spans: 6, errorCount: 1, errorSpans: [{ name: 'execute_tool delete_order', message: 'forbidden' }] }
      })
    ])
    const comparison = compareRuns(baseline, current, makeGate())
    const md = markdownOf({ comparison, baseline, current, gate: makeGate() })
    expect(comparison.regressed).toEqual(['refund'])
    const details = md.slice(md.indexOf('<details><summary><code>refund</code>'))
    expect(details.indexOf('**Tool calls** (first difference at step 2)')).toBeGreaterThan(0)
    expect(details.indexOf(`**Error spans** (1 in trace \`${TRACE}\`)`)).toBeGreaterThan(details.indexOf('**Tool calls**'))
    expect(details).toContain('- `execute_tool delete_order`: forbidden')
  })
})
