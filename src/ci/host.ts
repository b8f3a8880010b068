/**
 * What a CI host does for a change under review, whatever the host: GitHub's
 * pull requests (github/host.ts), GitLab's merge requests (gitlab/host.ts). A
 * third host (Bitbucket, Azure DevOps) is one module implementing `CiHost`
 * and finish.ts's `TailHost` (keep the record, publish the report), wired by
 * its entry point. The decisions around what a host answers — what a missing
 * or unreadable config at the base commit means, when a baseline is
 * stale — are made here, once for every host.
 */
import { staleBaseline, type StaleBaseline } from '../compare/staleness.js'
import type { BaselineStatus } from '../compare/types.js'
import { parseConfig } from '../config/load.js'
import { formatOf } from '../config/parse.js'
import type { RecordOptions } from '../config/record.js'
import type { GateConfig, ParsedConfig } from '../config/schema.js'
import { ConfigError, errorMessage, isUserError, UsageError } from '../errors.js'
import type { RunRecord } from '../types.js'

/** The baseline a host found, or why there is none; `Id` is how the host names the run (a workflow run id, a job id). */
export interface HostBaseline<Id> {
  record: RunRecord | null
  id: Id | null
  status: BaselineStatus
  /** for status error/incompatible: why (the verdict fails closed with it) */
  problem: string | null
  /** why there is none, what was skipped: shown in the log and the report */
  notices: string[]
}

export interface CiHost<Id> {
  /** how the host names a change and where it starts: pull request / base commit, merge request / diff base */
  readonly words: { change: string; base: string }
  /** a repository file's text at a commit; null when it does not exist there; throws, saying why, when it cannot be read */
  fileAt(file: string, sha: string): Promise<string | null>
  /** when a commit was committed (ISO 8601); null when that cannot be told */
  commitDate(sha: string): Promise<string | null>
  /**
   * The default branch's record this change is compared with, kept under
   * `name` (GitHub: the artifact; GitLab: the job). Failures are a status,
   * never thrown.
   */
  findBaseline(name: string, read: RecordOptions): Promise<HostBaseline<Id>>
}

/**
 * The config at the change's base commit: its trusted settings are
 * the ones the change is gated with. Not there (first adoption): null, with a
 * notice. Anything that keeps it from being read or parsed fails closed.
 */
export async function readBaseConfig(host: CiHost<unknown>, file: string, sha: string, notices: string[]): Promise<ParsedConfig | null> {
  const { change, base } = host.words
  const where = `${file} at the ${base} ${sha.slice(0, 7)}`
  let text: string | null
  try {
    text = await host.fileAt(file, sha)
  } catch (err) {
    throw new UsageError(`cannot read ${where}, whose gate settings a ${change} must use: ${errorMessage(err)}`)
  }
  if (text === null) {
    notices.push(`${where} does not exist (first adoption?): this ${change}'s own gate settings apply`)
    return null
  }
  try {
    return parseConfig(text, where, formatOf(file))
  } catch (err) {
    if (!isUserError(err)) throw err
    throw new ConfigError(`the ${base}'s config is not valid, so this ${change}'s gate cannot be trusted: ${err.message}`, err.file)
  }
}

/**
 * Is the baseline stale? Its age is measured against the change's
 * base commit (its date asked of the host), else against this run.
 */
export async function baselineStaleness(
  host: CiHost<unknown> | null,
  baseline: RunRecord | null,
  current: RunRecord,
  baseSha: string | null,
  gate: GateConfig
): Promise<StaleBaseline | null> {
  if (!baseline) return null
  const date = baseSha && host ? await host.commitDate(baseSha) : null
  return staleBaseline(baseline, current, { sha: baseSha, date }, gate)
}
