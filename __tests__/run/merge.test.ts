import { describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { ConfigError, RecordError } from '../../src/errors.js'
import { mergeRecords, type ShardRecord } from '../../src/run/merge.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { makeBaseline, makeCase, makeRun } from '../__fixtures__/records.js'
import { tempDir } from '../__fixtures__/temp.js'

/** A project of 40 cases: some pass, some fail an assertion, some make the agent throw. */
function project(repeat: number): string {
  const dir = tempDir('evalgate-merge-')
  writeFileSync(
    path.join(dir, 'agent.mjs'),
    `export default (input) => {
  const n = Number(String(input).split(' ')[1])
  if (n % 7 === 3) throw new Error('agent broke on ' + input)
  return n % 5 === 0 ? 'no idea' : 'answer ' + input
}
`
  )
  const cases = Array.from({ length: 40 }, (_, i) =>
    // every third case has no id: it is keyed by its content
    JSON.stringify({ ...(i % 3 === 0 ? {} : { id: `q${i}` }), input: `question ${i}`, tags: [i % 2 ? 'odd' : 'even'], expected: 'answer' })
  )
  writeFileSync(path.join(dir, 'cases.jsonl'), `${cases.join('\n')}\n`)
  writeFileSync(path.join(dir, 'evalgate.yml'), `name: merge-test\ndataset: cases.jsonl\nrepeat: ${repeat}\ntarget: { module: ./agent.mjs }\n`)
  return dir
}

/** A record without what differs from run to run: timings and the creation time. */
function stable(record: RunRecord) {
  const untimed = (c: CaseResult) => ({
    ...c,
    durationMs: 0,
    latencyMs: 0,
    ...(c.trials ? { trials: c.trials.map((t) => ({ ...t, durationMs: 0, latencyMs: 0 })) } : {})
  })
  return { ...record, createdAt: '', summary: { ...record.summary, durationMs: 0 }, cases: record.cases.map(untimed) }
}

describe('mergeRecords on real shards', () => {
  it.each([1, 3])('4 shards run separately and merged give the record of one run (repeat %i)', async (repeat) => {
    const loaded = await loadEvalConfig(path.join(project(repeat), 'evalgate.yml'))
    const git = { sha: 'abc', ref: 'refs/heads/main', runId: '7' }
    const whole = (await evaluate(loaded, { env: {}, git })).record
    const shards: ShardRecord[] = []
    for (const index of [3, 1, 4, 2]) {
      const { record } = await evaluate(loaded, { env: {}, git, shard: { index, count: 4 } })
      shards.push({ file: `shard-${index}.json`, record })
    }
    expect(shards.every((s) => s.record.cases.length > 0 && s.record.cases.length < 40)).toBe(true)
    const merged = mergeRecords(shards)
    expect(merged.cases.map((c) => c.id)).toEqual(whole.cases.map((c) => c.id))
    expect(stable(merged)).toEqual(stable(whole))
    expect(merged.summary).toMatchObject({ total: 40, errors: 6 })
    expect(merged.config).toEqual({ repeat, shard: null, repeatPassThreshold: 0.5 })
  })
})

function shard(index: number, count: number, ids: string[], overrides: Partial<RunRecord> = {}): ShardRecord {
  const cases = ids.map((id) => makeCase(id, !id.startsWith('f'), { index: Number(id.replace(/\D/g, '')) }))
  return { file: `s${index}.json`, record: makeRun(cases, { config: { repeat: 1, shard: `${index}/${count}` }, ...overrides }) }
}

describe('mergeRecords: the result', () => {
  const shards = [
    shard(2, 2, ['c1', 'f4'], { createdAt: '2026-11-30T12:00:05.000Z', complete: false }),
    shard(1, 2, ['c0', 'c2', 'f3'], { createdAt: '2026-11-30T12:00:01.000Z' })
  ]
  shards[0]!.record.summary = {
    ...shards[0]!.record.summary,
    durationMs: 900,
    judge: { calls: 3, reused: 1, errors: 0, tokens: 100, sampled: 2, disagreements: 1 }
  }
  shards[1]!.record.summary = { ...shards[1]!.record.summary, durationMs: 1200, judge: { calls: 2, reused: 0, errors: 1, tokens: 50 } }

  it('puts the cases back in dataset order and recomputes the summary', () => {
    const merged = mergeRecords(shards)
    expect(merged.cases.map((c) => c.id)).toEqual(['c0', 'c1', 'c2', 'f3', 'f4'])
    expect(merged.summary).toEqual({
      total: 5,
      passed: 3,
      failed: 2,
      errors: 0,
      passRate: 0.6,
      meanScore: null,
      durationMs: 1200,
      judge: { calls: 5, reused: 1, errors: 1, tokens: 150, sampled: 2, disagreements: 1 }
    })
  })

  it('is complete only when every shard is; dates from its first shard; is no longer a shard', () => {
    const merged = mergeRecords(shards)
    expect(merged.complete).toBe(false)
    expect(merged.createdAt).toBe('2026-11-30T12:00:01.000Z')
    expect(merged.config).toEqual({ repeat: 1, shard: null })
    expect(mergeRecords([shards[1]!, { ...shards[0]!, record: { ...shards[0]!.record, complete: true } }]).complete).toBe(true)
  })

  it('keeps the files any shard saw change while it ran (changedDuringRun), once each', () => {
    expect(mergeRecords(shards).changedDuringRun).toBeUndefined()
    const tampered = [
      { ...shards[0]!, record: { ...shards[0]!.record, changedDuringRun: ['checks/b.mjs', 'checks/a.mjs'] } },
      { ...shards[1]!, record: { ...shards[1]!.record, changedDuringRun: ['checks/a.mjs'] } }
    ]
    expect(mergeRecords(tampered).changedDuringRun).toEqual(['checks/a.mjs', 'checks/b.mjs'])
  })

  it('takes git fields from whichever shard has them', () => {
    const a = shard(1, 2, ['c0'], { git: { sha: 'abc', ref: null, runId: null } })
    const b = shard(2, 2, ['c1'], { git: { sha: null, ref: 'refs/pull/1/merge', runId: '9' } })
    expect(mergeRecords([a, b]).git).toEqual({ sha: 'abc', ref: 'refs/pull/1/merge', runId: '9' })
  })

  it('keeps cases of records without an index after the others, in shard order', () => {
    const a = shard(1, 2, ['c1'])
    const b = shard(2, 2, ['c0'])
    a.record.cases.push(makeCase('old-a'))
    b.record.cases.unshift(makeCase('old-b'))
    expect(mergeRecords([b, a]).cases.map((c) => c.id)).toEqual(['c0', 'c1', 'old-a', 'old-b'])
  })

  it('carries the flake history forward from a baseline', () => {
    const baseline = makeBaseline([makeCase('c0', false, { history: 'PP' })])
    const merged = mergeRecords([shard(1, 1, ['c0'])], { baseline })
    expect(merged.cases[0]!.history).toBe('PPF')
  })
})

describe('mergeRecords: refuses', () => {
  const notShard: ShardRecord = { file: 'plain.json', record: makeRun([makeCase('c0')]) }
  it.each<[string, ShardRecord[], string]>([
    [
      'a missing shard',
      [shard(1, 3, ['c0']), shard(3, 3, ['c2'])],
      'missing shard 2/3: a run split in 3 needs all 3 shard records (given: s1.json (shard 1/3), s3.json (shard 3/3))'
    ],
    ['missing shards', [shard(2, 4, ['c0'])], 'missing shards 1/4, 3/4, 4/4'],
    [
      'a shard given twice',
      [shard(1, 2, ['c0']), shard(2, 2, ['c1']), { ...shard(2, 2, ['c3']), file: 'again.json' }],
      'shard 2/2 given twice: s2.json and again.json'
    ],
    ['shards of different splits', [shard(1, 2, ['c0']), shard(2, 3, ['c1'])], 'shards of different splits: s1.json is shard 1/2, s2.json is shard 2/3'],
    [
      'another config',
      [shard(1, 2, ['c0']), shard(2, 2, ['c1'], { name: 'other-bot' })],
      'shards of different runs: s1.json (shard 1/2) has name "support-bot", s2.json (shard 2/2) has name "other-bot"'
    ],
    [
      'another commit',
      [shard(1, 2, ['c0']), shard(2, 2, ['c1'], { git: { sha: 'beef', ref: null, runId: '42' } })],
      'has git.sha "c0ffee0000000000000000000000000000000000", s2.json (shard 2/2) has git.sha "beef"'
    ],
    [
      'another workflow run',
      [shard(1, 2, ['c0']), shard(2, 2, ['c1'], { git: { sha: null, ref: null, runId: '43' } })],
      'has git.runId "42", s2.json (shard 2/2) has git.runId "43"'
    ],
    ['another repeat', [shard(1, 2, ['c0']), shard(2, 2, ['c1'], { config: { repeat: 3, shard: '2/2' } })], 'has repeat 1, s2.json (shard 2/2) has repeat 3'],
    [
      'overlapping cases',
      [shard(1, 2, ['c0', 'c1']), shard(2, 2, ['c1'])],
      'case "c1" is in both s1.json (shard 1/2) and s2.json (shard 2/2); shards must not overlap'
    ],
    ['a case twice in a shard', [shard(1, 1, ['c0', 'c0'])], 'case "c0" is twice in s1.json (shard 1/1)'],
    ['a record that is not a shard', [notShard], 'plain.json: not a shard record: it has no config.shard'],
    ['a malformed shard', [{ file: 'odd.json', record: makeRun([], { config: { repeat: 1, shard: '5/4' } }) }], 'odd.json: config.shard "5/4" is not i/n']
  ])('%s', (_label, shards, message) => {
    expect(() => mergeRecords(shards)).toThrow(RecordError)
    expect(() => mergeRecords(shards)).toThrow(message)
  })

  const dataset = (fingerprint: string) => ({ dataset: { fingerprint, cases: 3 } })

  it.each<[string, ShardRecord[], string]>([
    [
      'the odd shard out',
      [shard(1, 3, ['c0'], dataset('d1')), shard(2, 3, ['c1'], dataset('d1')), shard(3, 3, ['c2'], dataset('d2'))],
      "s3.json: shard 3/3 was made from dataset d2 (3 cases), not from the other shards' dataset d1 (3 cases)"
    ],
    [
      'the first shard, when it is the odd one',
      [shard(1, 3, ['c0'], dataset('d2')), shard(2, 3, ['c1'], dataset('d1')), shard(3, 3, ['c2'], dataset('d1'))],
      's1.json: shard 1/3 was made from dataset d2'
    ],
    [
      'a shard that names no dataset among shards that do',
      [shard(1, 2, ['c0'], dataset('d1')), shard(2, 2, ['c1'])],
      's2.json: shard 2/2 was made from a dataset it does not name (a record of an older evalgate)'
    ],
    [
      'another fingerprint version',
      [shard(1, 2, ['c0']), shard(2, 2, ['c1'], { fingerprintVersion: 1 })],
      'has fingerprintVersion 2, s2.json (shard 2/2) has fingerprintVersion 1'
    ]
  ])('row 14: shards of different datasets: %s', (_label, shards, message) => {
    expect(() => mergeRecords(shards)).toThrow(RecordError)
    expect(() => mergeRecords(shards)).toThrow(message)
  })

  it("row 14: a shard not of the config's dataset, named", () => {
    const shards = [shard(1, 2, ['c0'], dataset('d1')), shard(2, 2, ['c1'], dataset('d1'))]
    const expected = { fingerprint: { fingerprint: 'd1', cases: 3 }, file: 'evalgate.yml' }
    expect(mergeRecords(shards, { dataset: expected }).dataset).toEqual({ fingerprint: 'd1', cases: 3 })
    expect(() => mergeRecords(shards, { dataset: { ...expected, fingerprint: { fingerprint: 'd9', cases: 4 } } })).toThrow(
      's1.json: shard 1/2 was made from dataset d1 (3 cases), not from dataset d9 (4 cases), the dataset of evalgate.yml'
    )
  })

  it('nothing to merge', () => {
    expect(() => mergeRecords([])).toThrow(ConfigError)
  })
})
