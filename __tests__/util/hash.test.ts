// contentHash is what case fingerprints are made of: records made by another
// version are compared against it, so its output must never move.
import { createHash } from 'node:crypto'
import { describe, expect, it } from '@jest/globals'
import { contentHash, stableStringify } from '../../src/util/hash.js'

const reference = (value: unknown, length: number) => createHash('sha256').update(stableStringify(value)).digest('hex').slice(0, length)

describe('contentHash', () => {
  it('is the first characters of the SHA-256 of the stable JSON, at every length asked for', () => {
    const values: unknown[] = ['question 1', { input: 'hi', assert: [{ type: 'contains', value: 'hi' }] }, [1, null, { b: 2, a: 'é' }], 0, null]
    for (const value of values) for (const length of [6, 8, 12, 13, 16, 32, 64]) expect(contentHash(value, length)).toBe(reference(value, length))
  })

  it('is 16 characters by default, pinned for one case', () => {
    // sha256 of {"assert":[{"type":"contains","value":"hi"}],"input":"hi"}
    expect(contentHash({ input: 'hi', assert: [{ type: 'contains', value: 'hi' }] })).toBe('c81a697bbc394269')
  })
})
