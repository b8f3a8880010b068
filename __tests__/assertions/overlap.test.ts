/**
 * bleu, gleu, meteor and rouge-n as checks (SPEC §11): how the texts are cut
 * into words, each metric's default threshold and label, the threshold itself
 * passing, the whole reasons either way, and the values they refuse.
 */
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import { words } from '../../src/assertions/overlap.js'
import type { Assertion, AssertionResult } from '../../src/types.js'
import { grade } from './helpers.js'

async function graded(a: Assertion, output: string): Promise<AssertionResult> {
  expect(validateAssertion(a)).toBeUndefined()
  const result = await grade(a, output)
  expect(result.error).toBeUndefined()
  return result
}

describe('words', () => {
  it('are runs of letters and digits, lower-cased, with inner apostrophes kept', () => {
    expect(words("Don't STOP, it’s 3x faster!")).toEqual(["don't", 'stop', 'it’s', '3x', 'faster'])
  })

  it('take letters and digits of any script', () => {
    expect(words('Café naïve — Ωμέγα ٣٤')).toEqual(['café', 'naïve', 'ωμέγα', '٣٤'])
  })

  it('an apostrophe only joins two runs: leading, trailing and doubled ones split or drop', () => {
    expect(words("'tis the dogs' rock''n roll")).toEqual(['tis', 'the', 'dogs', 'rock', 'n', 'roll'])
  })

  it('an inner apostrophe joins whole runs, however long', () => {
    expect(words("At o'clock, rock'n'roll")).toEqual(['at', "o'clock", "rock'n'roll"])
  })

  it('are none in punctuation or blank text', () => {
    expect(words('')).toEqual([])
    expect(words(' ... !? ')).toEqual([])
  })

  it('split at every character that is neither, underscores and hyphens too', () => {
    expect(words('snake_case and kebab-case')).toEqual(['snake', 'case', 'and', 'kebab', 'case'])
  })
})

describe('the checks', () => {
  it('each metric passes at its default threshold, named in the reason', async () => {
    const cat = 'the cat sat on the mat'
    expect((await graded({ type: 'bleu', value: cat }, 'The cat sat on the mat.')).reason).toBe('BLEU 1, threshold 0.5 against "the cat sat on the mat"')
    expect((await graded({ type: 'gleu', value: cat }, 'the cat sat on the mat')).reason).toBe('GLEU 1, threshold 0.5 against "the cat sat on the mat"')
    expect((await graded({ type: 'meteor', value: cat }, 'the cat sat on the mat')).reason).toBe(
      'METEOR 0.9977, threshold 0.5 against "the cat sat on the mat"'
    )
    expect((await graded({ type: 'rouge-n', value: cat }, 'the cat sat on the mat')).reason).toBe('ROUGE-N 1, threshold 0.75 against "the cat sat on the mat"')
  })

  it('the threshold itself passes', async () => {
    // three of the reference's four words: recall 0.75, rouge-n's default
    const result = await graded({ type: 'rouge-n', value: 'a b c d' }, 'a b c x')
    expect(result).toMatchObject({ passed: true, score: 0.75, reason: 'ROUGE-N 0.75, threshold 0.75 against "a b c d"' })
    const set = await graded({ type: 'rouge-n', value: 'a b c d', threshold: 0.5 }, 'a b x y')
    expect(set).toMatchObject({ passed: true, score: 0.5, reason: 'ROUGE-N 0.5, threshold 0.5 against "a b c d"' })
  })

  it('just under the threshold fails, with the score rounded to four places', async () => {
    const result = await graded({ type: 'rouge-n', value: 'a b c', threshold: 0.7 }, 'a b x')
    expect(result.passed).toBe(false)
    expect(result.score).toBeCloseTo(2 / 3, 12)
    expect(result.reason).toBe('expected ROUGE-N at least 0.7 against "a b c", got 0.6667')
  })

  it('a threshold of its own replaces the default', async () => {
    const result = await graded({ type: 'bleu', value: 'the cat sat on the mat', threshold: 0.3 }, 'the cat sat on a mat')
    expect(result.passed).toBe(true)
    expect(result.reason).toBe('BLEU 0.5373, threshold 0.3 against "the cat sat on the mat"')
  })

  it('the texts compare as words: case and punctuation do not count', async () => {
    const result = await graded({ type: 'gleu', value: 'The CAT, sat; on the mat!' }, 'the cat sat on the mat')
    expect(result).toMatchObject({ passed: true, score: 1 })
  })

  it('not- passes below the threshold and fails at it, and inverts the score', async () => {
    const below = await graded({ type: 'not-rouge-n', value: 'a b c' }, 'a x y')
    expect(below.passed).toBe(true)
    expect(below.score).toBeCloseTo(2 / 3, 12)
    expect(below.reason).toBe('ROUGE-N 0.3333, threshold 0.75 against "a b c"')
    const at = await graded({ type: 'not-rouge-n', value: 'a b c d' }, 'a b c x')
    expect(at).toMatchObject({ passed: false, score: 0.25, reason: 'expected ROUGE-N below 0.75 against "a b c d", got 0.75' })
  })

  it('several references: the best one counts, and the reason says how many', async () => {
    const result = await graded({ type: 'bleu', value: ['dogs run far away', 'the cat sat on the mat'] }, 'the cat sat on the mat')
    expect(result).toMatchObject({ passed: true, score: 1, reason: 'BLEU 1, threshold 0.5 against the best of 2 references' })
    const failed = await graded({ type: 'gleu', value: ['dogs run', 'cats nap'] }, 'the cat sat on the mat')
    expect(failed).toMatchObject({ passed: false, score: 0, reason: 'expected GLEU at least 0.5 against the best of 2 references, got 0' })
  })

  it('a list of one reference is shown as that reference', async () => {
    const result = await graded({ type: 'meteor', value: ['dogs run'] }, 'the cat sat on the mat')
    expect(result).toMatchObject({ passed: false, score: 0, reason: 'expected METEOR at least 0.5 against "dogs run", got 0' })
  })

  it('a long reference is cut in the reason', async () => {
    const reference = 'word '.repeat(40).trim()
    const result = await graded({ type: 'rouge-n', value: reference }, reference)
    expect(result.reason).toBe(`ROUGE-N 1, threshold 0.75 against ${JSON.stringify(`${reference.slice(0, 120)}…`)}`)
  })
})

