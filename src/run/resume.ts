/**
 * `run --resume PARTIAL.json`: a run cut short (Ctrl-C, SIGTERM, a
 * budget) goes on from where it stopped. The cases it finished are taken
 * over as they are, the others run now, and the whole run is written, as one
 * uninterrupted run would have written it.
 *
 * Only what is still true is taken over: a finished case whose key or
 * fingerprint no longer matches the dataset runs again, and a record of
 * another config, another commit or other settings is refused rather than
 * mixed into this run.
 */
import { UsageError } from '../errors.js'
import type { LoadedConfig } from '../config/load.js'
import type { CaseResult, JudgeSummary, RunRecord } from '../types.js'
import { sumJudge } from './record.js'
import { FINGERPRINT_VERSION } from '../config/fingerprint.js'
import { isSelected, type Shard } from '../compare/selection.js'

/** What the earlier run leaves this one. */
export interface ResumePlan {
  /** the file it was read from, for messages */
  file: string
  /** finished cases taken over, each with its index in today's dataset */
  done: CaseResult[]
  /** keys of those cases: the run leaves them out */
  keys: ReadonlySet<string>
  /** the earlier run's own figures, added to this run's */
  createdAt: string
  durationMs: number
  judge: JudgeSummary
  /** what the earlier run spent of a budget (target plus judge), and the trials it could not count */
  spentUsd: number
  uncountedTrials: number
  /** the selection the earlier run made: this run makes the same */
  filter?: string
  shard?: Shard
  repeat: number
  /** finished cases that changed since and so run again */
  changed: string[]
}

export interface ResumeRequest {
  /** flags given with --resume: each must agree with the earlier run's */
  filter?: string
  shard?: Shard
  repeat?: number
  /** this checkout's commit, when git knows it */
  sha: string | null
}

const shardText = (shard: Shard | undefined) => (shard ? `${shard.index}/${shard.count}` : undefined)

function parseShardText(text: string | null | undefined): Shard | undefined {
  const m = text ? /^(\d+)\/(\d+)$/.exec(text) : null
  return m ? { index: Number(m[1]), count: Number(m[2]) } : undefined
}

/** What to take over from `partial` and what is left to run; throws a UsageError when it cannot be resumed here. */
export function planResume(partial: RunRecord, file: string, loaded: LoadedConfig, request: ResumeRequest): ResumePlan {
  const refuse = (why: string): never => {
    throw new UsageError(`--resume ${file}: ${why}`)
  }
  if (partial.complete) refuse(`nothing to resume: it is a complete run (${partial.cases.length} cases); run again without --resume for a new run`)
  if (partial.name !== loaded.config.name) refuse(`it is a run of "${partial.name}", but ${loaded.file} is the config of "${loaded.config.name}"`)
  if (partial.fingerprintVersion !== FINGERPRINT_VERSION)
    refuse(
      `it was made by an evalgate whose fingerprints are of version ${partial.fingerprintVersion} (this one: ${FINGERPRINT_VERSION}); run again without --resume`
    )
  if (partial.git.sha && request.sha && partial.git.sha !== request.sha)
    refuse(
      `it was cut short at commit ${partial.git.sha.slice(0, 12)}, and this checkout is at ${request.sha.slice(0, 12)}: ` +
        `its finished cases ran another version of the agent. Check out ${partial.git.sha.slice(0, 12)} to resume it, or run again without --resume`
    )
  const filter = agree('--filter', request.filter, partial.config?.filter ?? undefined, refuse)
  const shard = parseShardText(agree('--shard', shardText(request.shard), partial.config?.shard ?? undefined, refuse))
  const repeat = Number(agree('--repeat', request.repeat?.toString(), String(partial.config?.repeat ?? 1), refuse))

  const current = new Map(loaded.cases.map((c) => [c.id, c]))
  const done: CaseResult[] = []
  const changed: string[] = []
  for (const finished of partial.cases) {
    const now = current.get(finished.id)
    // a case no longer in the dataset, or no longer selected, is not part of this run
    if (!now || !isSelected(now, { filter, shard })) continue
    if (now.fingerprint !== finished.fingerprint) {
      changed.push(finished.id)
      continue
    }
    done.push({ ...finished, index: now.index })
  }
  return {
    file,
    done,
    keys: new Set(done.map((c) => c.id)),
    createdAt: partial.createdAt,
    durationMs: partial.summary.durationMs,
    judge: partial.summary.judge,
    spentUsd: partial.budget?.spentUsd ?? 0,
    uncountedTrials: partial.budget?.uncountedTrials ?? 0,
    filter,
    shard,
    repeat,
    changed
  }
}

/** The flag's value, else the earlier run's; a flag that differs from the earlier run's is refused. */
function agree(flag: string, given: string | undefined, earlier: string | undefined, refuse: (why: string) => never): string | undefined {
  if (given !== undefined && earlier !== undefined && given !== earlier)
    refuse(`it ran with ${flag} ${earlier}, not ${given}: resume it with the same ${flag}, or leave ${flag} out`)
  if (given !== undefined && earlier === undefined && flag !== '--repeat') refuse(`it ran without ${flag}: leave ${flag} out to resume it`)
  return earlier ?? given
}

/** The earlier run's finished cases and this run's, in dataset order. */
export function joinResumed(plan: ResumePlan, cases: CaseResult[]): CaseResult[] {
  return [...plan.done, ...cases].sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
}

/** The budget of the whole run: what the earlier part spent, and the trials it could not count, added. */
export function resumedBudget(budget: NonNullable<RunRecord['budget']>, plan: ResumePlan | undefined): NonNullable<RunRecord['budget']> {
  if (!plan) return budget
  const uncountedTrials = (budget.uncountedTrials ?? 0) + plan.uncountedTrials
  return { ...budget, spentUsd: budget.spentUsd + plan.spentUsd, ...(uncountedTrials ? { uncountedTrials } : {}) }
}

/** The judge figures of the whole run. */
export function resumedJudge(judge: JudgeSummary | undefined, plan: ResumePlan | undefined): JudgeSummary | undefined {
  if (!plan) return judge
  return sumJudge(judge ? [plan.judge, judge] : [plan.judge])
}
