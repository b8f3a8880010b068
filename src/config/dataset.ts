/**
 * Dataset loading: files and globs of YAML/JSON/JSONL, inline cases,
 * `defaults`, the seed shorthands, case keys and fingerprints.
 */
import { createReadStream, readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { ConfigError } from '../errors.js'
import type { Assertion, AssertionScope, EvalCase } from './case.js'
import { contentHash } from '../util/hash.js'
import { strictUtf8Decoder } from '../util/utf8.js'
import { ConversationProblem, readConversation, type ReadConversation } from './conversation.js'
import { expectedText } from './expected.js'
import { Fingerprinter } from './fingerprint.js'
import { Problems } from './problems.js'
import { formatPath, parseJsonl, parseJsonLine, parseStructured, validate, type Located, type Path } from './parse.js'
import { caseSchema, type JudgeConfig, type RawCase } from './schema.js'

/** What checks a case's assertions against the registered types (and the config they run under). */
export type AssertionValidator = (assertion: Assertion, scope?: AssertionScope) => string | undefined

export interface DatasetOptions {
  /** applied to every case; their assertions are the caller's to validate (the loader names the config for them, once) */
  defaults: { assert: Assertion[]; tags: string[] }
  /** where the problems found are kept, to be reported together with the config's; else the normalizer's own, thrown by finish() */
  problems?: Problems
  /** the config's folder: fingerprints name files relative to it */
  baseDir: string
  judge?: JudgeConfig
  /** a trusted command judge's files (LoadOptions.judgeDir) */
  judgeDir?: string
  validateAssertion: AssertionValidator
}

/** One source of raw cases: a file, or the config's inline `cases`. */
interface RawSource {
  located: Located
  /** the path of the case list inside the located value */
  base: Path
  cases: unknown[]
}

function readError(file: string, err: unknown): ConfigError {
  const code = (err as NodeJS.ErrnoException).code
  const why = code === 'ENOENT' ? `no such file${didYouMean(file)}` : code === 'EISDIR' ? 'is a directory, not a file' : (err as Error).message
  return new ConfigError(`${file}: cannot read: ${why}`, file)
}

const DATA_EXTENSIONS = new Set(['.yml', '.yaml', '.json', '.jsonl'])

/** A file beside a missing one that differs only in its extension (evalgate.yaml for evalgate.yml) is most likely the one meant. */
function didYouMean(file: string): string {
  const ext = path.extname(file)
  if (!DATA_EXTENSIONS.has(ext.toLowerCase())) return ''
  const stem = path.basename(file, ext)
  let names: string[]
  try {
    names = readdirSync(path.dirname(file))
  } catch {
    return ''
  }
  const like = names.filter(
    (name) => name !== path.basename(file) && DATA_EXTENSIONS.has(path.extname(name).toLowerCase()) && path.basename(name, path.extname(name)) === stem
  )
  return like.length ? `; there is ${like.map((name) => path.join(path.dirname(file), name)).join(' and ')} beside it: did you mean that?` : ''
}

const notUtf8 = (file: string) => new ConfigError(`${file}: not valid UTF-8 text; save it as UTF-8`, file)

export async function readText(file: string): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (err) {
    throw readError(file, err)
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '')
  } catch {
    throw notUtf8(file)
  }
}

/** A file's text in chunks, strictly decoded (a byte sequence that is not UTF-8 is an error, not U+FFFD). */
export async function* utf8Chunks(file: string): AsyncGenerator<string> {
  const decode = strictUtf8Decoder(() => notUtf8(file))
  try {
    for await (const chunk of createReadStream(file)) yield decode(chunk as Buffer)
  } catch (err) {
    throw err instanceof ConfigError ? err : readError(file, err)
  }
  yield decode()
}

/**
 * A JSONL dataset, read line by line and each line made a case at once: only
 * the cases are kept, never the file's text or its parsed lines, so a dataset
 * of 100,000 cases costs what its cases cost.
 */
