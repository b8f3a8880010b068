import { describe, expect, it } from '@jest/globals'
import { parseOutputJson, scanJson } from '../../src/assertions/json-text.js'
import type { Assertion } from '../../src/types.js'
import { grade, parseError } from './helpers.js'
import { validateAssertion } from '../../src/assertions/index.js'
import { jsonDifference } from '../../src/assertions/json.js'

const personSchema = {
  type: 'object',
  required: ['name', 'age'],
  properties: { name: { type: 'string' }, age: { type: 'number' } },
  additionalProperties: false
}

const fenced = 'Here it is:\n```json\n{"name": "Ada", "age": 36}\n```\nAnything else?'

type Row = [name: string, assertion: Assertion, output: string]

const passing: Row[] = [
  ['is-json on an object', { type: 'is-json' }, '{"a": 1}'],
  ['is-json on a scalar', { type: 'is-json' }, ' 42 '],
  ['is-json on a single fenced block', { type: 'is-json' }, fenced],
  ['is-json with a schema', { type: 'is-json', value: personSchema }, '{"name": "Ada", "age": 36}'],
  [
    'is-json with a 2020-12 schema',
    { type: 'is-json', value: { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'number' }] } },
    '[1, "x"]'
  ],
  ['is-json with a schema as YAML text', { type: 'is-json', value: 'type: object\nrequired: [name]' }, '{"name": "Ada"}'],
  ['is-json with the boolean schema true', { type: 'is-json', value: true }, '[1]'],
  ['equals with a mapping ignores key order', { type: 'equals', value: { a: 1, b: [true] } }, '{"b": [true], "a": 1}'],
  ['contains-json in prose', { type: 'contains-json' }, 'The result is {"a": [1, 2]} as asked'],
  ['contains-json skips prose braces and respects strings', { type: 'contains-json' }, 'a { brace } then {"x": "}"}'],
  ['contains-json finds an array', { type: 'contains-json' }, 'list: [1, 2, 3].'],
  [
    'contains-json with a schema takes the first that satisfies it',
    { type: 'contains-json', value: personSchema },
    'first {"a": 1} then {"name": "Ada", "age": 36}'
  ],
  ['contains-json with a schema looks inside an outer object', { type: 'contains-json', value: personSchema }, '{"person": {"name": "Ada", "age": 36}}'],
  ['json_exact ignores key order', { type: 'json_exact', value: '{"a": 1, "b": [1, 2]}' }, '{"b": [1, 2], "a": 1}'],
  ['json_exact with a YAML value', { type: 'json_exact', value: { a: { b: null } } }, '{"a": {"b": null}}'],
  ['json_exact on a fenced block', { type: 'json_exact', value: { name: 'Ada', age: 36 } }, fenced],
  ['json-equals is json_exact', { type: 'json-equals', value: [1, { x: true }] }, '[1, {"x": true}]'],
  ['json-subset allows extra keys', { type: 'json-subset', value: { a: 1, nested: { x: 1 } } }, '{"a": 1, "b": 2, "nested": {"x": 1, "y": 2}}'],
  ['json-subset from a JSON string', { type: 'json-subset', value: '{"ok": true}' }, '{"ok": true, "n": 3}']
]

