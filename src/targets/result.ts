/**
 * Result objects: what any target may return instead of a bare
 * string — `{output, toolCalls?, usage?, metadata?, finishReason?, latencyMs?}`.
 * One reader for all target kinds, so that a module, a jsonl worker, a stdio
 * command with `output: json` and an http reply mean the same by each field.
 * OpenAI-style tool calls (`{type: "function", function: {name, arguments}}`)
 * are normalised to `{name, args}` wherever they appear.
 */
import { TargetError } from '../errors.js'
import type { Usage } from '../types.js'
import { isPlainObject, normalizeToolCalls } from '../util/tool-calls.js'
import type { TargetReply } from './types.js'

export { normalizeToolCalls }

/** Whether a returned value is a result object rather than an output to be shown as JSON. */
export function isResultObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'output')
}

/**
 * A result object as the trial's reply; `label` names who returned it
 * ("the worker", "target.module ./agent.mjs") in the reasons it is refused.
 * `owned`: the value was parsed or cloned for this reply alone, so its parts
 * may become the reply's (see normalizeToolCalls).
 */
export function readResult(value: Record<string, unknown>, label: string, owned = false): TargetReply {
  const reply: TargetReply = { output: outputText(value.output, label) }
  if (value.toolCalls !== undefined && value.toolCalls !== null) reply.toolCalls = normalizeToolCalls(value.toolCalls, `${label}: toolCalls`, owned)
  // `tool_calls` is how OpenAI spells them; an agent passing its model's message through is read the same
  else if (value.tool_calls !== undefined && value.tool_calls !== null) reply.toolCalls = normalizeToolCalls(value.tool_calls, `${label}: tool_calls`, owned)
  const usage = normalizeUsage(value.usage)
  if (usage) reply.usage = usage
  if (isPlainObject(value.metadata)) reply.metadata = value.metadata
  const finish = value.finishReason ?? value.finish_reason
  if (typeof finish === 'string') reply.finishReason = finish
  if (typeof value.latencyMs === 'number' && Number.isFinite(value.latencyMs) && value.latencyMs >= 0) reply.latencyMs = value.latencyMs
  return reply
}

/** The output as text: strings as they are, other JSON values as their JSON text; null is no output. */
export function outputText(value: unknown, label: string): string {
  if (typeof value === 'string') return value
  const json = value === null || value === undefined ? undefined : JSON.stringify(value)
  if (json === undefined) {
    const what = value === null ? 'null' : value === undefined ? 'undefined' : `a ${typeof value}`
    throw new TargetError(`${label} returned ${what} as the output; return the output as a string (or {"output": "…"})`)
  }
  return json
}

const INPUT_KEYS = ['inputTokens', 'input_tokens', 'promptTokens', 'prompt_tokens', 'prompt']
const OUTPUT_KEYS = ['outputTokens', 'output_tokens', 'completionTokens', 'completion_tokens', 'completion']
const TOTAL_KEYS = ['totalTokens', 'total_tokens', 'total']
const COST_KEYS = ['costUsd', 'cost_usd', 'cost']

/** The first of the keys whose value is a finite number ≥ 0 (constant key lists: no arrays or closure per reply). */
function pick(value: Record<string, unknown>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const n = value[key]
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n
  }
  return undefined
}

/**
 * Token counts and cost under any of the usual names: ours (inputTokens,
 * outputTokens, totalTokens, costUsd), OpenAI's (prompt_tokens,
 * completion_tokens, total_tokens), the camel-case ones of earlier records
 * (promptTokens, completionTokens) and promptfoo's `cost`. Anything not a
 * finite number ≥ 0 is left out; undefined when nothing is left.
 */
export function normalizeUsage(value: unknown): Usage | undefined {
  if (!isPlainObject(value)) return undefined
  const usage: Usage = {}
  const input = pick(value, INPUT_KEYS)
  const output = pick(value, OUTPUT_KEYS)
  const total = pick(value, TOTAL_KEYS)
  const cost = pick(value, COST_KEYS)
  if (input !== undefined) usage.inputTokens = input
  if (output !== undefined) usage.outputTokens = output
  if (total !== undefined) usage.totalTokens = total
  else if (input !== undefined || output !== undefined) usage.totalTokens = (input ?? 0) + (output ?? 0)
  if (cost !== undefined) usage.costUsd = cost
  return Object.keys(usage).length ? usage : undefined
}