export async function readJsonlCases(file: string, into: CaseNormalizer): Promise<void> {
  const input = Readable.from(utf8Chunks(file))
  const reader = createInterface({ input, crlfDelay: Infinity })
  into.beginSource(file, [])
  let number = 0
  let index = 0
  try {
    for await (const raw of reader) {
      number++
      const line = raw.trim()
      if (line === '') continue
      const at = number
      // a line that is not JSON is one problem; the lines after it are still read
      const value = into.problems.attempt(() => parseJsonLine(line, file, at))
      if (value === undefined) into.skip()
      else into.add(value, { file, lineOf: () => at }, [index])
      index++
    }
  } finally {
    reader.close()
    input.destroy()
  }
}

const isJsonl = (file: string) => ['.jsonl', '.ndjson'].includes(path.extname(file).toLowerCase())

/** Parse a file by extension into its list of raw cases. */
export function parseDatasetText(text: string, file: string): RawSource {
  const ext = path.extname(file).toLowerCase()
  if (isJsonl(file)) {
    const located = parseJsonl(text, file)
    return { located, base: [], cases: located.value }
  }
  if (!['.yaml', '.yml', '.json'].includes(ext)) {
    throw new ConfigError(`${file}: unknown dataset format "${ext || '(none)'}"; use .yaml, .yml, .json or .jsonl`, file)
  }
  const located = parseStructured(text, file)
  const value = located.value
  if (Array.isArray(value)) return { located, base: [], cases: value }
  if (value && typeof value === 'object' && Array.isArray((value as { cases?: unknown }).cases)) {
    return { located, base: ['cases'], cases: (value as { cases: unknown[] }).cases }
  }
  if (value === null || value === undefined) return { located, base: [], cases: [] }
  throw new ConfigError(`${file}: a dataset is a list of cases or {cases: [...]}; found ${typeof value}`, file)
}

/** Characters without which a name is no glob pattern: the glob library is loaded only for a name with one of them. */
const GLOB_CHARS = /[*?[\]{}()!+@\\]/

async function expandPatterns(patterns: string[], baseDir: string, problems: Problems): Promise<string[]> {
  const files: string[] = []
  for (const pattern of patterns) {
    // loaded on first use: most datasets are named files, and the library took ~7 ms of every start-up
    const globs = GLOB_CHARS.test(pattern) ? await import('tinyglobby') : undefined
    if (globs?.isDynamicPattern(pattern)) {
      const found = (await globs.glob(pattern, { cwd: baseDir, absolute: true, onlyFiles: true })).sort()
      if (found.length === 0) problems.add(new ConfigError(`dataset pattern "${pattern}" matches no file (relative to ${baseDir})`))
      files.push(...found)
    } else {
      files.push(path.resolve(baseDir, pattern))
    }
  }
  return [...new Set(files)]
}

/** Read every file of the dataset into `into`, in order; the files read come back. A file that cannot be read is one of `into`'s problems. */
export async function readDataset(dataset: string | string[], baseDir: string, into: CaseNormalizer): Promise<string[]> {
  const files = await expandPatterns(Array.isArray(dataset) ? dataset : [dataset], baseDir, into.problems)
  // one after another: cases keep dataset order, and only one file is being read at a time
  for (const file of files) {
    await into.problems.attemptAsync(async () => {
      if (isJsonl(file)) await readJsonlCases(file, into)
      else into.addSource(parseDatasetText(await readText(file), file))
    })
  }
  return files
}

/** The seed shorthands, as assertions. */
function shorthandAssertions(raw: RawCase): Assertion[] {
  if (raw.check !== undefined) return [{ type: 'javascript', value: raw.check }]
  if (raw.ideal !== undefined) {
    return [Array.isArray(raw.ideal) ? { type: 'contains-any', value: raw.ideal } : { type: 'contains', value: raw.ideal }]
  }
  if (raw.grading_method !== undefined) {
    if (raw.expected === undefined) throw new Error('grading_method needs `expected`')
    const type = raw.grading_method === 'json_exact' ? 'json_exact' : raw.grading_method
    return [{ type, value: raw.expected }]
  }
  if (raw.expected !== undefined) return [{ type: 'contains', value: String(raw.expected) }]
  return []
}

