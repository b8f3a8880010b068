/**
 * Reference-overlap metrics on token lists, as their papers define them:
 * BLEU (Papineni et al. 2002), GLEU (Wu et al. 2016, as NLTK's sentence_gleu),
 * ROUGE-N (Lin 2004) and METEOR (Banerjee & Lavie 2005, as NLTK's meteor_score
 * without its WordNet synonym stage). Pure functions of tokens: tokenising is
 * the assertions' business (overlap.ts).
 */
import { stemmer } from 'stemmer'

type Tokens = readonly string[]

/** Counts of the n-grams of `tokens`, keyed by the n-gram joined with a separator no token holds. */
function ngramCounts(tokens: Tokens, n: number): Map<string, number> {
  const counts = new Map<string, number>()
  for (let i = 0; i + n <= tokens.length; i++) {
    const gram = tokens.slice(i, i + n).join('\u0000')
    counts.set(gram, (counts.get(gram) ?? 0) + 1)
  }
  return counts
}

/** Σ min(count in a, count in b): the clipped overlap of two n-gram multisets. */
function overlap(a: Map<string, number>, b: Map<string, number>): number {
  let matched = 0
  for (const [gram, count] of a) matched += Math.min(count, b.get(gram) ?? 0)
  return matched
}

function total(counts: Map<string, number>): number {
  let sum = 0
  for (const c of counts.values()) sum += c
  return sum
}

/**
 * Sentence BLEU with uniform weights over 1..maxN-grams: modified precision
 * (each n-gram clipped to its largest count in any one reference), times the
 * brevity penalty against the reference closest in length (the shorter on a
 * tie). Unsmoothed, as in the paper: an order with no match makes it 0.
 */
export function bleu(candidate: Tokens, references: readonly Tokens[], maxN = 4): number {
  if (candidate.length === 0 || references.length === 0) return 0
  let logSum = 0
  for (let n = 1; n <= maxN; n++) {
    const counts = ngramCounts(candidate, n)
    const maxRef = new Map<string, number>()
    for (const ref of references) {
      for (const [gram, c] of ngramCounts(ref, n)) maxRef.set(gram, Math.max(maxRef.get(gram) ?? 0, c))
    }
    const matched = overlap(counts, maxRef)
    if (matched === 0) return 0
    logSum += Math.log(matched / total(counts)) / maxN
  }
  const closest = references
    .map((r) => r.length)
    .reduce((best, len) => {
      const d = Math.abs(len - candidate.length)
      const bestD = Math.abs(best - candidate.length)
      return d < bestD || (d === bestD && len < best) ? len : best
    })
  const brevity = candidate.length > closest ? 1 : Math.exp(1 - closest / candidate.length)
  return brevity * Math.exp(logSum)
}

/**
 * Sentence GLEU: the n-grams (n = minN..maxN) the candidate shares with a
 * reference, over the larger of the two n-gram totals; the best reference counts.
 */
export function gleu(candidate: Tokens, references: readonly Tokens[], minN = 1, maxN = 4): number {
  const orders = Array.from({ length: maxN - minN + 1 }, (_, i) => minN + i)
  const candidateGrams = orders.map((n) => ngramCounts(candidate, n))
  const candidateTotal = candidateGrams.reduce((s, c) => s + total(c), 0)
  let best = 0
  for (const ref of references) {
    const refGrams = orders.map((n) => ngramCounts(ref, n))
    const matched = candidateGrams.reduce((s, c, i) => s + overlap(c, refGrams[i]!), 0)
    const denominator = Math.max(
      candidateTotal,
      refGrams.reduce((s, c) => s + total(c), 0)
    )
    if (denominator > 0) best = Math.max(best, matched / denominator)
  }
  return best
}

/** ROUGE-N recall: the reference's n-grams found in the candidate (clipped), over the reference's n-gram count. */
export function rougeN(candidate: Tokens, reference: Tokens, n = 1): number {
  const refGrams = ngramCounts(reference, n)
  const refTotal = total(refGrams)
  return refTotal === 0 ? 0 : overlap(refGrams, ngramCounts(candidate, n)) / refTotal
}

export interface MeteorOptions {
  alpha: number
  beta: number
  gamma: number
}

const METEOR_DEFAULTS: MeteorOptions = { alpha: 0.9, beta: 3, gamma: 0.5 }

/**
 * Aligns candidate and reference words in two stages, as NLTK does: equal
 * words, then equal Porter stems among those left; each stage walks both
 * lists from the end and pairs a candidate word with the last free reference
 * word of the same form (which decides the chunks when words repeat). Returns
 * the pairs (candidate index, reference index) sorted by candidate index.
 */
function align(candidate: Tokens, reference: Tokens): Array<[number, number]> {
  const pairs: Array<[number, number]> = []
  const candidateUsed = candidate.map(() => false)
  const referenceUsed = reference.map(() => false)
  const stage = (form: (word: string) => string) => {
    const refForms = reference.map(form)
    for (let i = candidate.length - 1; i >= 0; i--) {
      if (candidateUsed[i]) continue
      const f = form(candidate[i]!)
      for (let j = reference.length - 1; j >= 0; j--) {
        if (!referenceUsed[j] && refForms[j] === f) {
          pairs.push([i, j])
          candidateUsed[i] = referenceUsed[j] = true
          break
        }
      }
    }
  }
  stage((w) => w)
  stage((w) => stemmer(w))
  return pairs.sort((a, b) => a[0] - b[0])
}

/** Runs of matches adjacent in both the candidate and the reference. */
function chunks(pairs: Array<[number, number]>): number {
  let count = 0
  for (let k = 0; k < pairs.length; k++) {
    const prev = pairs[k - 1]
    const [i, j] = pairs[k]!
    if (!prev || prev[0] !== i - 1 || prev[1] !== j - 1) count++
  }
  return count
}

function meteorOne(candidate: Tokens, reference: Tokens, o: MeteorOptions): number {
  const pairs = align(candidate, reference)
  const m = pairs.length
  if (m === 0) return 0
  const precision = m / candidate.length
  const recall = m / reference.length
  const fmean = (precision * recall) / (o.alpha * precision + (1 - o.alpha) * recall)
  const penalty = o.gamma * (chunks(pairs) / m) ** o.beta
  return fmean * (1 - penalty)
}

/** METEOR against each reference; the best one counts. */
export function meteor(candidate: Tokens, references: readonly Tokens[], options: Partial<MeteorOptions> = {}): number {
  const o = { ...METEOR_DEFAULTS, ...options }
  return references.reduce((best, ref) => Math.max(best, meteorOne(candidate, ref, o)), 0)
}
