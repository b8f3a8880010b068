/**
 * `pricing`: USD per million tokens by model, for targets (and the
 * judge) that report tokens but no cost.
 */
import type { Pricing } from '../config/schema.js'
import type { Usage } from '../types.js'

const PER_TOKENS = 1_000_000

/**
 * The usage with `costUsd` computed from its tokens when it has none and the
 * model has a price; otherwise the usage as it is (a cost the target reported wins).
 */
export function priceUsage(usage: Usage, model: string | undefined, pricing: Pricing | undefined): Usage {
  if (usage.costUsd !== undefined || !pricing || model === undefined || !Object.hasOwn(pricing, model)) return usage
  const costUsd = tokenCost(usage, pricing[model]!)
  if (costUsd === undefined) return usage
  // a literal, not `{...usage, costUsd}`: V8's optimised spread-and-add gives every result a hidden
  // class of its own (100,000 maps at 100,000 cases, and every reader of usage megamorphic)
  const { inputTokens, outputTokens, totalTokens } = usage
  const priced: Usage = {}
  if (inputTokens !== undefined) priced.inputTokens = inputTokens
  if (outputTokens !== undefined) priced.outputTokens = outputTokens
  if (totalTokens !== undefined) priced.totalTokens = totalTokens
  priced.costUsd = costUsd
  return priced
}

/** Input and output tokens at their prices; undefined without either count. */
export function tokenCost(usage: Pick<Usage, 'inputTokens' | 'outputTokens'>, price: { input: number; output: number }): number | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined
  return ((usage.inputTokens ?? 0) * price.input + (usage.outputTokens ?? 0) * price.output) / PER_TOKENS
}
