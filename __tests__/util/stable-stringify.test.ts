// stableStringify writes plain data itself, without JSON.stringify's replacer: the
// text must be the replacer's to the character, since case fingerprints and judge
// reuse keys are hashes of it and records made before must keep matching.
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { stableStringify } from '../../src/util/hash.js'

/** The definition: JSON.stringify with every object's keys sorted by a replacer (what stableStringify was). */
function reference(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const sorted: Record<string, unknown> = {}
        for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
        return sorted
      }
      if (typeof v === 'function') return `[function ${(v as { name?: string }).name ?? ''}]${String(v)}`
      return v
    }) ?? 'undefined'
  )
}

// keys that sort differently as strings and as numbers, need escapes, or are special to objects
const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom(
    '10',
    '9',
    '2',
    '0',
    '01',
    '4294967294',
    '4294967295',
    '-1',
    '1.5',
    'a',
    'B',
    'é',
    '"q"',
    'back\\slash',
    'line\nbreak',
    '\u0001',
    '\ud800',
    '__proto__',
    'toJSON',
    'constructor',
    ''
  )
)
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('\ud83d\ude00', '\udc00x', 'tab\there', '\u2028', '\u007f', '</script>'))
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e21, 1e-7, Number.MAX_VALUE, NaN, Infinity, -Infinity),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined)
)
/** The same keys and values, inserted in sorted order. */
function inSortedOrder(value: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = {}
  for (const k of Object.keys(value).sort()) sorted[k] = value[k]
  return sorted
}

const { value: plain } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 6 },
    scalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 20 }),
    // already in sorted order, as most objects of a dataset are: kept as they are, unless something below is replaced
    fc
      .dictionary(
        key,
        fc.oneof(
          tie('value'),
          fc.constant(function f() {})
        ),
        { maxKeys: 8 }
      )
      .map(inSortedOrder),
    // more keys than the insertion sort takes
    fc.dictionary(key, scalar, { minKeys: 17, maxKeys: 30 })
  )
}))

class Point {
  constructor(
    readonly y: number,
    readonly x: number
  ) {}
}

describe('stableStringify', () => {
  it('gives the replacer’s text for any plain data', () => {
    fc.assert(
      fc.property(plain, (value) => expect(stableStringify(value)).toBe(reference(value))),
      { numRuns: 3000 }
    )
  })

  it('gives the replacer’s text for what is not plain data, inside plain data or alone', () => {
    const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: [2] })
    const sparse = [1, , 3] // eslint-disable-line no-sparse-arrays
    const values: unknown[] = [
      undefined,
      { a: undefined, b: 1 },
      [undefined, () => 1],
      { z: function named() {}, a: 1 },
      { a: 1, z: function named() {} },
      { a: { b: () => 1, c: [() => 2] }, d: 2 },
      [{ a: 1, b: { c: undefined, d: () => 3 } }],
      { when: new Date(0), b: 'x' },
      new Point(1, 2),
      { p: new Point(3, 4) },
      { toJSON: () => ({ b: 1, a: 2 }) },
      nullProto,
      sparse,
      { s: Symbol('s'), a: 1 },
      [Symbol('s')],
      Object.assign(Object.create({ inherited: 1 }) as object, { own: 2 }),
      new String('boxed'),
      { n: new Number(3) },
      JSON.parse('{"__proto__": {"x": 1}, "a": 1}'),
      JSON.parse('{"__proto__": 5, "b": [1]}')
    ]
    for (const value of values) expect(stableStringify(value)).toBe(reference(value))
  })

  it('walks a deep chain of objects whose keys are out of order once (not once per level above each)', () => {
    // each level lists its child first and a key that sorts before it second; walked again per level, 200 levels would never end
    let chain: Record<string, unknown> = { leaf: () => 1 }
    for (let i = 0; i < 200; i++) chain = { b: chain, a: i }
    expect(stableStringify(chain)).toBe(reference(chain))
    // in order, with a function at the bottom: every level is copied, each once
    let replaced: Record<string, unknown> = { z: () => 1 }
    for (let i = 0; i < 200; i++) replaced = { a: i, b: [replaced], c: 'x' }
    expect(stableStringify(replaced)).toBe(reference(replaced))
  })

  it('throws what the replacer throws on a cycle and on a bigint', () => {
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = cycle
    const thrown = (f: () => unknown) => {
      try {
        f()
      } catch (err) {
        return (err as Error).constructor
      }
      return undefined
    }
    for (const value of [cycle, [cycle], { n: 1n }]) {
      expect(thrown(() => stableStringify(value))).toBeDefined()
      expect(thrown(() => stableStringify(value))).toBe(thrown(() => reference(value)))
    }
  })

  it('writes integer keys first in numeric order, then the others by UTF-16 code units, as the sorted copy did', () => {
    const value = { b: 0, 10: 'a', 9: 'b', '09': 'c', 4294967295: 'd', B: 1, a: 2, é: 3 }
    expect(stableStringify(value)).toBe('{"9":"b","10":"a","09":"c","4294967295":"d","B":1,"a":2,"b":0,"é":3}')
    expect(stableStringify(value)).toBe(reference(value))
  })
})
