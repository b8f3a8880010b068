/**
 * The latency check: how long the target took (its latencyMs, start-up
 * excluded; the trial's duration when no latency was measured).
 */
import type { AssertionHandler } from './types.js'
import { numberOptionProblem } from './values.js'

const latency: AssertionHandler = {
  negatable: true,
  validate: (a) =>
    a.threshold === undefined ? 'latency needs a `threshold`: the most milliseconds the trial may take' : numberOptionProblem(a, 'threshold', { min: 0 }),
  // the output is no help in acting on a slow trial, so the reason names the times only
  run(a, { durationMs, latencyMs }, negated) {
    const limit = a.threshold as number
    const ms = latencyMs ?? durationMs
    const holds = ms <= limit
    const took = `took ${ms} ms`
    const reason =
      holds !== negated
        ? `trial ${took}, ${holds ? 'within' : 'over'} the ${limit} ms limit`
        : `expected the trial to take ${negated ? 'more than' : 'at most'} ${limit} ms, it ${took}`
    return { pass: holds, score: holds ? 1 : 0, reason }
  }
}

export const latencyAssertions: Record<string, AssertionHandler> = { latency }
