/** The cost check: what the trial cost, in USD, from the target or `pricing`. */
import type { AssertionHandler } from './types.js'
import { numberOptionProblem } from './values.js'

const NO_COST =
  'no cost for this trial: the target reported no usage.costUsd, and no `pricing` entry prices its tokens (pricing: {<model>: {input, output}} in USD per million tokens)'

function usd(x: number): string {
  return `$${x < 0.01 ? x.toPrecision(3) : x.toFixed(4)}`
}

const cost: AssertionHandler = {
  negatable: true,
  validate: (a) => (a.threshold === undefined ? 'cost needs a `threshold`: the most USD the trial may cost' : numberOptionProblem(a, 'threshold', { min: 0 })),
  run(a, { usage }, negated) {
    const spent = usage?.costUsd
    // nothing to measure is an error, so that `not-cost` cannot pass on it either
    if (spent === undefined) return { pass: false, score: 0, reason: NO_COST, error: NO_COST }
    const limit = a.threshold as number
    const holds = spent <= limit
    const reason =
      holds !== negated
        ? `cost ${usd(spent)}, ${holds ? 'within' : 'over'} the ${usd(limit)} limit`
        : `expected the trial to cost ${negated ? 'more than' : 'at most'} ${usd(limit)}, it cost ${usd(spent)}`
    return { pass: holds, score: holds ? 1 : 0, reason }
  }
}

export const costAssertions: Record<string, AssertionHandler> = { cost }
