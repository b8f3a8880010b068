/**
 * The zod schema of the run record and the types of its parts,
 * inferred from it: what the engine writes and what the reader accepts are
 * one definition, so neither can gain a field the other does not know.
 */
import { z } from 'zod'
import { toolCallSchema } from '../util/tool-calls.js'
import { assertionSchema } from './schema.js'

export const RECORD_SCHEMA_VERSION = 1

export const judgeVerdictSchema = z.object({
  model: z.string(),
  score: z.number(),
  reason: z.string(),
  error: z.string().optional(),
  /** the judge could not be reached (its error is an outage, not an answer): the case is not graded */
  unavailable: z.literal(true).optional(),
  reused: z.boolean().optional(),
  tokens: z.number().optional(),
  /** hash of model + rubric + input + output, the key of verdict reuse */
  key: z.string(),
  /** the scores of each sample with judge.samples > 1 (the verdict's score is their median) */
  samples: z.array(z.number()).optional(),
  /** a model-graded check's own pass (factuality, closedqa…), which its score alone does not decide */
  pass: z.boolean().optional()
})

export const assertionResultSchema = z.object({
  type: z.string(),
  passed: z.boolean(),
  score: z.number(),
  reason: z.string(),
  weight: z.number().optional(),
  /** set when the check itself threw (javascript) or the judge failed */
  error: z.string().optional(),
  /** llm-rubric verdicts */
  judge: judgeVerdictSchema.optional()
})

/** a count, a cost or a time: evalgate never writes a negative one, and a record that holds one is refused, not compared */
const amount = z.number().min(0)

/**
 * What one trial of the target consumed. Records made before
 * result objects kept `promptTokens`/`completionTokens`: they are read as
 * input and output tokens.
 */
export const usageSchema = z
  .object({
    inputTokens: amount.optional(),
    outputTokens: amount.optional(),
    totalTokens: amount.optional(),
    costUsd: amount.optional(),
    promptTokens: amount.optional(),
    completionTokens: amount.optional()
  })
  .transform(({ promptTokens, completionTokens, ...u }) => {
    if (u.inputTokens === undefined && promptTokens !== undefined) u.inputTokens = promptTokens
    if (u.outputTokens === undefined && completionTokens !== undefined) u.outputTokens = completionTokens
    return u
  })

/** What the record keeps of a trial's trace: its id, its spans counted, its error spans named. */
export const traceSummarySchema = z.object({
  traceId: z.string(),
  /** spans kept for the trial */
  spans: amount,
  /** spans over tracing.maxSpansPerTrial, not kept */
  dropped: amount.optional(),
  /** spans that arrived after the trial was graded */
  late: amount.optional(),
  errorCount: amount,
  /** the first error spans by start time */
  errorSpans: z.array(z.object({ name: z.string(), message: z.string().optional() })).optional()
})

/**
 * What an agent reports besides its output, in a result object or through its
 * trace: one shape for a target's reply, the checks' context, the context code
 * checks receive and the record.
 */
export const agentResultSchema = z.object({
  toolCalls: z.array(toolCallSchema).optional(),
  usage: usageSchema.optional(),
  /** time spent in the target, start-up excluded */
  latencyMs: amount.optional(),
  /** the result object's `metadata` */
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** why the model stopped, for `finish-reason` */
  finishReason: z.string().optional()
})

/** What a trial and a case keep of the agent's report. */
const agentFields = {
  ...agentResultSchema.shape,
  /** with tracing on: the trace of the trial (of a case: of the trial shown) */
  trace: traceSummarySchema.optional()
}

/**
 * One turn of a conversation as it ran: what the user said, what
 * the agent answered (null when the turn failed, with `error`), and that
 * reply's checks, each reason beginning "turn N:".
 */
export const turnResultSchema = z.object({
  user: z.string(),
  output: z.string().nullable(),
  error: z.string().optional(),
  latencyMs: amount.optional(),
  usage: usageSchema.optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  assertions: z.array(assertionResultSchema).optional()
})

/** promptfoo `metric`s: the weighted mean score of each metric's assertions */
const namedScores = z.record(z.string(), z.number())

export const trialResultSchema = z.object({
  passed: z.boolean(),
  output: z.string().nullable(),
  error: z.string().nullable(),
  score: z.number().nullable(),
  durationMs: z.number(),
  assertions: z.array(assertionResultSchema),
  ...agentFields,
  namedScores: namedScores.optional(),
  /** a conversation's transcript */
  turns: z.array(turnResultSchema).optional()
})

/**
 * One assertion as the engine runs it: what evalgate.yml accepts,
 * plus what only a promptfoo config gives. In a record (`ran`), files are
 * named relative to the config's folder.
 */
export const runAssertionSchema = assertionSchema.extend({
  /** promptfoo configs: JavaScript run on the output before this assertion grades it */
  transform: z.string().optional(),
  /** promptfoo configs: the index of the assert-set (PromptfooCase.sets) this assertion belongs to */
  set: z.number().int().min(0).optional()
})

