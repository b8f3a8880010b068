/**
 * What evalgate's artifacts are called and hold: the run record (with a
 * re-run's `-attempt-<n>` suffix) and the shard records of a sharded run.
 * Upload, download, shard collection and the baseline lookup all name
 * artifacts through these, so a name written is a name found.
 */
import type { Shard } from '../../engine.js'

/** The file of the uploaded artifact: the run record. */
export const RECORD_FILE = 'run.json'
/** The reports written beside it on the runner (outputs report-path, html-path, json-path), for a workflow to keep. */
export const REPORT_FILE = 'report.md'
export const HTML_FILE = 'report.html'
export const JSON_FILE = 'comparison.json'

/** The artifact a run of the config `configName` is published as, unless the action's `artifact-name` says otherwise. */
export function recordArtifactName(configName: string): string {
  return `evalgate-${configName}`
}

/** The name an artifact takes on a later attempt of the same run when `name` is taken. */
export function attemptName(name: string, attempt: number): string {
  return `${name}-attempt-${attempt}`
}

/** Does an artifact called `candidate` hold the run record published as `name`? */
export function isRecordArtifactName(candidate: string, name: string): boolean {
  return candidate === name || (candidate.startsWith(`${name}-attempt-`) && /^\d+$/.test(candidate.slice(name.length + '-attempt-'.length)))
}

/** The artifact one shard of a sharded run uploads: `<name>-shard-<i>-of-<n>`. */
export function shardArtifactName(name: string, shard: Shard): string {
  return `${name}-shard-${shard.index}-of-${shard.count}`
}

/** The artifact a shard job leaves when the record it uploaded as `uploaded` is not the one it computed. */
export function unverifiedArtifactName(uploaded: string): string {
  return `${uploaded}-unverified`
}

/** The attempt an artifact of `name` was uploaded by: its `-attempt-<k>` suffix, else 1. */
export function attemptOfArtifactName(candidate: string): number {
  const m = /-attempt-(\d+)(?:-unverified)?$/.exec(candidate)
  return m ? Number(m[1]) : 1
}

/** Which shard an artifact called `candidate` holds, if it is one of `name`'s (a re-run's `-attempt-<k>` included). */
export function shardOfArtifactName(candidate: string, name: string): Shard | null {
  const prefix = `${name}-shard-`
  if (!candidate.startsWith(prefix)) return null
  const m = /^(\d+)-of-(\d+)(?:-attempt-\d+)?$/.exec(candidate.slice(prefix.length))
  if (!m) return null
  const shard = { index: Number(m[1]), count: Number(m[2]) }
  return shard.index >= 1 && shard.index <= shard.count ? shard : null
}
