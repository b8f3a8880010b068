/**
 * llm-rubric and similar: what the judge is asked, where the threshold comes
 * from and that it passes, the whole reasons of similar each way, and the
 * values both refuse. The judge and the embedder are the context's own
 * parameters, given here as plain functions.
 */
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import { rubricAssertions } from '../../src/assertions/rubric.js'
import { similarAssertions } from '../../src/assertions/similar.js'
import type { Embedder, Judge, JudgeRequest } from '../../src/assertions/types.js'
import type { JudgeVerdict, ToolCall } from '../../src/types.js'
import { grade, makeContext } from './helpers.js'

/** A judge that answers with `answer` and records what it was asked. */
function judgeAnswering(answer: Partial<JudgeVerdict>): { judge: Judge; asked: JudgeRequest[] } {
  const asked: JudgeRequest[] = []
  const judge: Judge = async (request) => {
    asked.push(request)
    return { model: 'fake', score: 0, reason: 'graded', key: 'k', ...answer }
  }
  return { judge, asked }
}

const CALLS: ToolCall[] = [{ name: 'lookup_order', args: { order_id: 'A18' } }]

describe('llm-rubric', () => {
  const rubric = 'Names the city only.'

  it('a score at the threshold passes, and the verdict is the result', async () => {
    const { judge } = judgeAnswering({ score: 0.5, reason: 'half right' })
    expect(await grade({ type: 'llm-rubric', value: rubric }, 'Dublin', { judge })).toEqual({
      type: 'llm-rubric',
      passed: true,
      score: 0.5,
      reason: 'half right',
      judge: { model: 'fake', score: 0.5, reason: 'half right', key: 'k' }
    })
  })

  it('just under the threshold fails', async () => {
    const { judge } = judgeAnswering({ score: 0.49 })
    expect(await grade({ type: 'llm-rubric', value: rubric }, 'Dublin', { judge })).toMatchObject({ passed: false, score: 0.49 })
  })

  it('a judge error fails the check whatever the score', async () => {
    const { judge } = judgeAnswering({ score: 1, reason: 'judge error: bad JSON', error: 'bad JSON' })
    const result = await grade({ type: 'llm-rubric', value: rubric }, 'Dublin', { judge })
    expect(result).toMatchObject({ passed: false, score: 0, reason: 'judge error: bad JSON', error: 'bad JSON' })
  })

  it('no error key on a verdict without one', async () => {
    const { judge } = judgeAnswering({ score: 1 })
    const result = await grade({ type: 'llm-rubric', value: rubric }, 'Dublin', { judge })
    expect('error' in result).toBe(false)
  })

  it('includeToolCalls shows the judge the trial’s calls, an empty list as such, and asks nothing when none were reported', async () => {
    const withCalls = judgeAnswering({ score: 1 })
    await grade({ type: 'llm-rubric', value: rubric, includeToolCalls: true }, 'Dublin', { judge: withCalls.judge, toolCalls: CALLS })
    expect(withCalls.asked[0]!.toolCalls).toEqual(CALLS)
    const none = judgeAnswering({ score: 1 })
    await grade({ type: 'llm-rubric', value: rubric, includeToolCalls: true }, 'Dublin', { judge: none.judge, toolCalls: [] })
    expect(none.asked[0]).toEqual({ input: 'What is the capital of Ireland?', output: 'Dublin', rubric, threshold: 0.5, toolCalls: [] })
    // a target that reported no toolCalls at all: the judge cannot be shown what it called, so it is not asked
    const unreported = judgeAnswering({ score: 1 })
    const result = await grade({ type: 'llm-rubric', value: rubric, includeToolCalls: true }, 'Dublin', { judge: unreported.judge })
    expect(unreported.asked).toEqual([])
    expect(result).toMatchObject({
      passed: false,
      score: 0,
      error: 'the target reported no toolCalls, so what it called is unknown; an agent that called no tool returns toolCalls: []'
    })
  })

  it('without includeToolCalls, or with it false, the judge sees no calls', async () => {
    const off = judgeAnswering({ score: 1 })
    await grade({ type: 'llm-rubric', value: rubric, includeToolCalls: false }, 'Dublin', { judge: off.judge, toolCalls: CALLS })
    expect('toolCalls' in off.asked[0]!).toBe(false)
    const unset = judgeAnswering({ score: 1 })
    await grade({ type: 'llm-rubric', value: rubric }, 'Dublin', { judge: unset.judge, toolCalls: CALLS })
    expect('toolCalls' in unset.asked[0]!).toBe(false)
  })

  it('without a judge: an error naming the fix', async () => {
    const message = 'no judge configured: add a `judge:` section to the config to grade llm-rubric assertions'
    expect(await grade({ type: 'llm-rubric', value: rubric }, 'Dublin')).toMatchObject({ passed: false, score: 0, reason: message, error: message })
  })

  it('refuses a rubric that is missing, blank or not text', () => {
    const problem = 'llm-rubric needs a `value`: the rubric the judge grades the output against'
    expect(validateAssertion({ type: 'llm-rubric' })).toBe(problem)
    expect(validateAssertion({ type: 'llm-rubric', value: ' \n ' })).toBe(problem)
    expect(validateAssertion({ type: 'llm-rubric', value: 3 })).toBe(problem)
  })

  it('refuses an includeToolCalls that is not true or false', () => {
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', includeToolCalls: 'yes' as unknown as boolean })).toBe(
      'llm-rubric `includeToolCalls` is true or false'
    )
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', includeToolCalls: true })).toBeUndefined()
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', includeToolCalls: false })).toBeUndefined()
  })

  it('refuses a threshold outside [0, 1]; both ends are allowed', () => {
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', threshold: 1.1 })).toBe('llm-rubric `threshold` must be at most 1, got 1.1')
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', threshold: -0.1 })).toBe('llm-rubric `threshold` must be at least 0, got -0.1')
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', threshold: 0 })).toBeUndefined()
    expect(validateAssertion({ type: 'llm-rubric', value: 'r', threshold: 1 })).toBeUndefined()
  })

  // The dispatcher already fails any outcome that carries an error; these pin the handler's own
  // finding as well, so that a caller of the handler table gets a failure, not a pass with an error.
  it('the handler’s own outcome without a judge is a failure with the error', async () => {
    const message = 'no judge configured: add a `judge:` section to the config to grade llm-rubric assertions'
    const outcome = await rubricAssertions['llm-rubric']!.run({ type: 'llm-rubric', value: rubric }, makeContext('Dublin'), false)
    expect(outcome).toStrictEqual({ pass: false, score: 0, reason: message, error: message })
  })

  it('the handler’s own outcome on a judge error is a failure, and carries an error only then', async () => {
    const handler = rubricAssertions['llm-rubric']!
    const failing = judgeAnswering({ score: 1, reason: 'judge error: bad JSON', error: 'bad JSON' })
    const broken = await handler.run({ type: 'llm-rubric', value: rubric }, makeContext('Dublin', { judge: failing.judge }), false)
    expect(broken).toMatchObject({ pass: false, score: 1, error: 'bad JSON' })
    const fine = judgeAnswering({ score: 1 })
    const graded = await handler.run({ type: 'llm-rubric', value: rubric }, makeContext('Dublin', { judge: fine.judge }), false)
    expect(graded).toStrictEqual({ pass: true, score: 1, reason: 'graded', judge: { model: 'fake', score: 1, reason: 'graded', key: 'k' } })
  })

  it('cannot be negated', () => {
    expect(validateAssertion({ type: 'not-llm-rubric', value: 'r' })).toBe(
      '"not-llm-rubric": llm-rubric cannot take the prefix "not-"; only rule-based checks can be negated'
    )
  })
})

