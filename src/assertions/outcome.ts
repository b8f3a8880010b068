/**
 * Wording shared by the rule-based checks: every reason names what was expected
 * and, on failure, shows a short excerpt of what the output actually was.
 */
import type { CheckOutcome } from './types.js'

const EXCERPT_CHARS = 200
const VALUE_CHARS = 120

/** A JSON-quoted prefix of `text`, so whitespace and newlines stay visible in a one-line reason. */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  if (text.length <= max) return JSON.stringify(text)
  let cut = text.slice(0, max)
  // never leave half of a surrogate pair behind: it would print as an escape
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1)
  return JSON.stringify(`${cut}…`)
}

/** An expected value as it appears in a reason: strings quoted, anything else as JSON. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return excerpt(value, VALUE_CHARS)
  const json = JSON.stringify(value) ?? String(value)
  return json.length > VALUE_CHARS ? `${json.slice(0, VALUE_CHARS)}…` : json
}

/**
 * What a check claims about the output, in the three forms a reason needs:
 * `base` after "to" ("contain \"x\""), `is` when it holds ("contains \"x\""),
 * `isNot` when it does not ("does not contain \"x\"").
 */
export interface Claim {
  base: string
  is: string
  isNot: string
}

/** Builds a claim from a verb and its object: claim('contain', '"x"'), claim('be', 'valid JSON'). */
export function claim(verb: string, object: string): Claim {
  if (verb === 'be') return { base: `be ${object}`, is: `is ${object}`, isNot: `is not ${object}` }
  const third = /(?:s|x|z|ch|sh)$/.test(verb) ? `${verb}es` : `${verb}s`
  return { base: `${verb} ${object}`, is: `${third} ${object}`, isNot: `does not ${verb} ${object}` }
}

/**
 * The outcome of a pass/fail check. `holds` is whether the output satisfies the
 * claim; the dispatcher inverts it for `not-`, so the reason is worded for the
 * final verdict here. `detail` adds what was measured ("distance 7", "missing \"b\"").
 */
export function ruled(holds: boolean, negated: boolean, output: string, what: Claim, detail?: string): CheckOutcome {
  const passes = holds !== negated
  const note = detail ? ` (${detail})` : ''
  const reason = passes
    ? `output ${negated ? what.isNot : what.is}${note}`
    : `expected output ${negated ? 'not ' : ''}to ${what.base}${note}, got: ${excerpt(output)}`
  return { pass: holds, score: holds ? 1 : 0, reason }
}
