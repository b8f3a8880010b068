/** Collecting the shard records this run's shard jobs uploaded, for mode: merge. */
import { errorMessage, RecordError } from '../../errors.js'
import type { Shard } from '../../engine.js'
import type { ShardRecord } from '../../run/merge.js'
import type { RunRecord } from '../../types.js'
import { apiMessage } from '../context.js'
import { downloadRecord, isExpiredOnDownload, listRunArtifacts, type DownloadTarget, type RestArtifact } from './download.js'
import { attemptOfArtifactName, shardArtifactName, shardOfArtifactName, unverifiedArtifactName } from './names.js'

const UNVERIFIED = unverifiedArtifactName('')

/**
 * The shard records the shard jobs of run `runId` uploaded for `name`: for
 * each shard the newest live artifact (a re-run job uploads under
 * `-attempt-<k>`), downloaded and validated like a baseline. Whether they are
 * all there, once, of one split, is mergeRecords' to check. Throws a
 * RecordError when there are none or one cannot be read: a merge without
 * every shard is no run.
 */
export async function fetchShardRecords(target: DownloadTarget, runId: number, name: string, attempt = Infinity): Promise<ShardRecord[]> {
  let listed: RestArtifact[]
  const unverified = new Set<string>()
  try {
    listed = await listRunArtifacts(target, runId, (candidate) => {
      const shard = shardOfArtifactName(candidate, name) !== null
      const marked = candidate.endsWith(UNVERIFIED) && shardOfArtifactName(candidate.slice(0, -UNVERIFIED.length), name) !== null
      if (marked) unverified.add(candidate.slice(0, -UNVERIFIED.length))
      return shard
    })
  } catch (err) {
    throw new RecordError(`cannot list the artifacts of run ${runId}: ${apiMessage(err)}`)
  }
  // a shard job of a later attempt than this one cannot have run yet: whatever uploaded it is not a shard job of this run
  const early = listed.find((a) => attemptOfArtifactName(a.name) > attempt)
  if (early)
    throw new RecordError(
      `the shard artifact "${early.name}" of run ${runId} claims attempt ${attemptOfArtifactName(early.name)}, but this is attempt ${attempt}: no shard job of this run uploaded it, so the shards cannot be trusted`,
      early.name
    )
  // one per shard: the newest, when a re-run job uploaded it again
  const newest = new Map<string, { shard: Shard; artifact: RestArtifact }>()
  for (const artifact of listed.filter((a) => !a.expired)) {
    const shard = shardOfArtifactName(artifact.name, name)!
    const key = shardArtifactName(name, shard)
    if ((newest.get(key)?.artifact.id ?? -1) < artifact.id) newest.set(key, { shard, artifact })
  }
  if (newest.size === 0) {
    throw new RecordError(
      `run ${runId} has no shard artifacts "${name}-shard-<i>-of-<n>"${listed.length ? ' that have not expired' : ''}: the shard jobs (shard: i/n, the same artifact-name) upload them; give the merge job needs: on them`
    )
  }
  const shards: ShardRecord[] = []
  for (const { shard, artifact } of [...newest.values()].sort((a, b) => a.shard.count - b.shard.count || a.shard.index - b.shard.index)) {
    // its job found that what it uploaded is not the record it computed: refused, not merged
    if (unverified.has(artifact.name))
      throw new RecordError(
        `the shard artifact "${artifact.name}" of run ${runId} is not the one its job computed (the job left "${unverifiedArtifactName(artifact.name)}"): a process on that runner changed it before the upload; re-run that shard job`,
        artifact.name
      )
    let record: RunRecord
    try {
      record = await downloadRecord(target, runId, artifact)
    } catch (err) {
      const why = isExpiredOnDownload(err) ? 'has expired' : `is unreadable: ${errorMessage(err)}`
      throw new RecordError(`the shard artifact "${artifact.name}" of run ${runId} ${why}`, artifact.name)
    }
    const says = record.config?.shard ?? null
    if (says !== `${shard.index}/${shard.count}`) {
      throw new RecordError(
        `the shard artifact "${artifact.name}" of run ${runId} holds ${says === null ? 'a record of no shard' : `the record of shard ${says}`}, not of shard ${shard.index}/${shard.count}`,
        artifact.name
      )
    }
    shards.push({ file: `artifact "${artifact.name}"`, record })
  }
  return shards
}
