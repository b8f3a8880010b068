/**
 * A target that fails most cases (a typo in its program, a missing key, a
 * server that is down), or a judge that fails most verdicts, is one problem,
 * not 25 regressions: found here so that the verdict can say the run could not
 * tell, naming the error most of them share.
 */
import type { RunRecord } from '../types.js'
import type { SharedFailure } from './types.js'

/**
 * An error's headline with what differs from case to case blanked out
 * (numbers, URLs, paths, ids, quoted values), so that "exited with code 1: ValueError:
 * invalid literal for int(): 'abc'" and "…: 'xyz'" count as the same error.
 */
export function errorShape(message: string): string {
  return (
    errorHeadline(message)
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

/** An error's first line. */
export function errorHeadline(message: string): string {
  return message.split('\n', 1)[0]!.trim()
}

/**
 * The error most of `total` attempts failed with, when they failed more than
 * half the time (at least twice): the count of all failures, and the first
 * line of the error most of them share. Null otherwise.
 */
export function sharedFailure(errors: Iterable<string>, total: number): SharedFailure | null {
  const groups = new Map<string, { failed: number; message: string }>()
  let failed = 0
  for (const error of errors) {
    failed++
    const shape = errorShape(error)
    const group = groups.get(shape)
    if (group) group.failed++
    else groups.set(shape, { failed: 1, message: errorHeadline(error) })
  }
  if (failed < 2 || failed * 2 <= total) return null
  let common: { failed: number; message: string } | null = null
  for (const group of groups.values()) if (!common || group.failed > common.failed) common = group
  return { failed, total, message: common!.message }
}

/** The target's failure when it failed on most cases (more than half, at least two). */
export function sharedTargetError(record: Pick<RunRecord, 'cases'>): SharedFailure | null {
  const errors = record.cases.flatMap((c) => (c.error === null || c.error === '' ? [] : [c.error]))
  return sharedFailure(errors, record.cases.length)
}
