import * as crypto from 'node:crypto'

/** JSON with object keys sorted, so equal values hash equally whatever their key order. */
export function stableStringify(value: unknown): string {
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
