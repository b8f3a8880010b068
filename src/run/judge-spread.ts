/**
 * The judge's own noise: with judge.samples > 1 every fresh verdict is the
 * median of several answers about the same output, and how often those
 * answers disagree on pass/fail says how far its single verdicts can be trusted.
 */
import type { Judge } from '../assertions/types.js'
import type { JudgeSummary, JudgeVerdict } from '../types.js'

export type JudgeSpread = Required<Pick<JudgeSummary, 'sampled' | 'disagreements'>>

/** Whether the samples of a verdict fall on both sides of the pass threshold. */
export function samplesDisagree(samples: readonly number[], threshold: number): boolean {
  const passing = samples.filter((s) => s >= threshold).length
  return passing > 0 && passing < samples.length
}

/**
 * The same judge, counting its sampled verdicts and their disagreements.
 * Reused verdicts (from the baseline or earlier in the run) are not counted again.
 */
export function watchJudgeSpread(judge: Judge): { judge: Judge; spread(): JudgeSpread } {
  const counts: JudgeSpread = { sampled: 0, disagreements: 0 }
  const watched: Judge = async (request) => {
    const verdict: JudgeVerdict = await judge(request)
    const samples = verdict.samples
    if (!verdict.reused && samples && samples.length > 1) {
      counts.sampled++
      if (samplesDisagree(samples, request.threshold)) counts.disagreements++
    }
    return verdict
  }
  return { judge: watched, spread: () => ({ ...counts }) }
}

/** The run's judge summary with the spread added when any verdict was sampled. */
export function withSpread(summary: JudgeSummary | undefined, spread: JudgeSpread | undefined): JudgeSummary | undefined {
  if (!summary || !spread || spread.sampled === 0) return summary
  return { ...summary, ...spread }
}
