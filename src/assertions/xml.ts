/**
 * is-xml and contains-xml: well-formed XML (checked by saxes, a strict
 * parser), optionally with required elements given as dotted paths from the
 * root ("analysis.color", "root.item.1.name" for the second <item>).
 */
import type { Assertion } from '../types.js'
import { claim, ruled } from './outcome.js'
import type { AssertionHandler } from './types.js'
import { kindOf } from './values.js'

/** An element as the required paths see it: its child elements by name, in document order. */
interface XmlElement {
  name: string
  children: Map<string, XmlElement[]>
}

type Parsed = { ok: true; roots: XmlElement[] } | { ok: false; error: string }

/**
 * XML 1.0 §2.8 without an internal subset: `<!DOCTYPE Name>`, `… SYSTEM "uri">`
 * or `… PUBLIC "pubid" "uri">` (saxes passes the doctype on without checking it).
 * A system literal may not carry a #fragment; a public id has a small alphabet.
 */
const DOCTYPE =
  /^\s+[\p{L}_:][\p{L}\p{N}_.:\-\u00B7]*(\s+(?:SYSTEM\s+(?:"[^"#]*"|'[^'#]*')|PUBLIC\s+(?:"[ \r\na-zA-Z0-9'()+,./:=?;!*#@$_%-]*"|'[ \r\na-zA-Z0-9()+,./:=?;!*#@$_%-]*')\s+(?:"[^"#]*"|'[^'#]*')))?\s*$/u

class DoctypeError extends Error {}

type Saxes = typeof import('saxes')

let saxes: Promise<Saxes> | undefined

/** Loaded on first use, as the SQL parser is: a run without XML checks never pays for the parser's start-up. */
export function loadSaxes(): Promise<Saxes> {
  saxes ??= import('saxes')
  return saxes
}

/** Parses one XML document strictly: one root element, no undeclared entity, quoted attributes… */
function parseXml({ SaxesParser }: Saxes, text: string): Parsed {
  const parser = new SaxesParser()
  let standalone = false
  parser.on('xmldecl', (decl) => {
    standalone = decl.standalone === 'yes'
  })
  parser.on('doctype', (doctype) => {
    // saxes reads no DTD: entities declared inside one would all look undefined
    if (/\[/.test(doctype.replace(/"[^"]*"|'[^']*'/g, '')))
      throw new DoctypeError('DTD internal subsets are not supported; declare no entities, or use an external DTD')
    const m = DOCTYPE.exec(doctype)
    if (!m) throw new DoctypeError('malformed DOCTYPE declaration')
    // an external DTD may declare any entity, and is not fetched: its entities are taken on trust, unless standalone="yes"
    if (m[1] !== undefined && !standalone) {
      for (const [, name] of text.matchAll(/&([\p{L}_:][\p{L}\p{N}_.:-]*);/gu)) parser.ENTITIES[name!] ??= `&${name};`
    }
  })
  const roots: XmlElement[] = []
  const open: XmlElement[] = []
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, children: new Map() }
    const parent = open.at(-1)
    if (parent) {
      const siblings = parent.children.get(tag.name)
      if (siblings) siblings.push(element)
      else parent.children.set(tag.name, [element])
    } else {
      roots.push(element)
    }
    if (!tag.isSelfClosing) open.push(element)
  })
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) open.pop()
  })
  try {
    parser.write(text).close()
  } catch (err) {
    // saxes prefixes its messages with the position: "1:8: text data outside of root node."
    return { ok: false, error: (err as Error).message }
  }
  // saxes refuses a document without a root element itself ("document must contain a root element")
  return { ok: true, roots }
}

/** Whether a dotted path ("root.child", "root.item.1.name") names an element under these roots. */
function hasPath(roots: XmlElement[], path: string): boolean {
  const [first, ...rest] = path.split('.')
  let current: XmlElement[] = roots.filter((r) => r.name === first)
  for (const segment of rest) {
    const index = /^\d+$/.test(segment) ? Number(segment) : undefined
    if (index !== undefined) {
      current = current[index] ? [current[index]!] : []
      continue
    }
    current = current.flatMap((e) => e.children.get(segment) ?? [])
  }
  return current.length > 0
}

/** `value`: the required element paths, as a list, a comma-separated string, or {requiredElements: [...]}. */
function requiredPaths(value: unknown): string[] {
  if (value === undefined || value === null) return []
  const list = typeof value === 'object' && !Array.isArray(value) ? (value as { requiredElements?: unknown }).requiredElements : value
  if (Array.isArray(list)) return list.map(String)
  return String(list)
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
}

