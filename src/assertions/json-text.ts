/** Finding JSON in model output: the whole output, its one fenced block, or any {…}/[…] inside it. */

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

/** How the walk from an opening bracket ended, and the index just past the last character it looked at. */
interface Walk {
  status: 'closed' | 'mismatched' | 'open'
  at: number
}

/**
 * Walks from the bracket at `start` to the one that closes it; brackets inside
 * strings do not count. 'open' means `limit` came first.
 */
function walkBrackets(text: string, start: number, limit: number): Walk {
  const expected: string[] = []
  let inString = false
  for (let i = start; i < limit; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') {
      inString = true
    } else if (c === '{') {
      expected.push('}')
    } else if (c === '[') {
      expected.push(']')
    } else if (c === '}' || c === ']') {
      if (expected.pop() !== c) return { status: 'mismatched', at: i + 1 }
      if (expected.length === 0) return { status: 'closed', at: i + 1 }
    }
  }
  return { status: 'open', at: limit }
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
  let left = budget
  const opening = /[[{]/g
  for (let m = opening.exec(text); m !== null; m = opening.exec(text)) {
    const start = m.index
    const limit = Math.min(text.length, start + left)
    const walk = walkBrackets(text, start, limit)
    if (walk.status === 'open' && limit < text.length) return { ...scan, truncated: true }
    left -= walk.at - start
    if (walk.status !== 'closed') continue
    const candidate = text.slice(start, walk.at)
    left -= candidate.length
    const parsed = tryParse(candidate)
    if (!parsed.ok) continue
    if (scan.firstParsed === undefined) scan.firstParsed = parsed.value
    if (accept(parsed.value)) return { ...scan, match: parsed.value }
  }
  return scan
}