const failing: Array<[...Row, string]> = [
  ['is-json on prose', { type: 'is-json' }, 'The capital is Cork', 'expected output to be valid JSON (not valid JSON:'],
  ['is-json with two fenced blocks', { type: 'is-json' }, '```\n{}\n```\nand\n```\n[]\n```', '2 fenced code blocks'],
  ['is-json with a broken fenced block', { type: 'is-json' }, '```json\n{"a": }\n```', 'the fenced code block is not valid JSON'],
  ['is-json against a schema names the paths', { type: 'is-json', value: personSchema }, '{"name": 7, "extra": 1}', "(root) must have required property 'age'"],
  ['is-json schema errors carry instance paths', { type: 'is-json', value: personSchema }, '{"name": 7, "age": 1}', '/name must be string'],
  [
    'is-json names the extra property',
    { type: 'is-json', value: personSchema },
    '{"name": "a", "age": 1, "extra": 1}',
    'must NOT have additional properties ("extra")'
  ],
  ['contains-json without any JSON', { type: 'contains-json' }, 'no json here', 'a JSON object or array (none found)'],
  ['contains-json with unbalanced JSON', { type: 'contains-json' }, 'almost {"a": 1', '(none found)'],
  [
    'contains-json against a schema',
    { type: 'contains-json', value: personSchema },
    'got {"name": "Ada"}',
    "first JSON found: (root) must have required property 'age'"
  ],
  ['json_exact names the first difference', { type: 'json_exact', value: '{"a": 1, "b": [1, 2]}' }, '{"a": 1, "b": [1, 3]}', '/b/1 is 3, expected 2'],
  ['json_exact rejects extra keys', { type: 'json_exact', value: { a: 1 } }, '{"a": 1, "c": 2}', '/c is not expected'],
  ['json_exact reports missing keys', { type: 'json_exact', value: { a: 1, b: 2 } }, '{"a": 1}', '/b is missing'],
  ['json_exact compares types', { type: 'json_exact', value: { a: 1 } }, '{"a": "1"}', '/a is "1", expected 1'],
  ['json_exact on prose', { type: 'json_exact', value: { a: 1 } }, 'a is 1', 'not valid JSON'],
  ['json-equals on array length', { type: 'json-equals', value: [1, 2] }, '[1]', '(root) has 1 items, expected 2'],
  ['json-subset needs arrays equal', { type: 'json-subset', value: { list: [1] } }, '{"list": [1, 2]}', '/list has 2 items, expected 1'],
  [
    'json-subset needs objects in arrays equal',
    { type: 'json-subset', value: { list: [{ a: 1 }] } },
    '{"list": [{"a": 1, "b": 2}]}',
    '/list/0/b is not expected'
  ],
  ['json-subset escapes keys as JSON pointers', { type: 'json-subset', value: { 'a/b': 1 } }, '{}', '/a~1b is missing'],
  ['is-json enforces `format`', { type: 'is-json', value: { type: 'string', format: 'email' } }, '"not an email"', 'must match format "email"'],
  [
    'is-json with a YAML-text schema names the paths',
    { type: 'is-json', value: 'type: object\nrequired: [name]' },
    '{"age": 3}',
    "(root) must have required property 'name'"
  ],
  ['is-json with the boolean schema false', { type: 'is-json', value: false }, '{}', 'boolean schema is false'],
  ['equals with a mapping compares the JSON', { type: 'equals', value: { a: 1 } }, '{"a": 2}', '/a is 2, expected 1'],
  ['equals with a mapping on prose', { type: 'equals', value: { a: 1 } }, 'a is 1', 'not valid JSON']
]

describe('json assertions', () => {
  it.each(passing)('%s passes', async (_name, assertion, output) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ passed: true, score: 1 })
  })

  it.each(failing)('%s fails with a reason', async (_name, assertion, output, fragment) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toContain(fragment)
    expect(result.reason).toContain(`got: ${JSON.stringify(output)}`)
  })

  it('says what contains-json found', async () => {
    const result = await grade({ type: 'contains-json' }, 'x {"a": [1]} y')
    expect(result.reason).toBe('output contains a JSON object or array (found {"a":[1]})')
  })

  it.each<[Assertion, string, boolean]>([
    [{ type: 'not-is-json' }, 'plain words', true],
    [{ type: 'not-is-json' }, '{}', false],
    [{ type: 'not-contains-json' }, 'x {"a": 1}', false],
    [{ type: 'not-json-subset', value: { a: 1 } }, '{"a": 2}', true]
  ])('%o on %j → passed %s', async (assertion, output, passed) => {
    expect((await grade(assertion, output)).passed).toBe(passed)
  })

  it('accepts schemas with the same $id in different cases', async () => {
    const schema = () => ({ $id: 'https://example.com/answer', type: 'object' })
    expect((await grade({ type: 'is-json', value: schema() }, '{}')).passed).toBe(true)
    expect((await grade({ type: 'is-json', value: schema() }, '[]')).passed).toBe(false)
  })
})

