/**
 * Joining the records of a sharded run (`--shard i/n`) into the
 * record one unsharded run would have written. Pure: the caller reads the
 * shards (files, artifacts) and writes the result.
 */
import { carryHistory, carryTrend } from '../compare/history.js'
import { RecordError, UsageError } from '../errors.js'
import type { CaseResult, DatasetFingerprint, RunRecord } from '../types.js'
import { VERSION } from '../version.js'
import { summarize, sumJudge } from './record.js'

export interface ShardRecord {
  /** names the shard in messages: a file or an artifact */
  file: string
  record: RunRecord
}

export interface MergeOptions {
  /** the run the merged record is compared against: each case's flake history is carried forward from it, as a run does */
  baseline?: RunRecord | null
  /** the dataset the shards must have been made from (the config's, when there is one), and where it was read */
  dataset?: { fingerprint: DatasetFingerprint; file: string }
}

interface Placed extends ShardRecord {
  index: number
  count: number
}

/**
 * Checks that the shards are all of one split of one run, each exactly once,
 * and joins them: cases back in dataset order, the summary recomputed. Throws a
 * RecordError naming the shards at fault otherwise.
 */
export function mergeRecords(shards: readonly ShardRecord[], options: MergeOptions = {}): RunRecord {
  if (shards.length === 0) throw new UsageError('merge needs the records of every shard (run with --shard i/n)')
  const placed = shards.map(place)
  checkSameRun(placed)
  checkDataset(placed, options.dataset)
  checkEveryShardOnce(placed)
  const cases = carryHistory(joinCases(placed), options.baseline)
  const trend = carryTrend(options.baseline)
  const records = placed.map((p) => p.record)
  const first = records[0]!
  // shards run side by side: the run took as long as its slowest shard
  const durationMs = Math.max(...records.map((r) => r.summary.durationMs))
  return {
    schemaVersion: first.schemaVersion,
    tool: { name: 'evalgate', version: VERSION },
    fingerprintVersion: first.fingerprintVersion,
    name: first.name,
    createdAt: records.map((r) => r.createdAt).sort()[0]!,
    complete: records.every((r) => r.complete),
    ...changedDuringRun(records),
    ...(first.dataset ? { dataset: first.dataset } : {}),
    git: {
      sha: firstSet(records.map((r) => r.git.sha)),
      ref: firstSet(records.map((r) => r.git.ref)),
      runId: firstSet(records.map((r) => r.git.runId))
    },
    config: {
      repeat: first.config?.repeat ?? 1,
      shard: null,
      ...(first.config?.repeatPassThreshold !== undefined ? { repeatPassThreshold: first.config.repeatPassThreshold } : {}),
      ...(first.config?.rerunFlips ? { rerunFlips: first.config.rerunFlips } : {})
    },
    summary: summarize(cases, durationMs, sumJudge(records.map((r) => r.summary.judge))),
    ...(trend ? { trend } : {}),
    cases
  }
}

/** Files that changed while any shard ran: the merged run cannot tell either. */
function changedDuringRun(records: readonly RunRecord[]): Pick<RunRecord, 'changedDuringRun'> {
  const files = [...new Set(records.flatMap((r) => r.changedDuringRun ?? []))].sort()
  return files.length ? { changedDuringRun: files } : {}
}

function place(shard: ShardRecord): Placed {
  const text = shard.record.config?.shard
  if (text === undefined || text === null) {
    throw new RecordError(`${shard.file}: not a shard record: it has no config.shard (records of \`evalgate run --shard i/n\` have one)`, shard.file)
  }
  const m = /^(\d+)\/(\d+)$/.exec(text)
  const index = m ? Number(m[1]) : NaN
  const count = m ? Number(m[2]) : NaN
  if (!m || count < 1 || index < 1 || index > count) throw new RecordError(`${shard.file}: config.shard "${text}" is not i/n with 1 ≤ i ≤ n`, shard.file)
  return { ...shard, index, count }
}

function label(p: Placed): string {
  return `${p.file} (shard ${p.index}/${p.count})`
}