/** An embedder over a table of vectors, recording what it was asked. */
function embedderOf(table: Record<string, number[]>): { embed: Embedder; asked: string[][] } {
  const asked: string[][] = []
  const embed: Embedder = async (texts) => {
    asked.push(texts)
    return texts.map((t) => table[t] ?? [0, 0])
  }
  return { embed, asked }
}

// cosines: out·near = 24/25 = 0.96, out·far = 3/5 = 0.6, out·opposite = -1
const table = { out: [3, 4], near: [4, 3], far: [1, 0], opposite: [-3, -4] }

describe('similar', () => {
  it('embeds the output then the expected texts, in one request', async () => {
    const { embed, asked } = embedderOf(table)
    await grade({ type: 'similar', value: ['far', 'near'] }, 'out', { embed })
    expect(asked).toEqual([['out', 'far', 'near']])
  })

  it('the closest text counts, and the reason names it', async () => {
    const { embed } = embedderOf(table)
    const result = await grade({ type: 'similar', value: ['far', 'near', 'opposite'] }, 'out', { embed })
    expect(result).toMatchObject({ passed: true, reason: 'similarity 0.96 to "near", threshold 0.75' })
    expect(result.score).toBeCloseTo(0.96, 12)
  })

  it('the threshold itself passes', async () => {
    const { embed } = embedderOf(table)
    expect(await grade({ type: 'similar', value: 'far', threshold: 0.6 }, 'out', { embed })).toMatchObject({
      passed: true,
      reason: 'similarity 0.6 to "far", threshold 0.6'
    })
  })

  it('below the threshold fails, naming the closest text and the similarity', async () => {
    const { embed } = embedderOf(table)
    const result = await grade({ type: 'similar', value: ['opposite', 'far'] }, 'out', { embed })
    expect(result).toMatchObject({ passed: false, reason: 'expected similarity at least 0.75 to "far", got 0.6' })
    expect(result.score).toBeCloseTo(0.6, 12)
  })

  it('not- passes below the threshold and fails at it', async () => {
    const { embed } = embedderOf(table)
    const below = await grade({ type: 'not-similar', value: 'far' }, 'out', { embed })
    expect(below).toMatchObject({ passed: true, reason: 'similarity 0.6 to "far", threshold 0.75' })
    expect(below.score).toBeCloseTo(0.4, 12)
    expect(await grade({ type: 'not-similar', value: 'near', threshold: 0.9 }, 'out', { embed })).toMatchObject({
      passed: false,
      reason: 'expected similarity below 0.9 to "near", got 0.96'
    })
  })

  it('a negative similarity scores 0, and 1 for not-', async () => {
    const { embed } = embedderOf(table)
    const plain = await grade({ type: 'similar', value: 'opposite', threshold: -1 }, 'out', { embed })
    expect(plain).toMatchObject({ passed: true, score: 0, reason: 'similarity -1 to "opposite", threshold -1' })
    expect(await grade({ type: 'not-similar', value: 'opposite' }, 'out', { embed })).toMatchObject({ passed: true, score: 1 })
  })

  it('rounds the similarity to four places in the reason', async () => {
    const { embed } = embedderOf({ out: [1, 2], other: [2, 1] })
    // 4/5 = 0.8 exactly; [1, 2]·[1, 1] = 3/√10 = 0.94868…
    const result = await grade({ type: 'similar', value: 'other', threshold: 0.9 }, 'out', { embed })
    expect(result.reason).toBe('expected similarity at least 0.9 to "other", got 0.8')
    const { embed: e2 } = embedderOf({ out: [1, 2], diag: [1, 1] })
    expect((await grade({ type: 'similar', value: 'diag' }, 'out', { embed: e2 })).reason).toBe('similarity 0.9487 to "diag", threshold 0.75')
  })

  it('without embeddings: an error naming the fix, either way', async () => {
    const message = 'similar needs embeddings: add a `judge:` section with an OpenAI-compatible server (judge.baseUrl, judge.embeddingModel)'
    expect(await grade({ type: 'similar', value: 'x' }, 'y')).toMatchObject({ passed: false, score: 0, reason: message, error: message })
    expect(await grade({ type: 'not-similar', value: 'x' }, 'y')).toMatchObject({ passed: false, score: 0, error: message })
  })

  // the dispatcher fails any outcome with an error; this pins the handler's own finding too
  it('the handler’s own outcome without embeddings is a failure with the error', async () => {
    const message = 'similar needs embeddings: add a `judge:` section with an OpenAI-compatible server (judge.baseUrl, judge.embeddingModel)'
    const outcome = await similarAssertions.similar!.run({ type: 'similar', value: 'x' }, makeContext('y'), true)
    expect(outcome).toStrictEqual({ pass: false, score: 0, reason: message, error: message })
  })

  it('refuses a value that is missing, empty, or not text', () => {
    const problem = (got: string) => `similar needs the expected text, or a list of texts, as \`value\`, got ${got}`
    expect(validateAssertion({ type: 'similar' })).toBe(problem('none'))
    expect(validateAssertion({ type: 'similar', value: '' })).toBe(problem('the string ""'))
    expect(validateAssertion({ type: 'similar', value: [] })).toBe(problem('a list'))
    expect(validateAssertion({ type: 'similar', value: ['a', ''] })).toBe(problem('a list'))
    expect(validateAssertion({ type: 'similar', value: ['a', 3] })).toBe(problem('a list'))
    expect(validateAssertion({ type: 'similar', value: [3, 'a'] })).toBe(problem('a list'))
    expect(validateAssertion({ type: 'similar', value: ['a', 'b'] })).toBeUndefined()
  })

  it('refuses a threshold outside [-1, 1]; both ends are allowed', () => {
    expect(validateAssertion({ type: 'similar', value: 'a', threshold: -1.5 })).toBe('similar `threshold` must be at least -1, got -1.5')
    expect(validateAssertion({ type: 'similar', value: 'a', threshold: 1.5 })).toBe('similar `threshold` must be at most 1, got 1.5')
    expect(validateAssertion({ type: 'similar', value: 'a', threshold: -1 })).toBeUndefined()
    expect(validateAssertion({ type: 'similar', value: 'a', threshold: 1 })).toBeUndefined()
  })

  it('the value is checked before the threshold', () => {
    expect(validateAssertion({ type: 'similar', value: 3, threshold: 5 })).toBe('similar needs the expected text, or a list of texts, as `value`, got number 3')
  })
})
