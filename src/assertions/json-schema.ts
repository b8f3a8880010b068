/**
 * JSON Schema checks for is-json and contains-json, compiled once per schema
 * object. ajv runs here, but a schema's `pattern`s (and `patternProperties`)
 * are tested through stand-ins that ask the sandbox (a deadline can stop it there): a pattern that
 * backtracks fails its case at checkTimeoutMs instead of hanging the run.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { parse as parseYaml } from 'yaml'
import { canBacktrack, checks } from '../sandbox/index.js'

/** A JSON Schema: a mapping, or a boolean schema (`true` accepts anything, `false` nothing). */
export type JsonSchema = Record<string, unknown> | boolean

type Draft = '07' | '2019' | '2020'
type Validator = Ajv | Ajv2019 | Ajv2020

const SHOWN_ERRORS = 3

// ajv-formats is CommonJS: its plugin is the module itself, which the default import may wrap once more
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Validator) => unknown

const instances = new Map<Draft, Validator>()
const compiled = new WeakMap<object, ValidateFunction>()
const compiledBoolean = new Map<boolean, ValidateFunction>()
/** Schemas written as YAML/JSON text, parsed once: the same assertion is graded on every case. */
const fromText = new Map<string, unknown>()

/** One pattern test a validation needs: answered in the sandbox, then known for the next round. */
export interface PatternTest {
  source: string
  flags: string
  text: string
}

/** Answers pattern tests in the sandbox (the same order); throws when one ran past the deadline. */
export type PatternTester = (tests: PatternTest[]) => Promise<boolean[]>

/**
 * The answers of the validation under way (validation is synchronous, so one
 * at a time): known ones, and the tests still to be asked.
 */
let answering: { known: Map<string, boolean>; asked: Map<string, PatternTest> } | undefined

const testKey = (t: PatternTest) => `${t.flags}/${t.source}\u0000${t.text}`

/**
 * What ajv compiles a pattern to: a stand-in whose `test` is answered
 * in-process when the pattern cannot backtrack badly on that text, else from
 * the sandbox's answers (a test not yet answered reads as a match and is
 * asked; the validation runs again once it is answered).
 */
class PatternStandIn {
  private readonly regex: RegExp

  constructor(
    readonly source: string,
    readonly flags: string
  ) {
    // compiling checks the syntax, matching nothing: a bad pattern is a config error
    this.regex = new RegExp(source, flags)
  }

  test(text: string): boolean {
    if (!canBacktrack(this.source, text.length)) return this.regex.test(text)
    if (!answering) throw new Error(`pattern /${this.source}/ tested outside a sandboxed validation`)
    const request = { source: this.source, flags: this.flags, text }
    const key = testKey(request)
    const known = answering.known.get(key)
    if (known !== undefined) return known
    answering.asked.set(key, request)
    return true
  }

  // ajv keeps one compiled pattern per distinct toString()
  toString(): string {
    return `/${this.source}/${this.flags}`
  }
}

const patternEngine = Object.assign((source: string, flags: string) => new PatternStandIn(source, flags), { code: 'PatternStandIn' })

/** Sandbox rounds a validation may take: each answers every test the previous one asked. */
const MAX_ROUNDS = 20

/**
 * Runs `validate` (which validates against schemas, synchronously) until every
 * backtracking pattern test it needs is answered by `tester`. Synchronous, at
 * no extra cost, when it needs none.
 */
export function answeringPatterns<T>(validate: () => T, tester: PatternTester): T | Promise<T> {
  const known = new Map<string, boolean>()
  const round = (): { result: T; asked: Map<string, PatternTest> } => {
    const state = { known, asked: new Map<string, PatternTest>() }
    answering = state
    try {
      return { result: validate(), asked: state.asked }
    } finally {
      answering = undefined
    }
  }
  const first = round()
  if (first.asked.size === 0) return first.result
  return (async () => {
    let asked = first.asked
    for (let i = 0; i < MAX_ROUNDS; i++) {
      const tests = [...asked.values()]
      const answers = await tester(tests)
      tests.forEach((t, k) => known.set(testKey(t), answers[k]!))
      const next = round()
      if (next.asked.size === 0) return next.result
      asked = next.asked
    }
    throw new Error(`the schema needed more than ${MAX_ROUNDS} rounds of pattern tests`)
  })()
}

