/**
 * `runJudgeEval`: the library's entry point for grading with your own
 * judge function. Its answers go through the same verdict normalisation as the
 * built-in judge's, so a score means the same thing in both.
 */
import { errorMessage } from '../errors.js'
import { failedVerdict, normalizeVerdict, parseVerdictText, type Verdict } from './verdict.js'

export interface JudgeEvalCase {
  name?: string
  prompt: unknown
  output: string
}

export type JudgeFunction = (c: { prompt: unknown; output: string }) => unknown

export interface JudgeEvalResult {
  name: string
  score: number
  reason: string
  flagged: boolean
  error: string | null
}

export interface JudgeEvalReport {
  results: JudgeEvalResult[]
  meanScore: number
  flagged: string[]
  total: number
}

/** Seed-compatible rounding: figures are reported to three decimals. */
const round3 = (x: number) => Math.round(x * 1000) / 1000

/** Cases are judged one at a time, in order: a user's judge is often rate-limited. */
export async function runJudgeEval(judge: JudgeFunction, cases: JudgeEvalCase[], { threshold = 0.5 }: { threshold?: number } = {}): Promise<JudgeEvalReport> {
  const results: JudgeEvalResult[] = []
  for (const [i, c] of cases.entries()) {
    const verdict = await ask(judge, c)
    results.push({
      name: c.name ?? `case_${i}`,
      score: verdict.score,
      reason: verdict.reason,
      flagged: verdict.score < threshold,
      error: verdict.error ?? null
    })
  }
  const meanScore = results.length ? round3(results.reduce((n, r) => n + r.score, 0) / results.length) : 0
  return { results, meanScore, flagged: results.filter((r) => r.flagged).map((r) => r.name), total: results.length }
}

/** A judge may answer with `{score, reason}` or with the raw text of a model's reply; a throw is a failed verdict. */
async function ask(judge: JudgeFunction, c: JudgeEvalCase): Promise<Verdict> {
  try {
    const answer = await judge({ prompt: c.prompt, output: c.output })
    return typeof answer === 'string' ? parseVerdictText(answer) : normalizeVerdict(answer)
  } catch (err) {
    return failedVerdict(`judge error: ${errorMessage(err)}`)
  }
}
