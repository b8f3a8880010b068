import { describe, expect, it } from '@jest/globals'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { toJson } from '../../src/util/files.js'
import { jsonPieces, writeJsonAtomic, writeTextAtomic } from '../../src/util/json-writer.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'
import { tempDir } from '../__fixtures__/temp.js'

const tricky = {
  a: 1,
  skipped: undefined,
  fn: () => 1,
  empty: [],
  emptyObject: {},
  nested: { list: [1, [2, { x: 'y\nz' }], undefined, () => 0], when: new Date(0), deep: { deeper: { deepest: [true, null] } } },
  text: 'quote " backslash \\ line\u2028sep',
  list: [{ b: undefined, c: [] }, 'x', null, 2.5]
}

describe('jsonPieces', () => {
  it.each([
    ['a run record', makeRun([makeCase('a'), makeCase('b', false)])],
    ['awkward values', tricky],
    ['an empty record list', { cases: [] }],
    ['a top-level array', [1, { a: [1, 2] }, []]],
    ['a scalar', 'just text']
  ])('gives exactly the text of JSON.stringify(value, null, 2) for %s', (_label, value) => {
    expect([...jsonPieces(value, '', 0)].join('')).toBe(JSON.stringify(value, null, 2))
  })
})

describe('writeJsonAtomic', () => {
  it('writes the same bytes as toJson, in writes of bounded size, leaving no temporary file', async () => {
    const dir = tempDir('evalgate-json-')
    const record = makeRun(Array.from({ length: 2000 }, (_, i) => makeCase(`case-${i}`, i % 3 !== 0)))
    const file = path.join(dir, 'sub', 'run.json')
    await writeJsonAtomic(file, record)
    expect(readFileSync(file, 'utf8')).toBe(toJson(record))
    expect(readdirSync(path.dirname(file))).toEqual(['run.json'])
  })

  it('fails without leaving a partial file when the folder cannot be written', async () => {
    const dir = tempDir('evalgate-json-')
    const blocker = path.join(dir, 'file')
    await writeJsonAtomic(blocker, {})
    await expect(writeJsonAtomic(path.join(blocker, 'run.json'), { a: 1 })).rejects.toThrow()
    expect(readdirSync(dir)).toEqual(['file'])
  })

  it('writes text given in pieces (writeTextAtomic) as exactly those pieces joined, however large', async () => {
    const dir = tempDir('evalgate-json-')
    const pieces = Array.from({ length: 300 }, (_, i) => `<p>${i} ${'é✓'.repeat(i * 40)}</p>\n`)
    const file = path.join(dir, 'page.html')
    await writeTextAtomic(file, pieces)
    expect(readFileSync(file, 'utf8')).toBe(pieces.join(''))
    expect(readdirSync(dir)).toEqual(['page.html'])
  })

  it.each([
    ['ASCII and UTF-8 of 2, 3 and 4 bytes', ['plain ', 'é', '—', '😀', ' end']],
    ['a surrogate pair split across pieces', ['before \ud83d', '\ude00 after', '\ud83d', '', '\ude00']],
    ['lone surrogates, as Buffer.from writes them', ['\ud800', 'x', '\udc00', '\ud83d']],
    ['empty pieces only', ['', '', '']],
    ['a piece larger than one write', ['a', '✓'.repeat(200_000), 'b']],
    ['many small pieces across writes', Array.from({ length: 50_000 }, (_, i) => (i % 7 === 0 ? '—' : `${i},`))],
    // one-character pieces fill a write to its last bytes before the lone high surrogate at the end comes
    ...Array.from({ length: 4 }, (_, k): [string, string[]] => [
      `a lone high surrogate last, after ${262_141 + k} one-character pieces`,
      [...Array.from({ length: 262_141 + k }, () => 'a'), '\ud800']
    ])
  ])('writes the bytes of the pieces joined: %s', async (_label, pieces) => {
    const dir = tempDir('evalgate-json-')
    const file = path.join(dir, 'page.html')
    await writeTextAtomic(file, pieces)
    expect(readFileSync(file).equals(Buffer.from(pieces.join('')))).toBe(true)
  })
})
