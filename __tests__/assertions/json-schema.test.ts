/**
 * The JSON Schema layer under is-json and contains-json (src/assertions/json-schema.ts):
 * reading and compiling schemas, the drafts, the errors shown, and the rounds of
 * pattern tests a backtracking `pattern` takes through the sandbox.
 */
import { describe, expect, it, jest } from '@jest/globals'
import { answeringPatterns, compileSchema, readSchema, sandboxTester, schemaErrors, schemaProblem, type PatternTest } from '../../src/assertions/json-schema.js'
import { validateAssertion } from '../../src/assertions/index.js'
import { grade } from './helpers.js'

/** A pattern with a quantified group: never tested in-process, whatever the text. */
const BACKTRACKING = '^(a+)+$'

/** Answers pattern tests as the sandbox would, recording each round it is asked. */
function recordingTester(): { tester: (tests: PatternTest[]) => Promise<boolean[]>; rounds: PatternTest[][] } {
  const rounds: PatternTest[][] = []
  return {
    rounds,
    tester: (tests) => {
      rounds.push(tests)
      return Promise.resolve(tests.map((t) => new RegExp(t.source, t.flags).test(t.text)))
    }
  }
}

// First in the file: the draft-07 validator is made (and kept) by the first schema compiled, so the
// test that makes it is the one that must see how it is configured.
describe('the draft-07 validator, as it is made', () => {
  it('reports every error, ignores later drafts’ keywords, keeps no $id, and tests patterns through stand-ins', () => {
    const schema = {
      $id: 'https://example.com/first',
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      dependentRequired: { a: ['z'] }
    }
    expect(schemaErrors(schema, { a: 1, b: 2 })).toBe('/a must be string; /b must be string')
    expect(schemaErrors({ $id: 'https://example.com/first', type: 'number' }, 'x')).toBe('(root) must be number')
    const validate = compileSchema({ type: 'string', pattern: '^(e+)+f$' })
    expect(() => validate('eef')).toThrow('pattern /^(e+)+f$/ tested outside a sandboxed validation')
  })
})

describe('readSchema', () => {
  it('reads text as YAML (JSON included), and keeps a mapping or boolean as written', () => {
    expect(readSchema('type: object\nrequired: [a]')).toEqual({ type: 'object', required: ['a'] })
    expect(readSchema('{"type": "array"}')).toEqual({ type: 'array' })
    const mapping = { type: 'string' }
    expect(readSchema(mapping)).toBe(mapping)
    expect(readSchema(false)).toBe(false)
  })

  it('parses the same text once: the same schema object comes back', () => {
    const text = 'type: object\nproperties: {once: {type: string}}'
    expect(readSchema(text)).toBe(readSchema(text))
  })
})

describe('schemaProblem', () => {
  it('accepts mappings, booleans and their YAML text', () => {
    for (const value of [{ type: 'object' }, true, false, 'type: string', 'true', { $async: false, type: 'object' }]) {
      expect([value, schemaProblem(value)]).toEqual([value, undefined])
    }
  })

  it('names text that is neither YAML nor JSON', () => {
    expect(schemaProblem('type: [')).toMatch(/^its text is neither YAML nor JSON: \S/)
  })

  it('refuses what is not a mapping or a boolean, saying when it was read from text', () => {
    const problem = 'a JSON Schema must be a mapping such as {type: object, required: [name]}, or true/false'
    expect(schemaProblem(null)).toBe(problem)
    expect(schemaProblem(5)).toBe(problem)
    expect(schemaProblem([{ type: 'object' }])).toBe(problem)
    expect(schemaProblem(undefined)).toBe(problem)
    expect(schemaProblem('just words')).toBe(`${problem} (the text read as YAML)`)
    expect(schemaProblem('- type: object')).toBe(`${problem} (the text read as YAML)`)
    expect(schemaProblem('null')).toBe(`${problem} (the text read as YAML)`)
  })

  it('refuses an async schema, whose promise would read as a pass', () => {
    expect(schemaProblem({ $async: true, type: 'object' })).toBe('$async schemas are not supported')
    expect(schemaProblem('$async: true')).toBe('$async schemas are not supported')
  })

  it('reports what compiling found wrong, a bad pattern included', () => {
    expect(schemaProblem({ type: 'objekt' })).toMatch(/^schema is invalid: data\/type must be equal to one of the allowed values/)
    expect(schemaProblem({ type: 'string', pattern: '(' })).toBe('Invalid regular expression: /(/u: Unterminated group')
  })

  it('is the problem validation reports, prefixed with the assertion', () => {
    expect(validateAssertion({ type: 'is-json', value: { $async: true } })).toBe(
      'is-json `value` is not a usable JSON Schema: $async schemas are not supported'
    )
  })

  it('lets unknown keywords and formats by, without a warning', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined)
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined)
    try {
      expect(schemaProblem({ type: 'string', format: 'no-such-format', 'x-note': 1 })).toBeUndefined()
      expect(warn).not.toHaveBeenCalled()
      expect(log).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
      log.mockRestore()
    }
  })
})

