import { describe, expect, it } from '@jest/globals'
import { renderTrend, trendOf, type TrendPoint } from '../../src/report/trend.js'

const point = (label: string, passRate: number, meanScore: number | null = null): TrendPoint => ({ label, passRate, meanScore })

describe('renderTrend', () => {
  it('draws the pass rate as bars, oldest first, on an axis from 0: a bar is read by its length', () => {
    expect(renderTrend([point('a1b2c3d', 0.9), point('e4f5a6b', 0.925), point('c7d8e9f', 1)])).toBe(
      [
        '```mermaid',
        'xychart-beta',
        '  title "Last 3 runs: pass rate %"',
        '  x-axis ["a1b2c3d", "e4f5a6b", "c7d8e9f"]',
        '  y-axis "%" 0 --> 100',
        '  bar [90, 92.5, 100]',
        '```'
      ].join('\n')
    )
  })

  it('adds the mean score as a line when every run has one', () => {
    const chart = renderTrend([point('#1', 0.5, 0.61), point('#2', 0.75, 0.7049)])
    expect(chart).toContain('  title "Last 2 runs: pass rate % (bars) and mean score % (line)"')
    expect(chart).toContain('  bar [50, 75]')
    expect(chart).toContain('  line [61, 70.5]')
    expect(chart).toContain('  y-axis "%" 0 --> 100')
  })

  it('leaves the line out when some run has no score (the chart cannot show gaps)', () => {
    expect(renderTrend([point('1', 0.5, 0.6), point('2', 0.5, null)])).not.toContain('line [')
  })

  it.each([
    { name: 'no runs', points: [] },
    { name: 'one run', points: [point('only', 0.9)] },
    { name: 'one valid run', points: [point('a', Number.NaN), point('b', 0.9)] }
  ])('is empty for $name: one run is no trend', ({ points }) => {
    expect(renderTrend(points)).toBe('')
  })

  it('keeps the newest maxPoints runs', () => {
    const points = Array.from({ length: 30 }, (_, i) => point(`r${i}`, i / 30))
    const chart = renderTrend(points, { maxPoints: 5 })
    expect(chart).toContain('x-axis ["r25", "r26", "r27", "r28", "r29"]')
    expect(chart).toContain('Last 5 runs')
  })

  it('clamps rates into 0–100', () => {
    const chart = renderTrend([point('a', -0.2), point('b', 1.5)])
    expect(chart).toContain('bar [0, 100]')
    expect(chart).toContain('y-axis "%" 0 --> 100')
  })

  it('cannot break out of the label quotes or the code fence', () => {
    const chart = renderTrend([point('a"], bar [1]\n```\n@team', 0.5), point('x'.repeat(50), 0.6)], { title: 'evil" ``` title' })
    expect(chart.split('```').length).toBe(3)
    const axis = chart.split('\n').find((l) => l.includes('x-axis'))!
    expect(axis).toBe(`  x-axis ["a bar 1 team", "${'x'.repeat(20)}"]`)
    expect(chart).toContain('  title "evil title"')
  })
})

describe('trendOf', () => {
  it('is the carried trend then the run itself, labelled by short commit or date', () => {
    const points = trendOf({
      trend: [
        { sha: 'abcdef1234', createdAt: '2026-11-01T00:00:00Z', passRate: 0.8, meanScore: null },
        { sha: null, createdAt: '2026-11-02T10:00:00Z', passRate: 0.9, meanScore: 0.5 }
      ],
      git: { sha: '1234567890', ref: null, runId: null },
      createdAt: '2026-11-03T00:00:00Z',
      summary: { passRate: 0.95, meanScore: 0.7 } as never
    })
    expect(points).toEqual([
      { label: 'abcdef1', passRate: 0.8, meanScore: null },
      { label: '2026-11-02', passRate: 0.9, meanScore: 0.5 },
      { label: '1234567', passRate: 0.95, meanScore: 0.7 }
    ])
  })
})
