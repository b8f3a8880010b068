import { describe, expect, it } from '@jest/globals'
import { formatCount, formatKeys, formatList, formatMetric, formatPercent, formatPoints, formatScore, formatUsd, plural } from '../../src/report/format.js'

describe('number formatting', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [60000, '60,000'],
    [1234567, '1,234,567'],
    [1000000000, '1,000,000,000']
  ])('formatCount(%p) is %p', (n, text) => {
    expect(formatCount(n)).toBe(text)
  })

  // each figure is formatted inside its test, not while collecting them: Stryker would count it as run by no test
  it.each<[string, () => string, string]>([
    ['formatPercent(0.84)', () => formatPercent(0.84), '84.0%'],
    ['formatPercent(1)', () => formatPercent(1), '100.0%'],
    ['formatPoints(-0.08)', () => formatPoints(-0.08), '8.0'],
    ['formatPoints(0.125)', () => formatPoints(0.125), '12.5'],
    ['formatScore(-0.1234)', () => formatScore(-0.1234), '0.123'],
    ["plural(1, 'case')", () => plural(1, 'case'), '1 case'],
    ["plural(0, 'case')", () => plural(0, 'case'), '0 cases'],
    ["plural(1234, 'case')", () => plural(1234, 'case'), '1,234 cases'],
    ["plural(2, 'entry', 'entries')", () => plural(2, 'entry', 'entries'), '2 entries']
  ])('%s reads %p', (_call, format, expected) => {
    expect(format()).toBe(expected)
  })
})

describe('formatList', () => {
  it.each([
    [[], ''],
    [['a'], 'a'],
    [['a', 'b'], 'a and b'],
    [['a', 'b', 'c'], 'a, b and c'],
    [['a', 'b', 'c', 'd'], 'a, b, c and d']
  ])('%p reads %p', (items, text) => {
    expect(formatList(items)).toBe(text)
  })
})

describe('formatKeys', () => {
  const keys = Array.from({ length: 1013 }, (_, i) => `k${i}`)
  it.each([
    [keys.slice(0, 3), 10, 'k0, k1, k2'],
    [keys.slice(0, 10), 10, keys.slice(0, 10).join(', ')],
    [keys.slice(0, 11), 10, `${keys.slice(0, 10).join(', ')} and 1 more`],
    [keys, 2, 'k0, k1 and 1,011 more']
  ])('%#', (list, limit, text) => {
    expect(formatKeys(list, limit)).toBe(text)
  })

  it('counts the rest from `total` when the keys are only the first of them', () => {
    expect(formatKeys(keys.slice(0, 10), 3, 12)).toBe('k0, k1, k2 and 9 more')
    expect(formatKeys(keys.slice(0, 3), 3, 3)).toBe('k0, k1, k2')
  })
})

describe('formatUsd and formatMetric', () => {
  it.each<[string, () => string, string]>([
    ['formatUsd(0.0042)', () => formatUsd(0.0042), '$0.0042'],
    // four decimals below a dollar, two from a dollar up
    ['formatUsd(0.99994)', () => formatUsd(0.99994), '$0.9999'],
    ['formatUsd(1)', () => formatUsd(1), '$1.00'],
    ['formatUsd(12.5)', () => formatUsd(12.5), '$12.50'],
    ["formatMetric('cost', 0.0058)", () => formatMetric('cost', 0.0058), '$0.0058'],
    ["formatMetric('tokens', 12400.4)", () => formatMetric('tokens', 12400.4), '12,400 tokens'],
    ["formatMetric('tokens', 1)", () => formatMetric('tokens', 1), '1 token'],
    // milliseconds below a second, seconds from a second up
    ["formatMetric('latency', 999.4)", () => formatMetric('latency', 999.4), '999 ms'],
    ["formatMetric('latency', 1000)", () => formatMetric('latency', 1000), '1.00 s'],
    ["formatMetric('latency', 1210)", () => formatMetric('latency', 1210), '1.21 s']
  ])('%s reads %p', (_call, format, expected) => {
    expect(format()).toBe(expected)
  })
})
