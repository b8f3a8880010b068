/**
 * `--json`: the comparison as values, the gate's failures as sentences and
 * the verdict with its reasons — what every other surface shows, read off the
 * same report model.
 */
import { failureSentence, noticeText } from './words.js'
import type { ReportModel } from './model.js'

export function comparisonJson(model: ReportModel): Record<string, unknown> {
  const { comparison: c, verdict: v } = model
  return {
    ...c,
    gate: {
      passed: c.gate.passed,
      failures: c.gate.checks.map(failureSentence),
      checks: c.gate.checks,
      ...(c.gate.unchecked ? { unchecked: c.gate.unchecked.map((limit) => noticeText({ code: 'unchecked', limit })) } : {})
    },
    verdict: {
      status: v.status,
      headline: model.headline,
      reasons: model.reasons.map(({ code, message }) => ({ code, message })),
      notices: model.notices,
      exitCode: v.exitCode,
      ...(v.advisory ? { advisory: true } : {}),
      ...(v.acceptedBy ? { acceptedBy: v.acceptedBy } : {}),
      baselineStatus: v.baselineStatus
    }
  }
}
