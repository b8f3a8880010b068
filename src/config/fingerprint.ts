/**
 * Case and dataset fingerprints. A case whose fingerprint
 * differs from the baseline's is *changed*, not compared, so the fingerprint
 * must change whenever what decides the case's verdict changes: its input, its
 * assertions, the files they name (a `file:` check edited to `() => true`, and
 * the modules that check imports), and the judge settings when it is judged.
 * It must not change with where the repository is checked out: files are
 * named by their path relative to the config's folder.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { splitArgv } from '../util/argv.js'
import type { Assertion, Simulation, Turn } from './case.js'
import { isJudged } from './judged.js'
import type { DatasetFingerprint } from './record-schema.js'
import { contentHash } from '../util/hash.js'
import { DEFAULT_JUDGE_BASE_URL, type JudgeConfig } from './schema.js'

/**
 * What the fingerprints of a record mean: bumped whenever what they cover
 * changes, since fingerprints of two versions never match. Records without
 * `fingerprintVersion` were made by version 1 (input, assertions with absolute
 * file paths, judge model and threshold).
 */
export const FINGERPRINT_VERSION = 2

const FILE_URL = 'file://'
/** Files a check may import from: relative specifiers of these are followed. */
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx'])
/** Tried, in order, for an import specifier written without its extension. */
const IMPLIED_EXTENSIONS = ['', '.js', '.mjs', '.cjs', '.ts', '.mts', '.json', '/index.js', '/index.mjs', '/index.ts']
/** `import … from './x'`, `export … from './x'`, `import './x'`, `import('./x')`, `require('./x')` */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])(\.{1,2}\/[^"'\n]+)\1/g
/** A check that imports more modules than this is fingerprinted by its first ones. */
export const MAX_MODULES = 256

/** Is `file` a module whose relative imports are followed (by its extension)? */
export const isModulePath = (file: string) => MODULE_EXTENSIONS.has(path.extname(file).toLowerCase())

/** The relative import specifiers of a module's text. */
export function relativeImports(text: string): string[] {
  return [...text.matchAll(RELATIVE_IMPORT)].map((m) => m[2]!)
}

/** The paths an import of `base` (a specifier joined to its importer's folder) may name, in the order they are tried. */
export function impliedPaths(base: string): string[] {
  const bare = base.replace(/[?#].*$/, '')
  return IMPLIED_EXTENSIONS.map((ext) => bare + ext)
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

interface FileFacts {
  /** the SHA-256 of its bytes, null when it cannot be read (the assertion's own check reports that) */
  digest: string | null
  /** a module's relative import specifiers */
  imports: string[]
}

function readFacts(file: string): FileFacts {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return { digest: null, imports: [] }
  }
  const imports = isModulePath(file) ? relativeImports(bytes.toString('utf8')) : []
  return { digest: createHash('sha256').update(bytes).digest('hex'), imports }
}

/** Where a relative import specifier of `from` leads, when it is a file. */
function resolveImport(from: string, specifier: string): string | undefined {
  return impliedPaths(path.resolve(path.dirname(from), specifier)).find(isFile)
}

/**
 * Fingerprints the cases of one config: files are read once however many
 * cases name them (a `defaults` check names one for every case).
 */
export class Fingerprinter {
  /** absolute path → the digest of the file and of every module it imports */
  private readonly closures = new Map<string, string>()
  private readonly files = new Map<string, FileFacts>()
  private readonly judge: unknown
  /** what `similar` uses of the judge: its server's embeddings */
  private readonly embeddings: unknown

  constructor(
    /** the config's folder: files are named relative to it */
    private readonly baseDir: string,
    judge?: JudgeConfig,
    /** where a trusted command judge's files are (github/trusted-files.ts), laid out as the config's folder: they are what grades */
    private readonly judgeDir?: string
  ) {
    this.judge = judge ? this.judgeSettings(judge) : null
    // an unset judge.baseUrl is hashed as the default it had: fingerprints of earlier records still match
    this.embeddings = judge ? { provider: judge.provider, baseUrl: judge.baseUrl ?? DEFAULT_JUDGE_BASE_URL, embeddingModel: judge.embeddingModel } : null
  }

  /**
   * A case's fingerprint: its input, its assertions with the files they name,
   * the judge settings its assertions use, and its `metadata` and `vars` when
   * it has them (checks read them: editing one can change a verdict). Without
   * them the hash is what it was before they reached checks, so baselines
   * still match.
   */
  ofCase(
    input: unknown,
    assert: Assertion[],
    metadata?: Record<string, unknown>,
    vars?: Record<string, unknown>,
    conversation: { turns?: Turn[]; simulate?: Simulation } = {}
  ): string {
    const { turns, simulate } = conversation
    const every = turns ? [...assert, ...turns.flatMap((t) => t.assert)] : assert
    // a model-graded check that names no grader of its own is graded by the judge
    const judged = every.some(isJudged)
    const embedded = every.some((a) => a.type === 'similar' || a.type === 'not-similar')
    // built in the sorted order of its keys, which is how it is hashed: no sorted copy of it per case
    const hashed: Record<string, unknown> = { assert: assert.map((a) => this.portable(a)) }
    if (embedded) hashed.embeddings = this.embeddings
    hashed.input = input
    hashed.judge = judged ? this.judge : null
    if (metadata !== undefined) hashed.metadata = metadata
    // the simulated user is a grader setting: who plays it, and how, decides what the agent is asked
    if (simulate !== undefined) hashed.simulate = { ...simulate, provider: this.graderSettings(simulate.provider) }
    if (turns !== undefined) hashed.turns = turns.map((t) => ({ assert: t.assert.map((a) => this.portable(a)), user: t.user }))
    if (vars !== undefined) hashed.vars = vars
    return contentHash(hashed)
  }

  /** The assertion as hashed: files named by relative path and content, so that neither the checkout path nor an edit goes unseen. */
  private portable(a: Assertion): unknown {
    if (a.file === undefined && !mentionsFileUrl(a.value)) return a
    const out: Record<string, unknown> = { ...a, value: this.withFileContents(a.value) }
    if (typeof a.file === 'string') out.file = this.fileRef(path.resolve(this.baseDir, a.file))
    return out
  }

  private withFileContents(value: unknown): unknown {
    if (typeof value === 'string') return value.startsWith(FILE_URL) ? this.fileUrlRef(value) : value
    if (Array.isArray(value)) return value.map((v) => this.withFileContents(v))
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.withFileContents(v)]))
    return value
  }

  /** `file://path` (promptfoo's form), relative to the config's folder; `file://check.js:fn` names a function in it. */
  private fileUrlRef(url: string): unknown {
    const rest = url.slice(FILE_URL.length)
    const file = path.resolve(this.baseDir, rest)
    const named = /^(.*):([A-Za-z_$][\w$]*)$/.exec(rest)
    if (!isFile(file) && named && isFile(path.resolve(this.baseDir, named[1]!))) {
      return { ...(this.fileRef(path.resolve(this.baseDir, named[1]!)) as object), function: named[2] }
    }
    return this.fileRef(file)
  }

  private fileRef(file: string): unknown {
    return { path: this.relative(file), contents: this.closure(file) }
  }

  private relative(file: string): string {
    const root = this.judgeDir && file.startsWith(this.judgeDir + path.sep) ? this.judgeDir : this.baseDir
    return path.relative(root, file).split(path.sep).join('/')
  }

  private facts(file: string): FileFacts {
    let facts = this.files.get(file)
    if (!facts) {
      facts = readFacts(file)
      this.files.set(file, facts)
    }
    return facts
  }

  /**
   * The digest of a file and, for a module, of every module it reaches by
   * relative imports: a check that delegates to `./helper.mjs` changes when
   * the helper does. (Code that computes what it loads is out of reach; the
   * README says so.)
   */
  private closure(entry: string): string {
    const known = this.closures.get(entry)
    if (known !== undefined) return known
    const seen = new Set<string>([entry])
    const queue = [entry]
    const parts: string[] = []
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const { digest, imports } = this.facts(file)
      parts.push(`${this.relative(file)}\0${digest ?? 'unreadable'}`)
      for (const specifier of imports) {
        const found = resolveImport(file, specifier)
        if (found && !seen.has(found) && seen.size < MAX_MODULES) {
          seen.add(found)
          queue.push(found)
        }
      }
    }
    const closure = createHash('sha256').update(parts.sort().join('\n')).digest('hex')
    this.closures.set(entry, closure)
    return closure
  }

  /**
   * Every file read so far (absolute path → SHA-256, null when unreadable):
   * what grades the cases. The engine reads them again after the run
   * (`changedSince`): a file rewritten while the run was in progress graded
   * cases under a fingerprint it no longer has.
   */
  readFiles(): ReadonlyMap<string, string | null> {
    return new Map([...this.files].map(([file, facts]) => [file, facts.digest]))
  }

  /** The judge settings a judged case depends on; script files a command judge names count by content. */
  private judgeSettings(judge: JudgeConfig): unknown {
    return this.graderSettings(judge, { threshold: judge.threshold, samples: judge.samples })
  }

  /** A grader's provider settings (the judge's, a simulated user's); script files a command names count by content. */
  private graderSettings(grader: Pick<JudgeConfig, 'provider' | 'config' | 'model' | 'baseUrl' | 'command'>, extra: Record<string, unknown> = {}): unknown {
    const settings: Record<string, unknown> = { provider: grader.provider, model: grader.model, baseUrl: grader.baseUrl ?? DEFAULT_JUDGE_BASE_URL, ...extra }
    // a provider id's settings grade too (only there: earlier fingerprints had none)
    if (grader.config !== undefined) settings.config = grader.config
    if (grader.provider !== 'command' || grader.command === undefined) return settings
    let argv: string[]
    try {
      argv = typeof grader.command === 'string' ? splitArgv(grader.command, 'grader.command') : grader.command
    } catch {
      // the config's own check reports a command that does not split
      argv = [String(grader.command)]
    }
    const command = argv.map((arg) => {
      if (arg.includes('${')) return arg
      // in a pull-request run the base commit's copy is what grades (github/trusted-files.ts)
      const trusted = trustedPath(this.judgeDir, arg)
      if (trusted) return this.fileRef(trusted)
      // only the repository's own files: a program elsewhere (/usr/bin/python3) differs from machine to machine
      const file = path.resolve(this.baseDir, arg)
      return file.startsWith(this.baseDir + path.sep) && isFile(file) ? this.fileRef(file) : arg
    })
    return { ...settings, command }
  }
}

