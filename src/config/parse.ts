/**
 * Structured-text parsing that remembers where things are, so that every
 * error can name the file, the path inside it and the line.
 */
import { distance } from 'fastest-levenshtein'
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml'
import type { z } from 'zod'
import { ConfigError } from '../errors.js'
import { plainReader, ZOD_DECIDES } from './plain-parse.js'
import { MAX_PROBLEMS } from './problems.js'

export type Path = readonly (string | number)[]

export interface Located<T = unknown> {
  value: T
  file: string
  /** the 1-based line of a path inside the file, when known */
  lineOf(path: Path): number | undefined
}

/** A path as users read it: `target.command[0]`. */
export function formatPath(path: Path): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? part : `.${part}`
  }
  return out
}

/**
 * The deepest nesting of lists and mappings a loaded value may have: far beyond
 * any real config, case or record, and well within the recursion of the code
 * that later walks values (hashing, `${VAR}` expansion, reports).
 */
export const MAX_NESTING = 256

/** A parser or walker that ran out of stack: the value was nested too deeply for it. */
function isStackOverflow(err: unknown): boolean {
  return /maximum call stack/i.test(err instanceof Error ? err.message : String(err))
}

export function tooDeepError(where: string, path?: Path): ConfigError {
  const at = path?.length ? ` (at ${formatPath(path.slice(0, 8))}${path.length > 8 ? '…' : ''})` : ''
  return new ConfigError(
    `${where}: nested more than ${MAX_NESTING} levels deep${at}; evalgate reads at most ${MAX_NESTING} levels of lists and mappings: flatten the value`
  )
}

/** Whether some list or mapping inside value is nested deeper than `max` levels. Iterative. */
function deeperThan(value: unknown, max: number): boolean {
  // two stacks rather than a pair per node, and for…in rather than Object.values: it runs on every line of a dataset
  const items: object[] = []
  const depths: number[] = []
  if (value !== null && typeof value === 'object') {
    items.push(value)
    depths.push(0)
  }
  while (items.length) {
    const item = items.pop()!
    const depth = depths.pop()!
    if (depth >= max) return true
    if (Array.isArray(item)) {
      for (const v of item as unknown[])
        if (v !== null && typeof v === 'object') {
          items.push(v)
          depths.push(depth + 1)
        }
    } else {
      for (const k in item) {
        if (!Object.hasOwn(item, k)) continue
        const v = (item as Record<string, unknown>)[k]
        if (v !== null && typeof v === 'object') {
          items.push(v)
          depths.push(depth + 1)
        }
      }
    }
  }
  return false
}

/**
 * The path of the first list or mapping nested deeper than `max` levels, else
 * undefined. Iterative, so that a value too deep for recursion is measured too.
 */
export function nestingPath(value: unknown, max = MAX_NESTING): Path | undefined {
  if (!deeperThan(value, max)) return undefined
  // only now is the path worth its bookkeeping: each node remembers its parent
  const nodes: { parent: number; key: string | number }[] = []
  const stack: { value: unknown; depth: number; parent: number; key: string | number }[] = [{ value, depth: 0, parent: -1, key: '' }]
  while (stack.length) {
    const item = stack.pop()!
    if (item.value === null || typeof item.value !== 'object') continue
    const id = nodes.push({ parent: item.parent, key: item.key }) - 1
    if (item.depth >= max) {
      const path: (string | number)[] = []
      for (let at = id; at > 0; at = nodes[at]!.parent) path.unshift(nodes[at]!.key)
      return path
    }
    if (Array.isArray(item.value)) item.value.forEach((v, i) => stack.push({ value: v, depth: item.depth + 1, parent: id, key: i }))
    else for (const [k, v] of Object.entries(item.value)) stack.push({ value: v, depth: item.depth + 1, parent: id, key: k })
  }
  return undefined
}

