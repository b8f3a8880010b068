/**
 * Line and word diffs of two outputs (the baseline's and the current one), for
 * the HTML report. Myers' O((N+M)·D) greedy algorithm on what remains once the
 * common prefix and suffix are set aside; past a bound on the number of edits
 * the diff stops being minimal (all deletions, then all insertions) rather than
 * taking quadratic time and memory on two unrelated long texts.
 *
 * Kept rather than jsdiff for speed (diff 9.0.0, Node 20.20, 2026-12-02,
 * `node scripts/measure-infra.mjs`): lineDiff with jsdiff's diffArrays in
 * place of diffSequences, the same tokens and the same 2,000-edit bound,
 * finds diffs of the same size and takes 0.07 ms against 0.03 ms here on a
 * 2 KB answer, 2.2 against 1.35 ms on 50 KB, 779 against 140 ms on two
 * unrelated 50 KB texts and 207 against 46 ms on a 50 KB one-line JSON
 * (medians of 20). Size is no reason: diffArrays alone minifies to 3.4 KB,
 * this file to 3.0 KB.
 */

export type DiffOp = 'equal' | 'delete' | 'insert'

export interface Edit<T> {
  op: DiffOp
  item: T
}

/** A piece of a changed line; `changed` marks the words that differ from its counterpart. */
export interface Segment {
  text: string
  changed: boolean
}

export interface DiffLine {
  op: DiffOp
  text: string
  /** for a deleted line paired with an inserted one: which words changed */
  segments?: Segment[]
}

/** A run of equal lines left out of a diff shown with context. */
export interface DiffSkip {
  op: 'skip'
  count: number
}

/** Beyond this many edits the diff is no longer minimal (memory grows with its square). */
export const MAX_EDITS = 2_000

/**
 * The edits that turn a into b: every item of a appears once as `equal` or
 * `delete`, every item of b once as `equal` or `insert`, in order.
 */
export function diffSequences<T>(a: readonly T[], b: readonly T[], maxEdits = MAX_EDITS): Edit<T>[] {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const prefix = a.slice(0, start).map((item) => ({ op: 'equal' as const, item }))
  const suffix = a.slice(endA).map((item) => ({ op: 'equal' as const, item }))
  return [...prefix, ...middle(a.slice(start, endA), b.slice(start, endB), maxEdits), ...suffix]
}

function middle<T>(a: readonly T[], b: readonly T[], maxEdits: number): Edit<T>[] {
  const n = a.length
  const m = b.length
  if (n === 0) return b.map((item) => ({ op: 'insert', item }))
  if (m === 0) return a.map((item) => ({ op: 'delete', item }))
  const limit = Math.min(n + m, maxEdits)
  const offset = limit + 1
  // v[k + offset]: the furthest x reached on diagonal k = x − y
  const v = new Int32Array(2 * limit + 3)
  // trace[d][k + d]: v after d edits, on diagonals −d..d
  const trace: Int32Array[] = []
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1))
        return backtrack(a, b, trace)
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1))
  }
  return [...a.map((item) => ({ op: 'delete' as const, item })), ...b.map((item) => ({ op: 'insert' as const, item }))]
}

function backtrack<T>(a: readonly T[], b: readonly T[], trace: Int32Array[]): Edit<T>[] {
  const edits: Edit<T>[] = []
  let x = a.length
  let y = b.length
  for (let d = trace.length - 1; d > 0; d--) {
    const previous = trace[d - 1]!
    const at = (k: number) => previous[k + d - 1]!
    const k = x - y
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1))
    const prevK = down ? k + 1 : k - 1
    const prevX = at(prevK)
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) {
      x--
      y--
      edits.push({ op: 'equal', item: a[x]! })
    }
    if (down) edits.push({ op: 'insert', item: b[--y]! })
    else edits.push({ op: 'delete', item: a[--x]! })
  }
  while (x > 0 && y > 0) {
    x--
    y--
    edits.push({ op: 'equal', item: a[x]! })
  }
  return edits.reverse()
}

function lines(text: string): string[] {
  return text.replace(/\r\n?/g, '\n').split('\n')
}

/** Words, runs of white space and single punctuation marks: the units of an in-line diff. */
function words(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? []
}

/**
 * One side's pieces, adjacent ones of the same kind joined; white space alone
 * between two changes counts as changed, so "30 days" reads as one change.
 */
function segmentsOf(edits: Edit<string>[], side: 'delete' | 'insert'): Segment[] {
  const mine = edits.filter((e) => e.op === 'equal' || e.op === side)
  const out: Segment[] = []
  for (const [i, e] of mine.entries()) {
    const between = e.op === 'equal' && /^\s+$/.test(e.item) && mine[i - 1]?.op === side && mine[i + 1]?.op === side
    const changed = e.op !== 'equal' || between
    const last = out[out.length - 1]
    if (last && last.changed === changed) last.text += e.item
    else out.push({ text: e.item, changed })
  }
  return out
}

/** Which words of a changed line differ, on each side. */
export function wordDiff(before: string, after: string): { before: Segment[]; after: Segment[] } {
  const edits = diffSequences(words(before), words(after))
  return { before: segmentsOf(edits, 'delete'), after: segmentsOf(edits, 'insert') }
}

/**
 * The line diff of two texts. Where a run of deleted lines is followed by as
 * many inserted ones, each pair also says which of its words changed.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const result: DiffLine[] = diffSequences(lines(before), lines(after)).map((e) => ({ op: e.op, text: e.item }))
  for (let i = 0; i < result.length;) {
    if (result[i]!.op !== 'delete') {
      i++
      continue
    }
    let deletes = 0
    while (result[i + deletes]?.op === 'delete') deletes++
    let inserts = 0
    while (result[i + deletes + inserts]?.op === 'insert') inserts++
    if (deletes === inserts) {
      for (let j = 0; j < deletes; j++) {
        const del = result[i + j]!
        const ins = result[i + deletes + j]!
        const w = wordDiff(del.text, ins.text)
        del.segments = w.before
        ins.segments = w.after
      }
    }
    i += deletes + inserts
  }
  return result
}

/** The diff with runs of equal lines longer than 2·context + 1 cut to `context` lines on each side. */
export function withContext(diff: readonly DiffLine[], context = 3): Array<DiffLine | DiffSkip> {
  const out: Array<DiffLine | DiffSkip> = []
  for (let i = 0; i < diff.length;) {
    if (diff[i]!.op !== 'equal') {
      out.push(diff[i++]!)
      continue
    }
    let end = i
    while (end < diff.length && diff[end]!.op === 'equal') end++
    const keepBefore = i === 0 ? 0 : context
    const keepAfter = end === diff.length ? 0 : context
    const skipped = end - i - keepBefore - keepAfter
    if (skipped > 1) {
      out.push(...diff.slice(i, i + keepBefore), { op: 'skip', count: skipped }, ...diff.slice(end - keepAfter, end))
    } else {
      out.push(...diff.slice(i, end))
    }
    i = end
  }
  return out
}