describe('compileSchema', () => {
  it('compiles a schema object, and a boolean, once', () => {
    const schema = { type: 'object', properties: { cached: { type: 'number' } } }
    expect(compileSchema(schema)).toBe(compileSchema(schema))
    expect(compileSchema(true)).toBe(compileSchema(true))
    expect(compileSchema(false)).toBe(compileSchema(false))
    expect(compileSchema(true)).not.toBe(compileSchema(false))
    expect(compileSchema(true)(1)).toBe(true)
    expect(compileSchema(false)(1)).toBe(false)
  })

  it('compiles schemas with the same $id side by side', () => {
    const a = compileSchema({ $id: 'https://example.com/twice', type: 'string' })
    const b = compileSchema({ $id: 'https://example.com/twice', type: 'number' })
    expect([a('x'), b('x'), b(1)]).toEqual([true, false, true])
  })
})

describe('schemaErrors: drafts', () => {
  it('draft 2020-12 reads prefixItems', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'number' }] }
    expect(schemaErrors(schema, ['x'])).toBe('/0 must be number')
    expect(schemaErrors(schema, [1, 'x'])).toBeUndefined()
  })

  it('draft 2019-09 reads dependentRequired, and not prefixItems', () => {
    const uri = 'https://json-schema.org/draft/2019-09/schema'
    expect(schemaErrors({ $schema: uri, dependentRequired: { a: ['b'] } }, { a: 1 })).toBe('(root) must have property b when property a is present')
    expect(schemaErrors({ $schema: uri, prefixItems: [{ type: 'number' }] }, ['x'])).toBeUndefined()
  })

  it('draft-07 is the default, and ignores the later keywords', () => {
    expect(schemaErrors({ dependentRequired: { a: ['b'] } }, { a: 1 })).toBeUndefined()
    expect(schemaErrors({ $schema: 'http://json-schema.org/draft-07/schema#', dependencies: { a: ['b'] } }, { a: 1 })).toBe(
      '(root) must have property b when property a is present'
    )
    // a $schema that is not a string names no draft, and ajv refuses it
    expect(schemaProblem({ $schema: 2020, type: 'object' })).toBe('$schema must be a string')
  })

  it('checks formats', () => {
    expect(schemaErrors({ type: 'string', format: 'date' }, '2024-02-30')).toBe('(root) must match format "date"')
    expect(schemaErrors({ type: 'string', format: 'date' }, '2024-02-29')).toBeUndefined()
  })
})

describe('schemaErrors: the errors shown', () => {
  const four = {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' } }
  }

  it('shows every error up to three, with their paths', () => {
    expect(schemaErrors(four, { a: 1, b: 2, c: 3 })).toBe('/a must be string; /b must be string; /c must be string')
  })

  it('shows three and counts the rest', () => {
    expect(schemaErrors(four, { a: 1, b: 2, c: 3, d: 4 })).toBe('/a must be string; /b must be string; /c must be string; and 1 more')
    expect(schemaErrors({ ...four, required: ['e', 'f'] }, { a: 1, b: 2, c: 3, d: 4 })).toBe(
      "(root) must have required property 'e'; (root) must have required property 'f'; /a must be string; and 3 more"
    )
  })

  it('names the extra property, and the root when the path is empty', () => {
    expect(schemaErrors({ type: 'object', additionalProperties: false }, { extra: 1 })).toBe('(root) must NOT have additional properties ("extra")')
    expect(schemaErrors({ type: 'object', properties: { o: { additionalProperties: false } } }, { o: { 'x/y': 1 } })).toBe(
      '/o must NOT have additional properties ("x/y")'
    )
    expect(schemaErrors({ type: 'object' }, [])).toBe('(root) must be object')
  })

  it('says nothing of a value that satisfies the schema', () => {
    expect(schemaErrors({ type: 'object', required: ['a'] }, { a: 1 })).toBeUndefined()
  })
})

