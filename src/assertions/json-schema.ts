/** JSON Schema checks for is-json and contains-json, compiled once per schema object. */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'

type Draft = '07' | '2019' | '2020'
type Validator = Ajv | Ajv2019 | Ajv2020

const SHOWN_ERRORS = 3

const instances = new Map<Draft, Validator>()
const compiled = new WeakMap<object, ValidateFunction>()

/** The draft a schema declares in `$schema`; draft-07 when it declares none. */
function draftOf(schema: Record<string, unknown>): Draft {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (uri.includes('2020-12')) return '2020'
  if (uri.includes('2019-09')) return '2019'
  return '07'
}

function validatorFor(draft: Draft): Validator {
  let ajv = instances.get(draft)
  if (!ajv) {
    // addUsedSchema: false — two cases may carry schemas with the same $id; registering
    // them globally would make the second compile fail. logger: false — without
    // ajv-formats, `format` is not enforced and ajv would warn on every compile.
    const options = { allErrors: true, strict: false, addUsedSchema: false, logger: false as const }
    ajv = draft === '2020' ? new Ajv2020(options) : draft === '2019' ? new Ajv2019(options) : new Ajv(options)
    instances.set(draft, ajv)
  }
  return ajv
}

/** A config problem with a schema (compiling it on the way), or undefined when it is usable. */
export function schemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'a JSON Schema must be a mapping such as {type: object, required: [name]}'
  // an async schema's validate returns a promise, which would read as a pass
  if ((schema as Record<string, unknown>).$async === true) return '$async schemas are not supported'
  try {
    compileSchema(schema as Record<string, unknown>)
    return undefined
  } catch (err) {
    return (err as Error).message
  }
}

export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema)
  if (!validate) {
    validate = validatorFor(draftOf(schema)).compile(schema)
    compiled.set(schema, validate)
  }
  return validate
}

function describeError(e: ErrorObject): string {
  const extra = e.keyword === 'additionalProperties' ? ` (${JSON.stringify(e.params.additionalProperty)})` : ''
  return `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${extra}`
}

/** Why `data` fails the schema (the first few errors with their paths), or undefined when it satisfies it. */
export function schemaErrors(schema: Record<string, unknown>, data: unknown): string | undefined {
  const validate = compileSchema(schema)
  if (validate(data)) return undefined
  const errors = validate.errors ?? []
  const more = errors.length > SHOWN_ERRORS ? `; and ${errors.length - SHOWN_ERRORS} more` : ''
  return errors.slice(0, SHOWN_ERRORS).map(describeError).join('; ') + more
}
