/** Collecting the shard records this run's shard jobs uploaded, for mode: merge. */
import { errorMessage, RecordError } from '../../errors.js'
import type { Shard } from '../../engine.js'
import type { ShardRecord } from '../../run/merge.js'
import type { RunRecord } from '../../types.js'
import { apiMessage } from '../context.js'
import { downloadRecord, isExpiredOnDownload, listRunArtifacts, type DownloadTarget, type RestArtifact } from './download.js'
import { shardArtifactName, shardOfArtifactName } from './names.js'

/**
 * The shard records the shard jobs of run `runId` uploaded for `name`: for
 * each shard the newest live artifact (a re-run job uploads under
 * `-attempt-<k>`), downloaded and validated like a baseline. Whether they are
 * all there, once, of one split, is mergeRecords' to check. Throws a
 * RecordError when there are none or one cannot be read: a merge without
 * every shard is no run.
 */
export async function fetchShardRecords(target: DownloadTarget, runId: number, name: string): Promise<ShardRecord[]> {
  let listed: RestArtifact[]
  try {
    listed = await listRunArtifacts(target, runId, (candidate) => shardOfArtifactName(candidate, name) !== null)
  } catch (err) {
    throw new RecordError(`cannot list the artifacts of run ${runId}: ${apiMessage(err)}`)
  }
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