/** The draft a schema declares in `$schema`; draft-07 when it declares none. */
function draftOf(schema: JsonSchema): Draft {
  const uri = typeof schema === 'object' && typeof schema.$schema === 'string' ? schema.$schema : ''
  if (uri.includes('2020-12')) return '2020'
  if (uri.includes('2019-09')) return '2019'
  return '07'
}

function validatorFor(draft: Draft): Validator {
  let ajv = instances.get(draft)
  if (!ajv) {
    // addUsedSchema: false — two cases may carry schemas with the same $id; registering
    // them globally would make the second compile fail. logger: false — unknown keywords
    // and formats would otherwise warn on every compile.
    const options = { allErrors: true, strict: false, addUsedSchema: false, logger: false as const, code: { regExp: patternEngine } }
    ajv = draft === '2020' ? new Ajv2020(options) : draft === '2019' ? new Ajv2019(options) : new Ajv(options)
    // `format: date`, `email`, `uri`… are checked, as promptfoo checks them
    addFormats(ajv)
    instances.set(draft, ajv)
  }
  return ajv
}

/**
 * The schema an assertion's `value` holds: a mapping or boolean as written, or
 * text read as YAML (which includes JSON), as promptfoo reads it.
 */
export function readSchema(value: unknown): JsonSchema {
  let schema = value
  if (typeof value === 'string') {
    if (!fromText.has(value)) fromText.set(value, parseYaml(value))
    schema = fromText.get(value)
  }
  return schema as JsonSchema
}

/** A config problem with a schema (compiling it on the way), or undefined when it is usable. */
export function schemaProblem(value: unknown): string | undefined {
  let schema: unknown
  try {
    schema = readSchema(value)
  } catch (err) {
    return `its text is neither YAML nor JSON: ${(err as Error).message}`
  }
  const written = typeof value === 'string' ? ' (the text read as YAML)' : ''
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    return `a JSON Schema must be a mapping such as {type: object, required: [name]}, or true/false${written}`
  }
  // an async schema's validate returns a promise, which would read as a pass
  if (typeof schema === 'object' && (schema as Record<string, unknown>).$async === true) return '$async schemas are not supported'
  try {
    compileSchema(schema as JsonSchema)
    return undefined
  } catch (err) {
    return (err as Error).message
  }
}

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = typeof schema === 'boolean' ? compiledBoolean.get(schema) : compiled.get(schema)
  if (!validate) {
    validate = validatorFor(draftOf(schema)).compile(schema)
    if (typeof schema === 'boolean') compiledBoolean.set(schema, validate)
    else compiled.set(schema, validate)
  }
  return validate
}

function describeError(e: ErrorObject): string {
  const extra = e.keyword === 'additionalProperties' ? ` (${JSON.stringify(e.params.additionalProperty)})` : ''
  return `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${extra}`
}

/** Why `data` fails the schema (the first few errors with their paths), or undefined when it satisfies it. */
export function schemaErrors(schema: JsonSchema, data: unknown): string | undefined {
  const validate = compileSchema(schema)
  if (validate(data)) return undefined
  const errors = validate.errors ?? []
  const more = errors.length > SHOWN_ERRORS ? `; and ${errors.length - SHOWN_ERRORS} more` : ''
  return errors.slice(0, SHOWN_ERRORS).map(describeError).join('; ') + more
}

/** Tests patterns in the checks' sandbox under the deadline; one past it fails the whole validation. */
export function sandboxTester(timeoutMs: number): PatternTester {
  return (tests) =>
    Promise.all(
      tests.map(async (t) => {
        const outcome = await checks().run({ kind: 'test', ...t }, timeoutMs)
        if (!outcome.ok) throw new Error(`pattern /${t.source}/ ${outcome.error}`)
        return outcome.value === true
      })
    )
}
