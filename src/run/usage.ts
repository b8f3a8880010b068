import type { Usage } from '../types.js'

const USAGE_KEYS = ['inputTokens', 'outputTokens', 'totalTokens', 'costUsd'] as const

/** Usage summed key by key (a case's trials, a conversation's turns): a key none of them reported stays absent. */
export function sumUsage(parts: readonly { usage?: Usage }[]): Usage | undefined {
  if (parts.length === 1) return parts[0]!.usage
  let sum: Usage | undefined
  for (const t of parts) {
    if (!t.usage) continue
    sum ??= {}
    for (const key of USAGE_KEYS) {
      const n = t.usage[key]
      if (n !== undefined) sum[key] = (sum[key] ?? 0) + n
    }
  }
  return sum
}
