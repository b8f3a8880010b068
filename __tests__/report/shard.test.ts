import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import { renderShardSummary, type ShardSummaryInput } from '../../src/report/index.js'
import { makeBaseline, makeCase, makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

const shard = { index: 2, count: 4 }
const current = makeRun(makeCases('a', '!b', 'c'))

function input(overrides: Partial<ShardSummaryInput> = {}): ShardSummaryInput {
  return { current, shard, comparison: null, expected: 3, artifactName: 'evalgate-support-bot-shard-2-of-4', ...overrides }
}

describe('renderShardSummary', () => {
  it.each<[string, Partial<ShardSummaryInput>, string[], string[]]>([
    [
      'no baseline',
      {},
      [
        '### evalgate · support-bot: shard 2 of 4',
        'shard 2 of 4: 3 cases, pass rate 66.7% (2 passed, 1 failed).',
        'once all 4 shards are in',
        '`evalgate-support-bot-shard-2-of-4`'
      ],
      ['regressed', 'cut short', 'mean score']
    ],
    [
      'a baseline',
      { comparison: compareRuns(makeBaseline(makeCases('a', 'b', '!c')), current, makeGate()) },
      ['Against the baseline: 1 regressed, 1 fixed in this shard.'],
      ['gate failed', 'gate passed']
    ],
    [
      'a run cut short, with errors and scores',
      { current: makeRun([makeCase('a', true, { score: 0.75 }), makeCase('b', false, { error: 'agent error: boom' })], { complete: false }), expected: 5 },
      ['2 cases, pass rate 50.0% (1 passed, 1 failed, 1 of them with an error), mean score 0.750.', '> ⚠️ cut short: 2 of 5 cases finished'],
      []
    ],
    ['one case', { current: makeRun(makeCases('a')), expected: 1 }, ['shard 2 of 4: 1 case, pass rate 100.0%'], []]
  ])('with %s', (_label, overrides, has, hasNot) => {
    const text = renderShardSummary(input(overrides))
    for (const part of has) expect(text).toContain(part)
    for (const part of hasNot) expect(text).not.toContain(part)
  })

  it('escapes the run name', () => {
    const text = renderShardSummary(input({ current: makeRun(makeCases('a'), { name: 'bot <b>@octocat</b>' }) }))
    expect(text).not.toContain('<b>')
    expect(text).not.toMatch(/(^|[^`])@octocat/)
  })
})
