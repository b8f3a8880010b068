/**
 * The comment's first block: the verdict as a GitHub alert — its title line,
 * one bullet per reason, the notices — from the report model's words.
 */
import { escapeInline } from '../escape.js'
import { formatCount, formatKeys, KEYS_IN_SENTENCE } from '../format.js'
import type { AlertKind, ReasonView, ReportModel } from '../model.js'
import type { Block } from './fit.js'

/** Notices listed in the comment; the rest are counted (the job summary and the log have them all). */
const NOTICES_LISTED = 20

/**
 * The verdict as the model's alert kind; notices follow in the same alert, or
 * in a NOTE (WARNING when the baseline is in doubt) of their own when the
 * verdict's alert is another kind.
 */
export function verdictAlerts(model: ReportModel, whole = false): Block[] {
  const listed = whole ? Infinity : NOTICES_LISTED
  const notices = model.notices.slice(0, listed).map((n) => escapeInline(n, 1_000))
  if (model.notices.length > listed) notices.push(`and ${formatCount(model.notices.length - listed)} more notices (in the job summary)`)
  const v = model.verdict
  const doubt = v.notices.some((n) => n.code === 'baseline-ignored') || (model.comparison.baseline !== null && !model.comparison.baseline.complete)
  // an advisory or accepted verdict's notice (why the check is green) belongs with it
  const noticeKind: AlertKind = doubt || v.advisory || v.acceptedBy ? 'WARNING' : 'NOTE'
  const reasons = reasonLines(model.reasons)
  // the first reason is the headline's own: with a bullet of its own below, the title says only the status
  const title = reasons.length ? model.status : model.headline
  const lines = [`**${escapeInline(model.title, 200)}: ${escapeInline(title, 1_000)}**`]
  if (reasons.length) lines.push('', ...reasons)
  const merged = noticeKind === model.alert
  if (merged && notices.length) lines.push('', ...notices.map((n) => (reasons.length ? `- ${n}` : n)))
  const blocks = [{ text: alert(model.alert, lines) }]
  if (!merged && notices.length) blocks.push({ text: alert(noticeKind, notices.length > 1 ? notices.map((n) => `- ${n}`) : notices) })
  return blocks
}

export function alert(kind: AlertKind, lines: string[]): string {
  return [`> [!${kind}]`, ...lines.map((line) => (line ? `> ${line}` : '>'))].join('\n')
}

/** One bullet per reason; cases a bullet above already named are not named again. */
function reasonLines(reasons: ReasonView[]): string[] {
  const named = new Set<string>()
  const seen = new Set<string>()
  return reasons.flatMap((reason) => {
    if (seen.has(reason.message)) return []
    seen.add(reason.message)
    const text = withoutNamedKeys(reason, named)
    for (const key of reason.keys) named.add(key)
    return [`- ${escapeInline(text, 2_000)}`]
  })
}

/**
 * The reason's sentence, its closing list of cases shortened to those not
 * named before: "…: q and the case above", "…: the 2 cases above".
 */
export function withoutNamedKeys(r: Pick<ReasonView, 'message' | 'keys'>, named: ReadonlySet<string>): string {
  const list = formatKeys(r.keys)
  const repeated = r.keys.filter((k) => named.has(k)).length
  if (!repeated || !r.message.endsWith(list)) return r.message
  const fresh = r.keys.filter((k) => !named.has(k))
  const above = repeated === 1 ? 'the case above' : `the ${formatCount(repeated)} cases above`
  // "a, b and 3 more, and the case above": a comma once the fresh list has its own "and"
  const rest = fresh.length === 0 ? above : `${formatKeys(fresh)}${fresh.length > KEYS_IN_SENTENCE ? ',' : ''} and ${above}`
  return r.message.slice(0, r.message.length - list.length) + rest
}
