import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

// Cases that pin down what mutation testing found loose in the text checks.
describe('iequals keeps one space where whitespace was', () => {
  it.each([
    ['hello', 'hel lo', false],
    ['hel lo', 'hello', false],
    ['hel  lo', 'HEL\tLO', true],
    ['a b', 'a  b', true]
  ])('%p against output %p passes: %p', async (value, output, pass) => {
    expect((await grade({ type: 'iequals', value }, output)).passed).toBe(pass)
  })
})

describe('validators reject an empty target', () => {
  it.each<[Assertion, boolean]>([
    [{ type: 'regex', value: '' }, true],
    [{ type: 'regex', value: 'a' }, false],
    [{ type: 'starts-with', value: '' }, true],
    [{ type: 'starts-with', value: 'A' }, false],
    [{ type: 'levenshtein', value: 5 }, true],
    [{ type: 'levenshtein', value: 'kitten' }, false]
  ])('%p has a problem: %p', (a, problem) => {
    expect(validateAssertion(a) !== undefined).toBe(problem)
  })
})
