/**
 * The one pipeline behind the CLI, the action and the library:
 * loaded config → selected cases → run → record → comparison.
 */
import { asksGrader, needsJudge, preloadGrading, validateAssertion } from './assertions/index.js'
import { compareIfCompatible } from './compare/compatibility.js'
import type { Comparison } from './compare/types.js'
import { changedSince } from './config/fingerprint.js'
import { loadConfig, type LoadedConfig, type LoadOptions } from './config/load.js'
import { tracingOf, type ParsedConfig } from './config/schema.js'
import { withTrustedSettings, type ConfigChange } from './config/trusted.js'
import { attributeTo, ConfigError, errorMessage, UsageError } from './errors.js'
import { budgetSummary, buildRecord, redactDeep } from './run/record.js'
import { loadPriceList } from './targets/pricing.js'
import { joinResumed, resumedBudget, resumedJudge, type ResumePlan } from './run/resume.js'
import { watchJudgeSpread, withSpread } from './run/judge-spread.js'
import { runAsBaseline } from './run/as-baseline.js'
import { rerunFlips } from './run/rerun.js'
import { runCases, type RunnerOptions } from './run/runner.js'
import type { Progress } from './run/progress.js'
import { createJudge } from './judge/judge.js'
import { descendants, endLeftovers, newRunMark } from './sandbox/leftovers.js'
import { createSimulatedUsers, withSimulatedUser } from './run/simulated-user.js'
import { createTarget, warmTarget } from './targets/index.js'
import type { Assertion, EvalCase, RunRecord } from './types.js'
import { isSelected, type Selection, type Shard } from './compare/selection.js'
import { RUN_MARK } from './util/env.js'
import { gitFromEnv } from './util/git.js'

export { shardOf, type Shard } from './compare/selection.js'

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
  /**
   * where the files the baseline's assertions name are read when a changed
   * case is run as the baseline ran it: in a pull-request run, the base
   * commit's copies (github/trusted-files.ts); default the config's folder
   */
  baselineFiles?: string
  /** `run --resume`: the cases a run cut short finished are taken over, the rest run (run/resume.ts) */
  resume?: ResumePlan
  /** told things worth a line in the log (the trace receiver's URL) */
  log?: (line: string) => void
}

export interface Evaluation {
  record: RunRecord
  comparison: Comparison
  /** values read through `${VAR}`: already redacted from the record; redact them from anything else shown */
  secrets: Set<string>
  /** why the baseline could not be compared (other fingerprints): the comparison was made without it */
  incompatible: string | null
  /** processes the code under test left running, ended before the record was written */
  leftovers: number
  /** what the user should change though nothing failed (a target's result objects graded as text): for the log */
  warnings: string[]
}

