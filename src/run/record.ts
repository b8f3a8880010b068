/**
 * The run record: the summary of a run's cases, redacted of secrets.
 */
import { carryHistory, carryTrend } from '../compare/history.js'
import { FINGERPRINT_VERSION } from '../config/fingerprint.js'
import { RECORD_SCHEMA_VERSION } from '../config/record-schema.js'
import type { CaseResult, DatasetFingerprint, JudgeSummary, RunRecord, RunSummary } from '../types.js'
import { summarizeNamedScores } from './promptfoo.js'
import { redact } from '../util/env.js'
import { mapStrings } from '../util/map-strings.js'
import { VERSION } from '../version.js'

export interface RecordInput {
  name: string
  /** the whole dataset the cases were selected from */
  dataset: DatasetFingerprint
  cases: CaseResult[]
  complete: boolean
  stopReason?: RunRecord['stopReason']
  /** cases the run set out to run */
  planned?: number
  /** files that grade the cases and changed while the run was in progress */
  changedDuringRun?: string[]
  budget?: RunRecord['budget']
  durationMs: number
  createdAt: string
  git: RunRecord['git']
  repeat: number
  /** how trials were folded and flips re-run (the sensitivity of a comparison is computed from them) */
  repeatPassThreshold?: number
  rerunFlips?: number
  shard?: string | null
  /** the run's --filter, so that a comparison knows which baseline cases it left out */
  filter?: string | null
  judge?: JudgeSummary
  /** the run compared against: each case's flake history is carried forward from it */
  baseline?: RunRecord | null
  /** finished cases taken over from a run cut short (`run --resume`), and when that run began */
  resumed?: RunRecord['resumed']
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000
const round6 = (x: number) => Math.round(x * 1e6) / 1e6

export function summarize(cases: CaseResult[], durationMs: number, judge?: JudgeSummary): RunSummary {
  const passed = cases.filter((c) => c.passed).length
  const scores = cases.map((c) => c.score).filter((s): s is number => s !== null)
  const summary: RunSummary = {
    total: cases.length,
    passed,
    failed: cases.length - passed,
    errors: cases.filter((c) => c.error !== null).length,
    passRate: cases.length ? round4(passed / cases.length) : 0,
    meanScore: scores.length ? round4(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
    durationMs,
    judge: judge ?? { calls: 0, reused: 0, errors: 0, tokens: 0 }
  }
  // summed from the cases, so that merged shards keep it
  const reruns = cases.reduce((n, c) => n + (c.reruns ?? 0), 0)
  if (reruns > 0) summary.reruns = reruns
  const namedScores = summarizeNamedScores(cases)
  if (namedScores) summary.namedScores = namedScores
  return summary
}

/** The judge figures of several parts of one run (shards, a resumed run's two parts), as one run's. */
export function sumJudge(parts: JudgeSummary[]): JudgeSummary {
  const sum = (key: 'calls' | 'reused' | 'errors' | 'tokens' | 'costUsd' | 'sampled' | 'disagreements') => parts.reduce((n, j) => n + (j[key] ?? 0), 0)
  const total: JudgeSummary = { calls: sum('calls'), reused: sum('reused'), errors: sum('errors'), tokens: sum('tokens') }
  if (parts.some((j) => j.costUsd !== undefined)) total.costUsd = sum('costUsd')
  if (parts.some((j) => j.sampled !== undefined)) total.sampled = sum('sampled')
  if (parts.some((j) => j.disagreements !== undefined)) total.disagreements = sum('disagreements')
  // the simulated users' calls, kept apart as the run reports them
  const users = parts.flatMap((j) => (j.simulatedUser ? [j.simulatedUser] : []))
  if (users.length) {
    const of = (key: 'calls' | 'errors' | 'tokens') => users.reduce((n, u) => n + u[key], 0)
    total.simulatedUser = { calls: of('calls'), errors: of('errors'), tokens: of('tokens') }
    if (users.some((u) => u.costUsd !== undefined)) total.simulatedUser.costUsd = users.reduce((n, u) => n + (u.costUsd ?? 0), 0)
  }
  return total
}

/**
 * What a budget spent, and what it could not count: trials that answered
 * without a cost (no usage, or a model missing from `pricing`) and judge
 * tokens without a price. A budget cannot stop what it cannot count, so the
 * verdict says so (compare/conclude.ts).
 */
export function budgetSummary(
  maxCostUsd: number,
  cases: readonly CaseResult[],
  targetCostUsd: number,
  judge: Pick<JudgeSummary, 'tokens' | 'costUsd'> | undefined
): NonNullable<RunRecord['budget']> {
  let uncountedTrials = 0
  for (const c of cases) for (const t of c.trials ?? [c]) if (t.output !== null && t.usage?.costUsd === undefined) uncountedTrials++
  const uncountedJudgeTokens = judge && judge.costUsd === undefined ? judge.tokens : 0
  return {
    maxCostUsd,
    spentUsd: targetCostUsd + (judge?.costUsd ?? 0),
    ...(uncountedTrials ? { uncountedTrials } : {}),
    ...(uncountedJudgeTokens ? { uncountedJudgeTokens } : {})
  }
}

export function buildRecord(input: RecordInput): RunRecord {
  const cases = carryHistory(input.cases, input.baseline)
  const trend = carryTrend(input.baseline)
  return {
    schemaVersion: RECORD_SCHEMA_VERSION,
    tool: { name: 'evalgate', version: VERSION },
    fingerprintVersion: FINGERPRINT_VERSION,
    name: input.name,
    createdAt: input.createdAt,
    complete: input.complete,
    ...(input.stopReason ? { stopReason: input.stopReason } : {}),
    ...(input.budget ? { budget: { ...input.budget, spentUsd: round6(input.budget.spentUsd) } } : {}),
    ...(input.planned !== undefined && !input.complete ? { planned: input.planned } : {}),
    ...(input.changedDuringRun?.length ? { changedDuringRun: input.changedDuringRun } : {}),
    ...(input.resumed ? { resumed: input.resumed } : {}),
    dataset: input.dataset,
    git: input.git,
    config: {
      repeat: input.repeat,
      shard: input.shard ?? null,
      ...(input.filter ? { filter: input.filter } : {}),
      ...(input.repeatPassThreshold !== undefined ? { repeatPassThreshold: input.repeatPassThreshold } : {}),
      ...(input.rerunFlips ? { rerunFlips: input.rerunFlips } : {})
    },
    summary: summarize(cases, input.durationMs, input.judge),
    ...(trend ? { trend } : {}),
    cases
  }
}

/** Every string in a JSON value with the secrets replaced (the agent may echo them). */
export function redactDeep<T>(value: T, secrets: ReadonlySet<string>): T {
  if (secrets.size === 0) return value
  return mapStrings(value, (text) => redact(text, secrets))
}
