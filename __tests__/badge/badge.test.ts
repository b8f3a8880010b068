import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { badgeFor, badgeSvg, bandColor, DEFAULT_BANDS, formatBadgeRate, shieldsEndpoint } from '../../src/badge/index.js'
import { configSchema } from '../../src/config/schema.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'

/** A run of `total` cases of which `passed` passed. */
function run(passed: number, total: number, overrides: Parameters<typeof makeRun>[1] = {}) {
  return makeRun(
    Array.from({ length: total }, (_, i) => makeCase(`c${i}`, i < passed)),
    overrides
  )
}

describe('formatBadgeRate', () => {
  it.each([
    [37, 40, '92.5%'],
    [3, 3, '100%'],
    [2, 3, '66.6%'],
    [0, 3, '0%'],
    [9999, 10000, '99.9%'],
    [1999, 2000, '99.9%'],
    [29, 100, '29%'],
    [57, 100, '57%']
  ])('%d of %d → %s (rounded down: a failing case never reads 100%%)', (passed, total, text) => {
    expect(formatBadgeRate(passed, total)).toBe(text)
  })
})

describe('bandColor with the default bands', () => {
  it.each([
    [1, 'brightgreen'],
    [0.95, 'brightgreen'],
    [0.949, 'green'],
    [0.9, 'green'],
    [0.85, 'yellowgreen'],
    [0.7, 'yellow'],
    [0.5, 'orange'],
    [0.49, 'red'],
    [0, 'red'],
    [Number.NaN, 'lightgrey']
  ])('%d → %s', (rate, color) => {
    expect(bandColor(rate)).toBe(color)
  })

  it('takes bands in any order, hex with or without "#", and is red below every band', () => {
    const bands = [
      { min: 0.5, color: '#FE7D37' },
      { min: 0.9, color: 'blue' }
    ]
    expect(bandColor(0.95, bands)).toBe('blue')
    expect(bandColor(0.6, bands)).toBe('fe7d37')
    expect(bandColor(0.2, bands)).toBe('red')
  })

  it('defaults are shields.io steps', () => {
    expect(DEFAULT_BANDS.map((b) => b.min)).toEqual([0.95, 0.9, 0.8, 0.7, 0.5, 0])
  })
})

describe('badgeFor', () => {
  it.each([
    { name: 'a full run', record: run(37, 40), label: 'support-bot evals', message: '92.5%', color: 'green' },
    { name: 'an empty run', record: run(0, 0), label: 'support-bot evals', message: 'no cases', color: 'lightgrey' },
    { name: 'a run cut short', record: run(10, 10, { complete: false }), label: 'support-bot evals', message: '100% (incomplete)', color: 'lightgrey' },
    { name: 'a run named "evals"', record: run(1, 2, { name: 'evals' }), label: 'evals', message: '50%', color: 'orange' }
  ])('$name', ({ record, label, message, color }) => {
    expect(badgeFor(record)).toEqual({ label, message, color, style: 'flat' })
  })

  it('takes the label, bands and style of the config', () => {
    const badge = badgeFor(run(8, 10), { label: 'quality', bands: [{ min: 0.75, color: 'blue' }], style: 'for-the-badge' })
    expect(badge).toEqual({ label: 'quality', message: '80%', color: 'blue', style: 'for-the-badge' })
  })
})

describe('badgeSvg', () => {
  it('draws a shields.io badge with the text escaped', async () => {
    const svg = await badgeSvg({ label: 'evals <&> "x"', message: '92.5%', color: 'green', style: 'flat' })
    expect(svg.startsWith('<svg')).toBe(true)
    expect(svg).toContain('92.5%')
    expect(svg).toContain('evals &lt;&amp;&gt; &quot;x&quot;')
    expect(svg).not.toContain('<&>')
    expect(svg.endsWith('</svg>\n')).toBe(true)
  })

  it('paints hex colours and named ones', async () => {
    expect(await badgeSvg({ label: 'a', message: 'b', color: 'abcdef', style: 'flat' })).toContain('#abcdef')
    const named = await badgeSvg({ label: 'a', message: 'b', color: 'brightgreen', style: 'flat' })
    expect(named).toMatch(/fill="#[0-9a-f]{3,6}"/)
  })
})

