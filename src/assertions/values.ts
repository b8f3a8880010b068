/** Reading and checking the `value` and numeric options of an assertion. */
import type { Assertion } from '../types.js'
import { excerpt } from './outcome.js'

type Scalar = string | number | boolean

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

/** A problem with a value that must be one string (YAML may hand us `4` or `true`: read as text). */
export function textValueProblem(a: Assertion, { nonEmpty }: { nonEmpty: boolean }): string | undefined {
  if (a.value === undefined || a.value === null) return `${a.type} needs a \`value\``
  if (!isScalar(a.value)) return `${a.type} needs a string \`value\`, got ${kindOf(a.value)}`
  // an empty substring, prefix or pattern matches every output, so the check could never fail
  if (nonEmpty && String(a.value) === '') return `${a.type} has an empty \`value\`, which every output would satisfy`
  return undefined
}

/** A comma-separated value that cannot be read as terms (an unterminated quote, text after a closing quote). */
class TermsSyntaxError extends Error {}

/**
 * Splits a comma-separated value CSV-style, as promptfoo does: a term in double
 * quotes is one term without its quotes, commas and all (`"Sorry, I can't", "As
 * an AI"` is two terms); inside quotes `""` and `\"` stand for a quote and `\\`
 * for a backslash. Unquoted terms are trimmed and empty ones dropped; a quoted
 * empty term is kept, since someone wrote it.
 */
function splitTerms(text: string): string[] {
  const found: string[] = []
  let i = 0
  while (i <= text.length) {
    while (i < text.length && /\s/.test(text[i])) i++
    if (text[i] === '"') {
      let term = ''
      let j = i + 1
      for (;;) {
        if (j >= text.length) throw new TermsSyntaxError(`unterminated quoted term starting at character ${i + 1}`)
        const c = text[j]
        if (c === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) {
          term += text[j + 1]
          j += 2
        } else if (c === '"' && text[j + 1] === '"') {
          term += '"'
          j += 2
        } else if (c === '"') {
          j++
          break
        } else {
          term += c
          j++
        }
      }
      while (j < text.length && /\s/.test(text[j])) j++
      if (j < text.length && text[j] !== ',') throw new TermsSyntaxError(`expected a comma after the quoted term ${JSON.stringify(term)}`)
      found.push(term)
      i = j + 1
    } else {
      const comma = text.indexOf(',', i)
      const end = comma === -1 ? text.length : comma
      const term = text.slice(i, end).trim()
      if (term !== '') found.push(term)
      i = end + 1
    }
  }
  return found
}

/**
 * The terms of contains-all/any: a list as written, or a comma-separated string
 * (see splitTerms; a list keeps commas and spaces inside its terms).
 */
export function terms(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((t) => String(t))
  return splitTerms(String(value))
}

/** A problem with the terms of contains-all/any: none at all, an empty one, or one that is not text. */
export function termsProblem(a: Assertion): string | undefined {
  if (a.value === undefined || a.value === null) return `${a.type} needs a \`value\`: a list of terms or a comma-separated string`
  if (Array.isArray(a.value)) {
    const bad = a.value.find((t) => !isScalar(t))
    if (bad !== undefined) return `${a.type} terms must be strings, got ${kindOf(bad)}`
    if (a.value.some((t) => String(t) === '')) return `${a.type} has an empty term, which every output would contain`
  } else if (!isScalar(a.value)) {
    return `${a.type} needs a list of terms or a comma-separated string, got ${kindOf(a.value)}`
  }
  try {
    if (terms(a.value).length === 0) return `${a.type} needs at least one term in \`value\``
  } catch (err) {
    if (!(err instanceof TermsSyntaxError)) throw err
    return `${a.type} \`value\` ${excerpt(String(a.value), 60)}: ${err.message}; quote a term that holds commas as "like, this", or write the terms as a list`
  }
  return undefined
}

/** A problem with an optional numeric option (`threshold`, `tolerance`, …). */
export function numberOptionProblem(a: Assertion, key: keyof Assertion, range: { min?: number; max?: number } = {}): string | undefined {
  const v = a[key]
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v)) return `${a.type} \`${key}\` must be a number, got ${kindOf(v)}`
  if (range.min !== undefined && v < range.min) return `${a.type} \`${key}\` must be at least ${range.min}, got ${v}`
  if (range.max !== undefined && v > range.max) return `${a.type} \`${key}\` must be at most ${range.max}, got ${v}`
  return undefined
}

/** Names a value's kind for a config message. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'string') return `the string ${excerpt(value, 60)}`
  return `${typeof value} ${String(value)}`
}

/** The first problem in a list of checks, each run only if the ones before passed. */
export function firstProblem(...checks: Array<() => string | undefined>): string | undefined {
  for (const check of checks) {
    const problem = check()
    if (problem !== undefined) return problem
  }
  return undefined
}
