/**
 * Finding JSON in model output: the reasons parseOutputJson gives when there
 * is none, and what scanJson keeps of the values it tried.
 */
import { describe, expect, it } from '@jest/globals'
import { parseOutputJson, scanJson } from '../../src/assertions/json-text.js'
import { parseError } from './helpers.js'

describe('parseOutputJson', () => {
  it('the whole output when it is JSON, fences or not inside it', () => {
    expect(parseOutputJson('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } })
    expect(parseOutputJson('"```\\n1\\n```"')).toEqual({ ok: true, value: '```\n1\n```' })
  })

  it('not JSON and no fenced block: the parser’s message', () => {
    expect(parseOutputJson('The answer is {a: 1}')).toEqual({ ok: false, error: `not valid JSON: ${parseError('The answer is {a: 1}')}` })
  })

  it('the content of one fenced block, with any info string', () => {
    expect(parseOutputJson('Here:\n```json\n[1, 2]\n```\nDone.')).toEqual({ ok: true, value: [1, 2] })
    expect(parseOutputJson('```\n"x"\n```')).toEqual({ ok: true, value: 'x' })
  })

  it('a fenced block that is not JSON: the parser’s message for its content', () => {
    expect(parseOutputJson('```json\n{a: 1}\n```')).toEqual({ ok: false, error: `the fenced code block is not valid JSON: ${parseError('{a: 1}\n')}` })
  })

  it('several fenced blocks: how many, and what was expected', () => {
    expect(parseOutputJson('```\n1\n```\n```\n2\n```')).toEqual({
      ok: false,
      error: '2 fenced code blocks; expected the JSON alone or in a single block'
    })
    expect(parseOutputJson('```\n1\n```\n```\n2\n```\n```\n3\n```')).toEqual({
      ok: false,
      error: '3 fenced code blocks; expected the JSON alone or in a single block'
    })
  })
})

describe('scanJson', () => {
  it('stops at the first value accepted, keeping the first one parsed', () => {
    const scan = scanJson('[1] and then {"a": 2} and {"b": 3}', (v) => !Array.isArray(v))
    expect(scan).toStrictEqual({ truncated: false, firstParsed: [1], match: { a: 2 } })
  })

  it('the first value parsed stays the first, however many are refused', () => {
    const seen: unknown[] = []
    const scan = scanJson('[1] [2] {"c": 3}', (v) => {
      seen.push(v)
      return false
    })
    expect(scan).toStrictEqual({ truncated: false, firstParsed: [1] })
    expect(seen).toEqual([[1], [2], { c: 3 }])
  })

  it('nested values are tried too, outer first', () => {
    const seen: unknown[] = []
    scanJson('{"a": [1]}', (v) => {
      seen.push(v)
      return false
    })
    expect(seen).toEqual([{ a: [1] }, [1]])
  })

  it('nothing that parses: neither match nor first value', () => {
    expect(scanJson('no JSON {here', () => true)).toStrictEqual({ truncated: false })
  })

  it('the default budget reaches far into a long output', () => {
    const text = `${' '.repeat(100_000)}{"late": true}`
    expect(scanJson(text, () => true)).toStrictEqual({ truncated: false, firstParsed: { late: true }, match: { late: true } })
  })
})
