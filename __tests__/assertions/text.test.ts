import { describe, expect, it } from '@jest/globals'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'
import { validateAssertion } from '../../src/assertions/index.js'

type Row = [name: string, assertion: Assertion, output: string]

const passing: Row[] = [
  ['equals trims both sides', { type: 'equals', value: ' Dublin ' }, '  Dublin\n'],
  ['equals reads a number value as text', { type: 'equals', value: 4 }, '4'],
  ['exact_match is equals', { type: 'exact_match', value: 'Paris' }, 'Paris\n'],
  ['iequals ignores case and whitespace runs', { type: 'iequals', value: 'hello   world' }, 'Hello\n World '],
  ['contains', { type: 'contains', value: 'Dublin' }, 'The capital is Dublin.'],
  ['icontains', { type: 'icontains', value: 'dublin' }, 'DUBLIN!'],
  ['contains-all with a list', { type: 'contains-all', value: ['a', 'b'] }, 'b and a'],
  ['contains-all with a comma-separated string', { type: 'contains-all', value: 'red, green' }, 'green then red'],
  ['contains-all keeps commas inside list terms', { type: 'contains-all', value: ['1,000'] }, 'about 1,000 items'],
  ['icontains-all', { type: 'icontains-all', value: 'RED,green' }, 'Green RED'],
  ['contains-any', { type: 'contains-any', value: ['Rome', 'Paris'] }, 'Paris'],
  ['icontains-any', { type: 'icontains-any', value: 'paris, rome' }, 'ROME'],
  ['contains-any with a quoted term holding a comma', { type: 'contains-any', value: '"hello, world", universe' }, 'she said hello, world'],
  ['contains-all with doubled and escaped quotes', { type: 'contains-all', value: '"a""b", "say \\"hi\\""' }, 'a"b, then say "hi"'],
  ['starts-with trims the output', { type: 'starts-with', value: 'Answer:' }, '  Answer: 4'],
  ['regex', { type: 'regex', value: '^\\d+$' }, '1234'],
  ['regex with flags', { type: 'regex', value: 'hello', flags: 'i' }, 'HELLO there'],
  ['regex with the g flag twice in a row is not stateful', { type: 'regex', value: 'a', flags: 'g' }, 'a'],
  ['levenshtein within the default 5', { type: 'levenshtein', value: 'kitten' }, 'sitting'],
  ['levenshtein with a threshold', { type: 'levenshtein', value: 'colour', threshold: 1 }, 'color']
]

/** [name, assertion, output, a fragment the reason must contain besides the output excerpt] */
const failing: Array<[...Row, string]> = [
  ['equals', { type: 'equals', value: 'Dublin' }, 'Dublin city', 'expected output to equal "Dublin"'],
  ['exact_match', { type: 'exact_match', value: '4' }, '5', 'expected output to equal "4"'],
  ['iequals', { type: 'iequals', value: 'hello world' }, 'hello, world', '"hello world", ignoring case and whitespace'],
  ['contains', { type: 'contains', value: 'Dublin' }, 'The capital is Cork', 'expected output to contain "Dublin"'],
  ['contains is case-sensitive', { type: 'contains', value: 'dublin' }, 'Dublin', 'expected output to contain "dublin"'],
  ['icontains', { type: 'icontains', value: 'Dublin' }, 'Cork', '"Dublin", ignoring case'],
  ['contains-all names what is missing', { type: 'contains-all', value: ['a', 'b', 'c'] }, 'only a here', 'missing "b", "c"'],
  ['icontains-all', { type: 'icontains-all', value: 'x, y' }, 'X alone', 'missing "y"'],
  ['contains-any', { type: 'contains-any', value: ['Rome', 'Paris'] }, 'Berlin', 'any of ["Rome","Paris"]'],
  ['icontains-any', { type: 'icontains-any', value: ['rome'] }, 'Berlin', 'any of ["rome"], ignoring case'],
  ['starts-with', { type: 'starts-with', value: 'Answer:' }, 'The answer: 4', 'expected output to start with "Answer:"'],
  ['regex', { type: 'regex', value: '^\\d+$' }, '12a', 'expected output to match /^\\d+$/'],
  ['levenshtein', { type: 'levenshtein', value: 'kitten' }, 'a completely different sentence', 'within edit distance 5 of "kitten" (distance at least'],
  ['levenshtein with a threshold', { type: 'levenshtein', value: 'colour', threshold: 0 }, 'colous', '(distance 1)']
]

describe('text assertions', () => {
  it.each(passing)('%s passes', async (_name, assertion, output) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ type: assertion.type, passed: true, score: 1 })
    expect(result.reason).toMatch(/^output /)
  })

  it.each(failing)('%s fails with a reason', async (_name, assertion, output, fragment) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toContain(fragment)
    expect(result.reason).toContain(`got: ${JSON.stringify(output)}`)
  })

  it('words the reason as the spec shows', async () => {
    const result = await grade({ type: 'contains', value: 'Dublin' }, 'The capital is Cork')
    expect(result.reason).toBe('expected output to contain "Dublin", got: "The capital is Cork"')
  })

  it('says which term matched and what a regex matched', async () => {
    expect((await grade({ type: 'contains-any', value: 'Rome, Paris' }, 'Paris')).reason).toContain('found "Paris"')
    expect((await grade({ type: 'regex', value: '\\d+' }, 'call 555 now')).reason).toContain('matched "555"')
  })

  it('shortens long outputs in the reason and keeps whitespace visible', async () => {
    const output = `line one\n${'x'.repeat(500)}`
    const { reason } = await grade({ type: 'contains', value: 'Dublin' }, output)
    expect(reason).toContain('got: "line one\\nxxx')
    expect(reason).toContain('…"')
    expect(reason.length).toBeLessThan(300)
  })
})

describe('not- text assertions', () => {
  it.each<[Assertion, string, boolean, string]>([
    [{ type: 'not-contains', value: 'as an AI' }, 'Dublin', true, 'output does not contain "as an AI"'],
    [{ type: 'not-contains', value: 'x' }, 'a x b', false, 'expected output not to contain "x", got: "a x b"'],
    [
      { type: 'not-icontains', value: 'as an ai language model' },
      'As an AI language model, I…',
      false,
      'expected output not to contain "as an ai language model", ignoring case'
    ],
    [{ type: 'not-equals', value: 'a' }, 'b', true, 'output does not equal "a"'],
    [{ type: 'not-starts-with', value: 'Sorry' }, 'Sorry, no', false, 'expected output not to start with "Sorry"'],
    [{ type: 'not-regex', value: 'error', flags: 'i' }, 'all good', true, 'output does not match /error/i'],
    [{ type: 'not-contains-any', value: ['foo', 'bar'] }, 'a bar', false, 'found "bar"'],
    // the guard of issue 14: a quoted term with a comma inside is one term, without its quotes
    [{ type: 'not-contains-any', value: '"Sorry, I can\'t", "As an AI"' }, "Sorry, I can't help with that", false, 'found "Sorry, I can\'t"'],
    [{ type: 'not-contains-all', value: ['foo', 'bar'] }, 'a bar', true, 'missing "foo"'],
    [{ type: 'not-levenshtein', value: 'abc', threshold: 1 }, 'xyz', true, 'output is not within edit distance 1 of "abc"']
  ])('%o on %j → passed %s', async (assertion, output, passed, reason) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ type: assertion.type, passed, score: passed ? 1 : 0 })
    expect(result.reason).toContain(reason)
  })
})

// The text checks' edges: whitespace runs, empty targets and the reasons' wording.
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
