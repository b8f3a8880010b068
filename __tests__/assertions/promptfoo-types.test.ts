/** The deterministic promptfoo types beyond the differential's pairs: reasons, options and config errors. */
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

describe('reasons name what was measured', () => {
  it.each<[Assertion, string, boolean, string]>([
    [{ type: 'word-count', value: { min: 2, max: 3 } }, 'one', false, 'expected output to be between 2 and 3 words long (1 words)'],
    [{ type: 'word-count', value: { max: 3 } }, 'a b', true, 'output is at most 3 words long (2 words)'],
    [{ type: 'is-refusal' }, '  ', true, 'output is a refusal (an empty answer counts as one)'],
    [{ type: 'is-refusal' }, 'Paris is the capital.', false, 'expected output to be a refusal, got: "Paris is the capital."'],
    [{ type: 'not-is-refusal' }, "I can't help with that.", false, 'expected output not to be a refusal'],
    [{ type: 'is-refusal' }, "I can't believe how well this works! Here are the steps.", false, 'expected output to be a refusal'],
    [{ type: 'is-refusal' }, "We can't stress enough: back up first. Then run the command.", false, 'expected output to be a refusal'],
    [{ type: 'is-refusal' }, "I can't help but notice the typo; here is the fix.", false, 'expected output to be a refusal'],
    [{ type: 'is-refusal' }, 'As an AI language model, I will not write that.', true, 'output is a refusal'],
    [{ type: 'is-xml', value: 'a.b, a.c' }, '<a><b/></a>', false, 'expected output to be well-formed XML with a.b, a.c (missing a.c)'],
    [{ type: 'is-xml', value: { requiredElements: ['a.b'] } }, '<a><b/></a>', true, 'output is well-formed XML with a.b'],
    [{ type: 'is-xml' }, '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', false, 'DTD internal subsets are not supported'],
    [{ type: 'contains-xml' }, 'see <a><b></a>', false, '(none found)'],
    [{ type: 'is-html' }, 'Hello <b>there</b>', false, 'it has text outside the HTML tags'],
    [{ type: 'contains-html' }, 'Use <kbd>Ctrl</kbd> here', true, 'output contains HTML (found <kbd>)'],
    [{ type: 'is-sql', value: { databaseType: 'PostgreSQL' } }, 'SELEC 1', false, 'expected output to be valid PostgreSQL (not valid PostgreSQL:'],
    [{ type: 'is-sql' }, 'SELECT name nickname FROM users', false, '"nickname" reads as an alias without AS; a missing comma?'],
    [{ type: 'is-sql' }, 'SELECT name AS nickname FROM users', true, 'output is valid MySQL'],
    [{ type: 'contains-sql' }, 'Try:\n```sql\nSELEC 1\n```\nor\n```\nSELECT 1\n```', true, 'output contains valid MySQL'],
    [{ type: 'bleu', value: 'the cat sat on the mat' }, 'The cat sat on the mat!', true, 'BLEU 1, threshold 0.5 against "the cat sat on the mat"'],
    [
      { type: 'rouge-n', value: 'the cat sat on the mat' },
      'a cat on the mat',
      false,
      'expected ROUGE-N at least 0.75 against "the cat sat on the mat", got 0.6667'
    ],
    [{ type: 'meteor', value: ['x y z', 'the cat sat'], threshold: 0.9 }, 'the cat sat', true, 'METEOR 0.9815, threshold 0.9 against the best of 2 references'],
    [{ type: 'gleu', value: 'the cat sat on the mat' }, 'the the the the the the the', false, 'got 0.0909'],
    [{ type: 'finish-reason', value: 'length' }, 'x', false, 'expected finish reason "length", got "stop"'],
    [{ type: 'not-finish-reason', value: 'length' }, 'x', true, 'finish reason "stop"']
  ])('%j on %j', async (a, output, passed, fragment) => {
    const result = await grade(a, output, { finishReason: 'stop' })
    expect(result.passed).toBe(passed)
    expect(result.reason).toContain(fragment)
  })

  it('finish-reason compares case-insensitively, and without a reported reason it cannot pass either way', async () => {
    expect((await grade({ type: 'finish-reason', value: 'STOP' }, 'x', { finishReason: 'stop' })).passed).toBe(true)
    const missing = await grade({ type: 'not-finish-reason', value: 'stop' }, 'x')
    expect(missing).toMatchObject({ passed: false, error: expect.stringContaining('did not supply a finish reason') })
  })

  it('finish-reason ignores blanks around either side; not-finish-reason names the reason it got', async () => {
    expect((await grade({ type: 'finish-reason', value: ' length' }, 'x', { finishReason: 'length\n' })).passed).toBe(true)
    expect(await grade({ type: 'not-finish-reason', value: 'stop' }, 'x', { finishReason: 'stop' })).toMatchObject({
      passed: false,
      reason: 'expected finish reason other than "stop", got "stop"'
    })
    expect(validateAssertion({ type: 'finish-reason', value: '' })).toBe('finish-reason has an empty `value`, which every output would satisfy')
  })

  it('scores the metrics, and not- inverts the score', async () => {
    const a: Assertion = { type: 'rouge-n', value: 'the cat sat on the mat' }
    expect((await grade(a, 'a cat on the mat')).score).toBeCloseTo(4 / 6, 12)
    expect((await grade({ ...a, type: 'not-rouge-n' }, 'a cat on the mat')).score).toBeCloseTo(2 / 6, 12)
  })
})

describe('config errors name the fix', () => {
  it.each<[Assertion, string]>([
    [{ type: 'word-count' }, 'word-count needs a `value`: a word count such as 50, or {min: 20, max: 50}'],
    [{ type: 'word-count', value: { min: 1, most: 3 } }, 'got a mapping'],
    [{ type: 'word-count', value: -1 }, 'got number -1'],
    [{ type: 'is-xml', value: [1] }, 'lists the required elements as dotted paths'],
    [{ type: 'is-sql', value: 'PostgreSQL' }, 'is-sql `value` is optional: {databaseType: PostgreSQL'],
    [{ type: 'is-sql', value: { database: 'x' } }, '"database" is not one of its keys'],
    [{ type: 'is-sql', value: { allowedTables: 'users' } }, 'is-sql `allowedTables` must be a list of strings'],
    [{ type: 'bleu' }, 'bleu needs the reference text, or a list of references, as `value`, got none'],
    [{ type: 'rouge-n', value: ['a', 'b'] }, 'rouge-n needs the reference text as `value`, got a list'],
    [{ type: 'meteor', value: 'x', threshold: 2 }, 'meteor `threshold` must be at most 1'],
    [{ type: 'finish-reason' }, 'finish-reason needs a `value`'],
    [{ type: 'similar', value: 3 }, 'similar needs the expected text, or a list of texts, as `value`, got number 3']
  ])('%j', (a, fragment) => {
    expect(validateAssertion(a)).toContain(fragment)
  })

  it('a SQL dialect node-sql-parser lacks fails the check with its message', async () => {
    const result = await grade({ type: 'is-sql', value: { databaseType: 'Oracle9' } }, 'SELECT 1')
    expect(result.passed).toBe(false)
    expect(result.reason).toContain('Oracle9 is not supported currently')
  })
})