/** A command judge's argv word as its trusted copy, when `judgeDir` holds one. */
export function trustedPath(judgeDir: string | undefined, word: string): string | undefined {
  if (!judgeDir || path.isAbsolute(word)) return undefined
  const file = path.resolve(judgeDir, word)
  return file.startsWith(judgeDir + path.sep) && isFile(file) ? file : undefined
}

function mentionsFileUrl(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith(FILE_URL)
  if (Array.isArray(value)) return value.some(mentionsFileUrl)
  if (value && typeof value === 'object') {
    // for…in over own keys rather than Object.values: no array per object of every case
    for (const k in value) if (Object.hasOwn(value, k) && mentionsFileUrl((value as Record<string, unknown>)[k])) return true
  }
  return false
}

/**
 * The files of `read` (Fingerprinter.readFiles) whose bytes differ now from
 * what they were when the fingerprints were made, relative to `root`.
 */
export function changedSince(read: ReadonlyMap<string, string | null>, root: string): string[] {
  const changed: string[] = []
  for (const [file, digest] of read) {
    if (readFacts(file).digest === digest) continue
    // the base commit's copies (a trusted command judge) live outside the config's folder: named whole
    const relative = path.relative(root, file)
    changed.push(relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/'))
  }
  return changed.sort()
}

/**
 * The fingerprint of a whole dataset: the config's name and every case's key
 * and fingerprint, in key order (so that reordering cases is no change). Shards
 * of one run share it; a shard of another dataset does not.
 */
export function datasetFingerprint(name: string, cases: readonly { id: string; fingerprint: string }[]): DatasetFingerprint {
  // keys are unique, so sorting the lines sorts by key; one string hashed at once is cheaper than 100,000 updates
  const lines = cases.map((c) => `${JSON.stringify(c.id)} ${c.fingerprint}`).sort()
  const fingerprint = createHash('sha256')
    .update(`${FINGERPRINT_VERSION}\n${JSON.stringify(name)}\n${lines.join('\n')}`)
    .digest('hex')
    .slice(0, 32)
  return { fingerprint, cases: cases.length }
}
