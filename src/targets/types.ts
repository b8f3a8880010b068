import type { EvalCase, TargetUsage } from '../types.js'

/** One trial's request to the agent under test. */
export interface TrialRequest {
  input: unknown
  case: EvalCase
  /** aborted on timeout or when the run is cut short; targets stop work and free resources */
  signal: AbortSignal
  /**
   * Calls `listener` once when the trial is aborted (at once if it already
   * is); returns the unsubscribe. Cheaper than `signal` where a target hears
   * of every trial's end (the sandbox); targets without it use `signal`.
   */
  onAbort?(listener: () => void): () => void
}

export interface TargetReply {
  output: string
  usage?: TargetUsage
  /** time spent in the target itself, start-up excluded (SPEC §10), where the target measures it */
  latencyMs?: number
  /** the result object the target returned (SPEC §10: output, toolCalls, usage, metadata), as it returned it */
  result?: object
}

/**
 * The agent under test. `call` resolves with the output or throws (any error:
 * the runner records its message on the trial and goes on).
 */
export interface Target {
  call(request: TrialRequest): Promise<TargetReply>
  close(): Promise<void>
}

export interface TargetContext {
  /** folder relative paths (module, cwd) are resolved against */
  baseDir: string
  /** where `${VAR}` values come from */
  env: NodeJS.ProcessEnv
  /** collects values read through `${VAR}`, to be redacted everywhere */
  secrets: Set<string>
}
