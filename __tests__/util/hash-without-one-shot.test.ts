// contentHash on a Node without crypto.hash (before 20.12, still allowed by
// engines >= 20): the same hashes, through createHash.
import { describe, expect, it, jest } from '@jest/globals'
import * as realCrypto from 'node:crypto'

jest.unstable_mockModule('node:crypto', () => {
  const { hash: _absent, ...rest } = realCrypto
  return { ...rest, default: { ...rest } }
})

const { contentHash } = await import('../../src/util/hash.js')
const crypto = await import('node:crypto')

describe('contentHash without crypto.hash', () => {
  it('runs where crypto.hash is missing', () => {
    expect((crypto as { hash?: unknown }).hash).toBeUndefined()
  })

  it('gives the same hashes at every length', () => {
    const value = { input: 'hi', assert: [{ type: 'contains', value: 'hi' }] }
    expect(contentHash(value)).toBe('c81a697bbc394269')
    expect(contentHash(value, 6)).toBe('c81a69')
    expect(contentHash(value, 13)).toBe('c81a697bbc394')
    expect(contentHash(value, 64)).toBe('c81a697bbc3942694d2a5a60bdcb183550ba8c86d9190d32133c34663a1fcf9a')
  })
})