describe('answeringPatterns', () => {
  it('answers at once, without the tester, when no pattern needs the sandbox', () => {
    const { tester, rounds } = recordingTester()
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^x' } } }
    const answer = answeringPatterns(() => schemaErrors(schema, { a: 'y' }), tester)
    expect(answer).toBe('/a must match pattern "^x"')
    expect(answeringPatterns(() => 7, tester)).toBe(7)
    expect(rounds).toEqual([])
  })

  it('keeps distinct patterns apart', () => {
    const schema = { type: 'object', properties: { a: { pattern: '^x$' }, b: { pattern: '^y$' } } }
    expect(schemaErrors(schema, { a: 'x', b: 'y' })).toBeUndefined()
    expect(schemaErrors(schema, { a: 'y', b: 'x' })).toBe('/a must match pattern "^x$"; /b must match pattern "^y$"')
  })

  it('asks the tester for a backtracking pattern, each text once, then validates with its answers', async () => {
    const { tester, rounds } = recordingTester()
    const schema = { type: 'array', items: { type: 'string', pattern: BACKTRACKING } }
    const answer = answeringPatterns(() => schemaErrors(schema, ['aaa', 'aab', 'aaa']), tester)
    expect(answer).toBeInstanceOf(Promise)
    expect(await answer).toBe(`/1 must match pattern "${BACKTRACKING}"`)
    expect(rounds).toEqual([
      [
        { source: BACKTRACKING, flags: 'u', text: 'aaa' },
        { source: BACKTRACKING, flags: 'u', text: 'aab' }
      ]
    ])
  })

  it('answers from the tester alone: a pattern the tester says matches, matches', async () => {
    const schema = { type: 'string', pattern: BACKTRACKING }
    const yes = (tests: PatternTest[]) => Promise.resolve(tests.map(() => true))
    const no = (tests: PatternTest[]) => Promise.resolve(tests.map(() => false))
    expect(await answeringPatterns(() => schemaErrors(schema, 'bbb'), yes)).toBeUndefined()
    expect(await answeringPatterns(() => schemaErrors(schema, 'aaa'), no)).toBe(`(root) must match pattern "${BACKTRACKING}"`)
  })

  it('an unanswered test reads as a match, so the tests it guards are asked in the same round', async () => {
    const { tester, rounds } = recordingTester()
    const schema = { if: { pattern: BACKTRACKING }, then: { pattern: '^(b|bb)+c$' } }
    expect(await answeringPatterns(() => schemaErrors(schema, 'aa'), tester)).toBe('(root) must match pattern "^(b|bb)+c$"; (root) must match "then" schema')
    expect(rounds).toHaveLength(1)
    expect(rounds[0]!.map((t) => t.source)).toEqual([BACKTRACKING, '^(b|bb)+c$'])
  })

  it('takes another round for tests that only the answers reveal', async () => {
    const { tester, rounds } = recordingTester()
    // the second text is looked at only once the first is known not to match
    const validate = () => {
      const first = schemaErrors({ pattern: BACKTRACKING }, 'b') !== undefined
      return first ? schemaErrors({ pattern: BACKTRACKING }, 'aa') : 'unreached'
    }
    expect(await answeringPatterns(validate, tester)).toBeUndefined()
    expect(rounds.map((r) => r.map((t) => t.text))).toEqual([['b'], ['aa']])
  })

  it('gives up after 20 rounds that each ask something new', async () => {
    let n = 0
    let calls = 0
    const tester = (tests: PatternTest[]) => {
      calls++
      return Promise.resolve(tests.map(() => true))
    }
    const schema = { pattern: BACKTRACKING }
    await expect(answeringPatterns(() => schemaErrors(schema, `a${'a'.repeat(n++)}`), tester)).rejects.toThrow(
      'the schema needed more than 20 rounds of pattern tests'
    )
    expect(calls).toBe(20)
  })

  it('a stand-in tested outside a validation refuses, and so does one after a validation that threw', () => {
    const validate = compileSchema({ type: 'string', pattern: '^(c+)+d$' })
    expect(() => validate('ccd')).toThrow('pattern /^(c+)+d$/ tested outside a sandboxed validation')
    const { tester } = recordingTester()
    expect(() =>
      answeringPatterns(() => {
        throw new Error('boom')
      }, tester)
    ).toThrow('boom')
    expect(() => validate('ccd')).toThrow('tested outside a sandboxed validation')
    void answeringPatterns(() => validate('ccd'), tester)
    expect(() => validate('ccd')).toThrow('tested outside a sandboxed validation')
  })
})

describe('sandboxTester', () => {
  it('answers pattern tests in the sandbox, in order', async () => {
    const tester = sandboxTester(10_000)
    expect(
      await tester([
        { source: BACKTRACKING, flags: 'u', text: 'aaa' },
        { source: BACKTRACKING, flags: 'u', text: 'aab' },
        { source: '^A', flags: 'i', text: 'abc' }
      ])
    ).toEqual([true, false, true])
  })

  it('fails the validation when a test runs past the deadline, naming the pattern', async () => {
    const tester = sandboxTester(300)
    await expect(tester([{ source: BACKTRACKING, flags: 'u', text: `${'a'.repeat(40)}b` }])).rejects.toThrow(
      `pattern /${BACKTRACKING}/ did not finish within checkTimeoutMs (300 ms)`
    )
  })

  it('grades is-json through the sandbox', async () => {
    const value = { type: 'object', properties: { name: { type: 'string', pattern: BACKTRACKING } } }
    expect(await grade({ type: 'is-json', value }, '{"name": "aaaa"}')).toMatchObject({ passed: true })
    expect((await grade({ type: 'is-json', value }, '{"name": "aaab"}')).reason).toContain(`/name must match pattern "${BACKTRACKING}"`)
  })
})
