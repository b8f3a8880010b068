/**
 * similar: the output means nearly the same as `value` (or one of a list):
 * cosine similarity of their embeddings from the judge's OpenAI-compatible
 * server (judge.embeddingModel) at least `threshold` (default 0.75, as in promptfoo).
 */
import { cosineSimilarity } from '../providers/embeddings.js'
import type { Assertion } from '../types.js'
import { shown } from './outcome.js'
import type { AssertionHandler, CheckOutcome } from './types.js'
import { firstProblem, kindOf, numberOptionProblem } from './values.js'

const DEFAULT_THRESHOLD = 0.75

const NO_EMBEDDINGS = 'similar needs embeddings: add a `judge:` section with an OpenAI-compatible server (judge.baseUrl, judge.embeddingModel)'

function expectedTexts(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [String(value)]
}

function valueProblem(a: Assertion): string | undefined {
  const ok =
    (typeof a.value === 'string' && a.value !== '') || (Array.isArray(a.value) && a.value.length > 0 && a.value.every((v) => typeof v === 'string' && v !== ''))
  return ok ? undefined : `similar needs the expected text, or a list of texts, as \`value\`, got ${a.value === undefined ? 'none' : kindOf(a.value)}`
}

const similar: AssertionHandler = {
  negatable: true,
  usesJudge: true,
  validate: (a) =>
    firstProblem(
      () => valueProblem(a),
      () => numberOptionProblem(a, 'threshold', { min: -1, max: 1 })
    ),
  async run(a, ctx, negated): Promise<CheckOutcome> {
    if (!ctx.embed) return { pass: false, score: 0, reason: NO_EMBEDDINGS, error: NO_EMBEDDINGS }
    const expected = expectedTexts(a.value)
    const threshold = a.threshold ?? DEFAULT_THRESHOLD
    const [out, ...refs] = await ctx.embed([ctx.output, ...expected])
    const similarities = refs.map((v) => cosineSimilarity(out!, v))
    const best = Math.max(...similarities)
    const closest = expected[similarities.indexOf(best)]!
    const holds = best >= threshold
    const measured = +best.toFixed(4)
    const reason =
      holds !== negated
        ? `similarity ${measured} to ${shown(closest)}, threshold ${threshold}`
        : `expected similarity ${negated ? 'below' : 'at least'} ${threshold} to ${shown(closest)}, got ${measured}`
    // a similarity can be negative; as a score it is clamped into [0, 1] by the dispatcher
    return { pass: holds, score: best, reason }
  }
}

export const similarAssertions: Record<string, AssertionHandler> = { similar }
