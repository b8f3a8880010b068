/**
 * Untrusted text (model output, judge reasons, error messages, dataset strings)
 * made safe inside GitHub markdown — it can neither break the layout around it
 * nor ping anyone, link an issue or inject HTML — and inside the HTML report.
 */
import { formatCount } from './format.js'

/** Invisible, unbreakable: placed after "@" and "#" so GitHub sees no mention or issue reference. */
const WORD_JOINER = '\u2060'

/** Control characters (tab and newline aside) and bidi overrides, which can hide or reorder text. */
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g

/** Characters with inline meaning in GitHub markdown: emphasis, code, links, HTML, tables, strikethrough, math, entities. */
const MARKDOWN_PUNCTUATION = /[\\`*_[\]<>|#~&$]/g

export interface Truncated {
  text: string
  truncated: boolean
}

/** The first `max` UTF-16 units of text, never splitting a surrogate pair. */
export function truncate(text: string, max: number): Truncated {
  if (text.length <= max) return { text, truncated: false }
  const cut = text.charCodeAt(max - 1)
  const end = cut >= 0xd800 && cut <= 0xdbff ? max - 1 : max
  return { text: text.slice(0, end), truncated: true }
}

/** Break "@user", "@org/team", "#123" and GitLab's "!123" (a merge request) so they neither notify nor cross-reference. */
export function neutraliseReferences(text: string): string {
  return text
    .replace(/@(?=[A-Za-z0-9])/g, `@${WORD_JOINER}`)
    .replace(/#(?=\d)/g, `#${WORD_JOINER}`)
    .replace(/!(?=\d)/g, `!${WORD_JOINER}`)
}

function oneLine(text: string): string {
  return text
    .replace(INVISIBLE, '')
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim()
}

/**
 * Text for a markdown line or a table cell: on one line, shortened to maxChars
 * with "…", every markdown-active character backslash-escaped.
 */
export function escapeInline(text: string, maxChars = 500): string {
  const { text: shown, truncated } = truncate(oneLine(text), maxChars)
  const escaped = (shown + (truncated ? '…' : ''))
    .replace(MARKDOWN_PUNCTUATION, '\\$&')
    // At the start of a line these would open a list or underline a heading.
    .replace(/^[-+=]/, '\\$&')
    .replace(/^(\d+)([.)])/, '$1\\$2')
  return neutraliseReferences(escaped)
}

/** The characters HTML gives meaning to in text and quoted attributes, as entities: the report's one map of them. */
const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text for HTML content or a quoted attribute, kept whole (the HTML report's summary). */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch]!)
}

/**
 * JSON that can sit inside a <script> element: no "<" (which could close it
 * or open a comment), ">" or "&"; U+2028/2029 escaped for older parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * Text inside raw HTML (e.g. `<summary>`), where tags are parsed. Markdown
 * punctuation becomes numeric entities too, which read the same and cannot
 * form emphasis or code should the renderer parse markdown there.
 */
export function escapeHtml(text: string, maxChars = 300): string {
  const { text: shown, truncated } = truncate(oneLine(text), maxChars)
  // References first: the entities written below contain "#" followed by digits.
  return neutraliseReferences(shown + (truncated ? '…' : '')).replace(/[&<>"'\\`*_[\]|~$]/g, (ch) => HTML_ENTITIES[ch] ?? `&#${ch.charCodeAt(0)};`)
}

function longestBacktickRun(text: string): number {
  return (text.match(/`+/g) ?? []).reduce((longest, run) => Math.max(longest, run.length), 0)
}

/** A code span; mentions and HTML inside it are inert. Not for table cells (a pipe would still split the cell). */
export function inlineCode(text: string, maxChars = 200): string {
  const { text: shown, truncated } = truncate(oneLine(text), maxChars)
  const body = shown + (truncated ? '…' : '')
  const fence = '`'.repeat(longestBacktickRun(body) + 1)
  // A space keeps a leading or trailing backtick from merging with the fence; one is stripped on each side.
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${body}${pad}${fence}`
}

/**
 * A fenced code block showing text verbatim. The fence is longer than any run
 * of backticks inside, so nothing in the text can close it; mentions, issue
 * references and HTML inside a code block are inert. Text over maxChars is cut
 * with a note saying how much is shown.
 */
export function fencedBlock(text: string, maxChars = 1_000): string {
  const clean = text.replace(/\r\n?/g, '\n').replace(INVISIBLE, '')
  const { text: shown, truncated } = truncate(clean, maxChars)
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(shown) + 1))
  const note = truncated ? `\n\n_(the first ${formatCount(shown.length)} of ${formatCount(clean.length)} characters)_` : ''
  return `${fence}\n${shown}\n${fence}${note}`
}
