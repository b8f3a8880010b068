/**
 * A merge that left its conflict markers behind once shipped in README.md's
 * Development block: no tracked text file may hold a line that starts a
 * conflict side (`<<<<<<< `, `>>>>>>> `).
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from '@jest/globals'

/** Lines of tracked files that open or close a conflict side, as `path:line: text`. */
function conflictLines(): string[] {
  try {
    // the pattern is split so this file does not match itself
    const out = execFileSync('git', ['grep', '-n', '-I', '-E', '^(<{7}|>{7}) '], { encoding: 'utf8' })
    return out.split('\n').filter(Boolean)
  } catch (error) {
    // git grep exits 1 when nothing matches
    if ((error as { status?: number }).status === 1) return []
    throw error
  }
}

describe('tracked files', () => {
  it('carry no merge-conflict markers', () => {
    expect(conflictLines()).toEqual([])
  })
})
