import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import { lastNumber } from '../../src/assertions/numeric.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

describe('lastNumber', () => {
  it.each<[string, number | undefined]>([
    ['42', 42],
    ['  -3.5\n', -3.5],
    ['+7', 7],
    ['.5', 0.5],
    ['1e3', 1000],
    ['The answer is 42.', 42],
    ['first 3 then 5', 5],
    ['1,234,567 people', 1234567],
    ['costs $1,234.50', 1234.5],
    ['3,5', 5],
    ['12,34', 34],
    ['range 3-4', 4],
    ['50%', 50],
    ['v1.2.3 has 7 bugs', 7],
    ['gpt4', undefined],
    ['no digits at all', undefined],
    ['', undefined]
  ])('%j → %p', (text, n) => {
    expect(lastNumber(text)).toBe(n)
  })
})

describe('numeric assertion', () => {
  it.each<[Assertion, string]>([
    [{ type: 'numeric', value: 42 }, '42'],
    [{ type: 'numeric', value: 42 }, 'The answer is 42.'],
    [{ type: 'numeric', value: '42' }, '42'],
    [{ type: 'numeric', value: '1,234' }, 'about 1,234'],
    [{ type: 'numeric', value: -7 }, '-7 degrees'],
    [{ type: 'numeric', value: 3.14159, tolerance: 0.01 }, 'pi is about 3.14'],
    [{ type: 'numeric', value: 1.1, tolerance: 0.1 }, '1.0'],
    [{ type: 'numeric', value: 100, relTolerance: 0.05 }, '104'],
    [{ type: 'numeric', value: 100, tolerance: 1, relTolerance: 0.05 }, '95'],
    // a value written with blanks around it, as YAML may keep them in a quoted string
    [{ type: 'numeric', value: ' 42 ' }, '42'],
    // 100000.3 − 100000.2 is 0.10000000000582 in floating point: the rounding is forgiven on large numbers too
    [{ type: 'numeric', value: 100000.2, tolerance: 0.1 }, '100000.3'],
    // on the bound: the gap equals the tolerance plus the rounding slack (1e-12 × the larger magnitude) exactly
    [{ type: 'numeric', value: 0 }, '0.000000000001'],
    [{ type: 'numeric', value: 10, relTolerance: 0.5 }, '15.000000000015']
  ])('%o passes on %j', async (assertion, output) => {
    expect(await grade(assertion, output)).toMatchObject({ passed: true, score: 1 })
  })

  it.each<[Assertion, string, string]>([
    [{ type: 'numeric', value: 42 }, '41', 'expected output to state a number equal to 42 (found 41), got: "41"'],
    [{ type: 'numeric', value: 3 }, 'first 3 then 5', '(found 5)'],
    [{ type: 'numeric', value: 100, relTolerance: 0.05 }, '106', 'equal to 100 ± 5% (found 106)'],
    [{ type: 'numeric', value: 10, tolerance: 0.5 }, '10.6', 'equal to 10 ± 0.5 (found 10.6)'],
    [{ type: 'numeric', value: 42 }, 'I do not know', '(no number in output), got: "I do not know"'],
    [{ type: 'numeric', value: 100, tolerance: 1, relTolerance: 0.05 }, '110', 'equal to 100 ± 1 or ± 5% (found 110)']
  ])('%o fails on %j', async (assertion, output, reason) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toContain(reason)
  })

  it('negates', async () => {
    expect(await grade({ type: 'not-numeric', value: 0 }, '3 errors')).toMatchObject({
      passed: true,
      reason: 'output does not state a number equal to 0 (found 3)'
    })
    expect((await grade({ type: 'not-numeric', value: 0 }, '0 errors')).passed).toBe(false)
  })
})

describe('what the numeric check accepts', () => {
  it.each<[Assertion, string | undefined]>([
    [{ type: 'numeric', value: '1,000' }, undefined],
    [{ type: 'numeric', value: 'forty-two' }, 'numeric needs a number as `value`, got the string "forty-two"'],
    [{ type: 'numeric', value: 'about 42' }, 'numeric needs a number as `value`, got the string "about 42"'],
    [{ type: 'numeric', value: 1, tolerance: -1 }, 'numeric `tolerance` must be at least 0, got -1'],
    [{ type: 'numeric', value: 1, relTolerance: -0.1 }, 'numeric `relTolerance` must be at least 0, got -0.1']
  ])('%o → %p', (a, problem) => {
    expect(validateAssertion(a)).toBe(problem)
  })
})
