/**
 * The value readers of src/assertions/values.ts, called directly: each config
 * message word for word, and how a comma-separated value splits into terms.
 */
import { describe, expect, it } from '@jest/globals'
import { firstProblem, kindOf, numberOptionProblem, terms, termsProblem, textValueProblem } from '../../src/assertions/values.js'
import type { Assertion } from '../../src/types.js'

const contains = (value: unknown): Assertion => ({ type: 'contains', value }) as Assertion

describe('textValueProblem', () => {
  it('needs a value', () => {
    expect(textValueProblem({ type: 'contains' }, { nonEmpty: false })).toBe('contains needs a `value`')
    expect(textValueProblem(contains(null), { nonEmpty: false })).toBe('contains needs a `value`')
  })

  it('takes a string, a number or a boolean, as YAML may hand them over', () => {
    expect(textValueProblem(contains('x'), { nonEmpty: true })).toBeUndefined()
    expect(textValueProblem(contains(4), { nonEmpty: true })).toBeUndefined()
    expect(textValueProblem(contains(false), { nonEmpty: true })).toBeUndefined()
  })

  it('names what it got instead of text', () => {
    expect(textValueProblem(contains({ a: 1 }), { nonEmpty: false })).toBe('contains needs a string `value`, got a mapping')
    expect(textValueProblem(contains(['a']), { nonEmpty: false })).toBe('contains needs a string `value`, got a list')
  })

  it('refuses an empty value only where it asks for a non-empty one', () => {
    expect(textValueProblem(contains(''), { nonEmpty: true })).toBe('contains has an empty `value`, which every output would satisfy')
    expect(textValueProblem(contains(''), { nonEmpty: false })).toBeUndefined()
  })
})

describe('terms', () => {
  it('keeps a list as written, each term as text', () => {
    expect(terms(['a, b', 1, true])).toEqual(['a, b', '1', 'true'])
  })

  it('splits a string at commas, trims the terms and drops empty ones', () => {
    expect(terms('a, b ,c')).toEqual(['a', 'b', 'c'])
    expect(terms('  red green  ')).toEqual(['red green'])
    expect(terms('a,, b, ,')).toEqual(['a', 'b'])
    expect(terms('')).toEqual([])
    expect(terms(42)).toEqual(['42'])
  })

  it('reads a quoted term as one term without its quotes, commas and blanks kept', () => {
    expect(terms('"Sorry, I can\'t", "As an AI"')).toEqual(["Sorry, I can't", 'As an AI'])
    expect(terms('" spaced "')).toEqual([' spaced '])
    expect(terms('\t"a" ,b')).toEqual(['a', 'b'])
    expect(terms('x, "y"')).toEqual(['x', 'y'])
    expect(terms('"y"  ')).toEqual(['y'])
  })

  it('keeps a quoted empty term, since someone wrote it', () => {
    expect(terms('""')).toEqual([''])
    expect(terms('a, ""')).toEqual(['a', ''])
  })

  it('reads "" and \\" as a quote and \\\\ as a backslash inside quotes; any other backslash stays', () => {
    expect(terms('"a""b"')).toEqual(['a"b'])
    expect(terms('"say \\"hi\\""')).toEqual(['say "hi"'])
    expect(terms('"back\\\\slash"')).toEqual(['back\\slash'])
    expect(terms('"C:\\dir"')).toEqual(['C:\\dir'])
    expect(terms('"end\\\\"')).toEqual(['end\\'])
  })

  it('throws on an unterminated quote or text after a closing quote', () => {
    expect(() => terms('"abc')).toThrow('unterminated quoted term starting at character 1')
    expect(() => terms('a,  "abc')).toThrow('unterminated quoted term starting at character 5')
    expect(() => terms('"a\\"')).toThrow('unterminated quoted term starting at character 1')
    expect(() => terms('"a"b')).toThrow('expected a comma after the quoted term "a"')
    expect(() => terms('"a" b, c')).toThrow('expected a comma after the quoted term "a"')
  })
})

