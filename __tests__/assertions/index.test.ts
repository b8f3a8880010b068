import { describe, expect, it } from '@jest/globals'
import { assertionTypes, casePasses, evaluateAssertion, evaluateAssertions, validateAssertion } from '../../src/assertions/index.js'
import type { Assertion, AssertionResult } from '../../src/types.js'
import { grade, makeContext, makeCase } from './helpers.js'
import type { Judge } from '../../src/assertions/types.js'

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

/**
 * The dispatch table (src/assertions/index.ts) pinned down: resolving type names
 * and `not-`, the unknown-type suggestion, validation once per assertion object,
 * how an outcome becomes a result, broken checks, and promptfoo's transforms.
 */

const VALID_TYPES = () => `Valid types: ${assertionTypes.join(', ')}; rule-based types also take the prefix "not-".`

describe('type names', () => {
  it('an unknown type lists the valid ones, with a suggestion only for a near miss', () => {
    expect(validateAssertion({ type: 'containz', value: 'x' })).toBe(`unknown assertion type "containz". Did you mean "contains"? ${VALID_TYPES()}`)
    expect(validateAssertion({ type: 'sentiment', value: 'x' })).toBe(`unknown assertion type "sentiment". ${VALID_TYPES()}`)
  })

  it('compares the name in lower case, for the guess and for how near it is', () => {
    expect(validateAssertion({ type: 'CONTAINS', value: 'x' })).toContain('Did you mean "contains"?')
    expect(validateAssertion({ type: 'NOT-CONTAINS', value: 'x' })).toContain('Did you mean "not-contains"?')
  })

  it('a near miss is at most two letters off, or a third of the name', () => {
    // two letters off a short name
    expect(validateAssertion({ type: 'cst', value: 'x' })).toContain('Did you mean "cost"?')
    expect(validateAssertion({ type: 'eqxxls', value: 'x' })).toContain('Did you mean "equals"?')
    // three letters off an 8-letter name is too far (8 / 3 rounds down to 2)
    expect(validateAssertion({ type: 'coxxxins', value: 'x' })).not.toContain('Did you mean')
    // three letters off a 9-letter name is near (9 / 3 = 3); four is not
    expect(validateAssertion({ type: 'icxxxains', value: 'x' })).toContain('Did you mean "icontains"?')
    expect(validateAssertion({ type: 'ixxxxains', value: 'x' })).not.toContain('Did you mean')
    // a long name may be further off
    expect(validateAssertion({ type: 'trajectory:tool-uxxxxx', value: 'x' })).toContain('Did you mean "trajectory:tool-used"?')
  })

  it('only the table’s own names resolve, not what every object inherits', () => {
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'not-constructor', 'not-toString']) {
      expect(validateAssertion({ type, value: 'x' })).toMatch(new RegExp(`^unknown assertion type "${type}"\\.`))
    }
  })

  it('resolves not- before a rule-based type, and only as a prefix', async () => {
    expect(validateAssertion({ type: 'not-contains', value: 'x' })).toBeUndefined()
    expect(validateAssertion({ type: 'contains-not-', value: 'x' })).toMatch(/^unknown assertion type "contains-not-"/)
    expect(validateAssertion({ type: 'not-', value: 'x' })).toMatch(/^unknown assertion type "not-"/)
    expect(validateAssertion({ type: 'not-not-contains', value: 'x' })).toMatch(/^unknown assertion type "not-not-contains"/)
    // the same name resolves the same way each time it is asked
    expect(await grade({ type: 'not-contains', value: 'x' }, 'y')).toMatchObject({ passed: true, reason: 'output does not contain "x"' })
    expect(await grade({ type: 'not-contains', value: 'x' }, 'x')).toMatchObject({ passed: false })
  })

  it('resolves the seed aliases to their checks', async () => {
    expect(await grade({ type: 'contains_all', value: 'a, b' }, 'a b')).toMatchObject({ type: 'contains_all', passed: true })
    expect(await grade({ type: 'numeric_close', value: 3, tolerance: 0.1 }, '3.05')).toMatchObject({ type: 'numeric_close', passed: true })
    expect(await grade({ type: 'not-contains_any', value: 'z' }, 'a b')).toMatchObject({ passed: true })
  })
})

