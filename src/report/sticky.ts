/**
 * The sticky report's first line: a hidden marker naming the
 * workflow (or CI job) and the config, then the verdict shown — how the
 * comment (GitHub) or note (GitLab) is found again and updated in place. A
 * body is ours only when its FIRST line is exactly this: the report below it
 * quotes model output, which can hold any marker. Pure.
 */
import type { VerdictStatus } from '../compare/types.js'

/** GitHub refuses comment bodies over 65,536 characters (GitLab notes over 1,000,000); the report stays well under. */
export const MAX_COMMENT_LENGTH = 60_000

/** The verdict the comment shows; kept in its first line for `comment: on-change`. */
export type CommentVerdict = VerdictStatus

const VERDICTS: readonly CommentVerdict[] = ['pass', 'fail', 'accepted', 'could-not-tell']
/** What comments written before could-not-tell had its name said instead. */
const OLD_VERDICTS: Readonly<Record<string, CommentVerdict>> = { error: 'could-not-tell' }

function markerText(text: string): string {
  // nothing that could end the HTML comment early or start a new line
  return text.replace(/--+|>|[\r\n]/g, '_')
}

/** The hidden marker naming the workflow file and config: it never holds "-->", so it is the first line's only HTML comment end before the verdict. */
export function commentMarker(workflowFile: string, configName: string): string {
  return `<!-- evalgate:${markerText(workflowFile)}:${markerText(configName)} -->`
}

function verdictTag(verdict: CommentVerdict): string {
  return `<!-- evalgate-verdict:${verdict} -->`
}

/**
 * Our first line in `body`, read exactly: the marker followed by the verdict
 * we showed (`verdict`), or the marker alone as evalgate wrote it before the
 * verdict moved there (`verdict: null`, nothing in the body is trusted for
 * it). null when the first line is anything else.
 */
export function readHeader(body: string, marker: string): { verdict: CommentVerdict | null } | null {
  const first = body.split('\n', 1)[0]!.replace(/\r$/, '')
  if (first === marker) return { verdict: null }
  const verdict = VERDICTS.find((v) => first === marker + verdictTag(v))
  if (verdict) return { verdict }
  const old = Object.keys(OLD_VERDICTS).find((v) => first === `${marker}<!-- evalgate-verdict:${v} -->`)
  return old ? { verdict: OLD_VERDICTS[old]! } : null
}

/** The comment body: our marker and the verdict on the first line, then the report; never over `max` characters. */
export function commentBody(marker: string, report: string, verdict: CommentVerdict, max = MAX_COMMENT_LENGTH): string {
  const head = `${marker}${verdictTag(verdict)}\n`
  const room = max - head.length
  let text = report.trim()
  if (text.length > room) {
    // renderReport keeps within its maxLength; this only guards against a miscount
    const note = '\n\n_(report truncated to fit a comment; the full report is in the job summary)_'
    const cut = text.lastIndexOf('\n', room - note.length)
    text = text.slice(0, cut > 0 ? cut : room - note.length) + note
  }
  return `${head}${text}\n`
}
