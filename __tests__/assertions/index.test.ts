import { describe, expect, it } from '@jest/globals'
import { assertionTypes, casePasses, evaluateAssertion, evaluateAssertions, validateAssertion } from '../../src/assertions/index.js'
import type { Assertion, AssertionResult } from '../../src/types.js'
import { grade, makeContext } from './helpers.js'

const missingFile = '/nonexistent/evalgate/check.mjs'

describe('assertionTypes', () => {
  it('lists every base type of SPEC §3, §10 and §11', () => {
    expect([...assertionTypes].sort()).toEqual(
      [
        'equals',
        'exact_match',
        'iequals',
        'contains',
        'icontains',
        'contains-all',
        'icontains-all',
        'contains-any',
        'icontains-any',
        'starts-with',
        'regex',
        'numeric',
        'is-json',
        'contains-json',
        'json_exact',
        'json-equals',
        'json-subset',
        'levenshtein',
        'javascript',
        'latency',
        'llm-rubric',
        // SPEC §10
        'trajectory:tool-used',
        'trajectory:tool-sequence',
        'trajectory:tool-args-match',
        'trajectory:step-count',
        'trajectory-match',
        'tool-call-f1',
        'is-valid-openai-tools-call',
        'is-valid-openai-function-call',
        'cost',
        // SPEC §11: promptfoo's deterministic types, and similar
        'is-refusal',
        'word-count',
        'is-xml',
        'contains-xml',
        'is-html',
        'contains-html',
        'is-sql',
        'contains-sql',
        'rouge-n',
        'bleu',
        'gleu',
        'meteor',
        'finish-reason',
        'similar',
        // SPEC §12: promptfoo's trace assertions
        'trace-span-count',
        'trace-span-duration',
        'trace-error-spans',
        // SPEC §11a: python, the model-graded family (select-best refused at load)
        'python',
        'factuality',
        'model-graded-factuality',
        'model-graded-closedqa',
        'g-eval',
        'answer-relevance',
        'context-faithfulness',
        'context-relevance',
        'context-recall',
        'select-best',
        // seed aliases
        'contains_all',
        'contains_any',
        'numeric_close'
      ].sort()
    )
  })
})

describe('validateAssertion', () => {
  it.each<Assertion>([
    { type: 'equals', value: '' },
    { type: 'contains', value: 'Dublin' },
    { type: 'not-icontains', value: 'as an ai language model' },
    { type: 'contains-all', value: 'a, b' },
    { type: 'contains-any', value: ['a', 2] },
    { type: 'regex', value: '^a', flags: 'im' },
    { type: 'numeric', value: '1,000', tolerance: 5 },
    { type: 'is-json' },
    { type: 'is-json', value: { type: 'object' } },
    { type: 'contains-json', value: { type: 'array' } },
    { type: 'json_exact', value: '{"a": 1}' },
    { type: 'json-equals', value: null },
    { type: 'json-subset', value: { a: 1 } },
    { type: 'levenshtein', value: 'abc', threshold: 2 },
    { type: 'javascript', value: 'output.length > 0' },
    { type: 'javascript', value: 'return true' },
    { type: 'javascript', value: () => true },
    { type: 'latency', threshold: 1000 },
    { type: 'llm-rubric', value: 'Polite.', threshold: 0.7 },
    { type: 'contains', value: 'x', weight: 0 }
  ])('accepts %o', (a) => {
    expect(validateAssertion(a)).toBeUndefined()
  })

  it.each<[Assertion, string]>([
    [{ type: 'containz', value: 'x' }, 'unknown assertion type "containz". Did you mean "contains"? Valid types: equals, exact_match'],
    [{ type: 'not-containz', value: 'x' }, 'Did you mean "not-contains"?'],
    [{ type: 'Contains-All', value: 'x' }, 'Did you mean "contains-all"?'],
    [{ type: 'json_subset', value: {} }, 'Did you mean "json-subset"?'],
    [{ type: 'sentiment', value: 'x' }, 'unknown assertion type "sentiment". Valid types:'],
    [{ type: 'not-llm-rubric', value: 'x' }, 'llm-rubric cannot take the prefix "not-"'],
    [{ type: '' }, 'an assertion needs a `type`'],
    [{ type: 'contains' }, 'contains needs a `value`'],
    [{ type: 'contains', value: '' }, 'empty `value`'],
    [{ type: 'levenshtein', value: 42 }, 'levenshtein needs the expected text as a string `value`, got number 42'],
    [{ type: 'contains-any', value: '"unterminated, x' }, 'unterminated quoted term'],
    [{ type: 'contains-any', value: '"a"b' }, 'expected a comma after the quoted term'],
    [{ type: 'is-json', value: 'type: [' }, 'neither YAML nor JSON'],
    [{ type: 'is-json', value: 'just words' }, 'must be a mapping'],
    [{ type: 'starts-with', value: ' Answer' }, 'starts with whitespace'],
    [{ type: 'regex', value: '(unclosed' }, 'regex pattern /(unclosed/ is invalid: Invalid regular expression'],
    [{ type: 'regex', value: 'a', flags: 'zz' }, 'is invalid: Invalid flags'],
    [{ type: 'contains-all', value: [] }, 'needs at least one term'],
    [{ type: 'contains-any', value: ' , ' }, 'needs at least one term'],
    [{ type: 'icontains-all', value: ['a', ''] }, 'empty term'],
    [{ type: 'contains-any', value: [{ a: 1 }] }, 'terms must be strings, got a mapping'],
    [{ type: 'numeric', value: 'forty-two' }, 'numeric needs a number as `value`, got the string "forty-two"'],
    [{ type: 'numeric' }, 'got none'],
    [{ type: 'numeric', value: 1, tolerance: -1 }, '`tolerance` must be at least 0'],
    [{ type: 'is-json', value: { type: 'objekt' } }, 'is-json `value` is not a usable JSON Schema: schema is invalid'],
    [{ type: 'contains-json', value: 'object' }, 'a JSON Schema must be a mapping'],
    [{ type: 'json_exact', value: '{a: 1}' }, 'json_exact `value` is a string but not valid JSON'],
    [{ type: 'json-subset' }, 'json-subset needs a `value`'],
    [{ type: 'levenshtein', value: 'a', threshold: -2 }, '`threshold` must be at least 0'],
    [{ type: 'javascript' }, 'javascript needs a `value`'],
    [{ type: 'javascript', value: 'output.includes(' }, 'javascript `value` does not compile: Unexpected token'],
    [{ type: 'javascript', value: '   ' }, 'javascript has an empty `value`'],
    [{ type: 'javascript', value: 42 }, 'must be an expression (a string)'],
    [{ type: 'javascript', file: missingFile }, `javascript \`file\` not found: ${missingFile}`],
    [{ type: 'javascript', value: 'true', threshold: 2 }, '`threshold` must be at most 1'],
    [{ type: 'latency' }, 'latency needs a `threshold`'],
    [{ type: 'llm-rubric' }, 'llm-rubric needs a `value`'],
    [{ type: 'llm-rubric', value: 'x', threshold: 1.5 }, '`threshold` must be at most 1'],
    [{ type: 'contains', value: 'x', weight: -1 }, '`weight` must be at least 0']
  ])('rejects %o', (a, problem) => {
    expect(validateAssertion(a)).toContain(problem)
  })
})