function requiredProblem(a: Assertion): string | undefined {
  const v = a.value
  if (v === undefined || v === null || typeof v === 'string') return undefined
  const list = typeof v === 'object' && !Array.isArray(v) ? (v as { requiredElements?: unknown }).requiredElements : v
  if (Array.isArray(list) && list.every((p) => typeof p === 'string' && p !== '')) return undefined
  return `${a.type} \`value\` lists the required elements as dotted paths (["analysis.color"], "a.b, a.c" or {requiredElements: [...]}), got ${kindOf(v)}`
}

function missing(roots: XmlElement[], paths: string[]): string[] {
  return paths.filter((p) => !hasPath(roots, p))
}

function requirementNote(paths: string[]): string {
  return paths.length ? ` with ${paths.join(', ')}` : ''
}

const isXml: AssertionHandler = {
  negatable: true,
  validate: requiredProblem,
  async run(a, { output }, negated) {
    const paths = requiredPaths(a.value)
    const what = claim('be', `well-formed XML${requirementNote(paths)}`)
    const parsed = parseXml(await loadSaxes(), output)
    if (!parsed.ok) return ruled(false, negated, output, what, parsed.error)
    const absent = missing(parsed.roots, paths)
    return ruled(absent.length === 0, negated, output, what, absent.length ? `missing ${absent.join(', ')}` : undefined)
  }
}

const NAME_START = /[A-Za-z_:\u00C0-\u02FF\u0370-\u1FFF\u2C00-\uD7FF\uF900-\uFFFD]/
/** A tag, comment, CDATA section or processing instruction; anything else starting with "<" is text. */
const MARKUP = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<\/?([^\s/>!?]+)(?:\s(?:[^<>"']|"[^"]*"|'[^']*')*)?\/?>/g

/**
 * The XML elements embedded in prose: each start tag with its matching end
 * tag (or a self-closing tag), outermost first, in order. A stray start tag
 * that is never closed starts no candidate but does not hide those inside it.
 */
function candidates(text: string): Array<{ start: number; end: number }> {
  const found: Array<{ start: number; end: number }> = []
  const stack: Array<{ name: string; start: number }> = []
  for (const m of text.matchAll(MARKUP)) {
    const name = m[1]
    if (name === undefined || !NAME_START.test(name[0]!)) continue
    const tag = m[0]
    const start = m.index
    if (tag.startsWith('</')) {
      const at = stack.map((s) => s.name).lastIndexOf(name)
      if (at === -1) continue
      const opened = stack[at]!
      stack.length = at
      found.push({ start: opened.start, end: start + tag.length })
    } else if (tag.endsWith('/>')) {
      found.push({ start, end: start + tag.length })
    } else {
      stack.push({ name, start })
    }
  }
  return found.sort((x, y) => x.start - y.start || y.end - x.end)
}

const containsXml: AssertionHandler = {
  negatable: true,
  validate: requiredProblem,
  async run(a, { output }, negated) {
    const paths = requiredPaths(a.value)
    const what = claim('contain', `well-formed XML${requirementNote(paths)}`)
    const parser = await loadSaxes()
    const wellFormed: Array<{ start: number; end: number; roots: XmlElement[] }> = []
    for (const c of candidates(output)) {
      if (wellFormed.some((w) => c.start >= w.start && c.end <= w.end)) continue
      const parsed = parseXml(parser, output.slice(c.start, c.end))
      if (!parsed.ok) continue
      if (missing(parsed.roots, paths).length === 0) return ruled(true, negated, output, what)
      wellFormed.push({ ...c, roots: parsed.roots })
    }
    // the requirements may be met by several fragments together: <a>…</a> then <b>…</b>
    if (
      wellFormed.length > 1 &&
      missing(
        wellFormed.flatMap((w) => w.roots),
        paths
      ).length === 0
    )
      return ruled(true, negated, output, what)
    const detail = wellFormed.length
      ? `the XML found lacks ${missing(
          wellFormed.flatMap((w) => w.roots),
          paths
        ).join(', ')}`
      : 'none found'
    return ruled(false, negated, output, what, detail)
  }
}

export const xmlAssertions: Record<string, AssertionHandler> = { 'is-xml': isXml, 'contains-xml': containsXml }
