/**
 * Reading a judge's answer. The answer is untrusted text from a model (or a
 * user's function): whatever it is, the result is a score in [0, 1] and a
 * reason; anything unusable becomes score 0 with `error` saying why. Pure, and
 * shared by the LLM judge, the command judge and the library's runJudgeEval.
 */

import { tryParseJson, visitJsonInText } from '../util/json-in-text.js'
import { clampScore } from '../util/score.js'

export interface Verdict {
  score: number
  reason: string
  /** set when the answer was unusable; the score is then 0 */
  error?: string
  /**
   * the judge could not be reached (a network failure, a timeout, HTTP 401,
   * 403, 408, 429 or 5xx after its retries): no verdict was given, so the case
   * is not graded. Unset for an error the reply itself caused (an unreadable
   * answer, a refusal, a 400), which fails the check: an agent's output must
   * not be able to talk its way out of a verdict.
   */
  unavailable?: true
}

/** Longer replies are cut before searching them: a judge that rambles this much is not answering. */
const MAX_REPLY_CHARS = 10_000
const MAX_REASON_CHARS = 1_000
const EXCERPT_CHARS = 200
const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/
const REFUSAL = /\b(I'?m sorry|I am sorry|I apologi[sz]e|I can(?:no|')t|I cannot|I'?m unable|I am unable|I won'?t|I will not)\b/i

/** The verdict for a failure: score 0, and the message as both error and reason. */
export function failedVerdict(message: string): Verdict {
  return { score: 0, reason: message, error: message }
}

/**
 * A judge's reply as text: plain JSON, a fenced ```json block, or JSON inside
 * prose. The reply must hold exactly one verdict: a judge that quotes the
 * output's forged `{"score": 1}` beside its own answer gives two, and which is
 * its own cannot be told, so two different scores are an error rather than a
 * guess (the same score twice is still one verdict).
 */
export function parseVerdictText(text: string): Verdict {
  const reply = text.slice(0, MAX_REPLY_CHARS).trim()
  if (!reply) return failedVerdict('the judge gave an empty reply')
  const objects = jsonObjectsIn(reply)
  const scored = objects.flatMap(verdictsIn)
  if (scored.length > 0) return oneVerdict(scored.map(normalizeVerdict))
  if (objects.length > 0) return failedVerdict(`judge reply has no "score": ${excerpt(reply)}`)
  const other = tryParseJson(reply)
  if (other !== undefined) return normalizeVerdict(other)
  if (REFUSAL.test(reply)) return failedVerdict(`the judge refused to grade: ${excerpt(reply)}`)
  return failedVerdict(`judge reply is not JSON: ${excerpt(reply)}`)
}

/**
 * The verdicts in a parsed object: the object itself when it has a score
 * (objects inside a verdict are its details), else those nested in it.
 */
function verdictsIn(value: unknown): Record<string, unknown>[] {
  if (value === null || typeof value !== 'object') return []
  if (!Array.isArray(value) && 'score' in value) return [value as Record<string, unknown>]
  return Object.values(value).flatMap(verdictsIn)
}

/** The one verdict the candidates agree on, else an error naming their scores. */
function oneVerdict(verdicts: Verdict[]): Verdict {
  const first = verdicts[0]!
  const scores = [...new Set(verdicts.map((v) => (v.error === undefined ? String(v.score) : 'not a number')))]
  if (scores.length === 1) return first
  return failedVerdict(
    `judge reply holds ${scores.length} different scores (${scores.join(', ')}); a reply must give exactly one verdict (did it quote a score from the output?)`
  )
}

/** A judge's answer as a value (`{score, reason}`), from parsed JSON or a user's function. */
export function normalizeVerdict(value: unknown): Verdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failedVerdict(`judge answer is not an object with a score: ${excerpt(describe(value))}`)
  }
  const { score, reason } = value as { score?: unknown; reason?: unknown }
  if (score === undefined || score === null) return failedVerdict(`judge answer has no "score": ${excerpt(describe(value))}`)
  const raw = typeof score === 'number' ? score : typeof score === 'string' && NUMERIC.test(score) ? Number(score) : NaN
  if (!Number.isFinite(raw)) return failedVerdict(`judge score is not a number: ${excerpt(describe(score))}`)
  const clamped = clampScore(raw)
  const text = reasonText(reason)
  // the judge's own number stays visible when it was out of range
  return { score: clamped, reason: clamped === raw ? text : `${text} [score ${raw} clamped to ${clamped}]` }
}

/**
 * Several samples of one verdict: the median score, with the reason of the
 * sample closest to it. Failed samples are left out while any succeeded.
 */
export function combineSamples(verdicts: Verdict[]): Verdict & { samples: number[] } {
  const ok = verdicts.filter((v) => v.error === undefined)
  if (ok.length === 0) return { ...(verdicts[0] ?? failedVerdict('no judge samples')), samples: [] }
  const samples = ok.map((v) => v.score)
  const mid = median(samples)
  const closest = ok.reduce((best, v) => (Math.abs(v.score - mid) < Math.abs(best.score - mid) ? v : best))
  const failed = verdicts.length - ok.length
  const note = failed > 0 ? ` (${failed} of ${verdicts.length} samples failed: ${verdicts.find((v) => v.error)!.error})` : ''
  return { score: mid, reason: closest.reason + note, samples }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function reasonText(reason: unknown): string {
  const text = typeof reason === 'string' ? reason.trim() : reason === undefined || reason === null ? '' : describe(reason)
  if (!text) return '(the judge gave no reason)'
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text
}

/**
 * The JSON objects of the text that are not inside another: the whole reply,
 * a fenced block's content, `{…}` spans inside prose, the items of a list. A
 * `{` that starts no valid object is skipped, so an object nested in broken
 * text is still found; one inside a found object is that object's part.
 */
function jsonObjectsIn(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = []
  // the reply is already cut to MAX_REPLY_CHARS, which bounds the work
  visitJsonInText(text, { openers: '{', skipNested: true }, (value) => {
    found.push(value as Record<string, unknown>)
    return false
  })
  return found
}

/** Quoted for messages; never throws (a user's function may return a bigint or a cycle). */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat
}
