/**
 * Tool calls in the shapes agents write them, normalised to
 * `{name, args, result?}`: shared by the targets that read result objects
 * and the checks that read calls out of an output (is-valid-openai-function-call).
 */
import { z } from 'zod'
import { TargetError } from '../errors.js'
import { interner } from './intern.js'

/** One call of a tool by the agent, as records keep it (config/record-schema.ts reads it with this). */
export const toolCallSchema = z.object({ name: z.string(), args: z.unknown(), result: z.unknown().optional() })
export type ToolCall = z.output<typeof toolCallSchema>

/** The few tool names an agent has, each kept once however many calls name it. */
const toolName = interner(1024)

/**
 * Tool calls in any of the shapes agents write them: `{name, args}`,
 * `{name, arguments}` (an object or its JSON text), `{name, input}`, or
 * OpenAI's `{type: "function", function: {name, arguments: "<json>"}}`.
 * `where` names the field in the reason a malformed call is refused with.
 * `owned`: the calls were parsed for this reply alone (JSON text read by a
 * target), so a call already in the normalised shape is kept as it is rather
 * than copied — at three calls a trial, the copies were most of a structured
 * reply's garbage. Never for values the caller still holds (a library agent's).
 */
export function normalizeToolCalls(value: unknown, where: string, owned = false): ToolCall[] {
  if (!Array.isArray(value)) throw new TargetError(`${where} must be a list of tool calls, got ${describeType(value)}`)
  const calls = new Array<ToolCall>(value.length)
  for (let i = 0; i < value.length; i++) {
    const call: unknown = value[i]
    calls[i] = owned && isNormalized(call) ? keepCall(call) : normalizeToolCall(call, where, i)
  }
  return calls
}

const NORMALIZED_KEYS = ['name', 'args', 'result'] as const

/** `{name, args}` or `{name, args, result}`, in that order, with a name, arguments that are no JSON text and a result that is there. */
function isNormalized(call: unknown): call is ToolCall {
  if (!isPlainObject(call)) return false
  let k = 0
  for (const key in call) {
    if (!Object.hasOwn(call, key) || key !== NORMALIZED_KEYS[k]) return false
    k++
  }
  const { name, args, result } = call
  return (
    k >= 2 &&
    typeof name === 'string' &&
    name !== '' &&
    args !== undefined &&
    args !== null &&
    typeof args !== 'string' &&
    (k === 2 || (result !== undefined && result !== null))
  )
}

function keepCall(call: ToolCall): ToolCall {
  call.name = toolName(call.name)
  return call
}

function normalizeToolCall(call: unknown, where: string, i: number): ToolCall {
  // the path of the call is worded only for a reason: most calls are well formed
  const at = () => `${where}[${i}]`
  if (!isPlainObject(call)) throw new TargetError(`${at()} must be an object {name, args}, got ${describeType(call)}`)
  const fn = isPlainObject(call.function) ? call.function : call
  const name = fn.name
  if (typeof name !== 'string' || name === '') throw new TargetError(`${at()} has no tool name (a "name" string${fn === call ? '' : ' in "function"'})`)
  const raw = fn.args ?? fn.arguments ?? fn.input ?? fn.parameters
  const normalized: ToolCall = {
    name: toolName(name),
    args: typeof raw === 'string' ? parseArgs(raw, () => `${at()}.${fn.args !== undefined ? 'args' : 'arguments'}`) : (raw ?? {})
  }
  const result = call.result ?? call.output
  if (result !== undefined) normalized.result = result
  return normalized
}

/** OpenAI sends arguments as JSON text; an empty text is no arguments. */
function parseArgs(raw: string, where: () => string): unknown {
  if (raw.trim() === '') return {}
  try {
    return JSON.parse(raw)
  } catch {
    throw new TargetError(`${where()} is not valid JSON: ${raw.length > 120 ? `${raw.slice(0, 120)}…` : raw}`)
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