describe('validateAssertion', () => {
  it('needs a type that is a non-empty string', () => {
    const problem = 'an assertion needs a `type`, e.g. {type: contains, value: "Paris"}'
    expect(validateAssertion({ type: '' })).toBe(problem)
    expect(validateAssertion({ type: 5 } as unknown as Assertion)).toBe(problem)
    expect(validateAssertion({} as Assertion)).toBe(problem)
  })

  it('refuses not- on a check that cannot be negated', () => {
    expect(validateAssertion({ type: 'not-llm-rubric', value: 'x' })).toBe(
      '"not-llm-rubric": llm-rubric cannot take the prefix "not-"; only rule-based checks can be negated'
    )
    expect(validateAssertion({ type: 'llm-rubric', value: 'x' })).toBeUndefined()
  })

  it('checks the weight first, then the check’s own rules; a check without rules is valid', () => {
    expect(validateAssertion({ type: 'contains', weight: -1 })).toBe('contains `weight` must be at least 0, got -1')
    expect(validateAssertion({ type: 'contains' })).toContain('contains needs a `value`')
    expect(validateAssertion({ type: 'is-refusal' })).toBeUndefined()
    expect(validateAssertion({ type: 'not-is-refusal', weight: 2 })).toBeUndefined()
  })
})

describe('validation once per assertion object', () => {
  it('an assertion object is validated when first graded, and its verdict kept', async () => {
    const a: Assertion = { type: 'contains', value: 'x' }
    expect((await grade(a, 'x')).passed).toBe(true)
    // changed after it was validated: grading does not validate it again
    a.weight = -1
    expect(await grade(a, 'x')).toMatchObject({ passed: true, weight: -1 })
    const b: Assertion = { type: 'contains', value: 'x', weight: -1 }
    expect((await grade(b, 'x')).error).toBe('invalid assertion: contains `weight` must be at least 0, got -1')
    // an invalid verdict is kept too
    delete b.weight
    expect((await grade(b, 'x')).error).toBe('invalid assertion: contains `weight` must be at least 0, got -1')
  })

  it('forgets the verdicts once it holds 4096 of them, and starts again', async () => {
    const ctx = makeContext('x')
    const fresh = () => ({ type: 'contains', value: 'x' }) as Assertion
    // a probe whose verdict changes once it is validated again: that is when the verdicts were forgotten
    const probe: Assertion = { type: 'contains', value: 'x' }
    await evaluateAssertions([probe], ctx)
    probe.weight = -1
    let graded = 0
    while ((await evaluateAssertions([probe], ctx))[0]!.passed) {
      await evaluateAssertions([fresh()], ctx)
      graded++
      expect(graded).toBeLessThanOrEqual(4096)
    }
    // now it holds the probe and the assertion graded just before: 4094 more fill it
    probe.weight = 1
    const more = Array.from({ length: 4094 }, fresh)
    await evaluateAssertions(more, ctx)
    expect((await evaluateAssertions([probe], ctx))[0]!.passed).toBe(false)
    // one more, and they are forgotten: the probe is validated anew
    await evaluateAssertions([fresh()], ctx)
    expect((await evaluateAssertions([probe], ctx))[0]).toMatchObject({ passed: true, weight: 1 })
  })
})

