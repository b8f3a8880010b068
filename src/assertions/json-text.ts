/** Finding JSON in model output: the whole output, its one fenced block, or any {…}/[…] inside it. */

import { visitJsonInText } from '../util/json-in-text.js'

export type ParsedJson = { ok: true; value: unknown } | { ok: false; error: string }

/** A fenced code block: an opening ``` line (any info string), then everything up to a closing ``` line. */
const FENCED_BLOCK = /^[ \t]*```[^\n`]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm

/** Work allowed for contains-json, in characters walked: keeps huge outputs from costing quadratic time. */
const SCAN_BUDGET = 4_000_000

function tryParse(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, error: (err as Error).message }
  }
}

/** The output as JSON: the whole of it, else the content of its single fenced code block. */
export function parseOutputJson(output: string): ParsedJson {
  const whole = tryParse(output)
  if (whole.ok) return whole
  const blocks = [...output.matchAll(FENCED_BLOCK)]
  if (blocks.length === 0) return { ok: false, error: `not valid JSON: ${whole.error}` }
  if (blocks.length > 1) return { ok: false, error: `${blocks.length} fenced code blocks; expected the JSON alone or in a single block` }
  const inner = tryParse(blocks[0][1])
  return inner.ok ? inner : { ok: false, error: `the fenced code block is not valid JSON: ${inner.error}` }
}

export interface JsonScan {
  /** the first embedded JSON that `accept` took (an object or array, so never undefined) */
  match?: unknown
  /** the first embedded JSON that parsed, accepted or not */
  firstParsed?: unknown
  /** whether the scan stopped at its work budget before reaching the end */
  truncated: boolean
}

/**
 * Tries every `{` and `[` in order as the start of a JSON value, parsing the
 * balanced substring from there; stops at the first one `accept` takes.
 */
export function scanJson(text: string, accept: (value: unknown) => boolean, budget = SCAN_BUDGET): JsonScan {
  const scan: JsonScan = { truncated: false }
  scan.truncated = visitJsonInText(text, { openers: '{[', skipNested: false, budget }, (value) => {
    if (scan.firstParsed === undefined) scan.firstParsed = value
    if (!accept(value)) return false
    scan.match = value
    return true
  }).truncated
  return scan
}
