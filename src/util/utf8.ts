import { TextDecoder } from 'node:util'

/**
 * Strict UTF-8, a piece at a time: `decode(bytes)` for each piece, `decode()`
 * once at the end. A byte sequence that is not UTF-8 throws what `invalid`
 * makes, never becomes U+FFFD; a leading byte-order mark is dropped.
 */
export function strictUtf8Decoder(invalid: () => Error): (bytes?: Uint8Array) => string {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  return (bytes) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode()
    } catch {
      throw invalid()
    }
  }
}

/**
 * Whether a text is longer than `max` bytes in UTF-8, without encoding it when
 * its length alone decides: each UTF-16 unit is one to three bytes (a pair of
 * surrogates, two units, is four).
 */
export function utf8Exceeds(text: string, max: number): boolean {
  if (text.length > max) return true
  if (text.length * 3 <= max) return false
  return Buffer.byteLength(text, 'utf8') > max
}
