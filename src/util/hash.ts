import * as crypto from 'node:crypto'

/**
 * JSON with object keys sorted, so equal values hash equally whatever their key order.
 * Plain data (what datasets and records are made of) is written directly; anything
 * else (a function, a Date, a class instance, a cycle) goes through JSON.stringify with
 * a sorting replacer, which defines the text: both give the same for plain data.
 */
export function stableStringify(value: unknown): string {
  try {
    return plainJson(value, 0) ?? 'undefined'
  } catch (err) {
    if (err !== NOT_PLAIN) throw err
    return replacerJson(value)
  }
}

function replacerJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const sorted: Record<string, unknown> = {}
        for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
        return sorted
      }
      if (typeof v === 'function') return `[function ${(v as { name?: string }).name ?? ''}]${String(v)}`
      return v
    }) ?? 'undefined'
  )
}

/** Thrown by plainJson at a value it does not write itself. */
const NOT_PLAIN = new Error('not plain data')
/** Deeper than this, plainJson leaves the value to JSON.stringify (which also reports a cycle). */
const PLAIN_DEPTH = 512

/**
 * The sorted-key JSON of plain data: strings, finite or not numbers, booleans,
 * null, arrays, and objects whose prototype is Object's or null; undefined
 * where JSON.stringify gives nothing. Without the replacer's sorted copy of
 * every object and its sort: at 100,000 cases those were half a gigabyte of
 * garbage while a dataset loaded.
 */
function plainJson(v: unknown, depth: number): string | undefined {
  switch (typeof v) {
    case 'string':
      return quoted(v)
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null'
    case 'boolean':
      return v ? 'true' : 'false'
    case 'undefined':
      return undefined
    case 'object':
      break
    default:
      throw NOT_PLAIN
  }
  if (v === null) return 'null'
  if (depth > PLAIN_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN
  if (Array.isArray(v)) {
    let out = '['
    for (let i = 0; i < v.length; i++) out += `${i === 0 ? '' : ','}${plainJson(v[i], depth + 1) ?? 'null'}`
    return `${out}]`
  }
  const proto = Object.getPrototypeOf(v) as unknown
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN
  const keys = sortedKeys(v)
  let out = '{'
  for (const k of keys) {
    // the replacer's copy sets `__proto__` as the prototype, not as a key: JSON.stringify never wrote it
    if (k === '__proto__') continue
    const text = plainJson((v as Record<string, unknown>)[k], depth + 1)
    if (text === undefined) continue
    out += `${out.length === 1 ? '' : ','}${quoted(k)}:${text}`
  }
  return `${out}}`
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control characters, lone surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/

/** A string as JSON.stringify writes it; most need no escape, and a regular expression's test is cheaper than the call. */
function quoted(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`
}

/**
 * The keys in the order the replacer's sorted copy is written in: that copy is an
 * object too, so its integer keys ("2", "10") come first in numeric order (as
 * Object.keys already gives them), then the others in the order of Array#sort
 * (UTF-16 code units), here by insertion: no copy for the few keys of a case's objects.
 */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v)
  let first = 0
  while (first < keys.length && isArrayIndex(keys[first]!)) first++
  for (let i = first + 1; i < keys.length; i++) {
    const k = keys[i]!
    let j = i - 1
    for (; j >= first && keys[j]! > k; j--) keys[j + 1] = keys[j]!
    keys[j + 1] = k
  }
  return keys
}

/** Whether a key is one that objects order first: the canonical text of an integer 0 … 2³² − 2. */
function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0)
  if (c < 48 || c > 57 || (c === 48 && key.length > 1) || key.length > 10) return false
  for (let i = 1; i < key.length; i++) {
    const d = key.charCodeAt(i)
    if (d < 48 || d > 57) return false
  }
  return Number(key) <= 4294967294
}

/** crypto.hash (Node 20.12+): one call, no Hash object — a third of createHash's time at one hash per case. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash

/**
 * A short, stable content hash (hex). Not a slice of the full digest longer
 * than 12 characters: V8 would keep the whole digest alive behind it, once per
 * case; two short slices are copies.
 */
export function contentHash(value: unknown, length = 16): string {
  const text = stableStringify(value)
  if (!oneShot)
    return crypto
      .createHash('sha256')
      .update(text)
      .digest()
      .toString('hex', 0, Math.ceil(length / 2))
      .slice(0, length)
  const hex = oneShot('sha256', text)
  return length <= 12 ? hex.slice(0, length) : hex.slice(0, 12) + hex.slice(12, length)
}