export function loadEvalConfig(file: string, options: LoadOptions = {}): Promise<LoadedConfig> {
  return loadConfig(file, validateAssertion, {
    ...options,
    onConfig: (config) => {
      options.onConfig?.(config)
      warmTarget(config.target)
    }
  })
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

export function selectCases(cases: EvalCase[], selection: Selection): EvalCase[] {
  return cases.filter((c) => isSelected(c, selection))
}

/**
 * A filter that selects nothing is a usage error before anything runs, not a run
 * of no cases that then fails its floors. (An empty shard is not: a small
 * dataset split many ways can leave one shard nothing to do.)
 */
function checkFilter(cases: EvalCase[], filter: string | undefined): void {
  if (!filter || cases.some((c) => isSelected(c, { filter }))) return
  throw new UsageError(
    `--filter ${JSON.stringify(filter)} matches none of the ${cases.length} case${cases.length === 1 ? '' : 's'} (it looks for the text in case ids, names and tags, ignoring case)`
  )
}

/**
 * The config with the trusted settings of `base` — the config at the change's
 * base commit — in place of its own, and the trusted keys the
 * change alters (they apply after merge). Without a base, the config as it is.
 */
export async function loadTrustedConfig(
  file: string,
  base: ParsedConfig | null,
  /** a command judge's files as the base commit has them (github/trusted-files.ts): what grades, and what the change alters in them */
  judgeFiles?: { dir: string; changes: ConfigChange[] } | null
): Promise<{ loaded: LoadedConfig; changes: ConfigChange[] }> {
  let changes: ConfigChange[] = []
  const loaded = await loadEvalConfig(file, {
    settings: (head) => {
      if (!base) return head
      const trusted = withTrustedSettings(head, base)
      changes = [...trusted.changes, ...(judgeFiles?.changes ?? [])]
      return trusted.config
    },
    ...(judgeFiles ? { judgeDir: judgeFiles.dir } : {})
  })
  return { loaded, changes }
}

/** The trace receiver and the trials' collector, when the config turns tracing on. */
async function startTracing(loaded: LoadedConfig, log: ((line: string) => void) | undefined) {
  const settings = tracingOf(loaded.config.tracing)
  if (!settings) return undefined
  // loaded only for a traced run: the OTLP decoder (protobufjs) stays out of every other run's start-up
  const [{ TraceCollector }, { startReceiver, TRACES_PATH }] = await Promise.all([import('./tracing/collector.js'), import('./tracing/receiver.js')])
  const collector = new TraceCollector({ waitMs: settings.waitMs, maxSpans: settings.maxSpansPerTrial })
  let receiver
  try {
    receiver = await startReceiver({ port: settings.port, onSpans: (spans) => collector.add(spans) })
  } catch (err) {
    throw new ConfigError(`tracing: cannot listen on 127.0.0.1:${settings.port ?? 0}: ${errorMessage(err)} (tracing.port)`, loaded.file)
  }
  log?.(`evalgate: receiving traces at ${receiver.url}${TRACES_PATH} (OTLP/HTTP, JSON or protobuf)`)
  return { collector, receiver }
}

export async function evaluate(loaded: LoadedConfig, options: EvaluateOptions = {}): Promise<Evaluation> {
  const { config } = loaded
  const env = options.env ?? process.env
  const secrets = new Set<string>()
  const warnings: string[] = []
  checkFilter(loaded.cases, options.filter)
  const { resume } = options
  const selected = selectCases(loaded.cases, options)
  const cases = resume ? selected.filter((c) => !resume.keys.has(c.id)) : selected
  const repeat = options.repeat ?? config.repeat
  // a resumed run is the run that began then
  const createdAt = resume?.createdAt ?? (options.now ?? (() => new Date()))().toISOString()
  const spentBefore = resume?.spentUsd ?? 0
  // what the code under test leaves running is ended before the record is written: the processes
  // below this one that were not there before, and those that carry this run's mark
  const before = await descendants()
  const mark = newRunMark()
  // what grading loads on demand is loaded before the target's code runs: a chunk rewritten meanwhile is never read
  await preloadGrading()
  // a model API's replies are priced from the maintained list, another module loaded on demand
  if (config.target.openai || config.target.provider !== undefined || config.target.promptfoo) await loadPriceList()
  // the receiver first: the target's processes and module are told where to export
  const tracing = await startTracing(loaded, options.log)
  // what is found wrong only now (an unset ${VAR}, an agent module that does not load) is still the config's
  let target
  try {
    target = await attributeTo(loaded.file, () =>
      createTarget(config.target, {
        baseDir: loaded.baseDir,
        env: { ...env, [RUN_MARK]: mark },
        secrets,
        checkTimeoutMs: config.checkTimeoutMs,
        warn: (message) => warnings.push(message),
        otlpEndpoint: tracing?.receiver.url
      })
    )
  } catch (err) {
    await tracing?.receiver.close()
    throw err
  }
  // made only when a case asks a grader; its key is checked (before anything runs) only when some check falls
  // back to the judge itself: checks that name their own grader need the judge's settings, not its key
  const graded = config.judge !== undefined && cases.some((c) => checksOf(c).some(asksGrader))
  const judge = graded
    ? attributeTo(loaded.file, () =>
        createJudge(config.judge!, {
          env,
          secrets,
          baseline: options.baseline ?? null,
          baseDir: loaded.baseDir,
          judgeDir: loaded.judgeDir,
          pricing: config.pricing,
          needed: cases.some((c) => checksOf(c).some(needsJudge))
        })
      )
    : undefined
  const spread = judge ? watchJudgeSpread(judge.judge) : undefined
  const users = cases.some((c) => c.simulate)
    ? createSimulatedUsers({ env, secrets, judge: config.judge, pricing: config.pricing, baseDir: loaded.baseDir })
    : undefined
  // as the judge's key is: a simulated user that cannot be played stops the run before it starts, not every case
  const unplayable = users && cases.flatMap((c) => (c.simulate ? [users.unusable(c.simulate)] : [])).find((why) => why !== undefined)
  if (unplayable) {
    await Promise.all([target.close(), judge?.close(), users?.close(), tracing?.receiver.close()])
    throw new ConfigError(`${loaded.file}: a simulated user cannot be played: ${unplayable}`, loaded.file)
  }
  const runner: RunnerOptions = {
    concurrency: config.concurrency,
    repeat,
    repeatPassThreshold: config.repeatPassThreshold,
    timeoutMs: config.target.timeoutMs,
    checkTimeoutMs: config.checkTimeoutMs,
    judge: spread?.judge,
    embed: judge?.embed,
    grade: judge?.grade,
    defaultJudgeThreshold: config.judge?.threshold,
    signal: options.signal,
    onCase: options.progress ? (r) => options.progress!.onCase(r) : undefined,
    pricing: config.pricing,
    model: config.target.openai?.model,
    tools: config.target.tools,
    // the simulated users' calls are the judge's spend; a resumed run's budget is what its first part left
    budget: config.budget && {
      maxCostUsd: config.budget.maxCostUsd - spentBefore,
      judgeCostUsd: () => (judge?.stats().costUsd ?? 0) + (users?.stats().costUsd ?? 0)
    },
    simulatedUser: users,
    // loadConfig validated every assertion as it read the cases
    validated: true,
    tracing: tracing?.collector
  }
  let outcome
  let ended: number[] = []
  try {
    outcome = await runCases(cases, target, runner)
    if (options.baseline && config.rerunFlips > 0) {
      // flips get more trials before anything is called a regression (their verdict is taken over all)
      const again = await rerunFlips(cases, outcome.cases, options.baseline, target, config.rerunFlips, runner)
      outcome = {
        ...outcome,
        cases: again.cases,
        durationMs: outcome.durationMs + again.durationMs,
        targetCostUsd: outcome.targetCostUsd + again.targetCostUsd
      }
    }
    if (options.baseline && outcome.complete) {
      // a changed case that passed on the baseline is run as the baseline ran it: rewriting its checks cannot hide it
      const again = await runAsBaseline(cases, outcome.cases, options.baseline, target, runner, options.baselineFiles ?? loaded.baseDir)
      outcome = {
        ...outcome,
        cases: again.cases,
        durationMs: outcome.durationMs + again.durationMs,
        targetCostUsd: outcome.targetCostUsd + again.targetCostUsd,
        // cut short, its cases would read as merely changed: the run is as incomplete as if they had not run
        ...(again.complete ? {} : { complete: false, stopReason: again.stopReason ?? 'interrupted' })
      }
    }
  } finally {
    options.progress?.finish()
    await Promise.all([target.close(), judge?.close(), users?.close()])
    if (tracing) {
      await tracing.receiver.close()
      const { unknownSpans, cappedTrials } = tracing.collector
      if (unknownSpans) options.log?.(`evalgate: tracing: ${unknownSpans} span${unknownSpans === 1 ? '' : 's'} of traces no trial opened were dropped`)
      if (cappedTrials)
        options.log?.(
          `evalgate: tracing: ${cappedTrials} trial${cappedTrials === 1 ? '' : 's'} sent more than tracing.maxSpansPerTrial (${tracingOf(loaded.config.tracing)!.maxSpansPerTrial}) spans; the rest are counted as dropped in their trace summaries`
        )
    }
    ended = await endLeftovers(mark, before)
  }
  // what graded must be what was fingerprinted: a check rewritten while the cases ran (by the code under test) is caught here
  const changedDuringRun = loaded.gradingFiles ? changedSince(loaded.gradingFiles, loaded.baseDir) : []
  const judgeFigures = withSimulatedUser(judge?.stats(), users?.stats())
  const record = redactDeep(
    buildRecord({
      name: config.name,
      dataset: loaded.dataset,
      cases: resume ? joinResumed(resume, outcome.cases) : outcome.cases,
      complete: outcome.complete,
      stopReason: outcome.stopReason,
      planned: selected.length,
      changedDuringRun,
      budget: config.budget && resumedBudget(budgetSummary(config.budget.maxCostUsd, outcome.cases, outcome.targetCostUsd, judgeFigures), resume),
      durationMs: outcome.durationMs + (resume?.durationMs ?? 0),
      createdAt,
      git: options.git ?? gitFromEnv(env),
      repeat,
      repeatPassThreshold: config.repeatPassThreshold,
      rerunFlips: config.rerunFlips,
      shard: options.shard ? `${options.shard.index}/${options.shard.count}` : null,
      filter: options.filter || null,
      judge: resumedJudge(withSpread(judgeFigures, spread?.spread()), resume),
      baseline: options.baseline,
      resumed: resume && { cases: resume.done.length, from: resume.createdAt }
    }),
    secrets
  )
  const { comparison, incompatible } = compareIfCompatible(options.baseline ?? null, record, config.gate)
  return { record, comparison, secrets, incompatible, leftovers: ended.length, warnings }
}

/** Every check of a case: its own, and a conversation's turns'. */
function checksOf(c: EvalCase): Assertion[] {
  return c.turns ? [...c.assert, ...c.turns.flatMap((t) => t.assert)] : c.assert
}
