import { describe, expect, it } from '@jest/globals'
import { diffSequences, lineDiff, withContext, wordDiff, type DiffLine, type Edit } from '../../src/report/diff.js'

function sides<T>(edits: Edit<T>[]): { a: T[]; b: T[] } {
  return {
    a: edits.filter((e) => e.op !== 'insert').map((e) => e.item),
    b: edits.filter((e) => e.op !== 'delete').map((e) => e.item)
  }
}

/** The length of a longest common subsequence, by the textbook table. */
function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  const row = new Array<number>(b.length + 1).fill(0)
  for (const x of a) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!)
      diagonal = up
    }
  }
  return row[b.length]!
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31
    return s / 2 ** 31
  }
}

describe('diffSequences', () => {
  it.each([
    { a: '', b: '', ops: '' },
    { a: 'abc', b: 'abc', ops: '===' },
    { a: '', b: 'ab', ops: '++' },
    { a: 'ab', b: '', ops: '--' },
    { a: 'abc', b: 'abxc', ops: '==+=' },
    { a: 'abxc', b: 'abc', ops: '==-=' },
    { a: 'abc', b: 'xyz', ops: '---+++' }
  ])('$a → $b', ({ a, b, ops }) => {
    const edits = diffSequences([...a], [...b])
    expect(edits.map((e) => ({ equal: '=', delete: '-', insert: '+' })[e.op]).join('')).toBe(ops)
    expect(sides(edits)).toEqual({ a: [...a], b: [...b] })
  })

  it('is minimal: keeps a longest common subsequence (500 random pairs)', () => {
    const next = random(7)
    for (let round = 0; round < 500; round++) {
      const make = () => Array.from({ length: Math.floor(next() * 14) }, () => 'abcd'[Math.floor(next() * 4)]!)
      const a = make()
      const b = make()
      const edits = diffSequences(a, b)
      expect(sides(edits)).toEqual({ a, b })
      expect(edits.filter((e) => e.op === 'equal').length).toBe(lcsLength(a, b))
    }
  })

  it('past the bound on edits, stays correct but replaces the whole differing middle', () => {
    const a = [...'xaaaaaaaaaay']
    const b = [...'xbbbbbbbbbby']
    const edits = diffSequences(a, b, 3)
    expect(sides(edits)).toEqual({ a, b })
    expect(edits.map((e) => e.op).join(',')).toBe(['equal', ...Array(10).fill('delete'), ...Array(10).fill('insert'), 'equal'].join(','))
  })

  it('handles long texts with few changes quickly', () => {
    // 200,000 lines: a quadratic diff would take minutes of CPU, one in O((N+M)·D) takes milliseconds;
    // CPU time, which a busy machine does not stretch
    const a = Array.from({ length: 200_000 }, (_, i) => `line ${i}`)
    const b = [...a]
    b[100] = 'changed'
    b.splice(150_000, 0, 'inserted')
    const before = process.cpuUsage()
    const edits = diffSequences(a, b)
    const used = process.cpuUsage(before)
    expect((used.user + used.system) / 1000).toBeLessThan(10_000)
    expect(edits.filter((e) => e.op !== 'equal').map((e) => `${e.op}:${e.item}`)).toEqual(['delete:line 100', 'insert:changed', 'insert:inserted'])
  })
})

describe('lineDiff', () => {
  it('diffs lines and marks the changed words of a replaced line', () => {
    const diff = lineDiff('The capital is Sydney.\nThanks!', 'The capital is Canberra.\nThanks!')
    expect(diff.map((l) => [l.op, l.text])).toEqual([
      ['delete', 'The capital is Sydney.'],
      ['insert', 'The capital is Canberra.'],
      ['equal', 'Thanks!']
    ])
    expect(diff[0]!.segments).toEqual([
      { text: 'The capital is ', changed: false },
      { text: 'Sydney', changed: true },
      { text: '.', changed: false }
    ])
    expect(diff[1]!.segments?.filter((s) => s.changed).map((s) => s.text)).toEqual(['Canberra'])
    expect(diff[2]!.segments).toBeUndefined()
  })

  it('treats CRLF like LF', () => {
    expect(lineDiff('a\r\nb', 'a\nb').every((l) => l.op === 'equal')).toBe(true)
  })

  it('leaves unpaired runs without word segments', () => {
    const diff = lineDiff('a\nb', 'x\ny\nz')
    expect(diff.some((l) => l.segments)).toBe(false)
  })

  it('wordDiff splits words, spaces and punctuation', () => {
    const w = wordDiff('refund within 30 days', 'refund within a month')
    expect(w.before.filter((s) => s.changed).map((s) => s.text)).toEqual(['30 days'])
    expect(w.after.filter((s) => s.changed).map((s) => s.text)).toEqual(['a month'])
  })
})

describe('withContext', () => {
  const equal = (n: number, from = 0): DiffLine[] => Array.from({ length: n }, (_, i) => ({ op: 'equal', text: `l${from + i}` }))

  it('cuts long equal runs to the context around changes', () => {
    const diff: DiffLine[] = [...equal(10), { op: 'insert', text: 'new' }, ...equal(10, 10), { op: 'delete', text: 'old' }, ...equal(10, 20)]
    const shown = withContext(diff, 2)
    expect(shown.map((l) => (l.op === 'skip' ? `…${l.count}` : l.text))).toEqual([
      '…8',
      'l8',
      'l9',
      'new',
      'l10',
      'l11',
      '…6',
      'l18',
      'l19',
      'old',
      'l20',
      'l21',
      '…8'
    ])
  })

  it('never replaces a single line by a skip marker', () => {
    const diff: DiffLine[] = [{ op: 'delete', text: 'x' }, ...equal(5), { op: 'insert', text: 'y' }]
    expect(withContext(diff, 2).some((l) => l.op === 'skip')).toBe(false)
  })
})
