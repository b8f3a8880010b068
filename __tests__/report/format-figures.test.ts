/** The signed figures, money, times and values the comment, the job summary and the HTML report share (compare/format.ts). */
import { describe, expect, it } from '@jest/globals'
import {
  formatDuration,
  formatMetric,
  formatTime,
  formatUsd,
  formatValue,
  MINUS,
  relativeAge,
  signed,
  signedPercent,
  signedPoints
} from '../../src/report/format.js'

describe('signed figures', () => {
  // each figure is formatted inside its test, not while collecting them: Stryker would count it as run by no test
  it.each<[string, () => string, string]>([
    ['signed(0.0234, 3)', () => signed(0.0234, 3), '+0.023'],
    ['signed(-0.0234, 3)', () => signed(-0.0234, 3), `${MINUS}0.023`],
    // zero after rounding carries no sign, whichever side it came from
    ['signed(-0.0004, 3)', () => signed(-0.0004, 3), '0.000'],
    ['signed(0.0004, 3)', () => signed(0.0004, 3), '0.000'],
    ['signed(12.25, 1)', () => signed(12.25, 1), '+12.3'],
    ['signedPercent(0.231)', () => signedPercent(0.231), '+23.1%'],
    ['signedPercent(-0.05)', () => signedPercent(-0.05), `${MINUS}5.0%`],
    ['signedPercent(0.0001)', () => signedPercent(0.0001), '0.0%'],
    ['signedPoints(-0.2)', () => signedPoints(-0.2), `${MINUS}20.0 pts`],
    ['signedPoints(0.02)', () => signedPoints(0.02), '+2.0 pts']
  ])('%s reads %p', (_call, format, expected) => {
    expect(format()).toBe(expected)
  })

  it('writes the minus sign U+2212, never a hyphen', () => {
    expect(MINUS).toBe('\u2212')
    expect(signed(-1, 1)).not.toContain('-')
  })
})

describe('formatUsd', () => {
  it.each([
    [12.5, '$12.50'],
    [1, '$1.00'],
    [0.0058, '$0.0058'],
    [0.0001, '$0.0001'],
    [0, '$0.0000'],
    // below a hundredth of a cent: two significant digits, not "$0.0000"
    [0.000042, '$0.000042'],
    [0.00001, '$0.000010'],
    [0.0000012345, '$0.0000012']
  ])('%p → %p', (usd, text) => {
    expect(formatUsd(usd)).toBe(text)
  })

  it('reads the same through formatMetric', () => {
    expect(formatMetric('cost', 0.000042)).toBe('$0.000042')
    expect(formatMetric('tokens', 1200)).toBe('1,200 tokens')
    expect(formatMetric('latency', 1300)).toBe('1.30 s')
    expect(formatMetric('latency', 999.7)).toBe('1.00 s')
    expect(formatMetric('latency', 0.024)).toBe('0.024 ms')
  })
})

describe('formatTime and formatValue', () => {
  it.each([
    ['2026-05-01T14:03:59.000Z', '2026-05-01 14:03 UTC'],
    ['not a time', 'not a time']
  ])('formatTime(%p) is %p', (iso, text) => {
    expect(formatTime(iso)).toBe(text)
  })

  it.each([
    ['verbatim\ntext', 'verbatim\ntext'],
    [{ a: [1] }, '{\n  "a": [\n    1\n  ]\n}'],
    [undefined, 'undefined']
  ])('formatValue(%p)', (value, text) => {
    expect(formatValue(value)).toBe(text)
  })
})

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [999.4, '999 ms'],
    // rounds to a second: read as one
    [999.6, '1.0 s'],
    // below 10 ms: two significant digits, so that microsecond agents still read as a figure
    [9.5, '10 ms'],
    [9.44, '9.4 ms'],
    [4, '4 ms'],
    [0.41, '0.41 ms'],
    [0.0412, '0.041 ms'],
    [0, '0 ms'],
    // a second up: tenths of seconds
    [1_000, '1.0 s'],
    [12_345, '12.3 s'],
    [59_940, '59.9 s'],
    // a minute up: whole minutes and seconds
    [60_000, '1 min 0 s'],
    [245_000, '4 min 5 s'],
    [3_599_000, '59 min 59 s'],
    // an hour up: hours and minutes
    [3_600_000, '1 h 0 min'],
    [3_725_000, '1 h 2 min'],
    [90_061_000, '25 h 1 min']
  ])('%p ms reads %p', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })
})

describe('relativeAge', () => {
  const current = '2026-11-30T12:00:00.000Z'
  it.each([
    ['2026-11-30T12:00:00.000Z', 'less than a minute older than this run'],
    ['2026-11-30T11:59:00.001Z', 'less than a minute older than this run'],
    ['2026-11-30T11:59:00.000Z', '1 minute older than this run'],
    ['2026-11-30T11:01:00.000Z', '59 minutes older than this run'],
    ['2026-11-30T11:00:00.000Z', '1 hour older than this run'],
    ['2026-11-28T13:00:00.000Z', '47 hours older than this run'],
    ['2026-11-28T12:00:00.000Z', '2 days older than this run'],
    ['2026-11-27T13:00:00.000Z', '2 days older than this run'],
    ['2026-11-30T15:00:00.000Z', '3 hours newer than this run'],
    ['2026-11-30T12:00:30.000Z', 'less than a minute newer than this run']
  ])('a baseline of %p is %p', (baselineCreatedAt, text) => {
    expect(relativeAge(baselineCreatedAt, current)).toBe(text)
  })

  it('is unknown when either timestamp cannot be read', () => {
    expect(relativeAge('yesterday', current)).toBeNull()
    expect(relativeAge(current, 'now')).toBeNull()
  })
})
