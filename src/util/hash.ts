import { createHash } from 'node:crypto'

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

/**
 * A short, stable content hash (hex). Made at its length rather than cut from
 * the full digest: a cut string keeps the whole digest alive, once per case.
 */
export function contentHash(value: unknown, length = 16): string {
  const digest = createHash('sha256').update(stableStringify(value)).digest()
  return digest.toString('hex', 0, Math.ceil(length / 2)).slice(0, length)
}