describe('parseOutputJson', () => {
  it.each<[string, unknown]>([
    ['{"a": 1}', { a: 1 }],
    ['\n[1, 2]\n', [1, 2]],
    ['"text"', 'text'],
    ['```\n{"a": 1}\n```', { a: 1 }],
    ['Sure!\n  ```json\n  {"a": 1}\n  ```\n', { a: 1 }]
  ])('%j parses', (output, value) => {
    expect(parseOutputJson(output)).toEqual({ ok: true, value })
  })
})

describe('scanJson', () => {
  const any = () => true

  it('stays fast on pathological outputs', () => {
    // CPU time, which a busy machine does not stretch; a quadratic scan of 200,000 brackets takes minutes
    const before = process.cpuUsage()
    expect(scanJson('['.repeat(200_000), any)).toEqual({ truncated: true })
    const used = process.cpuUsage(before)
    expect((used.user + used.system) / 1000).toBeLessThan(10_000)
  })

  it('reports a scan cut short by its budget', () => {
    expect(scanJson(`{"a": 1`.padEnd(100, ' ') + '{"b": 2}', any, 50).truncated).toBe(true)
    expect(scanJson('{"b": 2}', any, 50)).toEqual({ truncated: false, match: { b: 2 }, firstParsed: { b: 2 } })
  })

  it('skips mismatched brackets and escaped quotes', () => {
    expect(scanJson('[} {"q": "say \\"}\\""}', any).match).toEqual({ q: 'say "}"' })
  })
})

/**
 * src/assertions/json.ts: the exact reasons of is-json, contains-json and the
 * JSON comparisons, their config messages, and where jsonDifference says the
 * two values part.
 */

const person = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }

describe('is-json', () => {
  it('says whether a schema was checked', async () => {
    expect(await grade({ type: 'is-json' }, '{"a": 1}')).toEqual({ type: 'is-json', passed: true, score: 1, reason: 'output is valid JSON' })
    expect((await grade({ type: 'is-json', value: person }, '{"name": "Ada"}')).reason).toBe('output is valid JSON matching the schema')
  })

  it('takes an empty value as no schema', async () => {
    expect(validateAssertion({ type: 'is-json', value: '' })).toBeUndefined()
    expect((await grade({ type: 'is-json', value: '' }, '[1]')).reason).toBe('output is valid JSON')
    expect((await grade({ type: 'is-json', value: null } as unknown as Assertion, '[1]')).reason).toBe('output is valid JSON')
  })

  it('quotes the parse error, and the schema errors', async () => {
    expect((await grade({ type: 'is-json' }, '{"a": }')).reason).toBe(
      `expected output to be valid JSON (not valid JSON: ${parseError('{"a": }')}), got: "{\\"a\\": }"`
    )
    expect((await grade({ type: 'is-json', value: person }, '{"name": 1}')).reason).toBe(
      'expected output to be valid JSON matching the schema (/name must be string), got: "{\\"name\\": 1}"'
    )
    expect((await grade({ type: 'is-json', value: person }, 'nope')).reason).toBe(
      `expected output to be valid JSON matching the schema (not valid JSON: ${parseError('nope')}), got: "nope"`
    )
  })

  it('not-is-json words the reason for its verdict', async () => {
    expect((await grade({ type: 'not-is-json' }, 'plain')).reason).toBe(`output is not valid JSON (not valid JSON: ${parseError('plain')})`)
    expect((await grade({ type: 'not-is-json', value: person }, '{"name": "Ada"}')).reason).toBe(
      'expected output not to be valid JSON matching the schema, got: "{\\"name\\": \\"Ada\\"}"'
    )
  })

  it('answers a backtracking pattern within the checkTimeoutMs it is given', async () => {
    const schema = { type: 'string', pattern: '^(a|aa)+$' }
    expect((await grade({ type: 'is-json', value: schema }, '"aaaa"', { checkTimeoutMs: 5000 })).passed).toBe(true)
    const stuck = await grade({ type: 'is-json', value: schema }, JSON.stringify(`${'a'.repeat(60)}!`), { checkTimeoutMs: 300 })
    expect(stuck).toMatchObject({ passed: false, error: expect.stringContaining('pattern /^(a|aa)+$/ did not finish within checkTimeoutMs (300 ms)') })
  })
})