/** How a case read from a promptfoo config is run and graded. */
export const promptfooCaseSchema = z.object({
  /** the test's `description`, which its checks read as `context.test.description` (not part of how it is graded) */
  description: z.string().optional(),
  /** the index of its provider in `target.promptfoo.providers` */
  provider: z.number().int().min(0),
  /** the test's `options.transform`: JavaScript run on the provider's output before any assertion sees it */
  transform: z.string().optional(),
  /** the test's `threshold`: the case passes when the weighted mean of its assertion scores reaches it */
  threshold: z.number().optional(),
  /** its assert-sets; their assertions are in `assert`, each with `set` naming its set */
  sets: z.array(z.object({ threshold: z.number().optional(), weight: z.number().optional(), metric: z.string().optional() })).optional(),
  /**
   * a prompt that reads `_conversation`: the tests of one key run in
   * order, the prompt rendered at run time with the earlier ones' entries
   */
  conversation: z
    .object({ key: z.string(), template: z.string(), env: z.record(z.string(), z.unknown()).optional(), blind: z.literal(true).optional() })
    .optional()
})

/**
 * How a case ran: its assertions (files relative to the
 * config's folder), and the vars, metadata and promptfoo grading its checks
 * read — with the case's `input`, what a later run needs to run it "as the
 * baseline ran it".
 */
