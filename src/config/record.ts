/**
 * Reading run records: our own files, but also baselines downloaded
 * from elsewhere, so they are validated before anything trusts them, with the
 * schema their types come from (record-schema.ts).
 */
import { z } from 'zod'
import { RecordError } from '../errors.js'
import { JsonArraySplitter, JsonSplitError } from '../util/json-split.js'
import { strictUtf8Decoder } from '../util/utf8.js'
import { utf8Chunks } from './dataset.js'
import { formatPath, MAX_NESTING, tooDeepError } from './parse.js'
import { caseResultSchema, RECORD_SCHEMA_VERSION, runRecordSchema, type CaseResult, type RunRecord } from './record-schema.js'

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
    return { ...result.data, cases: this.cases }
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
    const result = caseResultSchema.safeParse(value)
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
    this.options.onCase?.(result.data)
    this.cases.push(result.data)
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
