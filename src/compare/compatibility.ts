/**
 * Whether a baseline can be compared with this run at all (the action's output
 * `baseline-status: incompatible`). Pure.
 */
import type { GateConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'
import { compareRuns } from './compare.js'
import type { Comparison } from './types.js'

/**
 * Why the baseline's fingerprints cannot be compared with the current run's,
 * or null when they can. Fingerprints of two versions never match: compared
 * anyway, every case would be "changed" and nothing would be gated.
 */
export function baselineCompatibility(baseline: RunRecord, current: RunRecord): string | null {
  // a record from before the field was read as version 1 (config/record-schema.ts)
  const [was, now] = [baseline.fingerprintVersion, current.fingerprintVersion]
  if (was === now) return null
  return (
    `the baseline was fingerprinted with version ${was}, this run with ${now}: ` +
    `fingerprints of different versions never match, so no case could be compared; ` +
    `the next run on the baseline branch with this evalgate makes a baseline that can`
  )
}

/** The comparison with the baseline when it can be compared, else without it and the reason (baseline-status: incompatible). */
export function compareIfCompatible(baseline: RunRecord | null, current: RunRecord, gate: GateConfig): { comparison: Comparison; incompatible: string | null } {
  const incompatible = baseline ? baselineCompatibility(baseline, current) : null
  return { comparison: compareRuns(incompatible ? null : baseline, current, gate), incompatible }
}