/** YAML (a superset of JSON) with line numbers for every node. */
export function parseYaml(text: string, file: string): Located {
  const lineCounter = new LineCounter()
  let doc: Document
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  } catch (err) {
    if (isStackOverflow(err)) throw tooDeepError(file)
    throw new ConfigError(`${file}: not valid YAML/JSON: ${(err as Error).message}`, file)
  }
  const first = doc.errors[0]
  if (first) {
    if (isStackOverflow(first.message)) throw tooDeepError(file)
    // without prettyErrors the error has its offset only; the line counter turns it into line:column
    const pos = first.linePos?.[0] ?? (first.pos ? lineCounter.linePos(first.pos[0]) : undefined)
    const at = pos ? `:${pos.line}:${pos.col}` : ''
    throw new ConfigError(`${file}${at}: not valid YAML/JSON: ${first.message.split('\n')[0]}`, file)
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: 100 })
  } catch (err) {
    if (isStackOverflow(err)) throw tooDeepError(file)
    const message = (err as Error).message
    const hint = /alias/i.test(message) ? '; evalgate expands at most 100 aliases (*name): write the values out' : ''
    throw new ConfigError(`${file}: cannot read YAML: ${message}${hint}`, file)
  }
  const deep = nestingPath(value)
  if (deep) {
    const line = deep.length ? lineOfPath(doc, lineCounter, deep) : undefined
    throw tooDeepError(`${file}${line ? `:${line}` : ''}`, deep)
  }
  return {
    value,
    file,
    lineOf: (path) => lineOfPath(doc, lineCounter, path)
  }
}

export type TextFormat = 'json' | 'yaml'

/** A `.json` file is strict JSON, anything else YAML. */
export function formatOf(file: string): TextFormat {
  return /\.json$/i.test(file) ? 'json' : 'yaml'
}

/** Text in its format; `file` names it in messages (and gives the format unless told). */
export function parseStructured(text: string, file: string, format: TextFormat = formatOf(file)): Located {
  return format === 'json' ? parseJson(text, file) : parseYaml(text, file)
}

const STRICT_JSON = '.json files are strict JSON (no comments, no trailing commas, strings in double quotes): fix it, or write the file as YAML (.yaml)'

/** `file:line:column` of an offset into the text. */
function placeOf(text: string, file: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return `${file}:${line}:${offset - before.lastIndexOf('\n')}`
}

/**
 * Strict JSON: JSON.parse decides what is valid and gives the value. The same
 * text read as YAML (which JSON is) only locates paths for messages, and finds
 * a key given twice, which JSON.parse would let the last one win.
 */
export function parseJson(text: string, file: string): Located {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    if (isStackOverflow(err)) throw tooDeepError(file)
    // JSON.parse's message does not always say where (nor in words a person knows): the scanner does
    const found = jsonMistake(text) ?? { offset: 0, what: (err as Error).message.split('\n')[0]! }
    throw new ConfigError(`${placeOf(text, file, found.offset)}: not valid JSON: ${found.what}; ${STRICT_JSON}`, file)
  }
  const deep = nestingPath(value)
  if (deep) throw tooDeepError(file, deep)
  const lineCounter = new LineCounter()
  let doc: Document | undefined
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  } catch {
    doc = undefined
  }
  const twice = doc?.errors.find((e) => e.code === 'DUPLICATE_KEY')
  if (twice) {
    const offset = twice.pos[0]
    const key = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(offset))?.[0] ?? 'a key'
    throw new ConfigError(`${placeOf(text, file, offset)}: not valid JSON: the key ${key} is given twice in one object; keep one`, file)
  }
  // valid JSON the YAML reader stumbles on (a very long key) only loses its line numbers
  const located = doc && doc.errors.length === 0 ? doc : undefined
  return { value, file, lineOf: (path) => (located ? lineOfPath(located, lineCounter, path) : undefined) }
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const JSON_SPACE = /[ \t\n\r]*/y
const JSON_ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y

/**
 * Where text that JSON.parse refused first stops being JSON, and what is
 * there: a trailing comma, a comment, a single quote… A state machine rather
 * than recursion, so any nesting is scanned. Undefined if it finds nothing wrong.
 */
