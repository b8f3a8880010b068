import { describe, expect, it } from '@jest/globals'
import { isSelected, shardFromText, shardOf, type Selectable } from '../../src/compare/selection.js'

describe('shardFromText', () => {
  it.each([
    ['2/4', { index: 2, count: 4 }],
    ['12/34', { index: 12, count: 34 }],
    [null, null],
    [undefined, null],
    ['', null],
    ['2/4x', null],
    ['x2/4', null],
    ['2/', null],
    ['a/b', null]
  ])('%p → %p', (text, shard) => {
    expect(shardFromText(text)).toEqual(shard)
  })
})

describe('shardOf and the shard selection', () => {
  const ids = Array.from({ length: 200 }, (_, i) => `case-${i}`)
  const caseOf = (id: string): Selectable => ({ id, name: id, tags: [] })

  it('puts every case in one shard of 1..count, each shard getting some, the same on every call', () => {
    const shards = ids.map((id) => shardOf(id, 4))
    expect(new Set(shards)).toEqual(new Set([1, 2, 3, 4]))
    expect(ids.map((id) => shardOf(id, 4))).toEqual(shards)
  })

  it('selects each case in exactly the shard it belongs to', () => {
    for (const id of ids.slice(0, 40)) {
      const selectedBy = [1, 2, 3].filter((index) => isSelected(caseOf(id), { shard: { index, count: 3 } }))
      expect(selectedBy).toEqual([shardOf(id, 3)])
    }
  })
})

describe('isSelected by --filter: id, name or a tag contains the text, ignoring case', () => {
  const c: Selectable = { id: 'geo-Capital', name: 'Capital of France', tags: ['Geography', 'easy'] }
  it.each([
    [undefined, true],
    ['', true],
    ['GEO-cap', true], // the id
    ['of fra', true], // the name only
    ['graph', true], // one tag only
    ['EASY', true],
    ['math', false]
  ])('%p → %p', (filter, selected) => {
    expect(isSelected(c, { filter })).toBe(selected)
  })

  it('does not select an untagged case that neither id nor name matches', () => {
    expect(isSelected({ id: 'a', name: 'b', tags: [] }, { filter: 'z' })).toBe(false)
  })
})