export function resolveFiles(assertions: Assertion[], dir: string): Assertion[] {
  return assertions.map((a) => {
    if (typeof a.file === 'string') return { ...a, file: path.resolve(dir, a.file) }
    // a python check's file:// (promptfoo's form) is relative to the file that names it, as a javascript check's `file`
    if ((a.type === 'python' || a.type === 'not-python') && typeof a.value === 'string' && a.value.startsWith('file://'))
      return { ...a, value: `file://${path.resolve(dir, a.value.slice('file://'.length))}` }
    return a
  })
}

/** Turn raw cases from every source into runnable cases, in dataset order. */
export function normalizeCases(sources: RawSource[], options: DatasetOptions): EvalCase[] {
  const normalizer = new CaseNormalizer(options)
  for (const source of sources) normalizer.addSource(source)
  return normalizer.finish()
}

/**
 * Raw cases in, runnable cases out, one at a time and in dataset order: ids
 * are checked for duplicates across all sources, cases without one get a key
 * from their content. A case with a problem is left out and the problem kept
 * in `problems`, so that one pass finds them all (up to MAX_PROBLEMS).
 */
export class CaseNormalizer {
  readonly problems: Problems
  /** no collector was given: finish() throws what was found */
  private readonly ownsProblems: boolean
  private readonly cases: EvalCase[] = []
  /** case id → the index of the case that has it */
  private readonly ids = new Map<string, number>()
  private readonly contentKeys = new Map<string, number>()
  /** per source: where its cases begin, to name an earlier case in a message */
  private readonly sources: { file: string; base: Path; first: number; dir: string; sourceFile: string; skipped: number[] }[] = []

  private readonly fingerprints: Fingerprinter

  constructor(private readonly options: DatasetOptions) {
    this.fingerprints = new Fingerprinter(options.baseDir, options.judge, options.judgeDir)
    this.problems = options.problems ?? new Problems()
    this.ownsProblems = options.problems === undefined
  }

  /** The next cases come from this file, found at `base` inside it. */
  beginSource(file: string, base: Path): void {
    // relative to the working directory: in Actions that is the repository root, as annotations need
    const sourceFile = path.relative(process.cwd(), file) || file
    this.sources.push({ file, base, first: this.cases.length, dir: path.dirname(file), sourceFile, skipped: [] })
  }

  addSource(source: RawSource): void {
    this.beginSource(source.located.file, source.base)
    source.cases.forEach((value, i) => this.add(value, source.located, [...source.base, i]))
  }

  /** One raw case of the current source; `located` finds lines in its file, `at` is its path there. A problem with it is kept, and the case left out. */
  add(value: unknown, located: Omit<Located, 'value'>, at: Path): void {
    const before = this.cases.length
    this.problems.attempt(() => this.addCase(value, located, at))
    if (this.cases.length === before) this.skip()
  }

  /** The current source's next case is left out (it had a problem): later cases are still named by their place in the file. */
  skip(): void {
    this.sources.at(-1)!.skipped.push(this.cases.length)
  }

