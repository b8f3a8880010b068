import { describe, expect, it } from '@jest/globals'
import { badgeColor, badgeMessage, badgeSvg } from '../../src/github/badge.js'

describe('badgeMessage', () => {
  it.each([
    [0.925, 40, '92.5%'],
    [1, 3, '100%'],
    [0.6667, 3, '66.7%'],
    [0, 3, '0%'],
    [0.99949, 10, '99.9%'],
    [0, 0, 'n/a']
  ])('%d of %d cases → %s', (rate, total, message) => {
    expect(badgeMessage(rate, total)).toBe(message)
  })
})

describe('badgeColor', () => {
  it.each([
    [1, 'brightgreen'],
    [0.95, 'brightgreen'],
    [0.949, 'green'],
    [0.9, 'green'],
    [0.85, 'yellowgreen'],
    [0.7, 'yellow'],
    [0.5, 'orange'],
    [0.49, 'red'],
    [0, 'red']
  ])('%d → %s', (rate, color) => {
    expect(badgeColor(rate, 10)).toBe(color)
  })

  it('is grey when nothing ran', () => {
    expect(badgeColor(0, 0)).toBe('lightgrey')
  })
})

describe('badgeSvg', () => {
  it('is an SVG with the text escaped', () => {
    const svg = badgeSvg('evals <&>', '92.5%', 'green')
    expect(svg.startsWith('<svg')).toBe(true)
    expect(svg).toContain('evals &#60;&#38;&#62;: 92.5%')
    expect(svg).toContain('#97ca00')
    expect(svg).not.toContain('<&>')
  })
})