describe('contains-json', () => {
  it('names what it found, with a schema or without', async () => {
    expect((await grade({ type: 'contains-json', value: person }, 'x {"name": "Ada"} y')).reason).toBe(
      'output contains a JSON object or array matching the schema (found {"name":"Ada"})'
    )
    expect((await grade({ type: 'contains-json', value: '' }, 'x [1] y')).reason).toBe('output contains a JSON object or array (found [1])')
  })

  it('names the schema errors of the first JSON found, or that none was found', async () => {
    expect((await grade({ type: 'contains-json', value: person }, 'x {"name": 1} y')).reason).toBe(
      'expected output to contain a JSON object or array matching the schema (first JSON found: /name must be string), got: "x {\\"name\\": 1} y"'
    )
    expect((await grade({ type: 'contains-json', value: person }, 'no json')).reason).toBe(
      'expected output to contain a JSON object or array matching the schema (none found), got: "no json"'
    )
    expect((await grade({ type: 'contains-json' }, 'no json')).reason).toBe('expected output to contain a JSON object or array (none found), got: "no json"')
  })

  it('says when the output was too long to scan to the end', async () => {
    const output = '['.repeat(200_000)
    expect((await grade({ type: 'contains-json' }, output)).reason).toMatch(
      /^expected output to contain a JSON object or array \(none found; output too long to scan to the end\), got: /
    )
    const withFirst = `{"name": 1} ${output}`
    expect((await grade({ type: 'contains-json', value: person }, withFirst)).reason).toMatch(
      /^expected output to contain a JSON object or array matching the schema \(first JSON found: \/name must be string; output too long to scan to the end\), got: /
    )
  })

  it('answers a backtracking pattern within the checkTimeoutMs it is given', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^(a|aa)+$' } } }
    const stuck = await grade({ type: 'contains-json', value: schema }, `x {"id": ${JSON.stringify(`${'a'.repeat(60)}!`)}}`, { checkTimeoutMs: 300 })
    expect(stuck).toMatchObject({ passed: false, error: expect.stringContaining('did not finish within checkTimeoutMs (300 ms)') })
  })

  it('a schema value that is not a usable schema is a config error', () => {
    expect(validateAssertion({ type: 'contains-json', value: 'just words' })).toBe(
      'contains-json `value` is not a usable JSON Schema: a JSON Schema must be a mapping such as {type: object, required: [name]}, or true/false (the text read as YAML)'
    )
    expect(validateAssertion({ type: 'contains-json', value: { type: 'object' } })).toBeUndefined()
  })
})

describe('json_exact, json-equals, json-subset', () => {
  it('say which JSON they compared against', async () => {
    expect((await grade({ type: 'json_exact', value: '{"a": 1}' }, '{"a": 1}')).reason).toBe('output equals the JSON {"a":1}')
    expect((await grade({ type: 'json-equals', value: [1] }, '[1]')).reason).toBe('output equals the JSON [1]')
    expect((await grade({ type: 'json-subset', value: { ok: true } }, '{"ok": true, "n": 1}')).reason).toBe('output contains the JSON {"ok":true}')
  })

  it('name the first difference, or the parse error', async () => {
    expect((await grade({ type: 'json_exact', value: { a: 1 } }, '{"a": 2}')).reason).toBe(
      'expected output to equal the JSON {"a":1} (/a is 2, expected 1), got: "{\\"a\\": 2}"'
    )
    expect((await grade({ type: 'json-subset', value: { a: 1 } }, '{"a": 2}')).reason).toBe(
      'expected output to contain the JSON {"a":1} (/a is 2, expected 1), got: "{\\"a\\": 2}"'
    )
    expect((await grade({ type: 'json-equals', value: { a: 1 } }, 'a: 1')).reason).toBe(
      `expected output to equal the JSON {"a":1} (not valid JSON: ${parseError('a: 1')}), got: "a: 1"`
    )
  })

  it('json-equals is exact and json-subset is not', async () => {
    expect((await grade({ type: 'json-equals', value: { a: 1 } }, '{"a": 1, "b": 2}')).passed).toBe(false)
    expect((await grade({ type: 'json-subset', value: { a: 1 } }, '{"a": 1, "b": 2}')).passed).toBe(true)
  })

  it('need a value, and a string value must be JSON', () => {
    expect(validateAssertion({ type: 'json_exact' })).toBe('json_exact needs a `value`: the expected JSON, as a mapping/list or a JSON string')
    expect(validateAssertion({ type: 'json-subset', value: '{a: 1}' })).toBe(
      `json-subset \`value\` is a string but not valid JSON (${parseError('{a: 1}')}); fix the JSON text, or write the value as a YAML mapping or list`
    )
    expect(validateAssertion({ type: 'json-equals', value: '[1, 2]' })).toBeUndefined()
  })
})