function jsonMistake(text: string): { offset: number; what: string } | undefined {
  const containers: string[] = []
  type State = 'value' | 'valueOrEnd' | 'key' | 'keyOrEnd' | 'after'
  let state: State = 'value'
  let i = 0
  const skipSpace = () => {
    JSON_SPACE.lastIndex = i
    JSON_SPACE.test(text)
    i = JSON_SPACE.lastIndex
  }
  const wrong = (expected: string) => ({ offset: i, what: describeJsonMistake(text, i, expected) })
  /** past a string starting at i; false at the character that breaks it */
  const string = (): boolean => {
    for (i++; i < text.length;) {
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        return true
      }
      if (c === 0x5c) {
        JSON_ESCAPE.lastIndex = i
        if (!JSON_ESCAPE.test(text)) return false
        i = JSON_ESCAPE.lastIndex
      } else if (c < 0x20) return false
      else i++
    }
    return false
  }
  for (;;) {
    skipSpace()
    const c = text[i]
    if (state === 'after') {
      const open = containers.at(-1)
      if (open === undefined) return i < text.length ? wrong('the end of the text') : undefined
      if (c === ',') {
        i++
        state = open === '{' ? 'key' : 'value'
      } else if (c === (open === '{' ? '}' : ']')) {
        i++
        containers.pop()
      } else return wrong(`"," or "${open === '{' ? '}' : ']'}"`)
      continue
    }
    if (state === 'keyOrEnd' || state === 'key') {
      if (state === 'keyOrEnd' && c === '}') {
        i++
        containers.pop()
        state = 'after'
        continue
      }
      if (c !== '"') return wrong('a key in double quotes')
      if (!string()) return wrong('the rest of the key')
      skipSpace()
      if (text[i] !== ':') return wrong('":"')
      i++
      state = 'value'
      continue
    }
    if (state === 'valueOrEnd' && c === ']') {
      i++
      containers.pop()
      state = 'after'
      continue
    }
    if (c === '{' || c === '[') {
      containers.push(c)
      i++
      state = c === '{' ? 'keyOrEnd' : 'valueOrEnd'
      continue
    }
    if (c === '"') {
      if (!string()) return wrong('the rest of the string')
    } else {
      JSON_NUMBER.lastIndex = i
      const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i))
      if (literal) i += literal.length
      else if (JSON_NUMBER.test(text)) i = JSON_NUMBER.lastIndex
      else return wrong('a value')
    }
    state = 'after'
  }
}

function describeJsonMistake(text: string, offset: number, expected: string): string {
  const c = text[offset]
  if (c === undefined) return `the text ends where ${expected} should come`
  if (c === '/' && (text[offset + 1] === '/' || text[offset + 1] === '*')) return 'a comment'
  if ((c === '}' || c === ']') && /,\s*$/.test(text.slice(Math.max(0, offset - 200), offset))) return `a trailing comma before "${c}"`
  if (c === "'") return 'a string in single quotes'
  return `expected ${expected}, found ${JSON.stringify(text.slice(offset, offset + 12))}`
}

/** The line of the node at path, or of its nearest ancestor the document has. */
function lineOfPath(doc: Document, lineCounter: LineCounter, path: Path): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)
    if (node && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
      return lineCounter.linePos(node.range[0] as number).line
    }
    if (n > 0 && !isMap(doc.contents) && !isSeq(doc.contents)) break
  }
  return undefined
}

/** JSON Lines: one value per non-blank line; the line of each is its index. */
export function parseJsonl(text: string, file: string): Located<unknown[]> {
  const values: unknown[] = []
  const lines: number[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    values.push(parseJsonLine(line, file, i + 1))
    lines.push(i + 1)
  })
  return { value: values, file, lineOf: (path) => (typeof path[0] === 'number' ? lines[path[0]] : undefined) }
}

/** One line of a JSONL file, parsed and checked for nesting. */
export function parseJsonLine(line: string, file: string, number: number): unknown {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (err) {
    throw new ConfigError(`${file}:${number}: not valid JSON: ${(err as Error).message}`, file)
  }
  // a value nested past MAX_NESTING opens (and, being valid JSON, closes) more than MAX_NESTING lists or
  // mappings, two characters each: a shorter line, as nearly every case's is, need not be walked
  if (line.length <= 2 * MAX_NESTING) return value
  const deep = nestingPath(value)
  if (deep) throw tooDeepError(`${file}:${number}`, deep)
  return value
}

/** What a zod issue would accept, in words. */
function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_value' && issue.values.length > 1) {
    // name the value given beside the valid ones: `grading_method: fuzzy` is then found at a glance
    return `${describeValue(value)} is not one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
  }
  if (issue.code === 'invalid_value') return `${issue.message}`
  if (issue.code === 'invalid_union') {
    // "Invalid input" says nothing: name what each alternative expected at this very place
    const expected = [
      ...new Set(
        issue.errors.flatMap((branch) =>
          branch.filter((i) => i.code === 'invalid_type' && i.path.length === 0).map((i) => (i as { expected: string }).expected)
        )
      )
    ]
    if (expected.length) return `expected ${expected.map((e) => (e === 'array' ? 'a list' : `a ${e}`)).join(' or ')}, got ${describeValue(value)}`
  }
  return issue.message
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[key] : undefined
  return value
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`
  return `${typeof value} ${String(value)}`
}

/** The zod definition of a schema node; only its kind and children are read, to explain unknown keys. */
interface SchemaDef {
  type: string
  shape?: Record<string, z.core.$ZodType>
  innerType?: z.core.$ZodType
  in?: z.core.$ZodType
}

function defOf(node: z.core.$ZodType): SchemaDef {
  return node._zod.def as unknown as SchemaDef
}

