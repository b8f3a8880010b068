/**
 * The library API: thin entry points into the same engine the CLI and
 * the action use, for people who grade in code.
 */
import { casePasses } from './assertions/index.js'
import { runCases } from './run/runner.js'
import { functionTarget, type AgentFunction } from './targets/function.js'
import type { Assertion, EvalCase } from './types.js'
import { buildReport, renderReport as renderMarkdown, type ReportInput, type ReportModel, type ReportOptions } from './report/index.js'
import { contentHash } from './util/hash.js'

export interface EvalCaseInput {
  name?: string
  input: unknown
  check?: (output: string) => unknown
  expected?: string
}

export interface EvalResult {
  name: string
  passed: boolean
  output: string | null
  error: string | null
}

export interface EvalReport {
  results: EvalResult[]
  passed: number
  total: number
  passRate: number
}

/** Seed-compatible rounding: figures are reported to three decimals. */
const round3 = (x: number) => Math.round(x * 1000) / 1000

function toEvalCase(c: EvalCaseInput, index: number): EvalCase {
  // check wins over expected; a function check rides the javascript assertion
  const assert: Assertion[] = c.check
    ? [{ type: 'javascript', value: c.check }]
    : c.expected !== undefined
      ? [{ type: 'contains', value: String(c.expected) }]
      : []
  const name = c.name ?? `case_${index}`
  return { id: name, name, input: c.input, tags: [], assert, expected: c.expected, fingerprint: contentHash({ input: c.input, assert }), index }
}

export async function runEval(agentFn: (input: unknown) => unknown, cases: EvalCaseInput[]): Promise<EvalReport> {
  const evalCases = cases.map(toEvalCase)
  const target = functionTarget(() => agentFn as AgentFunction, 'agent')
  const outcome = await runCases(evalCases, target, { concurrency: 1, repeat: 1, repeatPassThreshold: 0.5, timeoutMs: 2 ** 31 - 1 })
  const results = outcome.cases.map((r): EvalResult => {
    const thrown = r.assertions.find((a) => a.error !== undefined)
    const error = r.error !== null ? `agent error: ${r.error}` : thrown ? `check error: ${thrown.error}` : null
    return { name: r.name, passed: r.output !== null && casePasses(r.assertions), output: r.output, error }
  })
  const passed = results.filter((r) => r.passed).length
  return { results, passed, total: results.length, passRate: results.length ? round3(passed / results.length) : 0 }
}

export { runJudgeEval } from './judge/judge-eval.js'
export { evaluate, loadEvalConfig } from './engine.js'
export type { EvaluateOptions, Evaluation } from './engine.js'
export { compareRuns } from './compare/index.js'
export { buildReport } from './report/index.js'

/**
 * The markdown report of a comparison: of its report model (buildReport), or
 * of the comparison and its runs, whose verdict is then concluded from the
 * comparison alone (no accept label, no upload: what a library caller has).
 */
export function renderReport(input: ReportInput | ReportModel, options?: ReportOptions): string {
  return renderMarkdown('headline' in input ? input : buildReport(input), options)
}
export { readRunRecord, parseRunRecord } from './config/record.js'
export { datasetSharer } from './run/share.js'
export type { RunRecord, CaseResult, EvalCase, AgentResult } from './types.js'
