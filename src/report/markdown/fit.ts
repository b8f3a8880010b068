/**
 * Fitting the comment into its room (GitHub refuses bodies over 65,536
 * characters): the report is a list of blocks, essential or optional; a case
 * table is given room row by row, and every regressed case's id stays,
 * whatever else competes for the room.
 */
import { formatCount, formatList, plural } from '../format.js'
import { inlineCode, truncate } from '../escape.js'

export const SEPARATOR = '\n\n'

/** Rows of a case table shown open; the others fold into a collapsed block below it (still in the comment). */
export const OPEN_ROWS = 20

/** What can be left out of a long report, most important first: the order in which room is given. */
export const OPTIONAL = ['coverage', 'scored', 'errors', 'fixes', 'flaky', 'tags', 'detail'] as const
export type Optional = (typeof OPTIONAL)[number]

/** A whole unit of the report, joined to the next by a blank line. */
export interface Block {
  text: string
  optional?: Optional
  /** a table under `text` given room row by row; rows left out leave their case ids in a line below */
  table?: CaseTable
}

export interface CaseTable {
  head: string
  rows: { key: string; text: string }[]
  /** cases past the most rows that could fit: their ids always go to the line below the table */
  beyond: string[]
  /** the line naming the cases whose rows did not fit, within `maxChars` when given */
  rest: (keys: string[], maxChars?: number) => string
}

/** A block as shown with the first `rows` rows of its table (the others' ids in the line below it). */
export function renderBlock(block: Block, rows = block.table?.rows.length ?? 0, restChars?: number): string {
  const t = block.table
  if (!t) return block.text
  const parts = [block.text]
  const lines = t.rows.slice(0, rows).map((r) => r.text)
  if (rows > 0) parts.push(`${t.head}\n${lines.slice(0, OPEN_ROWS).join('\n')}`)
  if (rows > OPEN_ROWS) parts.push(`${foldOpening(rows - OPEN_ROWS)}${t.head}\n${lines.slice(OPEN_ROWS).join('\n')}${FOLD_CLOSING}`)
  if (rows < t.rows.length || t.beyond.length) parts.push(t.rest([...t.rows.slice(rows).map((r) => r.key), ...t.beyond], restChars))
  return parts.join(SEPARATOR)
}

function foldOpening(rows: number): string {
  return `<details><summary>${plural(rows, 'more case')}</summary>${SEPARATOR}`
}

const FOLD_CLOSING = `${SEPARATOR}</details>`

/**
 * The report within maxLength. Every essential block stays, and so does every
 * regressed case's id: a case table's rows are given room first, one by one in
 * dataset order, and the ids of rows left out are listed below the table. Then
 * optional blocks get room in order of importance (coverage lists, scored
 * lower, errors, fixes, flaky, per-tag, then regression details in dataset
 * order) and are dropped whole when they do not fit, with a line saying what
 * was left out and where to find it.
 */
export function fit(body: Block[], footer: Block[], maxLength: number, hint?: string): string {
  const all = [...body, ...footer]
  const full = all.map((b) => renderBlock(b))
  if (joinedLength(full) <= maxLength) return full.join(SEPARATOR)
  const essential = all.filter((b) => !b.optional)
  const tables = essential.filter((b) => b.table)
  // Room for the longest possible note: the one that says everything optional was dropped.
  const longestNote = omissionNote(
    body.filter((b) => b.optional),
    maxLength,
    hint
  )
  const reserved = SEPARATOR.length + longestNote.length
  // Only when the ids alone overflow is the line of ids cut, each table's line to an equal share.
  const withoutRows = essential.map((b) => renderBlock(b, 0))
  let restChars: number | undefined
  if (joinedLength(withoutRows) + reserved > maxLength && tables.length) {
    const lines = tables.reduce((n, b) => n + renderBlock(b, 0).length - b.text.length, 0)
    restChars = Math.max(0, Math.floor((maxLength - reserved - (joinedLength(withoutRows) - lines)) / tables.length) - SEPARATOR.length)
  }
  const rowsKept = new Map<Block, number>()
  let length = joinedLength(essential.map((b) => renderBlock(b, 0, restChars))) + reserved
  for (const block of tables) {
    const t = block.table!
    let kept = 0
    for (const row of t.rows) {
      // a row moves its id out of the line below; a cut line gives nothing back
      const freed = restChars === undefined ? inlineCode(row.key).length + 2 : 0
      // the first row opens the table, the first folded one the collapsed block and its table
      const opening =
        kept === 0
          ? SEPARATOR.length + t.head.length
          : kept === OPEN_ROWS
            ? SEPARATOR.length + foldOpening(t.rows.length).length + t.head.length + FOLD_CLOSING.length
            : 0
      const extra = opening + 1 + row.text.length - freed
      if (length + extra > maxLength) break
      length += extra
      kept++
    }
    rowsKept.set(block, kept)
  }
  const kept = new Set(essential)
  for (const kind of OPTIONAL) {
    for (const block of body.filter((b) => b.optional === kind)) {
      const extra = SEPARATOR.length + block.text.length
      if (length + extra <= maxLength) {
        kept.add(block)
        length += extra
      } else if (kind === 'detail') {
        break // regression details stay a prefix, in dataset order
      }
    }
  }
  const dropped = body.filter((b) => !kept.has(b))
  const note = dropped.length ? [omissionNote(dropped, maxLength, hint)] : []
  const shown = (blocks: Block[]) => blocks.filter((b) => kept.has(b)).map((b) => renderBlock(b, rowsKept.get(b), restChars))
  const text = [...shown(body), ...note, ...shown(footer)].join(SEPARATOR)
  return text.length <= maxLength ? text : hardCut(text, maxLength)
}

function omissionNote(dropped: Block[], maxLength: number, hint?: string): string {
  const details = dropped.filter((b) => b.optional === 'detail').length
  const what = [
    ...(details ? [plural(details, 'regression detail')] : []),
    ...(dropped.some((b) => b.optional === 'coverage') ? ['the lists of removed, changed and added cases'] : []),
    ...(dropped.some((b) => b.optional === 'scored') ? ['the cases scored lower'] : []),
    ...(dropped.some((b) => b.optional === 'fixes') ? ['the fixes list'] : []),
    ...(dropped.some((b) => b.optional === 'tags') ? ['the per-tag breakdown'] : []),
    ...(dropped.some((b) => b.optional === 'errors') ? ['the errors list'] : []),
    ...(dropped.some((b) => b.optional === 'flaky') ? ['the flaky list'] : [])
  ]
  const where = hint ? `; see ${hint}` : ''
  return `⚠️ ${formatList(what)} did not fit within ${formatCount(maxLength)} characters${where}.`
}

/** Last resort when even the essential blocks are too long (a tiny maxLength). */
function hardCut(text: string, maxLength: number): string {
  const note = `${SEPARATOR}⚠️ cut at ${formatCount(maxLength)} characters`
  if (note.length >= maxLength) return truncate(text, maxLength).text
  return truncate(text, maxLength - note.length).text + note
}

function joinedLength(texts: readonly string[]): number {
  return texts.reduce((n, t) => n + t.length, 0) + SEPARATOR.length * Math.max(0, texts.length - 1)
}