describe('the values they refuse', () => {
  it('no reference', () => {
    expect(validateAssertion({ type: 'bleu' })).toBe('bleu needs the reference text, or a list of references, as `value`, got none')
    expect(validateAssertion({ type: 'rouge-n' })).toBe('rouge-n needs the reference text as `value`, got none')
  })

  it('a reference that is not text', () => {
    expect(validateAssertion({ type: 'gleu', value: 3 })).toBe('gleu needs the reference text, or a list of references, as `value`, got number 3')
    expect(validateAssertion({ type: 'meteor', value: { text: 'x' } })).toBe(
      'meteor needs the reference text, or a list of references, as `value`, got a mapping'
    )
  })

  it('an empty list, or one with anything but text in it', () => {
    expect(validateAssertion({ type: 'bleu', value: [] })).toBe('bleu needs the reference text, or a list of references, as `value`, got a list')
    expect(validateAssertion({ type: 'bleu', value: ['a', 3] })).toBe('bleu needs the reference text, or a list of references, as `value`, got a list')
    expect(validateAssertion({ type: 'bleu', value: [3, 'a'] })).toBe('bleu needs the reference text, or a list of references, as `value`, got a list')
  })

  it('rouge-n takes one reference, not a list of them', () => {
    expect(validateAssertion({ type: 'rouge-n', value: ['a'] })).toBe('rouge-n needs the reference text as `value`, got a list')
  })

  it('lists of text, and one text, are fine', () => {
    expect(validateAssertion({ type: 'meteor', value: ['a'] })).toBeUndefined()
    expect(validateAssertion({ type: 'gleu', value: ['a', 'b'] })).toBeUndefined()
    expect(validateAssertion({ type: 'rouge-n', value: 'a' })).toBeUndefined()
  })

  it('a threshold outside [0, 1], or not a number; both ends are allowed', () => {
    expect(validateAssertion({ type: 'bleu', value: 'a', threshold: -0.1 })).toBe('bleu `threshold` must be at least 0, got -0.1')
    expect(validateAssertion({ type: 'rouge-n', value: 'a', threshold: 1.5 })).toBe('rouge-n `threshold` must be at most 1, got 1.5')
    expect(validateAssertion({ type: 'gleu', value: 'a', threshold: '0.5' } as unknown as Assertion)).toBe(
      'gleu `threshold` must be a number, got the string "0.5"'
    )
    expect(validateAssertion({ type: 'meteor', value: 'a', threshold: 0 })).toBeUndefined()
    expect(validateAssertion({ type: 'meteor', value: 'a', threshold: 1 })).toBeUndefined()
  })

  it('the reference is checked before the threshold', () => {
    expect(validateAssertion({ type: 'bleu', value: 3, threshold: 2 })).toBe('bleu needs the reference text, or a list of references, as `value`, got number 3')
  })
})