describe('evaluateAssertion', () => {
  it('records the type as written, and the weight when given', async () => {
    expect(await grade({ type: 'not-contains', value: 'x', weight: 2 }, 'y')).toEqual({
      type: 'not-contains',
      passed: true,
      score: 1,
      reason: 'output does not contain "x"',
      weight: 2
    })
    expect(await grade({ type: 'contains', value: 'y' }, 'y')).not.toHaveProperty('weight')
  })

  it('fails an invalid assertion instead of throwing', async () => {
    const result = await grade({ type: 'regex', value: '(' }, 'x')
    expect(result).toMatchObject({ type: 'regex', passed: false, score: 0 })
    expect(result.reason).toMatch(/^invalid assertion: regex pattern/)
    expect(result.error).toBe(result.reason)
  })

  it('fails an unknown type with the suggestion', async () => {
    expect((await grade({ type: 'equal', value: 'x' }, 'x')).reason).toContain('Did you mean "equals"?')
  })

  it('inverts the score of a not- check', async () => {
    expect(await grade({ type: 'not-javascript', value: '0.25' }, 'x')).toMatchObject({ passed: true, score: 0.75 })
  })

  it('keeps results in the order of the list', async () => {
    const list: Assertion[] = [
      { type: 'javascript', value: 'new Promise((r) => setTimeout(() => r(true), 20))' },
      { type: 'contains', value: 'a' },
      { type: 'not-contains', value: 'a' }
    ]
    const results = await evaluateAssertions(list, makeContext('abc'))
    expect(results.map((r) => [r.type, r.passed])).toEqual([
      ['javascript', true],
      ['contains', true],
      ['not-contains', false]
    ])
  })

  it('validates each assertion as it grades, unless its cases were validated as they loaded (an unknown type is refused either way)', async () => {
    // a weight below 0 is refused by validation, which the contains check itself does not look at
    const list: Assertion[] = [
      { type: 'contains', value: 'a', weight: -1 },
      { type: 'containz', value: 'a' }
    ]
    const checked = await evaluateAssertions(list, makeContext('abc'))
    expect(checked.map((r) => [r.passed, r.error])).toEqual([
      [false, 'invalid assertion: contains `weight` must be at least 0, got -1'],
      [false, expect.stringContaining('invalid assertion: unknown assertion type "containz". Did you mean "contains"?')]
    ])
    const trusted = await evaluateAssertions(list, makeContext('abc'), { validated: true })
    expect(trusted.map((r) => [r.passed, r.error])).toEqual([
      [true, undefined],
      [false, expect.stringContaining('invalid assertion: unknown assertion type "containz"')]
    ])
  })

  it('grades the same assertion object again and again', async () => {
    const a: Assertion = { type: 'regex', value: 'b', flags: 'g' }
    const ctx = makeContext('abc')
    expect((await evaluateAssertion(a, ctx)).passed).toBe(true)
    expect((await evaluateAssertion(a, ctx)).passed).toBe(true)
  })
})

describe('casePasses', () => {
  const pass = (weight?: number): AssertionResult => ({ type: 'contains', passed: true, score: 1, reason: 'ok', ...(weight !== undefined ? { weight } : {}) })
  const fail = (weight?: number): AssertionResult => ({ ...pass(weight), passed: false, score: 0 })

  it.each<[string, AssertionResult[], boolean]>([
    ['no assertions', [], true],
    ['all passed', [pass(), pass(2)], true],
    ['one failed', [pass(), fail()], false],
    ['a weighted one failed', [pass(), fail(3)], false],
    ['only an informational (weight 0) one failed', [pass(), fail(0)], true],
    ['an informational one passed, another failed', [pass(0), fail()], false]
  ])('%s → %s', (_name, results, passes) => {
    expect(casePasses(results)).toBe(passes)
  })
})
