/** Checks on the output as text: equality, substrings, prefixes, patterns, edit distance. */
import { distance } from 'fastest-levenshtein'
import { canBacktrack, checks, DEFAULT_CHECK_TIMEOUT_MS } from '../sandbox/index.js'
import type { Assertion } from '../types.js'
import { claim, ruled, shown } from './outcome.js'
import type { AssertionHandler } from './types.js'
import { jsonDifference } from './json.js'
import { parseOutputJson } from './json-text.js'
import { firstProblem, kindOf, numberOptionProblem, terms, termsProblem, textValueProblem } from './values.js'

const DEFAULT_MAX_DISTANCE = 5

/** Lower-cased with runs of whitespace made one space, so "Hello\n  World" iequals "hello world". */
function folded(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ')
}

/** How the `i…` variants compare: both sides lower-cased. */
function caseFolder(ignoreCase: boolean): (text: string) => string {
  return ignoreCase ? (text) => text.toLowerCase() : (text) => text
}

function caseNote(ignoreCase: boolean): string {
  return ignoreCase ? ', ignoring case' : ''
}

const anyText = (a: Assertion) => textValueProblem(a, { nonEmpty: false })
const someText = (a: Assertion) => textValueProblem(a, { nonEmpty: true })

/** A mapping or list as `equals`'s value: the output must be that JSON (key order ignored), as in promptfoo. */
function isStructured(value: unknown): value is object {
  return value !== null && typeof value === 'object'
}

const equals: AssertionHandler = {
  negatable: true,
  validate: (a) => (isStructured(a.value) ? undefined : anyText(a)),
  run(a, { output }, negated) {
    if (isStructured(a.value)) {
      const what = claim('equal', `the JSON ${shown(a.value)}`)
      const parsed = parseOutputJson(output)
      if (!parsed.ok) return ruled(false, negated, output, what, parsed.error)
      const difference = jsonDifference(a.value, parsed.value, false)
      return ruled(difference === undefined, negated, output, what, difference)
    }
    const expected = String(a.value).trim()
    return ruled(output.trim() === expected, negated, output, claim('equal', shown(expected)))
  }
}

const iequals: AssertionHandler = {
  negatable: true,
  validate: anyText,
  run(a, { output }, negated) {
    const expected = String(a.value)
    return ruled(folded(output) === folded(expected), negated, output, claim('equal', `${shown(expected)}, ignoring case and whitespace`))
  }
}

function containsHandler(ignoreCase: boolean): AssertionHandler {
  const fold = caseFolder(ignoreCase)
  return {
    negatable: true,
    validate: someText,
    run(a, { output }, negated) {
      const term = String(a.value)
      return ruled(fold(output).includes(fold(term)), negated, output, claim('contain', `${shown(term)}${caseNote(ignoreCase)}`))
    }
  }
}

function containsAllHandler(ignoreCase: boolean): AssertionHandler {
  const fold = caseFolder(ignoreCase)
  return {
    negatable: true,
    validate: termsProblem,
    run(a, { output }, negated) {
      const list = terms(a.value)
      const text = fold(output)
      const missing = list.filter((t) => !text.includes(fold(t)))
      const detail = missing.length ? `missing ${missing.map((t) => shown(t)).join(', ')}` : undefined
      return ruled(missing.length === 0, negated, output, claim('contain', `all of ${shown(list)}${caseNote(ignoreCase)}`), detail)
    }
  }
}

function containsAnyHandler(ignoreCase: boolean): AssertionHandler {
  const fold = caseFolder(ignoreCase)
  return {
    negatable: true,
    validate: termsProblem,
    run(a, { output }, negated) {
      const list = terms(a.value)
      const text = fold(output)
      const found = list.find((t) => text.includes(fold(t)))
      const detail = found !== undefined ? `found ${shown(found)}` : undefined
      return ruled(found !== undefined, negated, output, claim('contain', `any of ${shown(list)}${caseNote(ignoreCase)}`), detail)
    }
  }
}

