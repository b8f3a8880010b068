/** JSON Schema checks for is-json and contains-json, compiled once per schema. */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { parse as parseYaml } from 'yaml'

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
    const options = { allErrors: true, strict: false, addUsedSchema: false, logger: false as const }
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
