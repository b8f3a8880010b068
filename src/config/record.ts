/**
 * Reading run records (SPEC §5): our own files, but also baselines downloaded
 * from elsewhere, so they are validated before anything trusts them.
 */
import { z } from 'zod'
import { RecordError } from '../errors.js'
import type { CaseResult, RunRecord } from '../types.js'
import { JsonArraySplitter, JsonSplitError } from '../util/json-split.js'
import { strictUtf8Decoder } from '../util/utf8.js'
import { utf8Chunks } from './dataset.js'
import { formatPath, MAX_NESTING, tooDeepError } from './parse.js'

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

/**
 * Usage as recorded (SPEC §10). Records made before result objects kept
 * `promptTokens`/`completionTokens`: they are read as input and output tokens.
 */
const usage = z
  .object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
    costUsd: z.number().optional(),
    promptTokens: z.number().optional(),
    completionTokens: z.number().optional()
  })
  .transform(({ promptTokens, completionTokens, ...u }) => {
    if (u.inputTokens === undefined && promptTokens !== undefined) u.inputTokens = promptTokens
    if (u.outputTokens === undefined && completionTokens !== undefined) u.outputTokens = completionTokens
    return u
  })

const toolCall = z.object({ name: z.string(), args: z.unknown(), result: z.unknown().optional() })

/** What a result object adds to a trial and a case (SPEC §10). */
const agentFields = {
  toolCalls: z.array(toolCall).optional(),
  usage: usage.optional(),
  latencyMs: z.number().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  finishReason: z.string().optional()
}

const trial = z.object({
  passed: z.boolean(),
  output: z.string().nullable(),
  error: z.string().nullable(),
  score: z.number().nullable(),
  durationMs: z.number(),
  assertions: z.array(assertionResult),
  ...agentFields,
  namedScores: z.record(z.string(), z.number()).optional()
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
  ...agentFields,
  source: z.object({ file: z.string(), line: z.number().optional() }).optional(),
  history: z
    .string()
    .regex(/^[PF]*$/, 'a history is a string of P (passed) and F (failed)')
    .optional(),
  reruns: z.number().int().min(0).optional(),
  namedScores: z.record(z.string(), z.number()).optional()
})

export const runRecordSchema = z.object({
  schemaVersion: z.literal(RECORD_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('evalgate'), version: z.string() }),
  // records from before the field fingerprinted as version 1 did
  fingerprintVersion: z.number().int().min(1).default(1),
  name: z.string(),
  createdAt: z.string(),
  complete: z.boolean().default(true),
  stopReason: z.enum(['interrupted', 'budget']).optional(),
  budget: z.object({ maxCostUsd: z.number(), spentUsd: z.number() }).optional(),
  planned: z.number().int().min(0).optional(),
  dataset: z.object({ fingerprint: z.string(), cases: z.number().int().min(0) }).optional(),
  git: z.object({ sha: z.string().nullable(), ref: z.string().nullable(), runId: z.string().nullable() }),
  config: z.object({ repeat: z.number(), shard: z.string().nullable().optional(), filter: z.string().nullable().optional() }).optional(),
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
      costUsd: z.number().optional(),
      sampled: z.number().optional(),
      disagreements: z.number().optional()
    }),
    reruns: z.number().optional(),
    namedScores: z.record(z.string(), z.object({ score: z.number(), cases: z.number() })).optional()
  }),
  trend: z
    .array(z.object({ sha: z.string().nullable(), createdAt: z.string(), passRate: z.number(), meanScore: z.number().nullable() }))
    .max(100)
    .optional(),
  cases: z.array(caseResult)
})

/** The record without its cases, which RecordReader validates one by one. */
const recordHeadSchema = runRecordSchema.extend({ cases: z.array(z.unknown()).max(0) })

const notRecord = (file: string) => `${file}: not a run record`
const notJson = (file: string, why: string) => new RecordError(`${notRecord(file)}: not valid JSON (${why}); was the file cut short?`, file)
const invalidAt = (file: string, at: (string | number)[], message: string) =>
  new RecordError(`${file}: not a valid run record at ${formatPath(at) || '(top)'}: ${message}`, file)

/**
 * A record read a piece of text at a time: each case is parsed and validated
 * as soon as its text is complete, so a record of 100,000 cases (~65 MB) never
 * exists as one string or as one unvalidated tree.
 */
class RecordReader {
  private readonly cases: CaseResult[] = []
  private readonly keys = new Map<string, number>()
  /** the first case found wrong: told only once the header has shown the file is a record of this schema */
  private caseProblem: RecordError | undefined
  private readonly splitter: JsonArraySplitter

  constructor(
    private readonly file: string,
    private readonly options: RecordOptions = {}
  ) {
    this.splitter = new JsonArraySplitter({ field: 'cases', maxDepth: MAX_NESTING, onElement: (text, i) => this.addCase(text, i) })
  }

