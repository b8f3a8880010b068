/**
 * JSON values inside prose: a judge's reply or an agent's output that holds
 * `{…}` or `[…]` among other words, in a fenced block or not. The one scanner
 * behind the judge's verdict reader and the contains-json assertion; each
 * caller decides what a found value means.
 */

export interface JsonInTextOptions {
  /** the brackets a value may open with: `{` for objects only, `{[` for arrays too */
  openers: '{' | '{['
  /**
   * Whether, after a value is found, the scan goes on past its end (values
   * nested in it are its parts, not finds of their own) rather than at the
   * next bracket inside it.
   */
  skipNested: boolean
  /**
   * Characters walked and parsed at the most; keeps a huge text full of
   * unclosed brackets from costing quadratic time.
   */
  budget?: number
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

/** The text as JSON, or undefined when it is not JSON (JSON.parse never yields undefined itself). */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Calls `visit` with each JSON value in the text, in the order of its opening
 * bracket, until `visit` returns true. Every opening bracket is tried as the
 * start of a value by parsing the balanced span from it, so a value after
 * broken text (or inside it) is still found.
 *
 * @returns whether the scan stopped at its budget before reaching the end
 */
export function visitJsonInText(text: string, options: JsonInTextOptions, visit: (value: unknown) => boolean): { truncated: boolean } {
  const opening = options.openers === '{' ? /\{/g : /[[{]/g
  let left = options.budget ?? Infinity
  for (let m = opening.exec(text); m !== null; m = opening.exec(text)) {
    const start = m.index
    const limit = Math.min(text.length, start + left)
    const walk = walkBrackets(text, start, limit)
    if (walk.status === 'open' && limit < text.length) return { truncated: true }
    left -= walk.at - start
    if (walk.status !== 'closed') continue
    const candidate = text.slice(start, walk.at)
    left -= candidate.length
    const value = tryParseJson(candidate)
    if (value === undefined) continue
    if (visit(value)) return { truncated: false }
    if (options.skipNested) opening.lastIndex = walk.at
  }
  return { truncated: false }
}