export const caseRanSchema = z.object({
  assert: z.array(runAssertionSchema),
  vars: z.record(z.string(), z.unknown()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  promptfoo: promptfooCaseSchema.optional()
})

/** Where a case came from, for messages and annotations. */
export const caseSourceSchema = z.object({ file: z.string(), line: z.number().optional() })

export const caseResultSchema = z.object({
  /** the key that matches the case across runs: the user's id, else a hash of the input */
  id: z.string(),
  /** the case's position in the whole dataset (EvalCase.index): merged shards are put back in this order */
  index: z.number().int().min(0).optional(),
  name: z.string(),
  tags: z.array(z.string()),
  fingerprint: z.string(),
  /** absent when the case's input was undefined (a library case), which JSON does not keep */
  input: z.unknown().optional(),
  /** everything the user wrote about expectations, for the report ("expected") */
  expected: z.unknown().optional(),
  passed: z.boolean(),
  passFraction: z.number().min(0).max(1),
  output: z.string().nullable(),
  error: z.string().nullable(),
  score: z.number().nullable(),
  durationMs: z.number(),
  assertions: z.array(assertionResultSchema),
  trials: z.array(trialResultSchema).optional(),
  // of a case: the tool calls of the trial shown (the one agreeing with its verdict),
  // usage summed over trials (costUsd from the target or from `pricing`), the mean latency
  ...agentFields,
  source: caseSourceSchema.optional(),
  /**
   * Results of the runs before this one with the same fingerprint, oldest
   * first, "P" passed, "F" failed: the baseline's history plus the baseline's
   * result, at most 20 (see compare/history.ts)
   */
  history: z
    .string()
    .regex(/^[PF]*$/, 'a history is a string of P (passed) and F (failed)')
    .optional(),
  /** trials added after the main pass because the case flipped against the baseline (rerunFlips); they are the last ones in `trials` */
  reruns: z.number().int().min(0).optional(),
  namedScores: namedScores.optional(),
  /** how the case ran, for a later run to run it as this one did; absent in records before it was kept */
  ran: caseRanSchema.optional(),
  /**
   * a case whose fingerprint differs from the baseline's, where it passed:
   * what it did when run with the baseline's input and assertions against
   * this run's target
   */
  asBaseline: z
    .object({
      passed: z.boolean(),
      passFraction: z.number().min(0).max(1),
      output: z.string().nullable(),
      error: z.string().nullable(),
      score: z.number().nullable(),
      assertions: z.array(assertionResultSchema),
      trials: z.array(trialResultSchema).optional()
    })
    .optional(),
  /** a conversation's transcript: the shown trial's */
  turns: z.array(turnResultSchema).optional()
})

export const judgeSummarySchema = z.object({
  calls: z.number(),
  reused: z.number(),
  errors: z.number(),
  tokens: z.number(),
  /** what the judge's calls cost, from `pricing` (when the judge model has a price) */
  costUsd: z.number().optional(),
  /** verdicts asked with judge.samples > 1 (reused ones not counted) */
  sampled: z.number().optional(),
  /** of those, verdicts whose samples fell on both sides of the pass threshold */
  disagreements: z.number().optional(),
  /** the simulated users' calls, whose tokens and cost are counted in `tokens` and `costUsd` */
  simulatedUser: z.object({ calls: z.number(), errors: z.number(), tokens: z.number(), costUsd: z.number().optional() }).optional()
})

/** A named metric over a run: the mean of the case scores that have it (promptfoo's `metric`). */
export const namedScoreSchema = z.object({ score: z.number(), cases: z.number() })

export const runSummarySchema = z.object({
  total: z.number(),
  passed: z.number(),
  failed: z.number(),
  errors: z.number(),
  passRate: z.number(),
  meanScore: z.number().nullable(),
  durationMs: z.number(),
  judge: judgeSummarySchema,
  /** trials spent re-running flipped cases (rerunFlips), when any */
  reruns: z.number().optional(),
  /** promptfoo `metric`s over the run, when any case has one */
  namedScores: z.record(z.string(), namedScoreSchema).optional()
})

/** One earlier run on the baseline branch, as the trend chart shows it. */
export const runTrendPointSchema = z.object({ sha: z.string().nullable(), createdAt: z.string(), passRate: z.number(), meanScore: z.number().nullable() })

/** The dataset a record was made from (config/fingerprint.ts): every case's key and fingerprint, before any shard or filter. */
export const datasetFingerprintSchema = z.object({
  fingerprint: z.string(),
  /** how many cases the whole dataset has */
  cases: z.number().int().min(0)
})

export const runRecordSchema = z.object({
  schemaVersion: z.literal(RECORD_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('evalgate'), version: z.string() }),
  /** what the cases' fingerprints cover (config/fingerprint.ts); records from before the field fingerprinted as version 1 did */
  fingerprintVersion: z.number().int().min(1).default(1),
  name: z.string(),
  createdAt: z.string(),
  complete: z.boolean().default(true),
  /** why an incomplete run stopped: interrupted (a signal) or its budget (budget.maxCostUsd) */
  stopReason: z.enum(['interrupted', 'budget']).optional(),
  /** budget.maxCostUsd and what the run spent (target plus judge), when a budget was set */
  budget: z
    .object({
      maxCostUsd: z.number(),
      spentUsd: z.number(),
      /** trials that answered without a cost (no usage, or a model missing from `pricing`): the budget could not count them */
      uncountedTrials: z.number().int().min(0).optional(),
      /** judge tokens without a price (its model missing from `pricing`): the budget could not count them */
      uncountedJudgeTokens: z.number().int().min(0).optional()
    })
    .optional(),
  /** cases the run set out to run (an incomplete run finished fewer) */
  planned: z.number().int().min(0).optional(),
  /**
   * files that grade the cases (checks, their imports, a command judge's
   * script), relative to the config's folder, whose bytes changed while the
   * run was in progress: what graded them is not what the fingerprints say
   *; such a run cannot support a verdict
   */
  changedDuringRun: z.array(z.string()).optional(),
  /** `run --resume`: how many finished cases were taken over from the run cut short that began at `from` (its createdAt, also this record's) */
  resumed: z.object({ cases: z.number().int().min(0), from: z.string() }).optional(),
  /** absent in records of evalgate before fingerprint version 2 */
  dataset: datasetFingerprintSchema.optional(),
  git: z.object({ sha: z.string().nullable(), ref: z.string().nullable(), runId: z.string().nullable() }),
  config: z
    .object({
      repeat: z.number(),
      shard: z.string().nullable().optional(),
      filter: z.string().nullable().optional(),
      /** how a case's trials were folded and flips re-run: what the sensitivity of a comparison is computed from */
      repeatPassThreshold: z.number().optional(),
      rerunFlips: z.number().int().min(0).optional()
    })
    .optional(),
  summary: runSummarySchema,
  /** the figures of the last baseline runs (at most 20, oldest first), carried forward from the baseline */
  trend: z.array(runTrendPointSchema).max(100).optional(),
  cases: z.array(caseResultSchema)
})

// The types are what the reader gives (z.output: defaults filled in, old usage
// keys renamed); the engine writes values of these types, which the schema
// accepts as they are (__tests__/config/record-schema.test.ts holds both to that).
export type JudgeVerdict = z.output<typeof judgeVerdictSchema>
export type RunAssertion = z.output<typeof runAssertionSchema>
export type PromptfooCase = z.output<typeof promptfooCaseSchema>
export type CaseRan = z.output<typeof caseRanSchema>
export type AssertionResult = z.output<typeof assertionResultSchema>
export type Usage = z.output<typeof usageSchema>
export type AgentResult = z.output<typeof agentResultSchema>
export type TraceSummary = z.output<typeof traceSummarySchema>
export type TrialResult = z.output<typeof trialResultSchema>
export type TurnResult = z.output<typeof turnResultSchema>
export type CaseResult = z.output<typeof caseResultSchema>
export type JudgeSummary = z.output<typeof judgeSummarySchema>
export type NamedScore = z.output<typeof namedScoreSchema>
export type RunSummary = z.output<typeof runSummarySchema>
export type RunTrendPoint = z.output<typeof runTrendPointSchema>
export type DatasetFingerprint = z.output<typeof datasetFingerprintSchema>
export type RunRecord = z.output<typeof runRecordSchema>
