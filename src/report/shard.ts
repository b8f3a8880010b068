/**
 * The job summary of one shard of a sharded run (`shard: i/n`). Short on purpose:
 * the merge job reports, comments and gates the whole run. Pure.
 */
import { formatCount, formatPercent, formatScore, plural } from './format.js'
import type { Comparison } from '../compare/types.js'
import type { RunRecord } from '../types.js'
import { escapeInline, inlineCode } from './escape.js'

export interface ShardSummaryInput {
  current: RunRecord
  shard: { index: number; count: number }
  /** the shard's cases against the baseline, when there is one */
  comparison: Comparison | null
  /** the shard's cases in the dataset: fewer finished means the run was cut short */
  expected: number
  /** where the shard's record went */
  artifactName: string
}

export function renderShardSummary(input: ShardSummaryInput): string {
  const { current, shard } = input
  const s = current.summary
  const of = `shard ${shard.index} of ${shard.count}`
  const errors = s.errors ? `, ${formatCount(s.errors)} of them with an error` : ''
  const figures = [
    plural(s.total, 'case'),
    `pass rate ${formatPercent(s.passRate)} (${formatCount(s.passed)} passed, ${formatCount(s.failed)} failed${errors})`
  ]
  if (s.meanScore !== null) figures.push(`mean score ${formatScore(s.meanScore)}`)
  const lines = [`### evalgate · ${escapeInline(current.name)}: ${of}`, '', `${of}: ${figures.join(', ')}.`]
  const c = input.comparison
  if (c?.baseline) lines.push('', `Against the baseline: ${formatCount(c.regressed.length)} regressed, ${formatCount(c.fixed.length)} fixed in this shard.`)
  if (current.complete === false)
    lines.push(
      '',
      `> ⚠️ cut short: ${formatCount(current.cases.length)} of ${formatCount(input.expected)} cases finished; the merged run will be incomplete and fail its gate.`
    )
  lines.push(
    '',
    `The gate is decided by the \`mode: merge\` job once all ${formatCount(shard.count)} shards are in; this shard's record is the artifact ${inlineCode(input.artifactName)}.`
  )
  return `${lines.join('\n')}\n`
}