describe('results', () => {
  it('a failed check is recorded with its reason and score, no weight, error or judge', async () => {
    expect(await grade({ type: 'contains', value: 'x' }, 'y')).toStrictEqual({
      type: 'contains',
      passed: false,
      score: 0,
      reason: 'expected output to contain "x", got: "y"'
    })
  })

  it('not- inverts the verdict and the score of a check', async () => {
    expect(await grade({ type: 'not-contains', value: 'x' }, 'x')).toStrictEqual({
      type: 'not-contains',
      passed: false,
      score: 0,
      reason: 'expected output not to contain "x", got: "x"'
    })
    expect(await grade({ type: 'not-rouge-n', value: 'the cat sat on the mat' }, 'a cat on the mat')).toMatchObject({ passed: true })
    expect((await grade({ type: 'not-rouge-n', value: 'the cat sat on the mat' }, 'a cat on the mat')).score).toBeCloseTo(2 / 6, 12)
  })

  it('a check that errs fails with score 0 either way, its error recorded', async () => {
    const error = expect.stringContaining('did not supply a finish reason')
    expect(await grade({ type: 'finish-reason', value: 'stop' }, 'x')).toMatchObject({ passed: false, score: 0, error })
    expect(await grade({ type: 'not-finish-reason', value: 'stop' }, 'x')).toMatchObject({ passed: false, score: 0, error })
  })

  it('records the judge’s verdict, and the weight, of a judged check', async () => {
    const judge: Judge = async () => ({ model: 'fake', score: 0.9, reason: 'fine', key: 'k' })
    const result = await grade({ type: 'llm-rubric', value: 'Polite.', weight: 0 }, 'Hello', { judge })
    expect(result).toMatchObject({ type: 'llm-rubric', passed: true, score: 0.9, weight: 0 })
    expect(result.judge).toMatchObject({ model: 'fake', score: 0.9, key: 'k' })
    expect(result).not.toHaveProperty('error')
  })

  it('an invalid assertion fails with the problem as reason and error', async () => {
    expect(await grade({ type: 'contains', value: '', weight: 3 }, 'x')).toStrictEqual({
      type: 'contains',
      passed: false,
      score: 0,
      reason: expect.stringMatching(/^invalid assertion: contains has an empty `value`/),
      error: expect.stringMatching(/^invalid assertion: contains has an empty `value`/),
      weight: 3
    })
  })

  it('an unknown type fails even when the cases were validated as they loaded', async () => {
    const [result] = await evaluateAssertions([{ type: 'containz', value: 'x' }], makeContext('x'), { validated: true })
    expect(result).toStrictEqual({
      type: 'containz',
      passed: false,
      score: 0,
      reason: `invalid assertion: unknown assertion type "containz". Did you mean "contains"? ${VALID_TYPES()}`,
      error: `invalid assertion: unknown assertion type "containz". Did you mean "contains"? ${VALID_TYPES()}`
    })
  })

  it('only validated: true skips validation', async () => {
    const list: Assertion[] = [{ type: 'contains', value: 'x', weight: -2 }]
    expect((await evaluateAssertions(list, makeContext('x'), { validated: false }))[0]!.passed).toBe(false)
    expect((await evaluateAssertions([{ type: 'contains', value: 'x', weight: -2 }], makeContext('x'), {}))[0]!.passed).toBe(false)
    expect((await evaluateAssertions([{ type: 'contains', value: 'x', weight: -2 }], makeContext('x'), { validated: true }))[0]!.passed).toBe(true)
  })
})

describe('broken checks', () => {
  it('a check that throws at once fails with its message', async () => {
    const [result] = await evaluateAssertions([{ type: 'regex', value: '(' }], makeContext('x'), { validated: true })
    expect(result).toStrictEqual({
      type: 'regex',
      passed: false,
      score: 0,
      reason: 'regex could not be checked: Invalid regular expression: /(/: Unterminated group',
      error: 'Invalid regular expression: /(/: Unterminated group'
    })
  })

  it('a check whose promise rejects fails with its message, not- or not', async () => {
    const value = { requiredElements: Object.create(null) as object }
    for (const type of ['is-xml', 'not-is-xml']) {
      const [result] = await evaluateAssertions([{ type, value }], makeContext('<a/>'), { validated: true })
      expect(result).toMatchObject({ type, passed: false, score: 0 })
      expect(result!.reason).toBe(`${type} could not be checked: ${result!.error}`)
      expect(result!.error).toMatch(/^Cannot convert object to primitive value/)
    }
  })

  it('answers rule-based checks without a promise, but evaluateAssertions always gives one', async () => {
    const results = evaluateAssertions([{ type: 'contains', value: 'x' }], makeContext('x'))
    expect(results).toBeInstanceOf(Promise)
    expect(await results).toStrictEqual([{ type: 'contains', passed: true, score: 1, reason: 'output contains "x"' }])
  })

  it('waits for every promised result, in the order of the list', async () => {
    const list: Assertion[] = [{ type: 'contains', value: 'x' }, { type: 'is-xml' }, { type: 'javascript', value: 'output === "x"' }]
    const results = await evaluateAssertions(list, makeContext('x'))
    expect(results.map((r) => [r.type, r.passed])).toEqual([
      ['contains', true],
      ['is-xml', false],
      ['javascript', true]
    ])
  })
})

