import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { JsonArraySplitter, JsonSplitError, pathAtEnd } from '../../src/util/json-split.js'

/** Split `text` fed in chunks of `size`; the object back together, as JSON.parse would give it. */
function split(text: string, size: number, maxDepth = 256): { value: unknown; texts: string[] } {
  const texts: string[] = []
  const splitter = new JsonArraySplitter({ field: 'cases', maxDepth, onElement: (t, i) => texts.push(`${i}:${t}`) })
  for (let i = 0; i < text.length; i += size) splitter.push(text.slice(i, i + size))
  const head = JSON.parse(splitter.end()) as Record<string, unknown>
  const cases = texts.map((t) => JSON.parse(t.slice(t.indexOf(':') + 1)) as unknown)
  return { value: 'cases' in head ? { ...head, cases } : head, texts }
}

function refusal(text: string, size = 3, maxDepth = 256): JsonSplitError | Error {
  try {
    split(text, size, maxDepth)
  } catch (err) {
    return err as Error
  }
  throw new Error(`accepted: ${text}`)
}

const chunkSizes = [1, 2, 3, 7, 64, 100_000]

describe('JsonArraySplitter', () => {
  it.each([
    ['cases last, with strings that look like structure', '{"a":1,"cases":[1,2,{"x":[3,"]\\"","\\\\"],"y":"{,:["}],"b":"c"}'],
    ['an empty list', '{"cases":[]}'],
    ['blank space everywhere', ' {\n "cases" :\t[ \n ] , "z" : { "cases" : [ 9 ] } } \n'],
    ['an escaped key', '{"ca\\u0073es":[{"a":"\\""}]}'],
    ['cases not last, and a "cases" key deeper down', '{"x":{"cases":[1]},"cases":[[1],[2]],"after":[{"k":"v"}]}'],
    ['no cases at all', '{"schemaVersion":1,"list":[1,2]}'],
    ['a value "cases", not a key', '{"k":"cases","l":["cases",[1]]}'],
    ['unicode and escapes across chunk edges', '{"cases":["\\u00e9\\\\\\"x","ü€𝄞",{"\\"":"\\\\"}]}']
  ])('gives back exactly what JSON.parse gives: %s', (_label, text) => {
    for (const size of chunkSizes) expect(split(text, size).value).toEqual(JSON.parse(text))
  })

  it('hands over each element of the field, in order, and only those', () => {
    const { texts } = split('{"head":[0],"cases":[ {"id":"a"} ,\n"b",3],"tail":[4]}', 2)
    expect(texts).toEqual(['0: {"id":"a"} ', '1:\n"b"', '2:3'])
  })

  it('agrees with JSON.parse on generated records, whatever the chunking', () => {
    const record = fc.record({ name: fc.string(), cases: fc.array(fc.jsonValue(), { maxLength: 8 }), extra: fc.jsonValue() })
    fc.assert(
      fc.property(record, fc.integer({ min: 1, max: 40 }), fc.boolean(), (value, size, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined)
        expect(split(text, size).value).toEqual(JSON.parse(text))
      }),
      { numRuns: 300 }
    )
  })

  it.each([
    ['{"cases":[1,]}', /empty element in the "cases" list/, 1],
    ['{"cases":[,1]}', /empty element/, 0],
    ['{"cases":[1}', /closed with "}"/, 0],
    ['{"cases":[1],"cases":[2]}', /"cases" appears twice/, undefined],
    ['{"cases":[1,{"a":', /not closed/, 1]
  ])('refuses %s, naming the element', (text, message, index) => {
    const err = refusal(text)
    expect(err).toBeInstanceOf(JsonSplitError)
    expect(err.message).toMatch(message)
    expect((err as JsonSplitError).index).toBe(index)
  })

  it.each(['{"cases":[1 2]}', '{"cases":[1]', '{"cases":[tru]}', '{"cases":[1]} x', '{"cases":[{"a" 1}]}'])(
    'leaves JSON that is wrong inside a piece to JSON.parse: %s',
    (text) => {
      expect(refusal(text)).toBeInstanceOf(SyntaxError)
    }
  )

  it('refuses nesting past maxDepth with the path to it, inside an element or outside', () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
    // levels: the record 1, cases 2, the element 3, input 4, then 5, 6 and a 7th too many
    const inside = refusal(`{"cases":[0,{"input":[${deep(5)}]}]}`, 4, 6)
    expect(inside).toMatchObject({ index: 1, path: ['input', 0, 0, 0] })
    const splitter = new JsonArraySplitter({ field: 'cases', maxDepth: 4, onElement: () => undefined })
    expect(() => splitter.push('{"a":{"b":[[{}]]}}')).toThrow(expect.objectContaining({ index: undefined, path: ['a', 'b', 0, 0] }))
    expect(split(`{"cases":[${deep(253)}]}`, 5).value).toEqual(JSON.parse(`{"cases":[${deep(253)}]}`))
  })
})

describe('pathAtEnd', () => {
  it.each([
    ['{"a": [1, {"b": [', ['a', 1, 'b']],
    ['[', []],
    ['{"x":"y,[{","k\\"":[0,', ['k"']],
    ['[[],[1,2],{', [2]]
  ])('%s → %j', (prefix, path) => {
    expect(pathAtEnd(prefix)).toEqual(path)
  })
})
