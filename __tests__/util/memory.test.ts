import { describe, expect, it } from '@jest/globals'
import { collectGarbage } from '../../src/util/memory.js'

describe('collectGarbage', () => {
  it('frees what nothing refers to any more, there and then', () => {
    let garbage: number[][] | null = Array.from({ length: 2000 }, (_, i) => Array.from({ length: 2000 }, (_, k) => i * k + 0.5))
    const held = process.memoryUsage().heapUsed
    // (not handed to expect(), which may keep what it was given)
    const rows = garbage.length
    garbage = null
    collectGarbage()
    // 4,000,000 doubles: ~32 MB that only a collection gives back
    expect(rows).toBe(2000)
    expect(held - process.memoryUsage().heapUsed).toBeGreaterThan(24_000_000)
  })
})