describe('transforms', () => {
  it('grades what the assertion’s transform returns', async () => {
    expect(await grade({ type: 'equals', value: 'X!', transform: 'output.toUpperCase() + "!"' }, 'x')).toMatchObject({
      passed: true,
      reason: 'output equals "X!"'
    })
  })

  it('applies the test’s transform, then the assertion’s', async () => {
    const c = makeCase({ promptfoo: { provider: 0, transform: 'output + "a"' } })
    expect((await grade({ type: 'equals', value: 'xab', transform: 'output + "b"' }, 'x', { case: c })).passed).toBe(true)
    expect((await grade({ type: 'equals', value: 'xa' }, 'x', { case: c })).passed).toBe(true)
  })

  it('runs the test’s transform once per graded output, whatever the assertions', async () => {
    const c = makeCase({ promptfoo: { provider: 0, transform: 'String(Math.random())' } })
    const ctx = makeContext('x', { case: c })
    const list: Assertion[] = [
      { type: 'javascript', value: 'Number(output)' },
      { type: 'javascript', value: 'Number(output)' }
    ]
    const [a, b] = await evaluateAssertions(list, ctx)
    expect(a!.score).toBe(b!.score)
    // another graded output is transformed anew
    const [again] = await evaluateAssertions(list.slice(0, 1), makeContext('x', { case: c }))
    expect(again!.score).not.toBe(a!.score)
  })

  it('gives a transform the case’s vars and prompt', async () => {
    const c = makeCase({ vars: { city: 'Cork' }, promptfoo: { provider: 0 } })
    expect((await grade({ type: 'equals', value: 'Cork|case 1', transform: 'context.vars.city + "|" + context.prompt.label' }, 'x', { case: c })).passed).toBe(
      true
    )
  })

  it('a value that is not text is graded as its JSON, and javascript checks see the value itself', async () => {
    expect(await grade({ type: 'is-json', transform: '({ a: [1] })' }, 'x')).toMatchObject({ passed: true })
    expect((await grade({ type: 'equals', value: '{"a":[1]}', transform: '({ a: [1] })' }, 'x')).passed).toBe(true)
    expect((await grade({ type: 'javascript', value: 'output.a[0] === 1', transform: '({ a: [1] })' }, 'x')).passed).toBe(true)
    expect((await grade({ type: 'equals', value: '3', transform: '3' }, 'x')).passed).toBe(true)
  })

  it('a transform that throws breaks the check, not- or not', async () => {
    for (const type of ['contains', 'not-contains']) {
      const result = await grade({ type, value: 'x', transform: 'throw new Error("no")' }, 'x')
      expect(result).toMatchObject({ type, passed: false, score: 0 })
      expect(result.reason).toBe(`${type} could not be checked: ${result.error}`)
      expect(result.error).toContain('no')
    }
  })

  it('a transform runs under the case’s checkTimeoutMs', async () => {
    const result = await grade({ type: 'contains', value: 'x', transform: 'for (;;) {}' }, 'x', { checkTimeoutMs: 300 })
    expect(result).toMatchObject({ passed: false, error: 'did not finish within checkTimeoutMs (300 ms)' })
    const c = makeCase({ promptfoo: { provider: 0, transform: 'for (;;) {}' } })
    expect(await grade({ type: 'contains', value: 'x' }, 'x', { case: c, checkTimeoutMs: 300 })).toMatchObject({
      passed: false,
      error: 'did not finish within checkTimeoutMs (300 ms)'
    })
  })
})

describe('casePasses', () => {
  const result = (passed: boolean, weight?: number): AssertionResult => ({
    type: 'contains',
    passed,
    score: passed ? 1 : 0,
    reason: '',
    ...(weight === undefined ? {} : { weight })
  })

  it('fails on any failed assertion whose weight is not 0', () => {
    expect(casePasses([result(false, 0), result(true)])).toBe(true)
    expect(casePasses([result(false, 0.5)])).toBe(false)
    expect(casePasses([result(true, 0), result(false, 1)])).toBe(false)
  })
})
