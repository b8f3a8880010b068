/**
 * word-count (SPEC §11): the edges word-count.test.ts leaves open — the
 * bounds at 0, counts written as text with other characters around them,
 * mappings with other keys or with bounds that are not counts, and not-.
 */
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

const problem = (got: string) =>
  `word-count needs a \`value\`: a word count such as 50, or {min: 20, max: 50} (either bound alone works, min ≤ max), got ${got}`

const refused = (value: unknown) => validateAssertion({ type: 'word-count', value } as Assertion)

describe('word-count values', () => {
  it('a count written as text must be digits alone, blanks around them allowed', () => {
    expect(refused('12')).toBeUndefined()
    expect(refused('\t12\n')).toBeUndefined()
    expect(refused('x 12')).toBe(problem('the string "x 12"'))
    expect(refused('12 x')).toBe(problem('the string "12 x"'))
    expect(refused('1 2')).toBe(problem('the string "1 2"'))
    expect(refused('')).toBe(problem('the string ""'))
    expect(refused('-3')).toBe(problem('the string "-3"'))
  })

  it('a count written as text counts as that number', async () => {
    expect(await grade({ type: 'word-count', value: '12' }, 'w '.repeat(12))).toMatchObject({
      passed: true,
      reason: 'output is exactly 12 words long (12 words)'
    })
    expect(await grade({ type: 'word-count', value: '0' }, '')).toMatchObject({ passed: true, reason: 'output is exactly 0 words long (0 words)' })
  })

  it('bounds of 0 are counts', async () => {
    expect(refused({ min: 0 })).toBeUndefined()
    expect(refused({ max: 0 })).toBeUndefined()
    expect(await grade({ type: 'word-count', value: { max: 0 } }, ' ')).toMatchObject({ passed: true, reason: 'output is at most 0 words long (0 words)' })
    expect(await grade({ type: 'word-count', value: { min: 0, max: 1 } }, 'a')).toMatchObject({
      passed: true,
      reason: 'output is between 0 and 1 words long (1 words)'
    })
  })

  it('a mapping with any other key, or with neither bound, is refused', () => {
    expect(refused({ min: 1, max: 3, exactly: 2 })).toBe(problem('a mapping'))
    expect(refused({ count: 2 })).toBe(problem('a mapping'))
    expect(refused({ min: undefined, max: undefined })).toBe(problem('a mapping'))
  })

  it('each bound alone must be a count', () => {
    expect(refused({ min: 1, max: -1 })).toBe(problem('a mapping'))
    expect(refused({ min: null })).toBe(problem('a mapping'))
    expect(refused({ max: '3' })).toBe(problem('a mapping'))
    expect(refused({ max: 3, min: 2.5 })).toBe(problem('a mapping'))
  })

  it('min above max is refused; equal is fine', () => {
    expect(refused({ min: 4, max: 3 })).toBe(problem('a mapping'))
    expect(refused({ min: 3, max: 3 })).toBeUndefined()
  })

  it('a count must be a whole number of at least 0', () => {
    expect(refused(-1)).toBe(problem('number -1'))
    expect(refused(Number.NaN)).toBe(problem('number NaN'))
    expect(refused(Infinity)).toBe(problem('number Infinity'))
    expect(refused(1)).toBeUndefined()
  })
})

describe('word-count grading', () => {
  it('words are what whitespace separates: punctuation is part of a word', async () => {
    expect(await grade({ type: 'word-count', value: 3 }, 'Hello, world! Bye.')).toMatchObject({
      passed: true,
      reason: 'output is exactly 3 words long (3 words)'
    })
  })

  it('inside bounds on both sides, and just past each', async () => {
    const value = { min: 2, max: 4 }
    expect((await grade({ type: 'word-count', value }, 'a b c')).passed).toBe(true)
    expect((await grade({ type: 'word-count', value }, 'a b c d')).passed).toBe(true)
    expect((await grade({ type: 'word-count', value }, 'a')).passed).toBe(false)
    expect((await grade({ type: 'word-count', value }, 'a b c d e')).passed).toBe(false)
  })

  it('not- passes outside the bounds and fails inside them, with the whole reason', async () => {
    expect(await grade({ type: 'not-word-count', value: 2 }, 'a b c')).toMatchObject({
      passed: true,
      score: 1,
      reason: 'output is not exactly 2 words long (3 words)'
    })
    expect(await grade({ type: 'not-word-count', value: { min: 1 } }, 'a b')).toMatchObject({
      passed: false,
      score: 0,
      reason: 'expected output not to be at least 1 words long (2 words), got: "a b"'
    })
  })
})
