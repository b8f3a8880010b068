/** The agent rows of the figures table and the trajectory diff of a regressed case (report/metrics.ts). */
import { describe, expect, it } from '@jest/globals'
import { firstDifferingStep, metricRows, trajectoryDiff } from '../../src/report/metrics.js'
import { makeCase } from '../__fixtures__/records.js'

const L = { name: 'lookup_order', args: { order_id: 'B7' } }
const R = { name: 'refund', args: { order_id: 'B7', amount: 64 } }
const S = { name: 'search_kb', args: { query: 'returns' } }

describe('metricRows', () => {
  const gated = { maxCostIncrease: 0.1, maxTokensIncrease: 0.1, maxLatencyIncrease: 0.1 }

  it('renders cost, tokens and latency with the change and, when there is one, its interval', () => {
    const rows = metricRows(
      {
        metrics: {
          cost: { baseline: 0.0058, current: 0.0072, change: 0.231, ci: [0.119, 0.348], cases: 10, rose: [], roseBy: [], rises: 0 },
          tokens: { baseline: 7055, current: 8695, change: 0.232, ci: null, cases: 3, rose: [], roseBy: [], rises: 0 },
          latencyP50: { baseline: 560, current: 990, change: 0.768, ci: null, cases: 12, rose: [], roseBy: [], rises: 0 },
          latencyP95: { baseline: 870, current: 1300, change: 0.494, ci: null, cases: 10, rose: [], roseBy: [], rises: 0 }
        }
      },
      gated
    )
    expect(rows).toEqual([
      ['cost (total), 10 cases', '$0.0058', '$0.0072', '+23.1% (95% CI +11.9% to +34.8%)'],
      // too few cases for an interval: the cell says so
      ['tokens (total), 3 cases', '7,055 tokens', '8,695 tokens', '+23.2% (no interval under 5 cases)'],
      // the p50, which no limit holds (maxLatencyIncrease holds the p95): the figure alone
      ['latency p50, 12 cases', '560 ms', '990 ms', '+76.8%'],
      ['latency p95, 10 cases', '870 ms', '1.30 s', '+49.4% (no interval under 20 cases)']
    ])
    expect(metricRows({ metrics: null }, gated)).toEqual([])
  })

  it('shows no interval on a figure no limit gates, and no latency at all: on a deterministic agent it is machine noise', () => {
    const metrics = {
      cost: { baseline: 0.0058, current: 0.0072, change: 0.231, ci: [0.119, 0.348] as [number, number], cases: 10, rose: [], roseBy: [], rises: 0 },
      latencyP95: { baseline: 870, current: 1300, change: 0.494, ci: [0.2, 0.7] as [number, number], cases: 30, rose: [], roseBy: [], rises: 0 }
    }
    expect(metricRows({ metrics }, {})).toEqual([['cost (total), 10 cases', '$0.0058', '$0.0072', '+23.1%']])
    expect(metricRows({ metrics }, { maxLatencyIncrease: 0.5 })).toEqual([
      ['cost (total), 10 cases', '$0.0058', '$0.0072', '+23.1%'],
      ['latency p95, 30 cases', '870 ms', '1.30 s', '+49.4% (95% CI +20.0% to +70.0%)']
    ])
  })

  it('says a figure rose from zero, where no relative change exists, and shows zero to zero as no change', () => {
    const rows = metricRows(
      {
        metrics: {
          cost: { baseline: 0, current: 0.5, change: null, ci: null, cases: 6, rose: ['a'], roseBy: [0.5], rises: 1 },
          tokens: { baseline: 0, current: 0, change: null, ci: null, cases: 6, rose: [], roseBy: [], rises: 0 }
        }
      },
      gated
    )
    expect(rows).toEqual([
      ['cost (total), 6 cases', '$0.0000', '$0.5000', 'rose from zero'],
      ['tokens (total), 6 cases', '0 tokens', '0 tokens', '—']
    ])
  })
})

describe('trajectoryDiff', () => {
  it.each([
    [[L], [S, L, R], 0],
    [[L, R], [L, R], -1],
    [[L], [L, R], 1],
    [[L, { ...R, args: { order_id: 'B7', amount: 1 } }], [L, R], 1]
  ])('the first differing step of %j and %j is %d', (a, b, at) => {
    expect(firstDifferingStep(a, b)).toBe(at)
  })

  it('puts both runs side by side, the first difference marked', () => {
    const text = trajectoryDiff(makeCase('b7', true, { toolCalls: [L] }), makeCase('b7', false, { toolCalls: [S, L, R] }))!
    expect(text.split('\n')).toEqual([
      '**Tool calls** (first difference at step 1)',
      '',
      '| step | baseline | current |',
      '|:--|:--|:--|',
      '| 1 ⬅ first difference | **lookup\\_order {"order\\_id":"B7"}** | **search\\_kb {"query":"returns"}** |',
      '| 2 | — | lookup\\_order {"order\\_id":"B7"} |',
      '| 3 | — | refund {"order\\_id":"B7","amount":64} |'
    ])
    expect(trajectoryDiff(makeCase('x'), makeCase('x'))).toBeNull()
  })

  it('says which run reported no tool calls at all, rather than marking a difference', () => {
    const lost = trajectoryDiff(makeCase('b7', true, { toolCalls: [L] }), makeCase('b7', false))!
    expect(lost.split('\n').slice(0, 5)).toEqual([
      '**Tool calls** (not reported in this run)',
      '',
      '| step | baseline | current |',
      '|:--|:--|:--|',
      '| 1 | lookup\\_order {"order\\_id":"B7"} | — |'
    ])
    expect(trajectoryDiff(makeCase('b7'), makeCase('b7', true, { toolCalls: [L] }))!.split('\n')[0]).toBe('**Tool calls** (not reported in the baseline)')
    // a case new in this run has no baseline side to speak of
    expect(trajectoryDiff(undefined, makeCase('b7', true, { toolCalls: [L] }))!.split('\n')[0]).toBe('**Tool calls** (first difference at step 1)')
  })
})
