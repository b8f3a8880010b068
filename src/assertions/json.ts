/** Checks on the output as JSON: well-formed, schema-valid, embedded, equal to or containing a value. */
import { DEFAULT_CHECK_TIMEOUT_MS } from '../sandbox/index.js'
import type { Assertion } from '../types.js'
import { answeringPatterns, readSchema, sandboxTester, schemaErrors, schemaProblem, type JsonSchema } from './json-schema.js'
import { parseOutputJson, scanJson } from './json-text.js'
import { claim, ruled, shown } from './outcome.js'
import type { AssertionHandler, CheckOutcome } from './types.js'

type JsonObject = Record<string, unknown>

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The schema in `value`, when one is given: a mapping, a boolean schema, or
 * (as in promptfoo) a YAML or JSON string holding either. Validation has
 * checked that it reads as one.
 */
function schemaOf(a: Assertion): JsonSchema | undefined {
  if (a.value === undefined || a.value === null || a.value === '') return undefined
  return readSchema(a.value)
}

function optionalSchemaProblem(a: Assertion): string | undefined {
  if (a.value === undefined || a.value === null || a.value === '') return undefined
  const problem = schemaProblem(a.value)
  return problem && `${a.type} \`value\` is not a usable JSON Schema: ${problem}`
}

/** The expected JSON: seed datasets write it as a JSON string, so a string is parsed first. */
function expectedJson(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value
}

function expectedJsonProblem(a: Assertion): string | undefined {
  if (a.value === undefined) return `${a.type} needs a \`value\`: the expected JSON, as a mapping/list or a JSON string`
  try {
    expectedJson(a.value)
    return undefined
  } catch (err) {
    return `${a.type} \`value\` is a string but not valid JSON (${(err as Error).message}); fix the JSON text, or write the value as a YAML mapping or list`
  }
}

/** A JSON pointer segment (RFC 6901), so paths read like ajv's instancePath. */
function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`
}

/**
 * Where `actual` first departs from `expected`, or undefined when they agree.
 * Key order never matters; with `subset`, keys absent from `expected` objects
 * are ignored (arrays must still match item for item, each item exactly unless
 * `subsetItems`: then each item is a subset too, as promptfoo's partial
 * argument match reads them).
 */
export function jsonDifference(expected: unknown, actual: unknown, subset: boolean, subsetItems = false): string | undefined {
  return differenceAt(expected, actual, subset, subsetItems, [])
}

/**
 * jsonDifference below the keys in `at` (pushed and popped as it descends): the
 * path is written only for the difference found, not for every key compared — a
 * trajectory check compares arguments on every trial.
 */
function differenceAt(expected: unknown, actual: unknown, subset: boolean, subsetItems: boolean, at: (string | number)[]): string | undefined {
  if (isObject(expected) && isObject(actual)) {
    // for…in over own keys, not Object.keys: the same keys in the same order, without an array
    for (const key in expected) {
      if (!Object.hasOwn(expected, key)) continue
      if (!Object.hasOwn(actual, key)) return `${pointer(pathOf(at), key)} is missing`
      at.push(key)
      const inner = differenceAt(expected[key], actual[key], subset, subsetItems, at)
      at.pop()
      if (inner) return inner
    }
    if (subset) return undefined
    for (const key in actual) if (Object.hasOwn(actual, key) && !Object.hasOwn(expected, key)) return `${pointer(pathOf(at), key)} is not expected`
    return undefined
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return `${pathOf(at) || '(root)'} has ${actual.length} items, expected ${expected.length}`
    const items = subset && subsetItems
    for (let i = 0; i < expected.length; i++) {
      at.push(i)
      const inner = differenceAt(expected[i], actual[i], items, items, at)
      at.pop()
      if (inner) return inner
    }
    return undefined
  }
  return expected === actual ? undefined : `${pathOf(at) || '(root)'} is ${shown(actual)}, expected ${shown(expected)}`
}

function pathOf(at: readonly (string | number)[]): string {
  let path = ''
  for (const key of at) path = pointer(path, key)
  return path
}

const isJson: AssertionHandler = {
  negatable: true,
  validate: optionalSchemaProblem,
  run(a, { output, checkTimeoutMs }, negated) {
    const schema = schemaOf(a)
    const what = claim('be', schema !== undefined ? 'valid JSON matching the schema' : 'valid JSON')
    const parsed = parseOutputJson(output)
    if (!parsed.ok) return ruled(false, negated, output, what, parsed.error)
    if (schema === undefined) return ruled(true, negated, output, what)
    // a schema's backtracking patterns are answered in the sandbox (json-schema.ts)
    return answeringPatterns(
      () => {
        const errors = schemaErrors(schema, parsed.value)
        return ruled(errors === undefined, negated, output, what, errors)
      },
      sandboxTester(checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)
    )
  }
}

const containsJson: AssertionHandler = {
  negatable: true,
  validate: optionalSchemaProblem,
  run(a, { output, checkTimeoutMs }, negated) {
    return answeringPatterns(() => containsJsonOutcome(a, output, negated), sandboxTester(checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS))
  }
}

function containsJsonOutcome(a: Assertion, output: string, negated: boolean): CheckOutcome {
  const schema = schemaOf(a)
  const what = claim('contain', schema !== undefined ? 'a JSON object or array matching the schema' : 'a JSON object or array')
  const scan = scanJson(output, (value) => schema === undefined || schemaErrors(schema, value) === undefined)
  const cut = scan.truncated ? '; output too long to scan to the end' : ''
  if (scan.match !== undefined) return ruled(true, negated, output, what, `found ${shown(scan.match)}`)
  if (schema !== undefined && scan.firstParsed !== undefined) {
    return ruled(false, negated, output, what, `first JSON found: ${schemaErrors(schema, scan.firstParsed)}${cut}`)
  }
  return ruled(false, negated, output, what, `none found${cut}`)
}

function jsonCompareHandler(subset: boolean): AssertionHandler {
  return {
    negatable: true,
    validate: expectedJsonProblem,
    run(a, { output }, negated) {
      const expected = expectedJson(a.value)
      const what = subset ? claim('contain', `the JSON ${shown(expected)}`) : claim('equal', `the JSON ${shown(expected)}`)
      const parsed = parseOutputJson(output)
      if (!parsed.ok) return ruled(false, negated, output, what, parsed.error)
      const difference = jsonDifference(expected, parsed.value, subset)
      return ruled(difference === undefined, negated, output, what, difference)
    }
  }
}

export const jsonAssertions: Record<string, AssertionHandler> = {
  'is-json': isJson,
  'contains-json': containsJson,
  json_exact: jsonCompareHandler(false),
  'json-equals': jsonCompareHandler(false),
  'json-subset': jsonCompareHandler(true)
}
