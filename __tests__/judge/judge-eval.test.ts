import { describe, expect, it } from '@jest/globals'
import { runJudgeEval } from '../../src/judge/judge-eval.js'

describe('runJudgeEval', () => {
  it('reproduces the seed example: two good answers and one bad', async () => {
    const judge = ({ output }: { prompt: unknown; output: string }) =>
      output === 'Paris' ? { score: 1.0, reason: 'correct' } : { score: 0.0, reason: 'wrong' }
    const report = await runJudgeEval(judge, [
      { prompt: 'Capital of France?', output: 'Paris' },
      { name: 'good', prompt: 'Capital of France?', output: 'Paris' },
      { name: 'bad', prompt: 'Capital of France?', output: 'Berlin' }
    ])
    expect(report).toEqual({
      results: [
        { name: 'case_0', score: 1, reason: 'correct', flagged: false, error: null },
        { name: 'good', score: 1, reason: 'correct', flagged: false, error: null },
        { name: 'bad', score: 0, reason: 'wrong', flagged: true, error: null }
      ],
      meanScore: 0.667,
      flagged: ['bad'],
      total: 3
    })
  })

  it('passes prompt and output to the judge', async () => {
    const seen: unknown[] = []
    await runJudgeEval(
      (c) => {
        seen.push(c)
        return { score: 1, reason: '' }
      },
      [{ prompt: { q: 1 }, output: 'o' }]
    )
    expect(seen).toEqual([{ prompt: { q: 1 }, output: 'o' }])
  })

  it('turns a throwing judge and a non-numeric score into 0 with the error', async () => {
    const report = await runJudgeEval(
      async ({ output }) => {
        if (output === 'throw') throw new Error('rate limited')
        if (output === 'high') return { score: 'high', reason: 'r' }
        return { score: 1.4, reason: 'r' }
      },
      [
        { name: 'throws', prompt: 'p', output: 'throw' },
        { name: 'words', prompt: 'p', output: 'high' },
        { name: 'over', prompt: 'p', output: 'x' }
      ]
    )
    expect(report.results).toEqual([
      { name: 'throws', score: 0, reason: 'judge error: rate limited', flagged: true, error: 'judge error: rate limited' },
      { name: 'words', score: 0, reason: 'judge score is not a number: "high"', flagged: true, error: 'judge score is not a number: "high"' },
      { name: 'over', score: 1, reason: 'r [score 1.4 clamped to 1]', flagged: false, error: null }
    ])
    expect(report.flagged).toEqual(['throws', 'words'])
    expect(report.meanScore).toBe(0.333)
  })

  it('reads a judge that returns the raw text of a model reply', async () => {
    const report = await runJudgeEval(() => '```json\n{"score": "0.8", "reason": "fine"}\n```', [{ prompt: 'p', output: 'o' }])
    expect(report.results[0]).toMatchObject({ score: 0.8, reason: 'fine', error: null })
  })

  it('flags below the threshold', async () => {
    const report = await runJudgeEval(
      ({ output }) => ({ score: Number(output), reason: '' }),
      [
        { name: 'a', prompt: 'p', output: '0.6' },
        { name: 'b', prompt: 'p', output: '0.8' }
      ],
      { threshold: 0.7 }
    )
    expect(report.flagged).toEqual(['a'])
  })

  it('has meanScore 0 for no cases', async () => {
    expect(await runJudgeEval(() => ({ score: 1, reason: '' }), [])).toEqual({ results: [], meanScore: 0, flagged: [], total: 0 })
  })
})