function checkSameRun(placed: Placed[]): void {
  const first = placed[0]!
  for (const p of placed.slice(1)) {
    const differ = (what: string, a: unknown, b: unknown): never => {
      throw new RecordError(`shards of different runs: ${label(first)} has ${what} ${JSON.stringify(a)}, ${label(p)} has ${what} ${JSON.stringify(b)}`, p.file)
    }
    if (p.count !== first.count) {
      throw new RecordError(
        `shards of different splits: ${first.file} is shard ${first.index}/${first.count}, ${p.file} is shard ${p.index}/${p.count}`,
        p.file
      )
    }
    if (p.record.name !== first.record.name) differ('name', first.record.name, p.record.name)
    const [a, b] = [first.record.git, p.record.git]
    if (a.sha && b.sha && a.sha !== b.sha) differ('git.sha', a.sha, b.sha)
    if (a.runId && b.runId && a.runId !== b.runId) differ('git.runId', a.runId, b.runId)
    const [ra, rb] = [first.record.config?.repeat ?? 1, p.record.config?.repeat ?? 1]
    if (ra !== rb) differ('repeat', ra, rb)
    const [fa, fb] = [first.record.fingerprintVersion, p.record.fingerprintVersion]
    if (fa !== fb) differ('fingerprintVersion', fa, fb)
  }
}

function describeDataset(dataset: DatasetFingerprint | undefined): string {
  return dataset ? `dataset ${dataset.fingerprint} (${dataset.cases} cases)` : 'a dataset it does not name (a record of an older evalgate)'
}

/**
 * Every shard was made from one dataset: the config's when it is given, else
 * the one most shards were made from. The shard of another one is named.
 */
function checkDataset(placed: Placed[], expected: MergeOptions['dataset']): void {
  const key = (d: DatasetFingerprint | undefined) => d?.fingerprint ?? ''
  let want = expected?.fingerprint
  if (!want) {
    const counts = new Map<string, number>()
    for (const p of placed) counts.set(key(p.record.dataset), (counts.get(key(p.record.dataset)) ?? 0) + 1)
    // ties go to the first shard's
    const most = placed.reduce((best, p) => (counts.get(key(p.record.dataset))! > counts.get(key(best.record.dataset))! ? p : best))
    want = most.record.dataset
  }
  const odd = placed.find((p) => key(p.record.dataset) !== key(want))
  if (!odd) return
  const of = expected ? `${describeDataset(want)}, the dataset of ${expected.file}` : `the other shards' ${describeDataset(want)}`
  throw new RecordError(
    `${odd.file}: shard ${odd.index}/${odd.count} was made from ${describeDataset(odd.record.dataset)}, not from ${of}; a merge joins the shards of one run of one dataset (re-run that shard)`,
    odd.file
  )
}

function checkEveryShardOnce(placed: Placed[]): void {
  const count = placed[0]!.count
  const seen = new Map<number, Placed>()
  for (const p of placed) {
    const twice = seen.get(p.index)
    if (twice) throw new RecordError(`shard ${p.index}/${count} given twice: ${twice.file} and ${p.file}`, p.file)
    seen.set(p.index, p)
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i))
  if (missing.length > 0) {
    const names = missing.map((i) => `${i}/${count}`)
    throw new RecordError(
      `missing shard${missing.length > 1 ? 's' : ''} ${names.join(', ')}: a run split in ${count} needs all ${count} shard records (given: ${placed.map(label).join(', ')})`
    )
  }
}

/** Every case once, in dataset order; cases of older records without an index keep their shard's order, at the end. */
function joinCases(placed: Placed[]): CaseResult[] {
  const owner = new Map<string, Placed>()
  const cases: CaseResult[] = []
  for (const p of [...placed].sort((a, b) => a.index - b.index)) {
    for (const c of p.record.cases) {
      const other = owner.get(c.id)
      if (other) {
        const where = other === p ? `twice in ${label(p)}` : `in both ${label(other)} and ${label(p)}`
        throw new RecordError(`case "${c.id}" is ${where}; shards must not overlap (were they split from different datasets?)`, p.file)
      }
      owner.set(c.id, p)
      cases.push(c)
    }
  }
  return cases.sort((a, b) => (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER))
}

function firstSet(values: (string | null)[]): string | null {
  return values.find((v) => v !== null) ?? null
}
