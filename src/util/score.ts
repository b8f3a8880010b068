/**
 * A score held to [0, 1], as every score in a run record is. NaN, which no
 * comparison can order, counts as 0 rather than slipping through.
 */
export function clampScore(score: number): number {
  return Number.isNaN(score) ? 0 : Math.min(1, Math.max(0, score))
}
