/**
 * The JSON Schema of evalgate.yml (schema/evalgate.schema.json), generated
 * from the zod schema so that the two cannot disagree; `npm run schema`
 * writes it and a test fails when the committed file is stale.
 */
import { z } from 'zod'
import { configSchema } from './schema.js'

/** Where the schema is published: its $id, and what `evalgate init` points editors at. */
export const SCHEMA_URL = 'https://raw.githubusercontent.com/evalgate/evalgate/main/schema/evalgate.schema.json'

const TARGET_KINDS = ['command', 'http', 'openai', 'module'] as const

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema> }

/** Hover text for the keys users meet first (the README has the rest). */
const DESCRIPTIONS: Record<string, string> = {
  version: 'Config format version: 1.',
  name: 'Names the run artifact (evalgate-<name>) and the PR comment; default "evals".',
  dataset: 'Where the cases are: a path, a glob, or a list of them (.yaml, .yml, .json, .jsonl).',
  cases: 'Cases written inline, instead of or besides `dataset`.',
  target: 'The agent under test: exactly one of command, http, openai or module.',
  concurrency: 'Cases in flight at once.',
  repeat: 'Trials per case; a case passes when its pass fraction reaches repeatPassThreshold.',
  repeatPassThreshold: 'With repeat > 1: the fraction of trials that must pass (default 0.5).',
  judge: 'The LLM judge, needed only when some case uses llm-rubric.',
  gate: 'When the check fails: regressions and drops against the baseline, and absolute floors.',
  defaults: 'Assertions and tags added to every case.',
  badge: 'The pass-rate badge: label, colour bands and style.'
}

/**
 * The schema of what a user writes (zod's input side: keys with defaults are
 * optional), draft-07 for the widest editor support, with the cross-field
 * rules the zod refinements check written out so editors flag them too.
 */
export function configJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-7' }) as JsonSchema
  const { $schema, ...rest } = generated
  const schema: JsonSchema = {
    $schema,
    $id: SCHEMA_URL,
    title: 'evalgate.yml',
    description: 'Configuration of evalgate: the dataset, the target under test, the judge and the gate.',
    ...rest
  }
  for (const [key, description] of Object.entries(DESCRIPTIONS)) {
    const property = schema.properties?.[key]
    if (property) property.description = description
  }
  const target = schema.properties?.target
  if (target) {
    // exactly one kind of target
    target.oneOf = TARGET_KINDS.map((kind) => ({ required: [kind] }))
    // set only by reading a promptfoo config, never written in evalgate.yml
    delete target.properties?.promptfoo
  }
  // the cases: a dataset path, inline cases, or both
  schema.anyOf = [{ required: ['dataset'] }, { required: ['cases'] }]
  return schema
}

/** The file's text: stable key order from the zod schema, two-space indent, final newline. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`
}