  /** made by the first bytes pushed: bytes that are not UTF-8 make the record unreadable */
  private decode: ((bytes?: Uint8Array) => string) | undefined

  pushBytes(bytes: Uint8Array): void {
    this.decode ??= strictUtf8Decoder(() => new RecordError(`${notRecord(this.file)}: not valid UTF-8 text`, this.file))
    this.push(this.decode(bytes))
  }

  push(text: string): void {
    try {
      this.splitter.push(text)
    } catch (err) {
      throw this.splitError(err)
    }
  }

  end(): RunRecord {
    if (this.decode) this.push(this.decode())
    let headText: string
    try {
      headText = this.splitter.end()
    } catch (err) {
      throw this.splitError(err)
    }
    const { file } = this
    let head: unknown
    try {
      head = JSON.parse(headText)
    } catch (err) {
      throw notJson(file, (err as Error).message)
    }
    if (!head || typeof head !== 'object' || Array.isArray(head)) {
      throw new RecordError(`${notRecord(file)}: expected a JSON object with schemaVersion, summary and cases`, file)
    }
    const version = (head as { schemaVersion?: unknown }).schemaVersion
    if (version !== RECORD_SCHEMA_VERSION) {
      const found = version === undefined ? 'has no schemaVersion' : `has schemaVersion ${JSON.stringify(version).slice(0, 40)}`
      throw new RecordError(
        `${file}: ${found}; this evalgate reads run records of schemaVersion ${RECORD_SCHEMA_VERSION} only (re-create it with this version)`,
        file
      )
    }
    if (this.caseProblem) throw this.caseProblem
    const result = recordHeadSchema.safeParse(head)
    if (!result.success) {
      const issue = result.error.issues[0]!
      throw invalidAt(file, issue.path as (string | number)[], issue.message)
    }
    return { ...result.data, cases: this.cases } as RunRecord
  }

  private addCase(text: string, i: number): void {
    if (this.caseProblem) return
    const { file } = this
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      this.caseProblem = notJson(file, `at cases[${i}]: ${(err as Error).message}`)
      return
    }
    const result = caseResult.safeParse(value)
    if (!result.success) {
      const issue = result.error.issues[0]!
      this.caseProblem = invalidAt(file, ['cases', i, ...(issue.path as (string | number)[])], issue.message)
      return
    }
    // cases are matched by key: a second case of the same key would be silently dropped or misread
    const id = result.data.id
    const first = this.keys.get(id)
    if (first !== undefined) {
      this.caseProblem = new RecordError(
        `${file}: not a valid run record at cases[${i}].id: duplicate case key "${id.slice(0, 100)}" (also at cases[${first}]); a record holds each case once`,
        file
      )
      return
    }
    this.keys.set(id, i)
    const kept = result.data as CaseResult
    this.options.onCase?.(kept)
    this.cases.push(kept)
  }

  private splitError(err: unknown): unknown {
    if (!(err instanceof JsonSplitError)) return err
    // a hostile record nested past what the report's recursion can walk is refused here, not met there
    if (err.path)
      return new RecordError(tooDeepError(notRecord(this.file), err.index === undefined ? err.path : ['cases', err.index, ...err.path]).message, this.file)
    return notJson(this.file, err.index === undefined ? err.message : `at cases[${err.index}]: ${err.message}`)
  }
}

/** Bytes are decoded this many at a time: a downloaded record is never one string. */
const DECODE_BYTES = 1 << 20

export interface RecordOptions {
  /** called with each case once it is valid (and before it is kept), e.g. to share values with the dataset */
  onCase?: (c: CaseResult) => void
}

/** Parse a record from text, or from UTF-8 bytes; `file` only names it in messages. */
export function parseRunRecord(content: string | Uint8Array, file: string, options?: RecordOptions): RunRecord {
  const reader = new RecordReader(file, options)
  if (typeof content === 'string') reader.push(content)
  else for (let at = 0; at < content.length; at += DECODE_BYTES) reader.pushBytes(content.subarray(at, at + DECODE_BYTES))
  return reader.end()
}

/** Read a record from pieces of UTF-8 bytes as they come (an artifact being inflated). */
export async function recordFromChunks(chunks: AsyncIterable<Uint8Array>, file: string, options?: RecordOptions): Promise<RunRecord> {
  const reader = new RecordReader(file, options)
  for await (const chunk of chunks) reader.pushBytes(chunk)
  return reader.end()
}

/** Read a record file a chunk at a time (see RecordReader). */
export async function readRunRecord(file: string, options?: RecordOptions): Promise<RunRecord> {
  const reader = new RecordReader(file, options)
  for await (const chunk of utf8Chunks(file)) reader.push(chunk)
  return reader.end()
}