/** The object schema under optional/default/pipe wrappers, if it is one. */
function objectShape(node: z.core.$ZodType): Record<string, z.core.$ZodType> | undefined {
  for (let def = defOf(node), depth = 0; depth < 10; depth++) {
    if (def.type === 'object') return def.shape
    const inner = def.innerType ?? def.in
    if (!inner) return undefined
    def = defOf(inner)
  }
  return undefined
}

/** The object schema at a path of keys (through objects only), if there is one. */
function shapeAt(schema: z.core.$ZodType, path: Path): Record<string, z.core.$ZodType> | undefined {
  let shape = objectShape(schema)
  for (const key of path) {
    const child = typeof key === 'string' ? shape?.[key] : undefined
    shape = child ? objectShape(child) : undefined
  }
  return shape
}

/** Every place (a path of nested mappings) where the schema has `key`. */
function homesOf(schema: z.core.$ZodType, key: string): Path[] {
  const homes: Path[] = []
  const visit = (shape: Record<string, z.core.$ZodType> | undefined, path: Path) => {
    if (!shape || path.length > 4) return
    for (const [name, child] of Object.entries(shape)) {
      if (name === key) homes.push([...path, name])
      visit(objectShape(child), [...path, name])
    }
  }
  visit(objectShape(schema), [])
  return homes
}

/**
 * An unknown key, and what it likely meant: a key of a nested mapping written one
 * level off (`timeoutMs` at the top instead of under `target:`), or a near spelling.
 */
function unknownKey(schema: z.core.$ZodType, at: Path, key: string, foreign: boolean): string {
  if (foreign) {
    // another tool's format (promptfoo's): a key evalgate does not read is more likely a feature than a typo
    const near = Object.keys(shapeAt(schema, at) ?? {}).filter((name) => name !== key && (name.toLowerCase() === key.toLowerCase() || distance(name, key) <= 2))
    return `"${key}" is not supported by evalgate${near.length ? ` (or did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : ''}: remove it, or run this suite with promptfoo (docs/providers.md and README "Coming from promptfoo" list what evalgate reads)`
  }
  const elsewhere = homesOf(schema, key).filter((home) => formatPath(home) !== formatPath([...at, key]))
  if (elsewhere.length) {
    const names = elsewhere.map((home) => formatPath(home))
    return `unknown key "${key}" here: did you mean ${names.join(' or ')}? (it belongs under ${elsewhere.map((home) => `${formatPath(home.slice(0, -1))}:`).join(' or ')})`
  }
  const near = Object.keys(shapeAt(schema, at) ?? {}).filter((name) => name.toLowerCase() === key.toLowerCase() || distance(name, key) <= 2)
  if (near.length) return `unknown key "${key}": did you mean ${near.map((name) => `"${name}"`).join(' or ')}?`
  return `unknown key "${key}" (remove or fix the spelling)`
}

/** One line per problem: each unknown key on its own line, at the key itself. */
function issueLines(schema: z.core.$ZodType, issue: z.core.$ZodIssue, located: Located, base: Path, foreign: boolean): string[] {
  const inner = issue.path as (string | number)[]
  const place = (path: Path) => {
    const line = located.lineOf(path)
    return `${located.file}${line ? `:${line}` : ''}${path.length ? ` at ${formatPath(path)}` : ''}`
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${place([...base, ...inner, key])}: ${unknownKey(schema, inner, key, foreign)}`)
  }
  return [`${place([...base, ...inner])}: ${describeIssue(issue, valueAt(located.value, inner))}`]
}

/**
 * Validate with zod and turn its issues (the first MAX_PROBLEMS) into one
 * readable ConfigError, each issue one of its `problems`. `foreign`: the file
 * is another tool's format (a promptfoo config), whose keys evalgate does not
 * read are refused as not supported, not as typos.
 */
export function validate<S extends z.ZodType>(schema: S, located: Located, base: Path = [], what = '', foreign = false): z.output<S> {
  const plain = plainReader(schema)?.read(located.value) ?? ZOD_DECIDES
  if (plain !== ZOD_DECIDES) return plain as z.output<S>
  const result = schema.safeParse(located.value)
  if (result.success) return result.data
  const lines = result.error.issues.slice(0, MAX_PROBLEMS).flatMap((issue) => issueLines(schema, issue, located, base, foreign))
  const more = result.error.issues.length > MAX_PROBLEMS ? `\n(and ${result.error.issues.length - MAX_PROBLEMS} more)` : ''
  const error = new ConfigError(`${what ? `invalid ${what}:\n` : ''}${lines.join('\n')}${more}`, located.file)
  error.problems = lines
  throw error
}
