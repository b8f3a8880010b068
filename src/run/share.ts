/**
 * A baseline case with the same key and fingerprint as a dataset case holds
 * the same input, and usually the same name, tags, expected text and source:
 * after sharing, it points at the dataset's values instead of a second copy.
 * Only equal values are swapped, so nothing reads differently; what is saved
 * is a copy of every unchanged prompt (at 100,000 real cases, the baseline's
 * inputs alone can be as large as the dataset).
 */
import type { CaseResult, EvalCase } from '../types.js'

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/** Swaps equal values of one baseline case for the dataset case's. */
function share(b: CaseResult, c: EvalCase): void {
  // the fingerprint is a hash of the input (among others): equal fingerprints, equal inputs
  b.input = c.input
  b.id = c.id
  b.fingerprint = c.fingerprint
  if (b.name === c.name) b.name = c.name
  if (typeof b.expected === 'string' && b.expected === c.expected) b.expected = c.expected
  if (sameList(b.tags, c.tags)) b.tags = c.tags
  if (b.source && c.source && b.source.file === c.source.file && b.source.line === c.source.line) b.source = c.source
}

/** What shares each baseline case with the dataset, for the record reader to apply as the cases arrive: their own copies die young. */
export function datasetSharer(cases: readonly EvalCase[]): (b: CaseResult) => void {
  const byId = new Map(cases.map((c) => [c.id, c]))
  return (b) => {
    const c = byId.get(b.id)
    if (c && c.fingerprint === b.fingerprint) share(b, c)
  }
}
