// The plain reader stands in for zod on dataset cases: whatever it returns must be
// exactly what zod returns (same values, same keys in the same order), and a value
// zod rejects must always go to zod, which explains it.
import { describe, expect, it } from '@jest/globals'
import fc from 'fast-check'
import { z } from 'zod'
import { plainReader, ZOD_DECIDES } from '../../src/config/plain-parse.js'
import { assertionSchema, caseSchema, configSchema } from '../../src/config/schema.js'

const key = fc.constantFrom('a', 'B', '10', '2', '__proto__', 'constructor', 'toString', '')
const scalar = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom('', 'contains', 'exact_match', 'json_exact', 'fuzzy'),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.constantFrom(NaN, Infinity, -0, 0.5, 2 ** 60),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined)
)
const { value: anything } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 3 }, scalar, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(key, tie('value'), { maxKeys: 3 }))
}))
/** Mostly the right kind of value, sometimes anything. */
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 15 }, { arbitrary: anything, weight: 1 })
/** Sometimes with a key the schema does not have. */
const withStrayKey = (record: fc.Arbitrary<Record<string, unknown>>) =>
  fc.tuple(record, fc.nat(9), anything).map(([r, n, v]) => (n === 0 ? { ...r, stray: v } : r))

const assertionLike = withStrayKey(
  fc.record(
    {
      type: mostly(fc.constantFrom('contains', 'trajectory-match', '')),
      value: anything,
      threshold: mostly(fc.double({ noNaN: true })),
      weight: mostly(fc.constantFrom(0, 1, -1, 2.5)),
      mode: mostly(fc.constantFrom('superset', 'strict')),
      includeToolCalls: mostly(fc.boolean())
    },
    { requiredKeys: [] }
  )
)
const caseLike = withStrayKey(
  fc.record(
    {
      id: mostly(fc.oneof(fc.constantFrom('', 'c1'), fc.integer())),
      name: mostly(fc.string({ maxLength: 3 })),
      input: anything,
      tags: mostly(fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 })),
      assert: mostly(fc.array(assertionLike, { maxLength: 3 })),
      expected: anything,
      grading_method: mostly(fc.constantFrom('contains', 'exact_match', 'fuzzy')),
      ideal: mostly(fc.oneof(fc.string({ maxLength: 3 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }))),
      metadata: mostly(fc.dictionary(key, anything, { maxKeys: 3 }))
    },
    { requiredKeys: [] }
  )
)

/** The reader's answer agrees with zod's: the same output, key order included, or zod's to decide. True when the reader read it. */
function agrees(schema: z.ZodType, value: unknown): boolean {
  const read = plainReader(schema)!.read(value)
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    expect(read).toBe(ZOD_DECIDES)
    return false
  }
  if (read === ZOD_DECIDES) return false
  expect(read).toEqual(parsed.data)
  // keys, their order and undefined values included, all the way down (toStrictEqual trips on a key named constructor)
  expect(layout(read)).toEqual(layout(parsed.data))
  return true
}

function layout(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(layout)
  if (value !== null && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, layout(v)])
  return typeof value
}

describe('plainReader', () => {
  it('reads a case as zod does, or leaves it to zod', () => {
    let read = 0
    fc.assert(
      fc.property(caseLike, (value) => {
        if (agrees(caseSchema, value)) read++
      }),
      { numRuns: 1500 }
    )
    // the comparison is worth something only if the reader answers often
    expect(read).toBeGreaterThan(50)
  })

  it('reads assertions as zod does, or leaves them to zod', () => {
    let read = 0
    fc.assert(
      fc.property(assertionLike, (value) => {
        if (agrees(assertionSchema, value)) read++
      }),
      { numRuns: 1000 }
    )
    expect(read).toBeGreaterThan(50)
  })

  it('reads the cases of a dataset itself, in the schema’s key order', () => {
    const line = JSON.parse(
      '{"metadata":{"b":1,"a":[2]},"assert":[{"value":{"name":"refund","max":1},"type":"trajectory:tool-used"},{"mode":"superset","type":"trajectory-match","value":["refund"]}],"input":"question 1","id":"c1","tags":["x"]}'
    ) as unknown
    const read = plainReader(caseSchema)!.read(line)
    expect(read).not.toBe(ZOD_DECIDES)
    expect(JSON.stringify(read)).toBe(JSON.stringify(caseSchema.parse(line)))
    expect(Object.keys((read as { assert: object[] }).assert[1]!)).toEqual(['type', 'value', 'mode'])
  })

  it('leaves to zod what only zod reads right', () => {
    const inherited = Object.assign(Object.create({ name: 'from the prototype' }) as object, { input: 'x' })
    const cases: unknown[] = [
      JSON.parse('{"input": "x", "__proto__": {"id": 1}}'),
      { input: 'x', metadata: JSON.parse('{"__proto__": 1}') },
      { input: 'x', metadata: { constructor: 'c' } },
      { input: 'x', metadata: { [Symbol('s')]: 1 } },
      inherited,
      new (class Case {
        input = 'x'
      })(),
      { input: 'x', id: '' },
      { input: 'x', assert: [{ type: 'contains', weight: NaN }] },
      { input: 'x', assert: [{ type: 'contains', weight: Infinity }] },
      { input: 'x', tags: [, 'a'] } // eslint-disable-line no-sparse-arrays
    ]
    for (const value of cases) expect(plainReader(caseSchema)!.read(value)).toBe(ZOD_DECIDES)
  })

  it('reads none of a schema with defaults or refinements: zod parses the config whole', () => {
    expect(plainReader(configSchema)).toBeNull()
    expect(plainReader(z.object({ n: z.number().default(1) }).strict())).toBeNull()
    expect(plainReader(z.string().email())).toBeNull()
    expect(plainReader(z.object({ a: z.string() }))).toBeNull()
  })
})