describe('shieldsEndpoint', () => {
  it('is the endpoint schema, style only when not the default', () => {
    expect(shieldsEndpoint({ label: 'evals', message: '92.5%', color: 'green', style: 'flat' })).toEqual({
      schemaVersion: 1,
      label: 'evals',
      message: '92.5%',
      color: 'green'
    })
    expect(shieldsEndpoint({ label: 'evals', message: '92.5%', color: 'green', style: 'flat-square' }).style).toBe('flat-square')
  })
})

describe('config: badge', () => {
  const base = { target: { module: './a.mjs' }, cases: [] }
  it('accepts named and hex colours', () => {
    const parsed = configSchema.parse({
      ...base,
      badge: {
        label: 'x',
        bands: [
          { min: 0.9, color: '#4c1' },
          { min: 0, color: 'critical' }
        ]
      }
    })
    expect(parsed.badge).toEqual({
      label: 'x',
      bands: [
        { min: 0.9, color: '#4c1' },
        { min: 0, color: 'critical' }
      ],
      style: 'flat'
    })
  })
  it.each([
    { name: 'an unknown colour', badge: { bands: [{ min: 0.9, color: 'not-a-colour' }] }, path: 'bands' },
    { name: 'a band above 1', badge: { bands: [{ min: 1.5, color: 'red' }] }, path: 'bands' },
    { name: 'no bands', badge: { bands: [] }, path: 'bands' },
    { name: 'an unknown key', badge: { colour: 'red' }, path: '' },
    { name: 'an unsupported style', badge: { style: 'social' }, path: 'style' }
  ])('rejects $name', ({ badge, path: where }) => {
    const result = configSchema.safeParse({ ...base, badge })
    expect(result.success).toBe(false)
    expect(result.error!.issues[0]!.path.join('.')).toContain(where)
  })
})

describe('evalgate badge', () => {
  it('writes the SVG and the endpoint JSON and prints the badge', async () => {
    const dir = tempProject({})
    const record = path.join(dir, 'run.json')
    writeFileSync(record, JSON.stringify(run(37, 40)))
    const res = await runCli(['badge', record, '--svg', path.join(dir, 'out/badge.svg'), '--endpoint', path.join(dir, 'out/badge.json')])
    expect(res).toMatchObject({ code: 0, stdout: 'support-bot evals: 92.5% (green)\n' })
    expect(readFileSync(path.join(dir, 'out/badge.svg'), 'utf8')).toContain('92.5%')
    expect(JSON.parse(readFileSync(path.join(dir, 'out/badge.json'), 'utf8'))).toEqual({
      schemaVersion: 1,
      label: 'support-bot evals',
      message: '92.5%',
      color: 'green'
    })
  })

  it("takes the config's badge section", async () => {
    const dir = tempProject({
      'evalgate.yml': 'target: { module: ./a.mjs }\ncases: []\nbadge:\n  label: quality\n  bands: [{ min: 0.9, color: "#123456" }, { min: 0, color: blue }]\n'
    })
    const record = path.join(dir, 'run.json')
    writeFileSync(record, JSON.stringify(run(37, 40)))
    const res = await runCli(['badge', record, '-c', path.join(dir, 'evalgate.yml'), '--endpoint', path.join(dir, 'badge.json')])
    expect(res).toMatchObject({ code: 0, stdout: 'quality: 92.5% (123456)\n' })
  })

  it.each([
    { name: 'no record', args: ['badge'], message: 'badge takes one run record' },
    { name: 'a missing record', args: ['badge', '/nonexistent/run.json'], message: 'no such file' },
    { name: 'an unknown flag', args: ['badge', 'run.json', '--png', 'x'], message: '--png' }
  ])('exits 2 on $name', async ({ args, message }) => {
    const res = await runCli(args)
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(message)
  })
})
