/**
 * Writing a large JSON value (a run record of 100,000 cases is ~60 MB of text),
 * or any text made in pieces, a piece at a time: the same bytes as
 * `toJson(value)`, without ever holding the whole text in memory, and
 * atomically like writeFileAtomic.
 */
import { once } from 'node:events'
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { makeDir } from './dirs.js'

/** Levels of objects and arrays written piece by piece; below them each value is one JSON.stringify. */
const STREAMED_DEPTH = 2
/** Pieces are gathered into writes of about this many bytes. */
const WRITE_BYTES = 256 * 1024
/** A UTF-16 code unit is at most this many bytes of UTF-8. */
const MAX_UTF8_BYTES = 3
/**
 * How much the stream may hold unwritten before the writer waits: several
 * writes, so that the next pieces are made while the last are written. (At
 * the stream's default of 16 KiB, every write waited for the disk: ~400 ms of
 * idle time writing a 100,000-case record and its HTML report.)
 */
const BUFFERED_BYTES = 1024 * 1024

/** Writes `value` as JSON; resolves with the SHA-256 (hex) of the bytes written, computed as they are written. */
export function writeJsonAtomic(file: string, value: unknown): Promise<string> {
  return writeTextAtomic(file, withNewline(jsonPieces(value, '', 0)))
}

function* withNewline(pieces: Iterable<string>): Generator<string> {
  yield* pieces
  yield '\n'
}

/**
 * Any text given in pieces (a large report's), written the same way: gathered
 * into bounded writes, atomically. Each piece is encoded straight into the
 * write's buffer: joining pieces into one string first made V8 flatten it and
 * Node encode it again, and when a piece held one character beyond ASCII (an
 * em dash in every row of the HTML report), the whole joined string was
 * UTF-16 and encoding it took longer than making the report (~0.6 s at 100,000
 * cases). The bytes are those of the pieces joined; their SHA-256 (hex) is
 * what it resolves with, computed in memory as they are written, so that what
 * is later read back from the file can be checked against what was written.
 */
export async function writeTextAtomic(file: string, pieces: Iterable<string>): Promise<string> {
  await makeDir(path.dirname(path.resolve(file)))
  const tmp = `${file}.${process.pid}.tmp`
  const out = createWriteStream(tmp, { highWaterMark: BUFFERED_BYTES })
  const hash = createHash('sha256')
  let buffer = Buffer.allocUnsafe(WRITE_BYTES)
  let at = 0
  // once() also rejects on the stream's error
  const send = async (chunk: Buffer) => {
    hash.update(chunk)
    if (!out.write(chunk)) await once(out, 'drain')
  }
  /** Whether the buffer, holding something, lacks room for `chars` more UTF-16 code units. */
  const full = (chars: number) => at > 0 && at + chars * MAX_UTF8_BYTES > buffer.length
  /** The buffer's bytes, to send; a fresh buffer takes its place. */
  const take = () => {
    const chunk = buffer.subarray(0, at)
    buffer = Buffer.allocUnsafe(WRITE_BYTES)
    at = 0
    return chunk
  }
  try {
    // a high surrogate that ends a piece waits for the low one that may start the next: the pair is one character
    let held = ''
    for (const next of pieces) {
      let piece = held + next
      held = ''
      const last = piece.charCodeAt(piece.length - 1)
      if (last >= 0xd800 && last <= 0xdbff) {
        held = piece.slice(-1)
        piece = piece.slice(0, -1)
      }
      if (full(piece.length)) await send(take())
      // a piece larger than a write goes out as it is
      if (piece.length * MAX_UTF8_BYTES > buffer.length) await send(Buffer.from(piece))
      else at += buffer.write(piece, at)
    }
    // the write's buffer may have no room left for the last high surrogate
    if (full(held.length)) await send(take())
    at += buffer.write(held, at)
    hash.update(buffer.subarray(0, at))
    out.end(buffer.subarray(0, at))
    await finished(out)
  } catch (err) {
    out.destroy()
    await rm(tmp, { force: true })
    throw err
  }
  await rename(tmp, file)
  return hash.digest('hex')
}

/** The text of `JSON.stringify(value, null, 2)` in pieces, for a value found at `indent`. */
export function* jsonPieces(value: unknown, indent: string, depth: number): Generator<string> {
  const streamed = depth < STREAMED_DEPTH && value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  if (!streamed) {
    // undefined (an array slot, or the top level) is written as null, as JSON.stringify does in arrays
    const text = JSON.stringify(value, null, 2) ?? 'null'
    yield indent ? text.replaceAll('\n', `\n${indent}`) : text
    return
  }
  const inner = `${indent}  `
  if (Array.isArray(value)) {
    if (value.length === 0) return yield '[]'
    for (let i = 0; i < value.length; i++) {
      yield `${i === 0 ? '[' : ','}\n${inner}`
      yield* jsonPieces(value[i], inner, depth + 1)
    }
    return yield `\n${indent}]`
  }
  let first = true
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `
    first = false
    yield* jsonPieces(v, inner, depth + 1)
  }
  yield first ? '{}' : `\n${indent}}`
}
