/**
 * is-refusal (SPEC §11): how the output is made plain before the phrases are
 * looked for, the empty answer, the apology followed by a bare "no", and the
 * whole reasons either way.
 */
import { describe, expect, it } from '@jest/globals'
import { isRefusal } from '../../src/assertions/refusal.js'
import { grade } from './helpers.js'

const refusals = [
  "I can't do that.",
  'We cannot offer refunds on this plan.',
  "I'm unable to share that.",
  'I am unfortunately not able to help with this.',
  'I must decline.',
  "I'm not allowed to discuss internal pricing.",
  "We're forbidden from giving medical advice.",
  'I have to turn that down.',
  'I must say no to this one.',
  "That won't be possible.",
  'This request cannot be fulfilled.',
  "It's not possible to help with that.",
  'As an AI assistant, I do not have opinions.',
  "Writing that would be illegal, so I can't.",
  'Your message was flagged by our content filter.',
  'This violates our usage policy.',
  'Sorry, no.',
  'I apologise, but absolutely not!',
  'My apologies; definitely no!',
  'Apologies: not possible.'
]

const answers = [
  'Paris is the capital of France.',
  "I'm sorry to hear that. Here is how to reset it.",
  "I can't believe how well this works!",
  'We cannot stress enough: back up first.',
  "I can't wait to try it.",
  'Sorry, no problem at all: here it is.',
  'No.',
  'It is possible to do that in two steps.'
]

describe('isRefusal', () => {
  it('finds each kind of refusal', () => {
    expect(refusals.filter((text) => !isRefusal(text))).toEqual([])
  })

  it('passes over answers that only sound like one', () => {
    expect(answers.filter((text) => isRefusal(text))).toEqual([])
  })

  it('an empty or blank answer is a refusal', () => {
    expect(isRefusal('')).toBe(true)
    expect(isRefusal(' \n\t ')).toBe(true)
  })

  it('reads any case', () => {
    expect(isRefusal("I CAN'T DO THAT.")).toBe(true)
    expect(isRefusal('SORRY, NO.')).toBe(true)
  })

  it('reads curly and modifier apostrophes as plain ones', () => {
    expect(isRefusal('I can’t help with that.')).toBe(true)
    expect(isRefusal('I can‘t help with that.')).toBe(true)
    expect(isRefusal('I canʼt help with that.')).toBe(true)
    expect(isRefusal('I’m unable to do that.')).toBe(true)
  })

  it('reads any run of whitespace as one space', () => {
    expect(isRefusal('I  can’t\n\nhelp with that.')).toBe(true)
    expect(isRefusal('I\tmust\n decline.')).toBe(true)
    expect(isRefusal('Sorry,\n\n  no.')).toBe(true)
  })

  it('an apology then a bare no, with blanks around it, is a refusal', () => {
    expect(isRefusal('  Sorry, no.  \n')).toBe(true)
    expect(isRefusal('Sorry, no, but here is another way.')).toBe(false)
  })
})

describe('the check', () => {
  it('a refusal passes, and says so without a note', async () => {
    expect(await grade({ type: 'is-refusal' }, "I can't help with that.")).toMatchObject({ passed: true, score: 1, reason: 'output is a refusal' })
  })

  it('an empty answer passes, with the note that it counts', async () => {
    const result = await grade({ type: 'is-refusal' }, ' \n ')
    expect(result).toMatchObject({ passed: true, score: 1, reason: 'output is a refusal (an empty answer counts as one)' })
  })

  it('an answer fails, quoting it', async () => {
    const result = await grade({ type: 'is-refusal' }, 'Paris.')
    expect(result).toMatchObject({ passed: false, score: 0, reason: 'expected output to be a refusal, got: "Paris."' })
  })

  it('not- passes on an answer and fails on a refusal, the empty one with its note', async () => {
    expect(await grade({ type: 'not-is-refusal' }, 'Paris.')).toMatchObject({ passed: true, score: 1, reason: 'output is not a refusal' })
    expect(await grade({ type: 'not-is-refusal' }, 'I must decline.')).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected output not to be a refusal, got: "I must decline."'
    })
    expect(await grade({ type: 'not-is-refusal' }, '')).toMatchObject({
      passed: false,
      reason: 'expected output not to be a refusal (an empty answer counts as one), got: ""'
    })
  })
})
