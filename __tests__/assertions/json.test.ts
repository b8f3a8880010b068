import { describe, expect, it } from '@jest/globals'
import { parseOutputJson, scanJson } from '../../src/assertions/json-text.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

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
