/**
 * is-html and contains-html, read by parse5 (the WHATWG HTML parser): what a
 * browser would build from the output, not a pattern over its characters.
 */
import type { DefaultTreeAdapterMap } from 'parse5'
import { claim, ruled } from './outcome.js'
import type { AssertionHandler } from './types.js'

type Node = DefaultTreeAdapterMap['node']
type Element = DefaultTreeAdapterMap['element']
type ParentNode = DefaultTreeAdapterMap['parentNode']

interface Html {
  parse5: typeof import('parse5')
  /** the element names of HTML (and SVG/MathML roots) that parse5 knows */
  known: ReadonlySet<string>
}

let loaded: Promise<Html> | undefined

/** Loaded on first use, as the SQL parser is: parse5 and its entity tables are most of a megabyte that most runs never need. */
export function loadHtml(): Promise<Html> {
  loaded ??= import('parse5').then((parse5) => ({ parse5, known: new Set(Object.values(parse5.html.TAG_NAMES)) }))
  return loaded
}

function isElement(node: Node): node is Element {
  return 'tagName' in node
}

/** A node's children; not a <template>'s content: a written <template> is itself an HTML element, found before its content would be. */
function childrenOf(node: Node): Node[] {
  return 'childNodes' in node ? (node as ParentNode).childNodes : []
}

/** Every element under `root`, walked without recursion: outputs can nest deeper than the call stack. */
function* elements(root: Node): Generator<Element> {
  const stack: Node[] = [root]
  while (stack.length) {
    const node = stack.pop()!
    if (isElement(node)) yield node
    stack.push(...childrenOf(node))
  }
}

/** Written in the output (not implied by the parser, as <html>, <head>, <body> are) and an HTML element or a custom one. */
function isWrittenHtmlElement(known: ReadonlySet<string>, e: Element): boolean {
  return e.sourceCodeLocation != null && (known.has(e.tagName) || e.tagName.includes('-'))
}

function hasText(nodes: Node[]): boolean {
  return nodes.some((n) => n.nodeName === '#text' && (n as DefaultTreeAdapterMap['textNode']).value.trim() !== '')
}

/** Why the output is not an HTML document or fragment, or undefined when it is one. */
function notHtml({ parse5, known }: Html, output: string): string | undefined {
  const text = output.trim()
  if (text === '') return 'the output is empty'
  if (/^<\?xml/i.test(text)) return 'it is XML, not HTML'
  const doc = parse5.parse(text, { sourceCodeLocationInfo: true })
  // parse5 always builds an <html>; text outside every tag (a table's stray text too) lands in the <body> the
  // parser implied: HTML's parsing rules move non-whitespace text before, in or after <head> into <body>, so
  // the document, <html> and <head> hold whitespace at most. Inside a <body> the output wrote itself, text is content.
  const root = doc.childNodes.find(isElement)!
  const body = root.childNodes.find((n): n is Element => isElement(n) && n.tagName === 'body')
  if (body && body.sourceCodeLocation == null && hasText(body.childNodes)) return 'it has text outside the HTML tags'
  for (const e of elements(doc)) if (isWrittenHtmlElement(known, e)) return undefined
  return 'it has no HTML element'
}

const isHtml: AssertionHandler = {
  negatable: true,
  async run(_a, { output }, negated) {
    const problem = notHtml(await loadHtml(), output)
    return ruled(problem === undefined, negated, output, claim('be', 'HTML'), problem)
  }
}

/**
 * HTML inside prose: an element of HTML written in the output, or any element
 * with both its tags (<custom>…</custom>). A lone unknown tag (<example>,
 * <john@example.com>) and a comparison (a < b > c) are not HTML.
 */
function findHtml({ parse5, known }: Html, output: string): Element | undefined {
  const fragment = parse5.parseFragment(output, { sourceCodeLocationInfo: true })
  for (const e of elements(fragment)) {
    if (isWrittenHtmlElement(known, e) || e.sourceCodeLocation?.endTag) return e
  }
  return undefined
}

const containsHtml: AssertionHandler = {
  negatable: true,
  async run(_a, { output }, negated) {
    const found = findHtml(await loadHtml(), output)
    return ruled(found !== undefined, negated, output, claim('contain', 'HTML'), found ? `found <${found.tagName}>` : undefined)
  }
}

export const htmlAssertions: Record<string, AssertionHandler> = { 'is-html': isHtml, 'contains-html': containsHtml }
