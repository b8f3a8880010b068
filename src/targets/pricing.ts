/**
 * `pricing`: USD per million tokens by model, for targets (and the
 * judge) that report tokens but no cost; for model APIs (the `provider`
 * target, the openai target) whose model `pricing` does not name, the
 * maintained price list of @pydantic/genai-prices, as promptfoo prices the
 * models it knows. The list (about 0.8 MB) is loaded on first use only.
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

type PriceList = typeof import('@pydantic/genai-prices')
let priceList: Promise<PriceList> | undefined

/** The price list, loaded once; a run whose target may price from it loads it before any code under test runs (SECURITY.md). */
export function loadPriceList(): Promise<PriceList> {
  priceList ??= import('@pydantic/genai-prices')
  return priceList
}

/**
 * The usage priced: its own cost wins, then `pricing`, then — for a model API
 * (`listed`: the list's name of that API, e.g. "anthropic") — the maintained
 * price list; otherwise the usage as it is.
 */
export async function pricedUsage(usage: Usage, model: string | undefined, pricing: Pricing | undefined, listed: string | undefined): Promise<Usage> {
  const priced = priceUsage(usage, model, pricing)
  if (priced.costUsd !== undefined || listed === undefined || model === undefined) return priced
  if (priced.inputTokens === undefined && priced.outputTokens === undefined) return priced
  const costUsd = await listedCost(priced, model, listed)
  return costUsd === undefined ? priced : { ...priced, costUsd }
}

/** What the maintained price list says the tokens of `model` on `provider` cost; undefined for a model it does not know. */
export async function listedCost(usage: Pick<Usage, 'inputTokens' | 'outputTokens'>, model: string, provider: string): Promise<number | undefined> {
  const list = await loadPriceList()
  let result
  try {
    result = list.calcPrice({ input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0 }, model, { providerId: provider })
  } catch {
    // a model whose price has conditions the usage does not say (tiers by context) is not priced
    return undefined
  }
  return result ? result.total_price : undefined
}
