/**
 * Which cases a run set out to run: a `--filter` and a shard slice. Shared by
 * the engine (choosing cases) and the comparison (a baseline case outside the
 * selection was left out, not removed).
 */
import { contentHash } from '../util/hash.js'

export interface Shard {
  /** 1-based */
  index: number
  count: number
}

export interface Selection {
  /** keep cases whose id, name or a tag contains this text (case-insensitive) */
  filter?: string | null
  shard?: Shard | null
}

/** What a case is selected by. */
export interface Selectable {
  id: string
  name: string
  tags: readonly string[]
}

/** The deterministic shard of a case: its key's hash modulo the shard count. */
export function shardOf(caseId: string, count: number): number {
  return (parseInt(contentHash(caseId, 8), 16) % count) + 1
}

/** "2/4" → shard 2 of 4; null for no text. */
export function shardFromText(text: string | null | undefined): Shard | null {
  const m = text ? /^(\d+)\/(\d+)$/.exec(text) : null
  return m ? { index: Number(m[1]), count: Number(m[2]) } : null
}

export function isSelected(c: Selectable, selection: Selection): boolean {
  const { shard } = selection
  if (shard && shardOf(c.id, shard.count) !== shard.index) return false
  const needle = selection.filter?.toLowerCase()
  if (!needle) return true
  return c.id.toLowerCase().includes(needle) || c.name.toLowerCase().includes(needle) || c.tags.some((t) => t.toLowerCase().includes(needle))
}
