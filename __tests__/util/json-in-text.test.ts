import { describe, expect, it } from '@jest/globals'
import { visitJsonInText, type JsonInTextOptions } from '../../src/util/json-in-text.js'

function all(text: string, options: JsonInTextOptions): unknown[] {
  const found: unknown[] = []
  visitJsonInText(text, options, (value) => {
    found.push(value)
    return false
  })
  return found
}

const objectsOnly: JsonInTextOptions = { openers: '{', skipNested: true }
const everyBracket: JsonInTextOptions = { openers: '{[', skipNested: false }

describe('visitJsonInText', () => {
  it.each([
    ['prose around an object', 'I think {"score": 1} fits', [{ score: 1 }], [{ score: 1 }]],
    ['a fenced block', 'Answer:\n```json\n{"a": [1, 2]}\n```', [{ a: [1, 2] }], [{ a: [1, 2] }, [1, 2]]],
    ['braces and brackets inside strings', '{"q": "say \\"}\\" and ]"}', [{ q: 'say "}" and ]' }], [{ q: 'say "}" and ]' }]],
    ['an object after broken text', '{"a": oops {"b": 2}', [{ b: 2 }], [{ b: 2 }]],
    ['a mismatched close', '{"a": [1}] {"b": 2}', [{ b: 2 }], [{ b: 2 }]],
    ['an array of objects', 'list: [{"a": 1}, {"a": 2}]', [{ a: 1 }, { a: 2 }], [[{ a: 1 }, { a: 2 }], { a: 1 }, { a: 2 }]],
    ['nothing', 'no json { here', [], []]
  ])('%s', (_name, text, objects, values) => {
    expect(all(text, objectsOnly)).toEqual(objects)
    expect(all(text, everyBracket)).toEqual(values)
  })

  it('skipNested: values inside a found one are its parts, not finds of their own', () => {
    const text = '{"score": 1, "details": {"score": 0}}'
    expect(all(text, { openers: '{', skipNested: true })).toEqual([{ score: 1, details: { score: 0 } }])
    expect(all(text, { openers: '{', skipNested: false })).toEqual([{ score: 1, details: { score: 0 } }, { score: 0 }])
  })

  it('stops at the first value the visitor takes', () => {
    const seen: unknown[] = []
    visitJsonInText('{"a": 1} {"b": 2} {"c": 3}', objectsOnly, (value) => {
      seen.push(value)
      return 'b' in (value as object)
    })
    expect(seen).toEqual([{ a: 1 }, { b: 2 }])
  })

  it('reports a scan cut short by its budget, and none without one', () => {
    const text = '['.repeat(1_000) + '{"b": 2}'
    expect(visitJsonInText(text, { ...everyBracket, budget: 100 }, () => false)).toEqual({ truncated: true })
    expect(all(text, everyBracket)).toEqual([{ b: 2 }])
  })
})
