/**
 * Temp folders for tests, each removed when its test file ends: a run of the
 * suite leaves nothing behind in the temp dir. Every fixture that makes a
 * folder goes through here (jest gives each test file its own copy of this
 * module, so each file's afterAll removes what that file made).
 */
import { afterAll } from '@jest/globals'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const made: string[] = []

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
})

/** A fresh folder under the temp dir, removed after the test file. */
export function tempDir(prefix = 'evalgate-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
