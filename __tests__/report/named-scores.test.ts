import { describe, expect, it } from '@jest/globals'
import { markdownOf } from '../__fixtures__/report.js'
import { compareRuns } from '../../src/compare/index.js'
import { gateSchema } from '../../src/config/schema.js'
import { summarizeNamedScores } from '../../src/run/promptfoo.js'
import { buildRecord } from '../../src/run/record.js'
import type { CaseResult, RunRecord } from '../../src/types.js'

function record(scores: (Record<string, number> | undefined)[]): RunRecord {
  const cases: CaseResult[] = scores.map((namedScores, i) => ({
    id: `c${i}`,
    name: `c${i}`,
    tags: [],
    fingerprint: `f${i}`,
    input: 'x',
    passed: true,
    passFraction: 1,
    output: 'x',
    error: null,
    score: null,
    durationMs: 1,
    assertions: [],
    ...(namedScores ? { namedScores } : {})
  }))
  return buildRecord({
    name: 'evals',
    cases,
    complete: true,
    durationMs: 1,
    createdAt: '2026-12-01T00:00:00.000Z',
    git: { sha: null, ref: null, runId: null },
    repeat: 1,
    dataset: { fingerprint: 'd', cases: cases.length }
  })
}

describe('named metrics', () => {
  it.each<[string, (Record<string, number> | undefined)[], unknown]>([
    ['no case has one', [undefined, {}], undefined],
    [
      'the mean over the cases that have each',
      [{ tone: 1 }, { tone: 0.5, json: 0 }, undefined],
      { tone: { score: 0.75, cases: 2 }, json: { score: 0, cases: 1 } }
    ]
  ])('run summary: %s', (_, scores, expected) => {
    expect(summarizeNamedScores(scores.map((s) => ({ namedScores: s })))).toEqual(expected)
  })

  it('are a table in the report, beside the baseline’s', () => {
    const baseline = record([{ tone: 1 }, { tone: 1 }])
    const current = record([{ tone: 0.5 }, { tone: 1, 'json|x': 0 }])
    const report = markdownOf({ comparison: compareRuns(baseline, current, gateSchema.parse({})), baseline, current })
    expect(report).toContain(
      '#### Named metrics\n\n| metric | baseline | current | cases |\n|:--|--:|--:|--:|\n| tone | 1.000 | 0.750 | 2 |\n| json\\|x | — | 0.000 | 1 |'
    )
  })

  it('are left out of a report whose run has none', () => {
    const current = record([undefined])
    expect(markdownOf({ comparison: compareRuns(null, current, gateSchema.parse({})), baseline: null, current })).not.toContain('Named metrics')
  })
})
