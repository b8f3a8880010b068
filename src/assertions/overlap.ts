/**
 * Similarity to reference texts by shared words: bleu, gleu, meteor and
 * rouge-n. Each scores in [0, 1] and passes at its threshold (promptfoo's
 * defaults); `value` is the reference, or for all but rouge-n a list of them.
 */
import type { Assertion } from '../types.js'
import { shown } from './outcome.js'
import { bleu, gleu, meteor, rougeN } from './overlap-metrics.js'
import type { AssertionHandler } from './types.js'
import { firstProblem, kindOf, numberOptionProblem } from './values.js'

/** Lower-cased words (letters and digits, with inner apostrophes); punctuation and spacing do not count. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu) ?? []
}

interface Metric {
  label: string
  defaultThreshold: number
  multipleReferences: boolean
  score(candidate: string[], references: string[][]): number
}

function references(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [String(value)]
}

function referencesProblem(a: Assertion, multiple: boolean): string | undefined {
  const ok = typeof a.value === 'string' || (multiple && Array.isArray(a.value) && a.value.length > 0 && a.value.every((v) => typeof v === 'string'))
  if (ok) return undefined
  const wanted = multiple ? 'the reference text, or a list of references,' : 'the reference text'
  return `${a.type} needs ${wanted} as \`value\`, got ${a.value === undefined ? 'none' : kindOf(a.value)}`
}

function metricHandler(m: Metric): AssertionHandler {
  return {
    negatable: true,
    validate: (a) =>
      firstProblem(
        () => referencesProblem(a, m.multipleReferences),
        () => numberOptionProblem(a, 'threshold', { min: 0, max: 1 })
      ),
    run(a, { output }, negated) {
      const threshold = a.threshold ?? m.defaultThreshold
      const score = m.score(words(output), references(a.value).map(words))
      const holds = score >= threshold
      const measured = `${m.label} ${+score.toFixed(4)}, threshold ${threshold}`
      const target = Array.isArray(a.value) && a.value.length > 1 ? `the best of ${a.value.length} references` : shown(references(a.value)[0])
      const reason =
        holds !== negated
          ? `${measured} against ${target}`
          : `expected ${m.label} ${negated ? 'below' : 'at least'} ${threshold} against ${target}, got ${+score.toFixed(4)}`
      return { pass: holds, score, reason }
    }
  }
}

export const overlapAssertions: Record<string, AssertionHandler> = {
  bleu: metricHandler({ label: 'BLEU', defaultThreshold: 0.5, multipleReferences: true, score: (c, refs) => bleu(c, refs) }),
  gleu: metricHandler({ label: 'GLEU', defaultThreshold: 0.5, multipleReferences: true, score: (c, refs) => gleu(c, refs) }),
  meteor: metricHandler({ label: 'METEOR', defaultThreshold: 0.5, multipleReferences: true, score: (c, refs) => meteor(c, refs) }),
  'rouge-n': metricHandler({ label: 'ROUGE-N', defaultThreshold: 0.75, multipleReferences: false, score: (c, [ref]) => rougeN(c, ref!, 1) })
}
