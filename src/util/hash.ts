import * as crypto from 'node:crypto'

/**
 * JSON with object keys sorted, so equal values hash equally whatever their key order.
 * Defined as JSON.stringify with a replacer that writes every object as a copy with
 * its keys sorted (and a function as its source text); `sortedForJson` gives the
 * same text with copies of only the objects whose keys are out of order, and
 * without a call into JavaScript for every value: at 100,000 cases the replacer's
 * copies and sorts were half a gigabyte of garbage while a dataset loaded.
 */
export function stableStringify(value: unknown): string {
  let sorted: unknown
  try {
    sorted = sortedForJson(value, 0)
  } catch (err) {
    if (err !== NOT_PLAIN) throw err
    return replacerJson(value)
  }
  return JSON.stringify(sorted) ?? 'undefined'
}

function replacerJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const sorted: Record<string, unknown> = {}
        for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
        return sorted
      }
      if (typeof v === 'function') return functionText(v)
      return v
    }) ?? 'undefined'
  )
}

const functionText = (f: unknown) => `[function ${(f as { name?: string }).name ?? ''}]${String(f)}`

/** Thrown by sortedForJson at what only the replacer gets right: a toJSON method (called before the replacer), or a value nested too deep (a cycle). */
const NOT_PLAIN = new Error('not plain data')
const MAX_DEPTH = 512

/**
 * What the replacer would hand JSON.stringify, as one value: the value itself
 * where the replacer's copy would serialize the same (an object of plain
 * prototype whose keys are in sorted order, with nothing below replaced), a copy
 * where it would not.
 */
function sortedForJson(v: unknown, depth: number): unknown {
  if (typeof v === 'function') return functionText(v)
  if (v === null || typeof v !== 'object') return v
  if (depth > MAX_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i]
      const out = sortedForJson(item, depth + 1)
      if (out !== item) (copy ??= v.slice())[i] = out
    }
    return copy ?? v
  }
  const object = v as Record<string, unknown>
  const keys = Object.keys(object)
  const proto = Object.getPrototypeOf(object) as unknown
  // only a plain object serializes as its copy would (a boxed string, say, does not)
  let copy: Record<string, unknown> | undefined = (proto === Object.prototype || proto === null) && inCopyOrder(keys) ? undefined : {}
  if (copy) sortKeys(keys)
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!
    const item = object[k]
    const out = sortedForJson(item, depth + 1)
    if (copy) copy[k] = out
    else if (out !== item) {
      copy = {}
      for (let j = 0; j < i; j++) copy[keys[j]!] = object[keys[j]!]
      copy[k] = out
    }
  }
  return copy ?? v
}

/**
 * Whether Object.keys is already in the order of the replacer's copy: that copy
 * is an object too, so its integer keys ("2", "10") come first in numeric order
 * (as Object.keys gives them), then the others in sorted order. `__proto__` is
 * never an own key of the copy (assigning it sets the prototype).
 */
function inCopyOrder(keys: readonly string[]): boolean {
  let i = 0
  while (i < keys.length && isArrayIndex(keys[i]!)) i++
  for (i++; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!)) return false
  return !keys.includes('__proto__')
}

/**
 * Sorts keys in place into an order that, inserted into an object, gives the
 * copy's order: the integer keys Object.keys puts first stay first (objects
 * order them so anyway), the others by UTF-16 code units as Array#sort would.
 * By insertion for the few keys of a case's objects: Array#sort allocates a
 * work array at every call.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort()
    return
  }
  let first = 0
  while (first < keys.length && isArrayIndex(keys[first]!)) first++
  for (let i = first + 1; i < keys.length; i++) {
    const k = keys[i]!
    let j = i - 1
    for (; j >= first && keys[j]! > k; j--) keys[j + 1] = keys[j]!
    keys[j + 1] = k
  }
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
