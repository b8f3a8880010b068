/** The report as tests read it: sentences of the gate's failures, and the markdown of a comparison. */
import type { GateResult } from '../../src/compare/types.js'
import { renderReport, type ReportOptions } from '../../src/report/markdown/index.js'
import { buildReport, type ReportInput } from '../../src/report/model.js'
import { failureSentence } from '../../src/report/words.js'

export { failureSentence }

/** The gate's failures as the report words them. */
export function sentences(gate: GateResult): string[] {
  return gate.checks.map(failureSentence)
}

/** The markdown report of a comparison, through its model. */
export function markdownOf(input: ReportInput, options?: ReportOptions): string {
  return renderReport(buildReport(input), options)
}
