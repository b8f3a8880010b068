import { describe, expect, it, jest } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import type { Judge, JudgeRequest } from '../../src/assertions/types.js'
import type { JudgeVerdict } from '../../src/types.js'
import { grade } from './helpers.js'

describe('latency assertion', () => {
  it.each<[string, number, number, boolean, string]>([
    ['latency', 500, 120, true, 'trial took 120 ms, within the 500 ms limit'],
    ['latency', 500, 500, true, 'trial took 500 ms, within the 500 ms limit'],
    ['latency', 500, 812, false, 'expected the trial to take at most 500 ms, it took 812 ms'],
    ['not-latency', 100, 50, false, 'expected the trial to take more than 100 ms, it took 50 ms'],
    ['not-latency', 100, 150, true, 'trial took 150 ms, over the 100 ms limit']
  ])('%s ≤ %d ms with a %d ms trial → passed %s', async (type, threshold, durationMs, passed, reason) => {
    const result = await grade({ type, threshold }, 'output', { durationMs })
    expect(result).toMatchObject({ type, passed, score: passed ? 1 : 0, reason })
  })

  it('refuses a negative threshold', () => {
    expect(validateAssertion({ type: 'latency', threshold: -5 })).toBe('latency `threshold` must be at least 0, got -5')
  })
})

function fakeJudge(answer: Partial<JudgeVerdict>): jest.Mock<Judge> {
  return jest.fn<Judge>(async (request: JudgeRequest) => ({ model: 'fake', score: 0, reason: `graded "${request.rubric}"`, key: 'k', ...answer }))
}

describe('llm-rubric assertion', () => {
  const rubric = { type: 'llm-rubric', value: 'Names the city only.' }

  it('fails without a judge', async () => {
    const result = await grade(rubric, 'Dublin')
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toContain('no judge configured')
  })

  it('asks the judge with the input, output, rubric and threshold', async () => {
    const judge = fakeJudge({ score: 0.8 })
    const result = await grade(rubric, 'Dublin', { judge })
    expect(judge).toHaveBeenCalledWith({ input: 'What is the capital of Ireland?', output: 'Dublin', rubric: 'Names the city only.', threshold: 0.5 })
    expect(result).toEqual({
      type: 'llm-rubric',
      passed: true,
      score: 0.8,
      reason: 'graded "Names the city only."',
      judge: { model: 'fake', score: 0.8, reason: 'graded "Names the city only."', key: 'k' }
    })
  })

  it.each<[string, number | undefined, number | undefined, number, boolean]>([
    ['the default threshold', undefined, undefined, 0.5, true],
    ['the assertion threshold', 0.9, undefined, 0.8, false],
    ['the judge config threshold', undefined, 0.9, 0.8, false],
    ['the assertion over the judge config', 0.7, 0.9, 0.8, true]
  ])('passes at %s', async (_name, threshold, defaultJudgeThreshold, score, passed) => {
    const judge = fakeJudge({ score })
    const result = await grade({ ...rubric, threshold }, 'Dublin', { judge, defaultJudgeThreshold })
    expect(result.passed).toBe(passed)
    expect(judge.mock.calls[0][0].threshold).toBe(threshold ?? defaultJudgeThreshold ?? 0.5)
  })

  it('fails on a judge error with the error recorded', async () => {
    const result = await grade(rubric, 'Dublin', { judge: fakeJudge({ score: 0, reason: 'judge error: timeout', error: 'timeout' }) })
    expect(result).toMatchObject({ passed: false, score: 0, reason: 'judge error: timeout', error: 'timeout' })
  })

  it('fails, without throwing, when the judge throws', async () => {
    const judge: Judge = async () => {
      throw new Error('socket hang up')
    }
    expect(await grade(rubric, 'Dublin', { judge })).toMatchObject({
      passed: false,
      score: 0,
      error: 'socket hang up',
      reason: 'llm-rubric could not be checked: socket hang up'
    })
  })
})