  private addCase(value: unknown, located: Omit<Located, 'value'>, at: Path): void {
    const { options } = this
    const source = this.sources.at(-1)!
    const file = located.file
    const where = () => this.where(file, located.lineOf(at), at)
    let raw: RawCase
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      raw = validate(caseSchema, { ...located, value }, at, 'case')
    } else {
      throw new ConfigError(
        `${where()}: a case is a mapping with at least \`input\`; found ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value}`,
        file
      )
    }
    // a place inside the case, with its own line
    const below = (sub: Path) => this.where(file, located.lineOf([...at, ...sub]), [...at, ...sub])
    let conversation: ReadConversation
    try {
      conversation = readConversation(raw, options.judge, (list, sub) =>
        this.checked(resolveFiles(list, source.dir), (k) => below([...sub, k]), file, { turn: true })
      )
    } catch (err) {
      if (err instanceof ConversationProblem) throw new ConfigError(`${below(err.at)}: ${err.message}`, file)
      throw err
    }
    if (raw.input === undefined && !conversation.turns && !conversation.simulate)
      throw new ConfigError(`${where()}: the case has no \`input\` (or \`turns\`, or \`simulate\`)`, file)
    let own: Assertion[]
    try {
      own = raw.assert ?? shorthandAssertions(raw)
    } catch (err) {
      throw new ConfigError(`${where()}: ${(err as Error).message}`, file)
    }
    // defaults come resolved against the config's folder; the case's own files against its dataset's
    // only the case's own: a default with a problem is one problem of the config, not one more per case
    const ownResolved = this.checked(resolveFiles(own, source.dir), (k) => (raw.assert ? `${where()}.assert[${k}]` : where()), file)
    const assert = [...options.defaults.assert, ...ownResolved]
    const tags = [...new Set([...options.defaults.tags, ...(raw.tags ?? []), ...(raw.task_type ? [raw.task_type] : [])])]
    const index = this.cases.length
    let id: string
    if (raw.id !== undefined) {
      id = String(raw.id)
      const previous = this.ids.get(id)
      if (previous !== undefined) throw new ConfigError(`${where()}: duplicate case id "${id}" (also at ${this.whereIs(previous)}); ids must be unique`, file)
      this.ids.set(id, index)
    } else {
      // Matched across runs by content, never by position; identical inputs are told apart by occurrence.
      const base = `h${contentHash(raw.turns ? { turns: raw.turns } : raw.simulate ? { simulate: raw.simulate } : raw.input, 12)}`
      const seen = this.contentKeys.get(base) ?? 0
      this.contentKeys.set(base, seen + 1)
      id = seen === 0 ? base : `${base}~${seen + 1}`
    }
    const expected = expectedText(raw.expected ?? raw.ideal, own, options.defaults.assert)
    this.cases.push({
      id,
      name: raw.name ?? (raw.id !== undefined ? String(raw.id) : `case_${index}`),
      input: raw.input,
      tags,
      assert,
      expected,
      fingerprint: this.fingerprints.ofCase(raw.input, assert, raw.metadata, raw.vars, conversation),
      source: { file: source.sourceFile, line: located.lineOf(at) },
      index,
      ...(raw.metadata !== undefined ? { metadata: raw.metadata } : {}),
      ...(raw.vars !== undefined ? { vars: raw.vars } : {}),
      ...conversation
    })
  }

  /** the files read to fingerprint the cases, with their digests (Fingerprinter.readFiles) */
  gradingFiles(): ReadonlyMap<string, string | null> {
    return this.fingerprints.readFiles()
  }

  /** Assertions validated, a problem named at `place(k)`. */
  private checked(list: Assertion[], place: (k: number) => string, file: string, scope?: AssertionScope): Assertion[] {
    list.forEach((a, k) => {
      const problem = this.options.validateAssertion(a, scope)
      if (problem) throw new ConfigError(`${place(k)}: ${problem}`, file)
    })
    return list
  }

  /** The cases read. The problems found are thrown, unless they go to a collector the caller gave (and reports). */
  finish(): EvalCase[] {
    for (const [id, index] of this.ids) {
      if (this.contentKeys.has(id))
        this.problems.add(new ConfigError(`${this.whereIs(index)}: case id "${id}" collides with the key generated for a case without id; choose another id`))
    }
    if (this.ownsProblems) this.problems.throwIfAny()
    return this.cases
  }

  private where(file: string, line: number | undefined, at: Path): string {
    return `${file}${line ? `:${line}` : ''} at ${formatPath(at) || `case ${at.at(-1)}`}`
  }

  /** Where an earlier case is: its file and line, and its path there. */
  private whereIs(index: number): string {
    const source = this.sources.findLast((s) => s.first <= index)!
    const left = source.skipped.filter((at) => at <= index).length
    return this.where(source.file, this.cases[index]!.source?.line, [...source.base, index - source.first + left])
  }
}
