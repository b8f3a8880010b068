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
  /** unconsumed text; in the array, it starts at the current element */
  private text = ''
  private pos = 0
  private depth = 0
  private inString = false
  private escaped = false
  private head: string[] = []
  private inArray = false
  private seenField = false
  private elementStart = 0
  private index = 0
  /** in the outer object: where the last string at its level began and ended, and whether a colon followed it */
  private keyStart = -1
  private keyEnd = -1
  private colonAfterKey = false

  constructor(private readonly options: SplitOptions) {}

  push(chunk: string): void {
    if (this.inArray) {
      // keep only what the current element still needs
      const keep = this.elementStart
      this.text = this.text.slice(keep) + chunk
      this.pos -= keep
      this.elementStart = 0
    } else {
      this.text += chunk
    }
    this.scan()
  }

  end(): string {
    if (this.inArray) throw new JsonSplitError(`the "${this.options.field}" list is not closed (the text ends inside it)`, this.index)
    this.head.push(this.text)
    this.text = ''
    return this.head.join('')
  }

  private scan(): void {
    const text = this.text
    const { maxDepth } = this.options
    const length = text.length
    let { pos, depth, inString, escaped } = this
    // the next backslash at or after pos: strings are crossed by jumps between quotes and backslashes
    let backslash = text.indexOf('\\', pos)
    if (backslash < 0) backslash = length
    while (pos < length) {
      if (inString) {
        if (escaped) {
          escaped = false
          pos++
          continue
        }
        let quote = text.indexOf('"', pos)
        if (quote < 0) quote = length
        if (backslash < pos) {
          backslash = text.indexOf('\\', pos)
          if (backslash < 0) backslash = length
        }
        if (backslash < quote) {
          escaped = true
          pos = backslash + 1
          continue
        }
        if (quote === length) break
        inString = false
        if (depth === 1 && !this.inArray) {
          this.keyEnd = quote + 1
          this.colonAfterKey = false
        }
        pos = quote + 1
        continue
      }
      const code = text.charCodeAt(pos)
      if (code === QUOTE) {
        inString = true
        if (depth === 1 && !this.inArray) this.keyStart = pos
      } else if (code === COMMA) {
        if (depth === 2 && this.inArray) {
          this.element(text.slice(this.elementStart, pos))
          this.elementStart = pos + 1
        }
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        if (depth === 1 && !this.inArray) {
          if (code === OPEN_BRACKET && this.isFieldValue()) {
            this.head.push(text.slice(0, pos + 1))
            this.inArray = true
            this.seenField = true
            this.elementStart = pos + 1
          }
          this.colonAfterKey = false
        }
        if (++depth > maxDepth) {
          const from = this.inArray ? this.elementStart : 0
          throw new JsonSplitError(`nested more than ${maxDepth} levels deep`, this.inArray ? this.index : undefined, pathAtEnd(text.slice(from, pos + 1)))
        }
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        if (--depth === 1 && this.inArray) {
          if (code !== CLOSE_BRACKET) throw new JsonSplitError(`the "${this.options.field}" list is closed with "}"`, this.index)
          const last = text.slice(this.elementStart, pos)
          // `[]` has no element; `[1,]` has an empty one, which element() refuses
          if (this.index > 0 || !isBlank(last)) this.element(last)
          this.inArray = false
          // the rest of the object is head again, from the closing bracket on
          Object.assign(this, { text: text.slice(pos), pos: 1, depth, inString, escaped, keyStart: -1, keyEnd: -1, colonAfterKey: false })
          return this.scan()
        }
      } else if (code === COLON) {
        if (depth === 1 && !this.inArray) this.colonAfterKey = this.keyEnd > this.keyStart
      }
      pos++
    }
    Object.assign(this, { pos, depth, inString, escaped })
  }

  /** Whether the `[` just met opens the value of the split field. */
  private isFieldValue(): boolean {
    if (!this.colonAfterKey) return false
    let key: unknown
    try {
      key = JSON.parse(this.text.slice(this.keyStart, this.keyEnd))
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
