/**
 * Reading a JSON object with one huge array field (a run record's `cases`)
 * without holding its whole text or its whole parsed tree: the text arrives in
 * chunks, each element of the field is handed over as its own JSON text as
 * soon as it is complete, and what is left — the object with the field as
 * `[]` — comes back as text to parse at the end.
 *
 * It only finds where values begin and end (strings, escapes, nesting); every
 * piece of text is still checked by JSON.parse, so whatever this accepts is
 * exactly valid JSON.
 *
 * Kept rather than stream-json, as measured for issue 16: reading the same
 * run record took stream-json 4.57 s and 125 MB at peak, this splitter 0.51 s
 * and 121 MB; and stream-json is not meant for untrusted input, which a
 * baseline uploaded by another run is (hence maxDepth here, and JSON.parse
 * judging every piece).
 */

export interface SplitOptions {
  /** the top-level key whose array is split */
  field: string
  /** deeper nesting than this many lists and objects is refused (the outer object is level 1) */
  maxDepth: number
  /** an element's text, in order */
  onElement: (text: string, index: number) => void
}

/** Where the text stops being JSON the splitter can follow. */
export class JsonSplitError extends Error {
  override name = 'JsonSplitError'
  constructor(
    message: string,
    /** the element it happened in, if in one */
    readonly index?: number,
    /** for nesting too deep: where, inside the element (or the outer object) */
    readonly path?: (string | number)[]
  ) {
    super(message)
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09

/** A splitter fed chunk by chunk; `end()` returns the rest of the object as text. */
export class JsonArraySplitter {
  private depth = 0
  private inString = false
  private escaped = false
  private inArray = false
  private seenField = false
  private index = 0
  /** the text since the current element (in the array) or the last head piece (outside it) began, in the chunks it came in */
  private pending: string[] = []
  private head: string[] = []
  /** outside the array: the text of the last string at the outer object's level, whether it is still open, and whether a colon followed it */
  private key: string[] = []
  private inKey = false
  private colonAfterKey = false

  constructor(private readonly options: SplitOptions) {}

  /**
   * Each chunk is scanned once, and text is joined only when a piece ends: an
   * element of any size costs time in proportion to its length.
   */
  push(chunk: string): void {
    const { maxDepth } = this.options
    const length = chunk.length
    let { depth, inString, escaped } = this
    /** where the part of this chunk not yet in `pending` begins */
    let from = 0
    let keyFrom = 0
    let pos = 0
    // the next backslash at or after pos: strings are crossed by jumps between quotes and backslashes
    let backslash = chunk.indexOf('\\')
    if (backslash < 0) backslash = length
    const upTo = (end: number) => {
      const text = this.pending.length ? this.pending.join('') + chunk.slice(from, end) : chunk.slice(from, end)
      this.pending = []
      return text
    }
    while (pos < length) {
      if (inString) {
        if (escaped) {
          escaped = false
          pos++
          continue
        }
        let quote = chunk.indexOf('"', pos)
        if (quote < 0) quote = length
        if (backslash < pos) {
          backslash = chunk.indexOf('\\', pos)
          if (backslash < 0) backslash = length
        }
        if (backslash < quote) {
          escaped = true
          pos = backslash + 1
          continue
        }
        if (quote === length) break
        inString = false
        if (this.inKey) {
          this.key.push(chunk.slice(keyFrom, quote + 1))
          this.inKey = false
          this.colonAfterKey = false
        }
        pos = quote + 1
        continue
      }
      const code = chunk.charCodeAt(pos)
      if (code === QUOTE) {
        inString = true
        if (depth === 1 && !this.inArray) {
          this.key = []
          this.inKey = true
          keyFrom = pos
        }
      } else if (code === COMMA) {
        if (depth === 2 && this.inArray) {
          this.element(upTo(pos))
          from = pos + 1
        }
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        if (depth === 1 && !this.inArray) {
          if (code === OPEN_BRACKET && this.isFieldValue()) {
            this.head.push(upTo(pos + 1))
            from = pos + 1
            this.inArray = true
            this.seenField = true
          }
          this.colonAfterKey = false
        }
        if (++depth > maxDepth) {
          // only now is the text of the element (or of the head) so far worth joining
          const prefix = this.pending.join('') + chunk.slice(from, pos + 1)
          throw new JsonSplitError(
            `nested more than ${maxDepth} levels deep`,
            this.inArray ? this.index : undefined,
            pathAtEnd(this.inArray ? prefix : this.head.join('') + prefix)
          )
        }
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        if (--depth === 1 && this.inArray) {
          if (code !== CLOSE_BRACKET) throw new JsonSplitError(`the "${this.options.field}" list is closed with "}"`, this.index)
          const last = upTo(pos)
          // `[]` has no element; `[1,]` has an empty one, which element() refuses
          if (this.index > 0 || !isBlank(last)) this.element(last)
          this.inArray = false
          // the rest of the object is head again, from the closing bracket on
          from = pos
          this.colonAfterKey = false
        }
      } else if (code === COLON) {
        if (depth === 1 && !this.inArray) this.colonAfterKey = this.key.length > 0 && !this.inKey
      }
      pos++
    }
    if (this.inKey) this.key.push(chunk.slice(keyFrom))
    if (from < length) this.pending.push(from === 0 ? chunk : chunk.slice(from))
    Object.assign(this, { depth, inString, escaped })
  }

  end(): string {
    if (this.inArray) throw new JsonSplitError(`the "${this.options.field}" list is not closed (the text ends inside it)`, this.index)
    const head = this.head.join('') + this.pending.join('')
    this.head = []
    this.pending = []
    return head
  }

  /** Whether the `[` just met opens the value of the split field. */
  private isFieldValue(): boolean {
    if (!this.colonAfterKey) return false
    let key: unknown
    try {
      key = JSON.parse(this.key.join(''))
    } catch {
      return false
    }
    if (key !== this.options.field) return false
    if (this.seenField) throw new JsonSplitError(`"${this.options.field}" appears twice`)
    return true
  }

  private element(text: string): void {
    if (isBlank(text)) throw new JsonSplitError(`an empty element in the "${this.options.field}" list`, this.index)
    this.options.onElement(text, this.index++)
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return false
  return true
}

/**
 * The path to the innermost list or object still open at the end of a valid
 * JSON prefix, e.g. `{"a": [1, {"b": [` → ["a", 1, "b"]. Only for messages.
 */
export function pathAtEnd(prefix: string): (string | number)[] {
  /** per open container: its key (object) or index (list) so far */
  const open: { object: boolean; at: string | number }[] = []
  let lastString = ''
  for (let pos = 0; pos < prefix.length; pos++) {
    const code = prefix.charCodeAt(pos)
    const top = open.at(-1)
    if (code === QUOTE) {
      let end = pos + 1
      while (end < prefix.length && prefix.charCodeAt(end) !== QUOTE) end += prefix.charCodeAt(end) === BACKSLASH ? 2 : 1
      lastString = prefix.slice(pos, end + 1)
      pos = end
    } else if (code === COLON && top?.object) {
      try {
        top.at = JSON.parse(lastString) as string
      } catch {
        top.at = '?'
      }
    } else if (code === COMMA && top && !top.object) {
      top.at = (top.at as number) + 1
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      open.push({ object: code === OPEN_BRACE, at: code === OPEN_BRACE ? '?' : 0 })
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      open.pop()
    }
  }
  return open.slice(0, -1).map((c) => c.at)
}
