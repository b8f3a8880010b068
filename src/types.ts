/**
 * The values that flow one way through evalgate:
 * config → cases → trials → run record → comparison → report.
 * Their types are inferred from the zod schemas that read them
 * (config/record-schema.ts, config/schema.ts), never written twice.
 */
export type { AgentCaseView, Assertion, CaseView, EvalCase, PromptfooCase, Simulation, Turn } from './config/case.js'
export type {
  AgentResult,
  AssertionResult,
  CaseResult,
  DatasetFingerprint,
  JudgeSummary,
  JudgeVerdict,
  NamedScore,
  RunRecord,
  RunSummary,
  RunTrendPoint,
  TrialResult,
  TurnResult,
  Usage
} from './config/record-schema.js'
export type { ToolCall } from './util/tool-calls.js'
