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

describe('what the text checks accept', () => {
  it.each<[Assertion, string | undefined]>([
    // YAML `value: ~` is no value, not the JSON null to compare with
    [{ type: 'equals', value: null } as unknown as Assertion, 'equals needs a `value`'],
    [{ type: 'regex', value: 'a', flags: 1 } as unknown as Assertion, 'regex `flags` must be a string such as "i" or "ms"'],
    // only a leading blank is refused: the output is trimmed before the comparison
    [{ type: 'starts-with', value: 'The answer' }, undefined],
    [{ type: 'levenshtein' } as Assertion, 'levenshtein needs a `value`: the expected text, as a string'],
    [
      { type: 'levenshtein', value: 5 },
      'levenshtein needs the expected text as a string `value`, got number 5; quote it ("5"), and put a maximum distance in `threshold`'
    ]
  ])('%p → %p', (a, problem) => {
    expect(validateAssertion(a)).toBe(problem)
  })
})

describe('the reasons of failed text checks', () => {
  it.each<[Assertion, string, string]>([
    [{ type: 'equals', value: { a: 1 } }, '{"a": 2}', 'expected output to equal the JSON {"a":1} (/a is 2, expected 1), got: "{\\"a\\": 2}"'],
    // equals on JSON is the whole object, not a subset of it
    [
      { type: 'equals', value: { a: 1 } },
      '{"a": 1, "b": 2}',
      'expected output to equal the JSON {"a":1} (/b is not expected), got: "{\\"a\\": 1, \\"b\\": 2}"'
    ],
    [{ type: 'iequals', value: 'Hello' }, 'bye', 'expected output to equal "Hello", ignoring case and whitespace, got: "bye"'],
    [{ type: 'contains-all', value: ['a', 'zz'] }, 'abc', 'expected output to contain all of ["a","zz"] (missing "zz"), got: "abc"'],
    // nothing found: no "found …" detail
    [{ type: 'icontains-any', value: ['Q', 'zz'] }, 'abc', 'expected output to contain any of ["Q","zz"], ignoring case, got: "abc"'],
    // no match: no "matched …" detail
    [{ type: 'regex', value: '^\\d+$' }, 'abc', 'expected output to match /^\\d+$/, got: "abc"'],
    // a pattern is shown up to 120 characters of /source/flags, then cut
    [{ type: 'regex', value: 'x'.repeat(118) }, 'abc', `expected output to match /${'x'.repeat(118)}/, got: "abc"`],
    [{ type: 'regex', value: 'x'.repeat(130) }, 'abc', `expected output to match /${'x'.repeat(119)}…, got: "abc"`]
  ])('%p on %p', async (a, output, reason) => {
    expect(await grade(a, output)).toMatchObject({ passed: false, reason })
  })

  it('levenshtein compares both sides trimmed', async () => {
    expect(await grade({ type: 'levenshtein', value: ' kitten ', threshold: 0 }, '  kitten\n')).toMatchObject({
      passed: true,
      reason: 'output is within edit distance 0 of "kitten" (distance 0)'
    })
  })
})

describe('a pattern that can backtrack is matched in the sandbox, under checkTimeoutMs', () => {
  it('matches there as it would in process', async () => {
    expect(await grade({ type: 'regex', value: '^(a+)+$' }, 'aaaa')).toMatchObject({ passed: true, reason: 'output matches /^(a+)+$/ (matched "aaaa")' })
  })

  it('fails with an error naming the pattern and the limit when it runs past it', async () => {
    // 2^40 ways to split the a's before the "!" rules a match out: no machine finishes within the second
    const reason = 'pattern /^(a+)+$/ did not finish within checkTimeoutMs (1000 ms)'
    const result = await grade({ type: 'not-regex', value: '^(a+)+$' }, `${'a'.repeat(40)}!`, { checkTimeoutMs: 1000 })
    expect(result).toMatchObject({ passed: false, score: 0, reason, error: reason })
  })
})

describe('the i… variants lower-case both sides (promptfoo does): "ß" is not "SS"', () => {
  it.each<[Assertion, string, boolean]>([
    [{ type: 'iequals', value: 'STRASSE' }, 'straße', false],
    [{ type: 'icontains', value: 'STRASSE' }, 'die straße', false],
    [{ type: 'icontains', value: 'Straße' }, 'DIE STRAßE', true]
  ])('%p against output %p passes: %p', async (a, output, pass) => {
    expect((await grade(a, output)).passed).toBe(pass)
  })
})

describe('equals with a mapping or list compares JSON', () => {
  it('passes on the same JSON in another key order, and says so', async () => {
    const r = await grade({ type: 'equals', value: { a: 1, b: [2] } }, '{"b":[2],"a":1}')
    expect([r.passed, r.reason]).toEqual([true, 'output equals the JSON {"a":1,"b":[2]}'])
  })

  it('fails naming the first difference, and on a key the value does not have', async () => {
    const r = await grade({ type: 'equals', value: { a: 1 } }, '{"a":2}')
    expect([r.passed, r.reason]).toEqual([false, 'expected output to equal the JSON {"a":1} (/a is 2, expected 1), got: "{\\"a\\":2}"'])
    expect((await grade({ type: 'equals', value: { a: 1 } }, '{"a":1,"extra":2}')).passed).toBe(false)
  })

  it('fails an output that is not JSON, saying why', async () => {
    const r = await grade({ type: 'equals', value: { a: 1 } }, 'not json')
    expect(r.passed).toBe(false)
    expect(r.reason).toMatch(/^expected output to equal the JSON \{"a":1\} \(not valid JSON: .*\), got: "not json"$/)
  })

  it('under not- fails on the same JSON', async () => {
    const r = await grade({ type: 'not-equals', value: [1, 2] }, '[1,2]')
    expect([r.passed, r.reason]).toEqual([false, 'expected output not to equal the JSON [1,2], got: "[1,2]"'])
  })
})
