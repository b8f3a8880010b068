/**
 * A target that fails most cases the same way (a typo in its program, a missing
 * key, a server that is down) is one problem, not 25 regressions: found here so
 * that the verdict can say so in its first line (SPEC §6).
 */
import type { RunRecord } from '../types.js'

export interface SharedTargetError {
  /** cases whose target error is this one */
  failed: number
  /** cases in the run */
  total: number
  /** the first line of the first such case's error, as it was */
  message: string
}

/**
 * An error's headline with what differs from case to case blanked out
 * (numbers, URLs, paths, ids, quoted values), so that "exited with code 1: ValueError:
 * invalid literal for int(): 'abc'" and "…: 'xyz'" count as the same error.
 */
export function errorShape(message: string): string {
  return (
    headline(message)
      .slice(0, 500)
      .replace(/(["'`])(?:(?!\1).){0,200}\1/g, '<text>')
      .replace(/\b[a-z][\w+.-]*:\/\/\S+/gi, '<url>')
      // each repetition ends at a separator: no two ways to match the same text, no backtracking blow-up
      .replace(/(?:[A-Za-z]:)?[\\/]?(?:[\w.@~-]+[\\/])+[\w.@~-]*/g, '<path>')
      .replace(/\b[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b/gi, '<id>')
      .replace(/\d+(?:\.\d+)?/g, '<n>')
      .replace(/\s+/g, ' ')
      .trim()
  )
}

function headline(message: string): string {
  return message.split('\n', 1)[0]!.trim()
}

/** The error most cases failed with (more than half of them), or null when there is none. */
export function sharedTargetError(record: Pick<RunRecord, 'cases'>): SharedTargetError | null {
  const total = record.cases.length
  const groups = new Map<string, { failed: number; message: string }>()
  for (const c of record.cases) {
    if (c.error === null || c.error === '') continue
    const shape = errorShape(c.error)
    const group = groups.get(shape)
    if (group) group.failed++
    else groups.set(shape, { failed: 1, message: headline(c.error) })
  }
  let best: { failed: number; message: string } | null = null
  for (const group of groups.values()) if (!best || group.failed > best.failed) best = group
  return best && best.failed * 2 > total ? { failed: best.failed, total, message: best.message } : null
}
