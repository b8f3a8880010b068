/**
 * The pass-rate badge (the `badge` command, the action's outputs badge-message and badge-color):
 * its label, message and colour band, drawn as an SVG by badge-maker (the
 * shields.io renderer) or written as shields.io endpoint JSON. The one
 * implementation: the CLI and the action both call it.
 */
import type { BadgeConfig } from '../config/schema.js'
import type { RunRecord } from '../types.js'

export interface ColorBand {
  /** lowest pass rate (0..1, inclusive) that gets this colour */
  min: number
  /** a shields.io colour name or a hex colour */
  color: string
}

export interface Badge {
  label: string
  /** "92.5%"; "92.5% (incomplete)" for a run cut short; "no cases" for an empty run */
  message: string
  /** a shields.io colour name, or hex without "#" */
  color: string
  style: NonNullable<BadgeConfig['style']>
}

/** Shields.io's own steps for coverage-like figures, lower bounds inclusive. */
export const DEFAULT_BANDS: readonly ColorBand[] = [
  { min: 0.95, color: 'brightgreen' },
  { min: 0.9, color: 'green' },
  { min: 0.8, color: 'yellowgreen' },
  { min: 0.7, color: 'yellow' },
  { min: 0.5, color: 'orange' },
  { min: 0, color: 'red' }
]

/** Below every band. */
const FLOOR_COLOR = 'red'
/** A figure that says nothing about the target: no cases, or a run cut short. */
const NEUTRAL_COLOR = 'lightgrey'

/**
 * The pass rate as a badge shows it: one decimal, ".0" dropped, rounded down so
 * that a run with a failing case never reads "100%".
 */
export function formatBadgeRate(passed: number, total: number): string {
  const tenths = Math.floor((passed * 1000) / total)
  return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)}%`
}

/** The colour of the highest band whose min the rate reaches. */
export function bandColor(passRate: number, bands: readonly ColorBand[] = DEFAULT_BANDS): string {
  if (!Number.isFinite(passRate)) return NEUTRAL_COLOR
  const sorted = [...bands].sort((a, b) => b.min - a.min)
  return normalizeColor(sorted.find((band) => passRate >= band.min)?.color ?? FLOOR_COLOR)
}

/** Hex colours without "#", as shields.io endpoint JSON and badge URLs take them. */
function normalizeColor(color: string): string {
  return color.replace(/^#/, '').toLowerCase()
}

export function defaultLabel(runName: string): string {
  return runName === 'evals' ? 'evals' : `${runName} evals`
}

/** The badge of a run record. Pure. */
export function badgeFor(record: Pick<RunRecord, 'name' | 'complete' | 'summary'>, config: BadgeConfig = {}): Badge {
  const { passed, total, passRate } = record.summary
  const label = config.label ?? defaultLabel(record.name)
  const style = config.style ?? 'flat'
  if (total === 0) return { label, message: 'no cases', color: NEUTRAL_COLOR, style }
  const rate = formatBadgeRate(passed, total)
  // a run cut short has the pass rate of the cases that happened to finish: not the target's
  if (record.complete === false) return { label, message: `${rate} (incomplete)`, color: NEUTRAL_COLOR, style }
  return { label, message: rate, color: bandColor(passRate, config.bands ?? DEFAULT_BANDS), style }
}

/** badge-maker, loaded on first use; the action loads it before the code under test runs when it will draw a badge (SECURITY.md). */
export function loadBadgeMaker(): Promise<typeof import('badge-maker')> {
  return import('badge-maker')
}

/**
 * The badge as an SVG image, drawn like shields.io draws it. badge-maker (with
 * its font-width tables, 0.9 MB) loads on first use: most runs draw no badge,
 * and every run would otherwise parse it at start-up.
 */
export async function badgeSvg(badge: Badge): Promise<string> {
  const { makeBadge } = await loadBadgeMaker()
  const color = /^([0-9a-f]{3}){1,2}$/i.test(badge.color) ? `#${badge.color}` : badge.color
  return `${makeBadge({ label: badge.label, message: badge.message, color, style: badge.style })}\n`
}

/** Shields.io endpoint JSON: https://img.shields.io/endpoint?url=<where this file is served> */
export interface ShieldsEndpoint {
  schemaVersion: 1
  label: string
  message: string
  color: string
  style?: string
}

export function shieldsEndpoint(badge: Badge): ShieldsEndpoint {
  return { schemaVersion: 1, label: badge.label, message: badge.message, color: badge.color, ...(badge.style === 'flat' ? {} : { style: badge.style }) }
}