describe('termsProblem', () => {
  it('needs a value, and says what it may be', () => {
    expect(termsProblem({ type: 'contains-all' })).toBe('contains-all needs a `value`: a list of terms or a comma-separated string')
    expect(termsProblem({ type: 'contains-any', value: null } as unknown as Assertion)).toBe(
      'contains-any needs a `value`: a list of terms or a comma-separated string'
    )
  })

  it('takes a list of scalars, or a string or number to split', () => {
    expect(termsProblem({ type: 'contains-any', value: ['a', 2, false] })).toBeUndefined()
    expect(termsProblem({ type: 'contains-any', value: 'a, b' })).toBeUndefined()
    expect(termsProblem({ type: 'contains-any', value: 7 })).toBeUndefined()
  })

  it('refuses a term that is not text, naming its kind', () => {
    expect(termsProblem({ type: 'contains-all', value: ['a', ['b']] })).toBe('contains-all terms must be strings, got a list')
    expect(termsProblem({ type: 'contains-all', value: ['a', null] } as unknown as Assertion)).toBe('contains-all terms must be strings, got null')
  })

  it('refuses an empty term in a list', () => {
    expect(termsProblem({ type: 'icontains-all', value: ['a', ''] })).toBe('icontains-all has an empty term, which every output would contain')
  })

  it('refuses a value that is neither a list nor a scalar', () => {
    expect(termsProblem({ type: 'contains-any', value: { a: 1 } })).toBe('contains-any needs a list of terms or a comma-separated string, got a mapping')
  })

  it('needs at least one term', () => {
    expect(termsProblem({ type: 'contains-all', value: [] })).toBe('contains-all needs at least one term in `value`')
    expect(termsProblem({ type: 'contains-all', value: ' , ' })).toBe('contains-all needs at least one term in `value`')
  })

  it('turns a syntax error into a message that names the fix', () => {
    expect(termsProblem({ type: 'contains-any', value: '"a, b' })).toBe(
      'contains-any `value` "\\"a, b": unterminated quoted term starting at character 1; quote a term that holds commas as "like, this", or write the terms as a list'
    )
    expect(termsProblem({ type: 'contains-any', value: `"a"b ${'x'.repeat(80)}` })).toBe(
      `contains-any \`value\` ${JSON.stringify(`"a"b ${'x'.repeat(55)}…`)}: expected a comma after the quoted term "a"; quote a term that holds commas as "like, this", or write the terms as a list`
    )
  })
})

describe('numberOptionProblem', () => {
  const a = (threshold: unknown): Assertion => ({ type: 'levenshtein', value: 'x', threshold }) as Assertion

  it('lets an absent option be', () => {
    expect(numberOptionProblem({ type: 'levenshtein', value: 'x' }, 'threshold', { min: 0, max: 1 })).toBeUndefined()
  })

  it('needs a finite number', () => {
    expect(numberOptionProblem(a('3'), 'threshold')).toBe('levenshtein `threshold` must be a number, got the string "3"')
    expect(numberOptionProblem(a(Number.NaN), 'threshold')).toBe('levenshtein `threshold` must be a number, got number NaN')
    expect(numberOptionProblem(a(Number.POSITIVE_INFINITY), 'threshold')).toBe('levenshtein `threshold` must be a number, got number Infinity')
    expect(numberOptionProblem(a(null), 'threshold')).toBe('levenshtein `threshold` must be a number, got null')
  })

  it('holds it to the range, both ends included', () => {
    expect(numberOptionProblem(a(-0.5), 'threshold', { min: 0, max: 1 })).toBe('levenshtein `threshold` must be at least 0, got -0.5')
    expect(numberOptionProblem(a(1.5), 'threshold', { min: 0, max: 1 })).toBe('levenshtein `threshold` must be at most 1, got 1.5')
    expect(numberOptionProblem(a(0), 'threshold', { min: 0, max: 1 })).toBeUndefined()
    expect(numberOptionProblem(a(1), 'threshold', { min: 0, max: 1 })).toBeUndefined()
    expect(numberOptionProblem(a(0.5), 'threshold', { min: 0, max: 1 })).toBeUndefined()
  })

  it('checks only the ends it is given', () => {
    expect(numberOptionProblem(a(-100), 'threshold')).toBeUndefined()
    expect(numberOptionProblem(a(100), 'threshold', { min: 0 })).toBeUndefined()
    expect(numberOptionProblem(a(-100), 'threshold', { max: 1 })).toBeUndefined()
  })
})

describe('kindOf', () => {
  it('names each kind of value', () => {
    expect(kindOf(null)).toBe('null')
    expect(kindOf([1])).toBe('a list')
    expect(kindOf({})).toBe('a mapping')
    expect(kindOf(() => 1)).toBe('a function')
    expect(kindOf('abc')).toBe('the string "abc"')
    expect(kindOf(42)).toBe('number 42')
    expect(kindOf(true)).toBe('boolean true')
    expect(kindOf(undefined)).toBe('undefined undefined')
  })

  it('shows at most 60 characters of a string', () => {
    expect(kindOf('y'.repeat(61))).toBe(`the string "${'y'.repeat(60)}…"`)
    expect(kindOf('y'.repeat(60))).toBe(`the string "${'y'.repeat(60)}"`)
  })
})

describe('firstProblem', () => {
  it('returns the first problem, without running the checks after it', () => {
    const ran: string[] = []
    const check = (name: string, problem?: string) => () => {
      ran.push(name)
      return problem
    }
    expect(firstProblem(check('a'), check('b', 'b is wrong'), check('c', 'c is wrong'))).toBe('b is wrong')
    expect(ran).toEqual(['a', 'b'])
  })

  it('returns undefined when every check passes, or there are none', () => {
    expect(
      firstProblem(
        () => undefined,
        () => undefined
      )
    ).toBeUndefined()
    expect(firstProblem()).toBeUndefined()
  })
})
