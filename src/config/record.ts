/**
 * Reading run records (SPEC §5): our own files, but also baselines downloaded
 * from elsewhere, so they are validated before anything trusts them.
 */
import { z } from 'zod'
import { RecordError } from '../errors.js'
import type { RunRecord } from '../types.js'
import { readText } from './dataset.js'
import { formatPath, nestingPath, tooDeepError } from './parse.js'

export const RECORD_SCHEMA_VERSION = 1

const judgeVerdict = z.object({
  model: z.string(),
  score: z.number(),
  reason: z.string(),
  error: z.string().optional(),
  reused: z.boolean().optional(),
  tokens: z.number().optional(),
  key: z.string(),
  samples: z.array(z.number()).optional()
})

const assertionResult = z.object({
  type: z.string(),
  passed: z.boolean(),
  score: z.number(),
  reason: z.string(),
  weight: z.number().optional(),
  error: z.string().optional(),
  judge: judgeVerdict.optional()
})

const usage = z.object({ promptTokens: z.number().optional(), completionTokens: z.number().optional(), totalTokens: z.number().optional() })

const trial = z.object({
  passed: z.boolean(),
  output: z.string().nullable(),
  error: z.string().nullable(),
  score: z.number().nullable(),
  durationMs: z.number(),
  assertions: z.array(assertionResult),
  usage: usage.optional()
})

const caseResult = z.object({
  id: z.string(),
  index: z.number().int().min(0).optional(),
  name: z.string(),
  tags: z.array(z.string()),
  fingerprint: z.string(),
  input: z.unknown().optional(),
  expected: z.unknown().optional(),
  passed: z.boolean(),
  passFraction: z.number().min(0).max(1),
  output: z.string().nullable(),
  error: z.string().nullable(),
  score: z.number().nullable(),
  durationMs: z.number(),
  assertions: z.array(assertionResult),
  trials: z.array(trial).optional(),
  usage: usage.optional(),
  source: z.object({ file: z.string(), line: z.number().optional() }).optional(),
  history: z.string().regex(/^[PF]*$/, 'a history is a string of P (passed) and F (failed)').optional(),
  reruns: z.number().int().min(0).optional()
})

export const runRecordSchema = z.object({
  schemaVersion: z.literal(RECORD_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('evalgate'), version: z.string() }),
  name: z.string(),
  createdAt: z.string(),
  complete: z.boolean().default(true),
  git: z.object({ sha: z.string().nullable(), ref: z.string().nullable(), runId: z.string().nullable() }),
  config: z.object({ repeat: z.number(), shard: z.string().nullable().optional() }).optional(),
  summary: z.object({
    total: z.number(),
    passed: z.number(),
    failed: z.number(),
    errors: z.number(),
    passRate: z.number(),
    meanScore: z.number().nullable(),
    durationMs: z.number(),
    judge: z.object({
      calls: z.number(),
      reused: z.number(),
      errors: z.number(),
      tokens: z.number(),
      sampled: z.number().optional(),
      disagreements: z.number().optional()
    }),
    reruns: z.number().optional()
  }),
  trend: z.array(z.object({ sha: z.string().nullable(), createdAt: z.string(), passRate: z.number(), meanScore: z.number().nullable() })).max(100).optional(),
  cases: z.array(caseResult)
})

/** Parse a record from text; `file` only names it in messages. */
export function parseRunRecord(text: string, file: string): RunRecord {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new RecordError(`${file}: not a run record: not valid JSON (${(err as Error).message}); was the file cut short?`, file)
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new RecordError(`${file}: not a run record: expected a JSON object with schemaVersion, summary and cases`, file)
  }
  // a hostile record nested past what the report's recursion can walk is refused here, not met there
  const deep = nestingPath(value)
  if (deep) throw new RecordError(tooDeepError(`${file}: not a run record`, deep).message, file)
  const version = (value as { schemaVersion?: unknown }).schemaVersion
  if (version !== RECORD_SCHEMA_VERSION) {
    const found = version === undefined ? 'has no schemaVersion' : `has schemaVersion ${JSON.stringify(version).slice(0, 40)}`
    throw new RecordError(`${file}: ${found}; this evalgate reads run records of schemaVersion ${RECORD_SCHEMA_VERSION} only (re-create it with this version)`, file)
  }
  const result = runRecordSchema.safeParse(value)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new RecordError(`${file}: not a valid run record at ${formatPath(issue.path as (string | number)[]) || '(top)'}: ${issue.message}`, file)
  }
  // cases are matched by key: a second case of the same key would be silently dropped or misread
  const keys = new Map<string, number>()
  result.data.cases.forEach((c, i) => {
    const first = keys.get(c.id)
    if (first !== undefined) throw new RecordError(`${file}: not a valid run record at cases[${i}].id: duplicate case key "${c.id.slice(0, 100)}" (also at cases[${first}]); a record holds each case once`, file)
    keys.set(c.id, i)
  })
  return result.data as RunRecord
}

export async function readRunRecord(file: string): Promise<RunRecord> {
  return parseRunRecord(await readText(file), file)
}
