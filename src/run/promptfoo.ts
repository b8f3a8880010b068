/**
 * How a test of a promptfoo config passes, as in promptfoo: every assertion passes,
 * or, with a `threshold`, the weighted mean of their scores reaches it; an
 * `assert-set` is graded the same way on its own and counts as one assertion
 * of its test. Named metrics are weighted means of the scores behind them.
 */
import type { Assertion, AssertionResult, EvalCase, NamedScore } from '../types.js'

export interface PromptfooVerdict {
  passed: boolean
  namedScores?: Record<string, number>
}

/** One level of grading: the test itself or one of its assert-sets. */
class Group {
  private totalScore = 0
  private totalWeight = 0
  private failed = false
  private readonly sums = new Map<string, { score: number; weight: number }>()

  constructor(private readonly threshold: number | undefined) {}

  add(passed: boolean, score: number, weight: number, metric: string | undefined, named?: Map<string, { score: number; weight: number }>): void {
    this.totalScore += score * weight
    this.totalWeight += weight
    if (!passed) this.failed = true
    // an empty name is no metric, as in promptfoo
    if (metric) this.addNamed(metric, score * weight, weight)
    // a set's own metrics count in its test too, weighted by the set's weight
    for (const [name, s] of named ?? []) if (name !== metric) this.addNamed(name, s.score * weight, s.weight * weight)
  }

  private addNamed(name: string, score: number, weight: number): void {
    const sum = this.sums.get(name) ?? { score: 0, weight: 0 }
    sum.score += score
    sum.weight += weight
    this.sums.set(name, sum)
  }

  get score(): number {
    return this.totalWeight > 0 ? this.totalScore / this.totalWeight : 0
  }

  get passed(): boolean {
    return this.threshold === undefined ? !this.failed : this.score >= this.threshold
  }

  /** metric → {weighted mean, its total weight} */
  get named(): Map<string, { score: number; weight: number }> {
    return new Map([...this.sums].map(([name, s]) => [name, { score: s.weight > 0 ? s.score / s.weight : 0, weight: s.weight }]))
  }
}

/** The verdict of one trial of a promptfoo test from its assertion results (in `c.assert` order). */
export function promptfooVerdict(c: EvalCase & { promptfoo: NonNullable<EvalCase['promptfoo']> }, results: AssertionResult[]): PromptfooVerdict {
  const main = new Group(c.promptfoo.threshold)
  const sets = (c.promptfoo.sets ?? []).map((s) => new Group(s.threshold))
  results.forEach((r, i) => {
    const a: Assertion = c.assert[i]!
    const weight = a.weight ?? 1
    // promptfoo counts an assertion of weight 0 as passed, whatever it found
    const group = a.set === undefined ? main : sets[a.set]!
    group.add(r.passed || weight === 0, r.score, weight, a.metric)
  })
  // promptfoo adds a set to its test at the set's position; only the order of named sums could differ, not their values
  sets.forEach((set, k) => {
    const def = c.promptfoo.sets![k]!
    if (!c.assert.some((a) => a.set === k)) return
    main.add(set.passed, set.score, def.weight ?? 1, def.metric, set.named)
  })
  const named = main.named
  const verdict: PromptfooVerdict = { passed: results.length === 0 || main.passed }
  if (named.size) verdict.namedScores = Object.fromEntries([...named].map(([name, s]) => [name, round4(s.score)]))
  return verdict
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000

/** A run's named metrics: per metric, the mean of the scores of the cases that have it. */
export function summarizeNamedScores(cases: readonly { namedScores?: Record<string, number> }[]): Record<string, NamedScore> | undefined {
  const sums = new Map<string, { total: number; cases: number }>()
  for (const c of cases) {
    for (const [name, score] of Object.entries(c.namedScores ?? {})) {
      const sum = sums.get(name) ?? { total: 0, cases: 0 }
      sum.total += score
      sum.cases++
      sums.set(name, sum)
    }
  }
  if (sums.size === 0) return undefined
  return Object.fromEntries([...sums].map(([name, s]) => [name, { score: round4(s.total / s.cases), cases: s.cases }]))
}
