/**
 * The one pipeline behind the CLI, the action and the library:
 * loaded config → selected cases → run → record → comparison.
 */
import { validateAssertion } from './assertions/index.js'
import { compareRuns } from './compare/index.js'
import type { Comparison } from './compare/types.js'
import { loadConfig, type LoadedConfig } from './config/load.js'
import { attributeTo, UsageError } from './errors.js'
import { buildRecord, redactDeep } from './run/record.js'
import { watchJudgeSpread, withSpread } from './run/judge-spread.js'
import { rerunFlips } from './run/rerun.js'
import { runCases, type RunnerOptions } from './run/runner.js'
import type { Progress } from './run/progress.js'
import { createJudge } from './llm/judge.js'
import { createTarget } from './targets/index.js'
import type { EvalCase, RunRecord } from './types.js'
import { contentHash } from './util/hash.js'

export interface Shard {
  /** 1-based */
  index: number
  count: number
}

export interface EvaluateOptions {
  /** the run compared against (read with `{ onCase: datasetSharer(loaded.cases) }`, it shares equal values with the dataset: run/share.ts) */
  baseline?: RunRecord | null
  env?: NodeJS.ProcessEnv
  /** keep cases whose id, name or a tag contains this text (case-insensitive) */
  filter?: string
  shard?: Shard
  /** overrides the config's `repeat` */
  repeat?: number
  signal?: AbortSignal
  progress?: Progress
  git?: RunRecord['git']
  now?: () => Date
}

export interface Evaluation {
  record: RunRecord
  comparison: Comparison
  /** values read through `${VAR}`: already redacted from the record; redact them from anything else shown */
  secrets: Set<string>
}

export function loadEvalConfig(file: string): Promise<LoadedConfig> {
  return loadConfig(file, validateAssertion)
}

/** "2/4" → shard 2 of 4; `option` names where the text came from (`--shard`, the action's `shard:`). */
export function parseShard(text: string, option = '--shard'): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim())
  const index = m ? Number(m[1]) : NaN
  const count = m ? Number(m[2]) : NaN
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`${option} "${text}": use i/n with 1 ≤ i ≤ n, e.g. 1/4`)
  }
  return { index, count }
}

/** The deterministic shard of a case: its key's hash modulo the shard count. */
export function shardOf(caseId: string, count: number): number {
  return (parseInt(contentHash(caseId, 8), 16) % count) + 1
}

export function selectCases(cases: EvalCase[], options: { filter?: string; shard?: Shard }): EvalCase[] {
  const needle = options.filter?.toLowerCase()
  return cases.filter((c) => {
    if (options.shard && shardOf(c.id, options.shard.count) !== options.shard.index) return false
    if (!needle) return true
    return c.id.toLowerCase().includes(needle) || c.name.toLowerCase().includes(needle) || c.tags.some((t) => t.toLowerCase().includes(needle))
  })
}

export function gitFromEnv(env: NodeJS.ProcessEnv): RunRecord['git'] {
  return { sha: env.GITHUB_SHA ?? null, ref: env.GITHUB_REF ?? null, runId: env.GITHUB_RUN_ID ?? null }
}

export async function evaluate(loaded: LoadedConfig, options: EvaluateOptions = {}): Promise<Evaluation> {
  const { config } = loaded
  const env = options.env ?? process.env
  const secrets = new Set<string>()
  const cases = selectCases(loaded.cases, options)
  const repeat = options.repeat ?? config.repeat
  const createdAt = (options.now ?? (() => new Date()))().toISOString()
  // what is found wrong only now (an unset ${VAR}, an agent module that does not load) is still the config's
  const target = await attributeTo(loaded.file, () => createTarget(config.target, { baseDir: loaded.baseDir, env, secrets }))
  const judge = config.judge ? attributeTo(loaded.file, () => createJudge(config.judge!, { env, secrets, baseline: options.baseline ?? null, baseDir: loaded.baseDir })) : undefined
  const spread = judge ? watchJudgeSpread(judge.judge) : undefined
  const runner: RunnerOptions = {
    concurrency: config.concurrency,
    repeat,
    repeatPassThreshold: config.repeatPassThreshold,
    timeoutMs: config.target.timeoutMs,
    checkTimeoutMs: config.checkTimeoutMs,
    judge: spread?.judge,
    defaultJudgeThreshold: config.judge?.threshold,
    signal: options.signal,
    onCase: options.progress ? (r) => options.progress!.onCase(r) : undefined
  }
  let outcome
  try {
    outcome = await runCases(cases, target, runner)
    if (options.baseline && config.rerunFlips > 0) {
      // flips get more trials before anything is called a regression (their verdict is taken over all)
      const again = await rerunFlips(cases, outcome.cases, options.baseline, target, config.rerunFlips, runner)
      outcome = { ...outcome, cases: again.cases, durationMs: outcome.durationMs + again.durationMs }
    }
  } finally {
    options.progress?.finish()
    await Promise.all([target.close(), judge?.close()])
  }
  const record = redactDeep(
    buildRecord({
      name: config.name,
      cases: outcome.cases,
      complete: outcome.complete,
      durationMs: outcome.durationMs,
      createdAt,
      git: options.git ?? gitFromEnv(env),
      repeat,
      shard: options.shard ? `${options.shard.index}/${options.shard.count}` : null,
      judge: withSpread(judge?.stats(), spread?.spread()),
      baseline: options.baseline
    }),
    secrets
  )
  const comparison = compareRuns(options.baseline ?? null, record, config.gate)
  return { record, comparison, secrets }
}
