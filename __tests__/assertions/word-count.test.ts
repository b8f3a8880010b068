/** word-count: exact counts and bounds, what counts as a word, and the values it refuses. */
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

const problem = (got: string) =>
  `word-count needs a \`value\`: a word count such as 50, or {min: 20, max: 50} (either bound alone works, min ≤ max), got ${got}`

describe('word-count', () => {
  it.each<[Assertion['value'], string, boolean, string]>([
    [3, 'one two three', true, 'output is exactly 3 words long (3 words)'],
    [3, 'one two', false, 'expected output to be exactly 3 words long (2 words), got: "one two"'],
    // a count written as text, blanks around it allowed
    [' 3 ', 'one two three', true, 'output is exactly 3 words long (3 words)'],
    // any run of whitespace separates two words; leading and trailing blanks are none
    [2, '  one \n\t two  ', true, 'output is exactly 2 words long (2 words)'],
    [0, '   ', true, 'output is exactly 0 words long (0 words)'],
    [1, '', false, 'expected output to be exactly 1 words long (0 words), got: ""'],
    // each bound is inclusive
    [{ min: 2 }, 'a b', true, 'output is at least 2 words long (2 words)'],
    [{ min: 2 }, 'a', false, 'expected output to be at least 2 words long (1 words), got: "a"'],
    [{ max: 3 }, 'a b c', true, 'output is at most 3 words long (3 words)'],
    [{ max: 3 }, 'a b c d', false, 'expected output to be at most 3 words long (4 words), got: "a b c d"'],
    [{ min: 2, max: 3 }, 'a b', true, 'output is between 2 and 3 words long (2 words)'],
    [{ min: 2, max: 3 }, 'a b c d', false, 'expected output to be between 2 and 3 words long (4 words), got: "a b c d"'],
    [{ min: 2, max: 2 }, 'a b', true, 'output is exactly 2 words long (2 words)']
  ])('%p on %p passes: %p', async (value, output, passed, reason) => {
    expect(await grade({ type: 'word-count', value }, output)).toMatchObject({ passed, score: passed ? 1 : 0, reason })
  })

  it('negates', async () => {
    expect((await grade({ type: 'not-word-count', value: { max: 3 } }, 'a b c d')).passed).toBe(true)
    expect((await grade({ type: 'not-word-count', value: { max: 3 } }, 'a b c')).passed).toBe(false)
  })

  it.each<[unknown, string | undefined]>([
    [0, undefined],
    ['12', undefined],
    [{ min: 0, max: 0 }, undefined],
    [2.5, problem('number 2.5')],
    ['2.5', problem('the string "2.5"')],
    ['two', problem('the string "two"')],
    // digits only: Number() would read these as 1000 and 16
    ['1e3', problem('the string "1e3"')],
    ['0x10', problem('the string "0x10"')],
    [true, problem('boolean true')],
    [null, problem('null')],
    [[1, 2], problem('a list')],
    // a list of one count is still a list, though it reads as "7"
    [[7], problem('a list')],
    [undefined, problem('none')],
    [{}, problem('a mapping')],
    [{ min: 3, max: 2 }, problem('a mapping')],
    [{ min: -1 }, problem('a mapping')],
    [{ max: 1.5 }, problem('a mapping')],
    [{ min: '2' }, problem('a mapping')]
  ])('value %p → %p', (value, expected) => {
    expect(validateAssertion({ type: 'word-count', value } as Assertion)).toBe(expected)
  })
})
