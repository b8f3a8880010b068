import { describe, expect, it } from '@jest/globals'
import { escapeHtml, escapeInline, fencedBlock, inlineCode, truncate } from '../../src/report/index.js'

const WJ = '\u2060'

describe('escapeInline', () => {
  it.each([
    {
      name: 'a mention cannot ping',
      text: 'ping @octocat and @github/security',
      expected: `ping @${WJ}octocat and @${WJ}github/security`
    },
    { name: 'an issue reference cannot link', text: 'see #123', expected: `see \\#${WJ}123` },
    {
      name: 'HTML is shown, not injected',
      text: '<script>alert(1)</script>',
      expected: '\\<script\\>alert(1)\\</script\\>'
    },
    { name: 'a table pipe cannot split a cell', text: 'a | b', expected: 'a \\| b' },
    { name: 'newlines cannot end the line', text: 'one\r\n\n  two\nthree', expected: 'one two three' },
    {
      name: 'emphasis and code',
      text: '**bold** _it_ `code` ~~gone~~',
      expected: '\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~gone\\~\\~'
    },
    { name: 'links and images', text: '![x](http://e.vil) [y](z)', expected: '!\\[x\\](http://e.vil) \\[y\\](z)' },
    { name: 'math', text: 'costs $5 and $6', expected: 'costs \\$5 and \\$6' },
    { name: 'entities', text: '&lt;b&gt;', expected: '\\&lt;b\\&gt;' },
    { name: 'backslashes', text: 'a\\*b', expected: 'a\\\\\\*b' },
    { name: 'a list item at the start', text: '- item', expected: '\\- item' },
    { name: 'a numbered item at the start', text: '12. item', expected: '12\\. item' },
    { name: 'a heading at the start', text: '# title', expected: '\\# title' },
    { name: 'a quote at the start', text: '> quoted', expected: '\\> quoted' },
    { name: 'invisible controls and bidi overrides', text: 'a\u0000b\u202Ec\u0007', expected: 'abc' },
    { name: 'plain text stays readable', text: 'Dublin is the capital.', expected: 'Dublin is the capital.' }
  ])('$name', ({ text, expected }) => {
    expect(escapeInline(text)).toBe(expected)
  })

  it('shortens long text with an ellipsis', () => {
    expect(escapeInline('x'.repeat(50), 10)).toBe(`${'x'.repeat(10)}…`)
  })
})

describe('escapeHtml', () => {
  it.each([
    { text: '<img src=x onerror="alert(1)">', expected: '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;' },
    { text: "Tom & Jerry's", expected: 'Tom &amp; Jerry&#39;s' },
    { text: 'hi @octocat, see #9', expected: `hi @${WJ}octocat, see #${WJ}9` },
    // GitLab: "!12" links merge request 12 and leaves a note on it
    { text: 'see !12 and !x', expected: `see !${WJ}12 and !x` },
    { text: 'two\nlines', expected: 'two lines' },
    { text: '**b** `c` _i_ [l]', expected: '&#42;&#42;b&#42;&#42; &#96;c&#96; &#95;i&#95; &#91;l&#93;' }
  ])('$expected', ({ text, expected }) => {
    expect(escapeHtml(text)).toBe(expected)
  })
})

describe('inlineCode', () => {
  it.each([
    { text: 'capital-ireland', expected: '`capital-ireland`' },
    { text: 'a`b', expected: '``a`b``' },
    { text: '`x', expected: '`` `x ``' },
    { text: 'x``', expected: '``` x`` ```' },
    { text: 'a\nb', expected: '`a b`' }
  ])('$expected', ({ text, expected }) => {
    expect(inlineCode(text)).toBe(expected)
  })
})

describe('fencedBlock', () => {
  it.each([
    { name: 'plain text', text: 'hello', expected: '```\nhello\n```' },
    { name: 'a code fence inside', text: 'x\n```\n@octocat\n```', expected: '````\nx\n```\n@octocat\n```\n````' },
    { name: 'a longer fence inside', text: '`````js', expected: '``````\n`````js\n``````' },
    { name: 'CRLF and controls', text: 'a\r\nb\u0000', expected: '```\na\nb\n```' }
  ])('$name', ({ text, expected }) => {
    expect(fencedBlock(text)).toBe(expected)
  })

  it('cuts long text with a note', () => {
    const block = fencedBlock('y'.repeat(1_500))
    expect(block).toBe(`\`\`\`\n${'y'.repeat(1_000)}\n\`\`\`\n\n_(the first 1,000 of 1,500 characters)_`)
  })

  it('takes its fence from the shown part only', () => {
    expect(fencedBlock(`ab${'`'.repeat(9)}`, 2)).toBe('```\nab\n```\n\n_(the first 2 of 11 characters)_')
  })
})

describe('truncate', () => {
  it.each([
    { text: 'abc', max: 5, expected: { text: 'abc', truncated: false } },
    { text: 'abcdef', max: 3, expected: { text: 'abc', truncated: true } },
    // never half of a surrogate pair
    { text: 'a😀b', max: 2, expected: { text: 'a', truncated: true } },
    { text: 'a😀b', max: 3, expected: { text: 'a😀', truncated: true } }
  ])('$text to $max', ({ text, max, expected }) => {
    expect(truncate(text, max)).toEqual(expected)
  })
})
