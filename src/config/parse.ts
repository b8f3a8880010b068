/**
 * Structured-text parsing that remembers where things are, so that every
 * error can name the file, the path inside it and the line.
 */
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml'
import type { z } from 'zod'
import { ConfigError } from '../errors.js'

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

/** YAML (a superset of JSON) with line numbers for every node. */
export function parseYaml(text: string, file: string): Located {
  const lineCounter = new LineCounter()
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  const first = doc.errors[0]
  if (first) {
    const pos = first.linePos?.[0]
    const at = pos ? `:${pos.line}:${pos.col}` : ''
    throw new ConfigError(`${file}${at}: not valid YAML/JSON: ${first.message.split('\n')[0]}`, file)
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: 100 })
  } catch (err) {
    throw new ConfigError(`${file}: cannot read YAML: ${(err as Error).message}`, file)
  }
  return {
    value,
    file,
    lineOf(path) {
      for (let n = path.length; n >= 0; n--) {
        const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)
        if (node && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
          return lineCounter.linePos(node.range[0] as number).line
        }
        if (n > 0 && !isMap(doc.contents) && !isSeq(doc.contents)) break
      }
      return undefined
    }
  }
}

/** JSON Lines: one value per non-blank line; the line of each is its index. */
export function parseJsonl(text: string, file: string): Located<unknown[]> {
  const values: unknown[] = []
  const lines: number[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    try {
      values.push(JSON.parse(line))
    } catch (err) {
      throw new ConfigError(`${file}:${i + 1}: not valid JSON: ${(err as Error).message}`, file)
    }
    lines.push(i + 1)
  })
  return { value: values, file, lineOf: (path) => (typeof path[0] === 'number' ? lines[path[0]] : undefined) }
}

/** What a zod issue would accept, in words. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (remove or fix the spelling)`
  if (issue.code === 'invalid_value') return `${issue.message}`
  return issue.message
}

/** Validate with zod and turn the first issues into one readable ConfigError. */
export function validate<S extends z.ZodType>(schema: S, located: Located, base: Path = [], what = ''): z.output<S> {
  const result = schema.safeParse(located.value)
  if (result.success) return result.data
  const lines = result.error.issues.slice(0, 5).map((issue) => {
    const path = [...base, ...(issue.path as (string | number)[])]
    const line = located.lineOf(path)
    const where = `${located.file}${line ? `:${line}` : ''}`
    const at = path.length ? ` at ${formatPath(path)}` : ''
    return `${where}${at}: ${describeIssue(issue)}`
  })
  const more = result.error.issues.length > 5 ? `\n(and ${result.error.issues.length - 5} more)` : ''
  throw new ConfigError(`${what ? `invalid ${what}:\n` : ''}${lines.join('\n')}${more}`, located.file)
}
