/**
 * The values that flow one way through evalgate:
 * config → cases → trials → run record → comparison → report.
 */

/** One assertion as the engine runs it (after shorthands are expanded). */
export interface Assertion {
  type: string
  value?: unknown
  threshold?: number
  weight?: number
  /** regex flags */
  flags?: string
  /** numeric */
  tolerance?: number
  relTolerance?: number
  /** javascript: a module exporting the check, resolved to an absolute path */
  file?: string
  /** promptfoo configs: the named metric this assertion's score counts towards */
  metric?: string
  /** promptfoo configs: JavaScript run on the output before this assertion grades it */
  transform?: string
  /** promptfoo configs: the index of the assert-set (EvalCase.promptfoo.sets) this assertion belongs to */
  set?: number
  /** llm-rubric: a per-assertion judge model override is not supported; see judge config */
  [key: string]: unknown
}

/** A case ready to run: defaults merged, shorthands expanded, key and fingerprint computed. */
export interface EvalCase {
  /** The key that matches the case across runs: the user's id, else a hash of the input. */
  id: string
  name: string
  input: unknown
  tags: string[]
  assert: Assertion[]
  /** Everything the user wrote about expectations, for the report ("expected"). */
  expected?: unknown
  fingerprint: string
  /** Where the case came from, for messages and annotations. */
  source?: { file: string; line?: number }
  /** Position in the dataset (zero-based). */
  index: number
  /** the variables the case was rendered from (promptfoo `vars`) */
  vars?: Record<string, unknown>
  /** set for cases read from a promptfoo config (SPEC §11) */
  promptfoo?: PromptfooCase
}

/** How a case read from a promptfoo config is run and graded. */
export interface PromptfooCase {
  /** the index of its provider in `target.promptfoo.providers` */
  provider: number
  /** the test's `options.transform`: JavaScript run on the provider's output before any assertion sees it */
  transform?: string
  /** the test's `threshold`: the case passes when the weighted mean of its assertion scores reaches it */
  threshold?: number
  /** its assert-sets; their assertions are in `assert`, each with `set` naming its set */
  sets?: { threshold?: number; weight?: number; metric?: string }[]
}

/** A named metric over a run: the mean of the case scores that have it (promptfoo's `metric`). */
export interface NamedScore {
  score: number
  cases: number
}

export interface AssertionResult {
  type: string
  passed: boolean
  score: number
  reason: string
  weight?: number
  /** set when the check itself threw (javascript) or the judge failed */
  error?: string
  /** llm-rubric verdicts */
  judge?: JudgeVerdict
}

export interface JudgeVerdict {
  model: string
  score: number
  reason: string
  error?: string
  reused?: boolean
  tokens?: number
  /** hash of model + rubric + input + output, the key of verdict reuse */
  key: string
  /** the scores of each sample with judge.samples > 1 (the verdict's score is their median) */
  samples?: number[]
}

/** One call of a tool by the agent (SPEC §10); OpenAI-style calls are normalised to this. */
export interface ToolCall {
  name: string
  args: unknown
  result?: unknown
}

/** What one trial of the target consumed (SPEC §10). */
export interface Usage {
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  costUsd?: number
}

export interface TrialResult {
  passed: boolean
  output: string | null
  error: string | null
  score: number | null
  durationMs: number
  assertions: AssertionResult[]
  /** the tool calls the target reported (SPEC §10) */
  toolCalls?: ToolCall[]
  usage?: Usage
  /** time spent in the target, start-up excluded (SPEC §10) */
  latencyMs?: number
  /** the result object's `metadata` */
  metadata?: Record<string, unknown>
  finishReason?: string
  /** promptfoo `metric`s: the weighted mean score of each metric's assertions */
  namedScores?: Record<string, number>
}

export interface CaseResult {
  id: string
  /** the case's position in the whole dataset (EvalCase.index): merged shards are put back in this order */
  index?: number
  name: string
  tags: string[]
  fingerprint: string
  input: unknown
  expected?: unknown
  passed: boolean
  passFraction: number
  output: string | null
  error: string | null
  score: number | null
  durationMs: number
  assertions: AssertionResult[]
  trials?: TrialResult[]
  /** the tool calls of the trial shown for the case (the one agreeing with its verdict) */
  toolCalls?: ToolCall[]
  /** target usage, summed over trials; costUsd from the target or from `pricing` */
  usage?: Usage
  /** the mean of its trials' target latencies */
  latencyMs?: number
  metadata?: Record<string, unknown>
  finishReason?: string
  source?: { file: string; line?: number }
  /**
   * Results of the runs before this one with the same fingerprint, oldest
   * first, "P" passed, "F" failed: the baseline's history plus the baseline's
   * result, at most 20 (see compare/history.ts)
   */
  history?: string
  /** trials added after the main pass because the case flipped against the baseline (rerunFlips); they are the last ones in `trials` */
  reruns?: number
  /** promptfoo `metric`s of the trial shown: the weighted mean score of each metric's assertions */
  namedScores?: Record<string, number>
}

export interface JudgeSummary {
  calls: number
  reused: number
  errors: number
  tokens: number
  /** what the judge's calls cost, from `pricing` (when the judge model has a price) */
  costUsd?: number
  /** verdicts asked with judge.samples > 1 (reused ones not counted) */
  sampled?: number
  /** of those, verdicts whose samples fell on both sides of the pass threshold */
  disagreements?: number
}

export interface RunSummary {
  total: number
  passed: number
  failed: number
  errors: number
  passRate: number
  meanScore: number | null
  durationMs: number
  judge: JudgeSummary
  /** trials spent re-running flipped cases (rerunFlips), when any */
  reruns?: number
  /** promptfoo `metric`s over the run, when any case has one */
  namedScores?: Record<string, NamedScore>
}

/** One earlier run on the baseline branch, as the trend chart shows it. */
export interface RunTrendPoint {
  sha: string | null
  createdAt: string
  passRate: number
  meanScore: number | null
}

/** The dataset a record was made from (config/fingerprint.ts): every case's key and fingerprint, before any shard or filter. */
export interface DatasetFingerprint {
  fingerprint: string
  /** how many cases the whole dataset has */
  cases: number
}

export interface RunRecord {
  schemaVersion: 1
  tool: { name: 'evalgate'; version: string }
  /** what the cases' fingerprints cover (config/fingerprint.ts); a record without it is of version 1 */
  fingerprintVersion?: number
  name: string
  createdAt: string
  complete: boolean
  /** why an incomplete run stopped: interrupted (a signal) or its budget (budget.maxCostUsd) */
  stopReason?: 'interrupted' | 'budget'
  /** budget.maxCostUsd and what the run spent (target plus judge), when a budget was set */
  budget?: { maxCostUsd: number; spentUsd: number }
  /** cases the run set out to run (an incomplete run finished fewer) */
  planned?: number
  /** absent in records of evalgate before fingerprint version 2 */
  dataset?: DatasetFingerprint
  git: { sha: string | null; ref: string | null; runId: string | null }
  config?: { repeat: number; shard?: string | null; filter?: string | null }
  summary: RunSummary
  /** the figures of the last baseline runs (at most 20, oldest first), carried forward from the baseline */
  trend?: RunTrendPoint[]
  cases: CaseResult[]
}
