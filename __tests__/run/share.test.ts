import { describe, expect, it } from '@jest/globals'
import { parseRunRecord } from '../../src/config/record.js'
import { datasetSharer } from '../../src/run/share.js'
import type { EvalCase } from '../../src/types.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'

function evalCase(id: string, overrides: Partial<EvalCase> = {}): EvalCase {
  return {
    id,
    name: id,
    input: { messages: [{ role: 'user', content: `a long prompt for ${id}` }] },
    tags: ['geo'],
    assert: [{ type: 'contains', value: 'x' }],
    expected: 'contains: "x"',
    fingerprint: `fp-${id}`,
    source: { file: 'cases.jsonl', line: 1 },
    index: 0,
    ...overrides
  }
}

describe('datasetSharer', () => {
  const dataset = [evalCase('same'), evalCase('edited', { fingerprint: 'fp-new' }), evalCase('retagged', { tags: ['other'] }), evalCase('added')]
  // a baseline as read from a file: equal values, but copies of their own
  const fromFile = () =>
    JSON.parse(
      JSON.stringify(
        makeRun([
          makeCase('same', true, { input: dataset[0]!.input, tags: ['geo'], expected: 'contains: "x"', source: { file: 'cases.jsonl', line: 1 } }),
          makeCase('edited', true, { input: 'what it asked before' }),
          makeCase('retagged', false, { input: dataset[2]!.input, fingerprint: 'fp-retagged', tags: ['geo'] }),
          makeCase('removed')
        ])
      )
    )

  it('points the baseline case at the dataset case’s values when key and fingerprint match', () => {
    const baseline = fromFile()
    baseline.cases.forEach(datasetSharer(dataset))
    const [same, , retagged] = baseline.cases
    expect(same.input).toBe(dataset[0]!.input)
    expect(same.tags).toBe(dataset[0]!.tags)
    expect(same.source).toBe(dataset[0]!.source)
    expect(same.expected).toBe(dataset[0]!.expected)
    expect(retagged.input).toBe(dataset[2]!.input)
    // tags that differ are the baseline's own, as they were
    expect(retagged.tags).not.toBe(dataset[2]!.tags)
    expect(retagged.tags).toEqual(['geo'])
  })

  it('changes nothing a reader can see, and leaves cases of another fingerprint or no dataset case alone', () => {
    const baseline = fromFile()
    const before = fromFile()
    baseline.cases.forEach(datasetSharer(dataset))
    expect(baseline).toEqual(before)
    expect(baseline.cases[1].input).toBe('what it asked before')
    expect(baseline.cases[3].input).toBe('input of removed')
  })
})

describe('datasetSharer, applied as a record is read', () => {
  it('makes the cases read share the dataset’s values, so their own copies are garbage at once', () => {
    const dataset = [evalCase('a'), evalCase('b')]
    const text = JSON.stringify(makeRun([makeCase('a', true, { input: dataset[0]!.input, tags: ['geo'] }), makeCase('gone')]))
    const seen: string[] = []
    const share = datasetSharer(dataset)
    const record = parseRunRecord(text, 'base.json', { onCase: (c) => (seen.push(c.id), share(c)) })
    expect(seen).toEqual(['a', 'gone'])
    expect(record.cases[0]!.input).toBe(dataset[0]!.input)
    expect(record.cases[0]!.tags).toBe(dataset[0]!.tags)
    expect(record).toEqual(parseRunRecord(text, 'base.json'))
  })
})