const startsWith: AssertionHandler = {
  negatable: true,
  validate: (a) =>
    firstProblem(
      () => someText(a),
      // the output is trimmed before the comparison, so a leading blank could never match
      () =>
        /^\s/.test(String(a.value)) ? `${a.type} value ${shown(String(a.value))} starts with whitespace, but the output is trimmed first; remove it` : undefined
    ),
  run(a, { output }, negated) {
    const prefix = String(a.value)
    return ruled(output.trim().startsWith(prefix), negated, output, claim('start', `with ${shown(prefix)}`))
  }
}

function flagsOf(a: Assertion): string {
  return typeof a.flags === 'string' ? a.flags : ''
}

function patternShown(source: string, flags: string): string {
  const text = `/${source}/${flags}`
  return text.length > 120 ? `${text.slice(0, 120)}…` : text
}

const regex: AssertionHandler = {
  negatable: true,
  validate: (a) =>
    firstProblem(
      () => someText(a),
      () => (a.flags !== undefined && typeof a.flags !== 'string' ? `${a.type} \`flags\` must be a string such as "i" or "ms"` : undefined),
      () => {
        try {
          new RegExp(String(a.value), flagsOf(a))
          return undefined
        } catch (err) {
          return `${a.type} pattern ${patternShown(String(a.value), flagsOf(a))} is invalid: ${(err as Error).message}`
        }
      }
    ),
  run(a, { output, checkTimeoutMs }, negated) {
    // a fresh RegExp each time: `g`/`y` flags make a shared one stateful through lastIndex
    const pattern = new RegExp(String(a.value), flagsOf(a))
    const what = claim('match', patternShown(pattern.source, pattern.flags))
    const outcome = (match: string | null) => ruled(match !== null, negated, output, what, match !== null ? `matched ${shown(match)}` : undefined)
    if (!canBacktrack(pattern.source, output.length)) return outcome(pattern.exec(output)?.[0] ?? null)
    // a pattern that could backtrack for long on this output is matched in the sandbox, under the deadline
    const item = { kind: 'match' as const, source: pattern.source, flags: pattern.flags, text: output }
    return checks()
      .run(item, checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)
      .then((r) => {
        if (r.ok) return outcome(r.value as string | null)
        const reason = `pattern ${patternShown(pattern.source, pattern.flags)} ${r.error}`
        return { pass: false, score: 0, reason, error: reason }
      })
  }
}

const levenshtein: AssertionHandler = {
  negatable: true,
  validate: (a) =>
    firstProblem(
      // as in promptfoo: a number is more likely a threshold put in the wrong place than text to compare with
      () => {
        if (typeof a.value === 'string') return undefined
        // no value: nothing to suggest quoting
        if (a.value === undefined) return `${a.type} needs a \`value\`: the expected text, as a string`
        return `${a.type} needs the expected text as a string \`value\`, got ${kindOf(a.value)}; quote it ("${String(a.value)}"), and put a maximum distance in \`threshold\``
      },
      () => numberOptionProblem(a, 'threshold', { min: 0 })
    ),
  run(a, { output }, negated) {
    const actual = output.trim()
    const expected = String(a.value).trim()
    const max = a.threshold ?? DEFAULT_MAX_DISTANCE
    const what = claim('be', `within edit distance ${max} of ${shown(expected)}`)
    // the distance is at least the difference in length: skip the quadratic work on huge outputs
    const atLeast = Math.abs(actual.length - expected.length)
    if (atLeast > max) return ruled(false, negated, output, what, `distance at least ${atLeast}`)
    const d = distance(actual, expected)
    return ruled(d <= max, negated, output, what, `distance ${d}`)
  }
}

export const textAssertions: Record<string, AssertionHandler> = {
  equals,
  exact_match: equals,
  iequals,
  contains: containsHandler(false),
  icontains: containsHandler(true),
  'contains-all': containsAllHandler(false),
  'icontains-all': containsAllHandler(true),
  'contains-any': containsAnyHandler(false),
  'icontains-any': containsAnyHandler(true),
  'starts-with': startsWith,
  regex,
  levenshtein
}
