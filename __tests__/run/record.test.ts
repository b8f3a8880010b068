import { describe, expect, it } from '@jest/globals'
import { parseRunRecord } from '../../src/config/record.js'
import { budgetSummary, buildRecord, summarize } from '../../src/run/record.js'
import { makeBaseline, makeCase, makeRun } from '../__fixtures__/records.js'

describe('the run record keeps flake history and re-runs', () => {
  const baseline = makeBaseline([makeCase('a', true, { history: 'PF' }), makeCase('b', false)])
  const record = buildRecord({
    name: 'r',
    dataset: { fingerprint: 'd', cases: 3 },
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
    const { fingerprintVersion: _current, ...old } = makeRun([makeCase('a')])
    // without the field, its fingerprints are of version 1
    expect(parseRunRecord(JSON.stringify(old), 'old.json')).toEqual({ ...old, fingerprintVersion: 1 })
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

describe('reading a record a piece at a time', () => {
  const record = makeRun(Array.from({ length: 300 }, (_, i) => makeCase(`case-${i}`, i % 4 !== 0, { output: `ünïcödé ✓ ${'x'.repeat(i * 13)}` })))
  const text = JSON.stringify(record, null, 2)

  it('gives the same record from text and from UTF-8 bytes decoded in pieces, whatever falls on a piece boundary', () => {
    expect(parseRunRecord(text, 'r.json')).toEqual(parseRunRecord(JSON.stringify(record), 'r.json'))
    expect(parseRunRecord(Buffer.from(text), 'r.json')).toEqual(parseRunRecord(text, 'r.json'))
    // a record past the 1 MiB decoding piece, with multi-byte characters on both sides of the boundary
    const big = makeRun(Array.from({ length: 3 }, (_, i) => makeCase(`big-${i}`, true, { output: '€'.repeat(200_000 + i) })))
    expect(parseRunRecord(Buffer.from(JSON.stringify(big)), 'big.json')).toEqual(big)
  })

  it('refuses bytes that are not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from(text.slice(0, 500)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(500))])
    expect(() => parseRunRecord(bytes, 'bad.json')).toThrow('bad.json: not a run record: not valid UTF-8 text')
  })

  it('names the case of a cut-short record, and the schema version before any bad case', () => {
    expect(() => parseRunRecord(text.slice(0, text.length / 2), 'cut.json')).toThrow(
      /cut\.json: not a run record: not valid JSON \(at cases\[\d+\]: the "cases" list is not closed/
    )
    const foreign = JSON.stringify({ ...record, schemaVersion: 2, cases: [{ id: 1 }] })
    expect(() => parseRunRecord(foreign, 'new.json')).toThrow('new.json: has schemaVersion 2; this evalgate reads run records of schemaVersion 1 only')
    const badCase = JSON.stringify({ ...record, cases: [...record.cases.slice(0, 2), { ...record.cases[2], passed: 'yes' }] })
    expect(() => parseRunRecord(badCase, 'case.json')).toThrow('case.json: not a valid run record at cases[2].passed')
  })
})

describe('budgetSummary: what a budget spent, and what it could not count', () => {
  const priced = (id: string) => makeCase(id, true, { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 0.002 } })
  it.each([
    {
      name: 'every trial priced, judge priced',
      cases: [priced('a'), priced('b')],
      judge: { tokens: 40, costUsd: 0.001 },
      expected: { maxCostUsd: 1, spentUsd: 0.005 }
    },
    {
      name: 'a trial without usage and one with tokens but no cost (a model missing from pricing)',
      cases: [priced('a'), makeCase('b'), makeCase('c', true, { usage: { inputTokens: 10, outputTokens: 5 } })],
      judge: undefined,
      expected: { maxCostUsd: 1, spentUsd: 0.002, uncountedTrials: 2 }
    },
    {
      name: 'a failed trial has no reply to report in: not counted as uncounted',
      cases: [makeCase('a', false, { output: null, error: 'timed out' })],
      judge: undefined,
      expected: { maxCostUsd: 1, spentUsd: 0 }
    },
    {
      name: 'judge tokens without a price',
      cases: [priced('a')],
      judge: { tokens: 120 },
      expected: { maxCostUsd: 1, spentUsd: 0.002, uncountedJudgeTokens: 120 }
    },
    {
      name: 'each trial of a repeated case',
      cases: [makeCase('a', true, { trials: [priced('a'), makeCase('a'), makeCase('a')] as never })],
      judge: { tokens: 0 },
      expected: { maxCostUsd: 1, spentUsd: 0.002, uncountedTrials: 2 }
    }
  ])('$name', ({ cases, judge, expected }) => {
    const spent = cases.flatMap((c) => c.trials ?? [c]).reduce((n, t) => n + (t.usage?.costUsd ?? 0), 0)
    const summary = budgetSummary(1, cases, spent, judge)
    expect({ ...summary, spentUsd: Math.round(summary.spentUsd * 1e9) / 1e9 }).toEqual(expected)
  })
})
