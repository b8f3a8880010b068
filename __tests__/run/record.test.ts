import { describe, expect, it } from '@jest/globals'
import { parseRunRecord } from '../../src/config/record.js'
import { buildRecord, summarize } from '../../src/run/record.js'
import { makeBaseline, makeCase, makeRun } from '../__fixtures__/records.js'

describe('the run record keeps flake history and re-runs', () => {
  const baseline = makeBaseline([makeCase('a', true, { history: 'PF' }), makeCase('b', false)])
  const record = buildRecord({
    name: 'r',
    cases: [makeCase('a', false), makeCase('b', true, { reruns: 4 }), makeCase('c')],
    complete: true,
    durationMs: 5,
    createdAt: '2026-12-01T00:00:00.000Z',
    git: { sha: null, ref: null, runId: null },
    repeat: 1,
    baseline
  })

  it('carries history from the baseline and sums the re-runs', () => {
    expect(record.cases.map((c) => c.history)).toEqual(['PFP', 'F', undefined])
    expect(record.summary.reruns).toBe(4)
  })

  it('reads back what it wrote', () => {
    const back = parseRunRecord(JSON.stringify(record), 'r.json')
    expect(back.cases.map((c) => [c.history, c.reruns])).toEqual([
      ['PFP', undefined],
      ['F', 4],
      [undefined, undefined]
    ])
    expect(back.summary.reruns).toBe(4)
  })

  it('reads records written before these fields existed', () => {
    const old = makeRun([makeCase('a')])
    expect(parseRunRecord(JSON.stringify(old), 'old.json')).toEqual(old)
  })

  it.each([
    { name: 'a history of other letters', edit: { history: 'PXF' }, path: 'cases[0].history' },
    { name: 'negative re-runs', edit: { reruns: -1 }, path: 'cases[0].reruns' }
  ])('refuses $name', ({ edit, path }) => {
    const bad = makeRun([makeCase('a', true, edit)])
    expect(() => parseRunRecord(JSON.stringify(bad), 'bad.json')).toThrow(`bad.json: not a valid run record at ${path}`)
  })

  it('keeps the judge spread in the summary', () => {
    const judge = { calls: 3, reused: 0, errors: 0, tokens: 0, sampled: 3, disagreements: 1 }
    const run = makeRun([makeCase('a')], { summary: summarize([makeCase('a')], 1, judge) })
    expect(parseRunRecord(JSON.stringify(run), 'j.json').summary.judge).toEqual(judge)
  })

  it('leaves summary.reruns out when nothing was re-run', () => {
    expect('reruns' in summarize([makeCase('a')], 1)).toBe(false)
  })
})
