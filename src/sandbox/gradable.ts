/**
 * What a javascript check returned, reduced to what grading reads: a
 * primitive, `{pass, score, reason}`, or `{truthy, kind}` for anything else (a
 * returned function or class instance could not be cloned out of a worker).
 * Self-contained: its source is also given to every worker (see worker.ts).
 */
export type Gradable =
  boolean | number | string | bigint | null | undefined | { pass: unknown; score: unknown; reason: string | undefined } | { truthy: boolean; kind: string }

export function gradable(value: unknown): Gradable {
  const primitive = (v: unknown) => v === null || ['boolean', 'number', 'string', 'bigint', 'undefined'].includes(typeof v)
  if (primitive(value)) return value as Gradable
  if (typeof value === 'object' && value !== null && ('pass' in value || 'score' in value)) {
    const { pass, score, reason } = value as Record<string, unknown>
    return {
      pass: primitive(pass) ? pass : Boolean(pass),
      score: primitive(score) ? score : Boolean(score),
      reason: typeof reason === 'string' ? reason : undefined
    }
  }
  return { truthy: Boolean(value), kind: Array.isArray(value) ? 'an array' : `a ${typeof value}` }
}
