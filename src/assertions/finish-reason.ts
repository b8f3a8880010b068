/** finish-reason: why the model stopped (`stop`, `length`, `tool_calls`, `content_filter`…), as the target reported it. */
import type { AssertionHandler } from './types.js'
import { textValueProblem } from './values.js'

/** Providers spell the same reason differently ("STOP", "end_turn" aside): compared trimmed and lower-cased. */
function normal(reason: string): string {
  return reason.trim().toLowerCase()
}

const finishReason: AssertionHandler = {
  negatable: true,
  validate: (a) => textValueProblem(a, { nonEmpty: true }),
  run(a, { finishReason: actual }, negated) {
    const expected = String(a.value)
    if (actual === undefined) {
      const reason = `the target did not supply a finish reason (the openai target does; a command or module target can return \`finishReason\`), so it cannot be compared with "${expected}"`
      return { pass: false, score: 0, reason, error: reason }
    }
    const holds = normal(actual) === normal(expected)
    const reason = holds !== negated ? `finish reason "${actual}"` : `expected finish reason ${negated ? 'other than ' : ''}"${expected}", got "${actual}"`
    return { pass: holds, score: holds ? 1 : 0, reason }
  }
}

export const finishReasonAssertions: Record<string, AssertionHandler> = { 'finish-reason': finishReason }
