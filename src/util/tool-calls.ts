/**
 * Tool calls in the shapes agents write them (SPEC §10), normalised to
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
 */
export function normalizeToolCalls(value: unknown, where: string): ToolCall[] {
  if (!Array.isArray(value)) throw new TargetError(`${where} must be a list of tool calls, got ${describeType(value)}`)
  return value.map((call, i) => normalizeToolCall(call, `${where}[${i}]`))
}

function normalizeToolCall(call: unknown, where: string): ToolCall {
  if (!isPlainObject(call)) throw new TargetError(`${where} must be an object {name, args}, got ${describeType(call)}`)
  const fn = isPlainObject(call.function) ? call.function : call
  const name = fn.name
  if (typeof name !== 'string' || name === '') throw new TargetError(`${where} has no tool name (a "name" string${fn === call ? '' : ' in "function"'})`)
  const raw = fn.args ?? fn.arguments ?? fn.input ?? fn.parameters
  const normalized: ToolCall = { name: toolName(name), args: parseArgs(raw, `${where}.${fn.args !== undefined ? 'args' : 'arguments'}`) }
  const result = call.result ?? call.output
  if (result !== undefined) normalized.result = result
  return normalized
}

/** OpenAI sends arguments as JSON text; an empty text is no arguments. */
function parseArgs(raw: unknown, where: string): unknown {
  if (raw === undefined || raw === null) return {}
  if (typeof raw !== 'string') return raw
  if (raw.trim() === '') return {}
  try {
    return JSON.parse(raw)
  } catch {
    throw new TargetError(`${where} is not valid JSON: ${raw.length > 120 ? `${raw.slice(0, 120)}…` : raw}`)
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