describe('jsonDifference', () => {
  it('names the root when the values themselves differ', () => {
    expect(jsonDifference(1, 2, false)).toBe('(root) is 2, expected 1')
    expect(jsonDifference({ a: 1 }, [1], false)).toBe('(root) is [1], expected {"a":1}')
    expect(jsonDifference([1], { a: 1 }, true)).toBe('(root) is {"a":1}, expected [1]')
    expect(jsonDifference({ a: 1 }, null, true)).toBe('(root) is null, expected {"a":1}')
    expect(jsonDifference([1, 2], [1], false)).toBe('(root) has 1 items, expected 2')
  })

  it('agrees on equal values, whatever the key order', () => {
    expect(jsonDifference({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] }, false)).toBeUndefined()
    expect(jsonDifference([], [], false)).toBeUndefined()
  })

  it('writes the path of the difference only, as a JSON pointer', () => {
    expect(jsonDifference({ a: { x: 1 }, b: 1 }, { a: { x: 1 }, b: 2 }, false)).toBe('/b is 2, expected 1')
    expect(jsonDifference([[1], [2]], [[1], [3]], false)).toBe('/1/0 is 3, expected 2')
    expect(jsonDifference({ a: { x: 1 } }, { a: { x: 1 }, c: 1 }, false)).toBe('/c is not expected')
    expect(jsonDifference({ a: { x: [1] } }, { a: { x: [1, 2] } }, false)).toBe('/a/x has 2 items, expected 1')
    expect(jsonDifference({ a: { b: 1 } }, { a: {} }, false)).toBe('/a/b is missing')
    expect(jsonDifference({ a: { b: 1 } }, { a: { b: 1, c: 2 } }, false)).toBe('/a/c is not expected')
  })

  it('escapes ~ and / in keys, ~ first', () => {
    expect(jsonDifference({ 'a~/b': 1 }, {}, false)).toBe('/a~0~1b is missing')
    expect(jsonDifference({ '~1': { '/': 1 } }, { '~1': { '/': 2 } }, false)).toBe('/~01/~1 is 2, expected 1')
  })

  it('with subset ignores extra keys of objects, at every depth, but not extra items of arrays or extra keys inside them', () => {
    expect(jsonDifference({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 }, true)).toBeUndefined()
    expect(jsonDifference({ list: [1] }, { list: [1, 2] }, true)).toBe('/list has 2 items, expected 1')
    expect(jsonDifference({ list: [{ a: 1 }] }, { list: [{ a: 1, b: 2 }] }, true)).toBe('/list/0/b is not expected')
  })

  it('compares own keys only, on either side', () => {
    const inheriting = (own: object) => Object.assign(Object.create({ inherited: 1 }) as object, own)
    expect(jsonDifference(inheriting({ a: 1 }), { a: 1 }, false)).toBeUndefined()
    expect(jsonDifference({ a: 1 }, inheriting({ a: 1 }), false)).toBeUndefined()
    expect(jsonDifference({ inherited: 1 }, inheriting({}), false)).toBe('/inherited is missing')
  })
})
