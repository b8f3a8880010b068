/**
 * How a case ran, as its record keeps it (`ran`): the assertions with
 * the files they name relative to the config's folder (as fingerprints name
 * them), and the vars, metadata and promptfoo grading its checks read. A later
 * run resolves the files against a folder of its choosing — in a pull-request
 * run, the base commit's copies — to run the case as the baseline ran it.
 */
import path from 'node:path'
import type { Assertion, EvalCase } from './case.js'
import type { CaseRan } from './record-schema.js'

const FILE_URL = 'file://'

/** Each assertion made portable once, however many cases share it (a `defaults` check). */
const portableCache = new WeakMap<Assertion, Assertion>()

/** `file:` and absolute `file://` paths inside `baseDir`, as paths relative to it. */
function portable(a: Assertion, baseDir: string): Assertion {
  const known = portableCache.get(a)
  if (known) return known
  const rel = (file: string) => {
    const relative = path.relative(baseDir, file)
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/')
  }
  const url = (v: unknown) =>
    typeof v === 'string' && v.startsWith(FILE_URL) && path.isAbsolute(v.slice(FILE_URL.length)) ? FILE_URL + rel(v.slice(FILE_URL.length)) : v
  let out = a
  if (typeof a.file === 'string' || url(a.value) !== a.value || url(a.transform) !== a.transform) {
    out = { ...a }
    if (typeof a.file === 'string') out.file = rel(a.file)
    if (url(a.value) !== a.value) out.value = url(a.value)
    if (typeof a.transform === 'string') out.transform = url(a.transform) as string
  }
  portableCache.set(a, out)
  return out
}

/**
 * A conversation — scripted turns, a simulated user, a promptfoo test that
 * reads `_conversation` — is not one input a later run could replay: its
 * record keeps no `ran`, and a changed one stays *changed* (gate.maxChanged).
 */
export function isConversation(c: Pick<EvalCase, 'turns' | 'simulate' | 'promptfoo'>): boolean {
  return c.turns !== undefined || c.simulate !== undefined || c.promptfoo?.conversation !== undefined
}

/** How the case runs, as its record keeps it; undefined for a conversation. */
export function ranOf(c: EvalCase, baseDir: string): CaseRan | undefined {
  if (isConversation(c)) return undefined
  const ran: CaseRan = { assert: c.assert.map((a) => portable(a, baseDir)) }
  if (c.vars !== undefined) ran.vars = c.vars
  if (c.metadata !== undefined) ran.metadata = c.metadata
  if (c.promptfoo !== undefined) ran.promptfoo = c.promptfoo
  return ran
}

/** A recorded `ran` with its relative files resolved against `dir` (absolute ones are kept). */
export function resolveRan(ran: CaseRan, dir: string): CaseRan {
  const abs = (file: string) => (path.isAbsolute(file) ? file : path.resolve(dir, file))
  const url = (v: unknown) => (typeof v === 'string' && v.startsWith(FILE_URL) ? FILE_URL + abs(v.slice(FILE_URL.length)) : v)
  return {
    ...ran,
    assert: ran.assert.map((a) => {
      const out: Assertion = { ...a }
      if (typeof a.file === 'string') out.file = abs(a.file)
      if (a.value !== undefined) out.value = url(a.value)
      if (a.transform !== undefined) out.transform = url(a.transform) as string
      return out
    })
  }
}
