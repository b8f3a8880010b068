/**
 * How a cost, tokens or latency failure names the cases behind it: the few
 * largest rises with their amounts, how many rose in all — and in the comment,
 * a bullet that reads on its own (no "1 case above and …").
 */
import { describe, expect, it } from '@jest/globals'
import { failureSentence, markdownOf, sentences } from '../__fixtures__/report.js'
import { compareRuns } from '../../src/compare/index.js'
import type { CaseResult } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRun } from '../__fixtures__/records.js'

const agentCase = (id: string, costUsd: number, totalTokens: number, latencyMs: number, passed = true): CaseResult =>
  makeCase(id, passed, { usage: { totalTokens, costUsd }, latencyMs })

/** Baseline cases at 0.001 USD, 100 tokens, 100 ms; each current case rises by its factor. */
function runs(factors: number[], failing: string[] = []) {
  const baseline = makeBaseline(factors.map((_, i) => agentCase(`c${i}`, 0.001, 100, 100)))
  const current = makeRun(factors.map((f, i) => agentCase(`c${i}`, 0.001 * f, Math.round(100 * f), 100 * f, !failing.includes(`c${i}`))))
  return { baseline, current }
}

const gate = makeGate({ maxCostIncrease: 0.1, maxTokensIncrease: 0.1, maxLatencyIncrease: 0.1 })

describe('the largest rises in a metric sentence', () => {
  it.each([
    { name: 'one case rose', factors: [1, 3, 1], tail: '; largest rise: c1 (+$0.0020)', keys: ['c1'] },
    { name: 'two rose, the larger first', factors: [1.5, 1, 2], tail: '; largest rises: c2 (+$0.0010) and c0 (+$0.0005)', keys: ['c2', 'c0'] },
    {
      name: 'three rose: all named, no count',
      factors: [2, 1.5, 3],
      tail: '; largest rises: c2 (+$0.0020), c0 (+$0.0010) and c1 (+$0.0005)',
      keys: ['c2', 'c0', 'c1']
    },
    {
      name: 'more rose: three named, then how many in all',
      factors: [1.2, 1.4, 1.6, 1.8, 2, 1],
      tail: '; largest rises: c4 (+$0.0010), c3 (+$0.0008) and c2 (+$0.0006), of 5 cases that rose',
      keys: ['c4', 'c3', 'c2']
    }
  ])('$name', ({ factors, tail, keys }) => {
    const { baseline, current } = runs(factors)
    const cost = compareRuns(baseline, current, gate).gate.checks.find((k) => k.check === 'maxCostIncrease')!
    expect(failureSentence(cost).endsWith(tail)).toBe(true)
    expect(failureSentence(cost)).not.toContain(tail + ',')
    // the failure's cases are those its sentence names
    expect(cost.keys).toEqual(keys)
  })

  it('says each rise in the unit of its metric', () => {
    const { baseline, current } = runs([1, 2, 1.5])
    const checks = compareRuns(baseline, current, gate).gate.checks
    expect(failureSentence(checks.find((k) => k.check === 'maxTokensIncrease')!)).toMatch(/; largest rises: c1 \(\+100 tokens\) and c2 \(\+50 tokens\)$/)
    expect(failureSentence(checks.find((k) => k.check === 'maxLatencyIncrease')!)).toMatch(/; largest rises: c1 \(\+100 ms\) and c2 \(\+50 ms\)$/)
  })

  it('shows a rise under a hundredth of a cent in two significant digits, never as +$0.0000', () => {
    const baseline = makeBaseline([agentCase('a', 0.00001, 1, 1)])
    const current = makeRun([agentCase('a', 0.000052, 1, 1)])
    const c = compareRuns(baseline, current, makeGate({ maxCostIncrease: 0.1 }))
    expect(sentences(c.gate)[0]).toBe(
      'total cost rose 420.0% on the 1 case compared, $0.000010 → $0.000052 (limit: maxCostIncrease 10.0%); largest rise: a (+$0.000042)'
    )
  })

  it('names them under useConfidenceBound too', () => {
    const { baseline, current } = runs([3, 3, 3, 3, 3, 3])
    const c = compareRuns(baseline, current, makeGate({ maxCostIncrease: 0.5, useConfidenceBound: true }))
    expect(sentences(c.gate)[0]).toMatch(
      /^total cost rose by at least .*applied to that bound\); largest rises: c0 \(\+\$0\.0020\), c1 \(\+\$0\.0020\) and c2 \(\+\$0\.0020\), of 6 cases that rose$/
    )
  })
})

describe('in the comment', () => {
  it('each metric bullet reads on its own, even when a bullet above named the same cases', () => {
    const { baseline, current } = runs([1.2, 3, 1.4, 1.6, 1.1], ['c1', 'c3'])
    const comparison = compareRuns(baseline, current, gate)
    const bullets = markdownOf({ comparison, baseline, current })
      .split('\n')
      .filter((l) => l.startsWith('> - '))
    expect(bullets[0]).toBe('> - 2 cases regressed (limit: maxRegressions 0): c1, c3')
    expect(bullets.slice(1).map((b) => b.replace(/^.*; /, ''))).toEqual([
      'largest rises: c1 (+\\$0.0020), c3 (+\\$0.0006) and c2 (+\\$0.0004), of 5 cases that rose',
      'largest rises: c1 (+200 tokens), c3 (+60 tokens) and c2 (+40 tokens), of 5 cases that rose',
      'largest rises: c1 (+200 ms), c3 (+60 ms) and c2 (+40 ms), of 5 cases that rose'
    ])
    expect(bullets.join('\n')).not.toMatch(/above/)
  })
})

describe('the rises kept in --json metrics', () => {
  it('keeps the ten largest, ties in case order, and counts every case that rose', () => {
    // 25 cases: c0…c23 rise, c0 by 1× its base … then a tie of four at the top; c24 falls
    const factors = [...Array.from({ length: 24 }, (_, i) => 1 + (i % 12) / 10), 0.5]
    factors[3] = 3
    factors[7] = 3
    factors[20] = 3
    factors[21] = 3
    const { baseline, current } = runs(factors)
    const cost = compareRuns(baseline, current, gate).metrics!.cost!
    // by hand: rises are factor − 1 (× $0.001); c0 and c12 have factor 1, so they did not rise
    const rising = factors.map((f, i) => ({ id: `c${i}`, by: f - 1 })).filter((r) => r.by > 1e-12)
    expect(cost.rises).toBe(rising.length)
    expect(cost.rises).toBe(22)
    expect(cost.rose).toEqual(['c3', 'c7', 'c20', 'c21', 'c11', 'c23', 'c10', 'c22', 'c9', 'c8'])
    expect(cost.roseBy).toHaveLength(10)
    expect(cost.roseBy[0]).toBeCloseTo(0.002, 12)
    expect(cost.roseBy[9]).toBeCloseTo(0.0008, 12)
    // the sentence still counts them all
    const check = compareRuns(baseline, current, gate).gate.checks.find((k) => k.check === 'maxCostIncrease')!
    expect(failureSentence(check)).toMatch(/, of 22 cases that rose$/)
  })
})
