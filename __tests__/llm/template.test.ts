import { describe, expect, it } from '@jest/globals'
import { renderBody, renderText } from '../../src/llm/template.js'

const values = (input: unknown) => ({ input, case: { id: 'c-1', name: 'Case one' } })

describe('renderBody', () => {
  it.each([
    ['a whole-input leaf keeps the JSON value', { q: '{{input}}' }, { a: [1, 2] }, { q: { a: [1, 2] } }],
    ['a whole-input leaf with spaces', { q: '{{ input }}' }, 42, { q: 42 }],
    ['interpolation of a string input', { q: 'Question: {{input}}' }, 'hi', { q: 'Question: hi' }],
    ['interpolation of a non-string input', { q: 'Q: {{input}}' }, { a: 1 }, { q: 'Q: {"a":1}' }],
    [
      'nested arrays and objects',
      { messages: [{ role: 'user', content: '{{input}}' }], n: 1, ok: true, z: null },
      'x',
      { messages: [{ role: 'user', content: 'x' }], n: 1, ok: true, z: null }
    ],
    ['case id and name', { id: '{{case.id}}', label: '{{case.name}}: {{input}}' }, 'x', { id: 'c-1', label: 'Case one: x' }],
    ['the template itself is the input', '{{input}}', ['a'], ['a']],
    ['an input containing a placeholder is not rendered again', { q: '{{input}}!' }, '{{case.id}}', { q: '{{case.id}}!' }]
  ])('%s', (_name, template, input, expected) => {
    expect(renderBody(template, values(input))).toEqual(expected)
  })
})

describe('renderText', () => {
  it('encodes substituted values when asked (URL query)', () => {
    expect(renderText('https://x/ask?q={{input}}', values('a b&c'), encodeURIComponent)).toBe('https://x/ask?q=a%20b%26c')
  })
})
