/**
 * `is-valid-openai-tools-call` (SPEC §10) and promptfoo's
 * `is-valid-openai-function-call`, one check: every call names a tool of the
 * schemas (`value` when it lists tools, else `target.tools`) and its
 * arguments validate against that tool's JSON Schema. The calls are the
 * trial's tool calls; without any, the output read as a call or a list of
 * calls (`{name, arguments}`, OpenAI's `{type: "function", function: …}`,
 * `{function_call: …}` or `{tool_calls: […]}`), as promptfoo reads it.
 */
import { errorMessage } from '../errors.js'
import type { ToolCall } from '../types.js'
import { isPlainObject, normalizeToolCalls } from '../util/tool-calls.js'
import { parseOutputJson } from './json-text.js'
import { schemaErrors, schemaProblem } from './json-schema.js'
import { shown } from './outcome.js'
import type { AssertionContext, AssertionHandler, CheckOutcome } from './types.js'

interface ToolSchema {
  name: string
  parameters?: Record<string, unknown>
}

/** `{type: "function", function: {name, parameters}}` (tools) or `{name, parameters}` (functions). */
function toolSchemas(tools: readonly unknown[]): ToolSchema[] {
  return tools.flatMap((tool) => {
    const fn = isPlainObject(tool) && isPlainObject(tool.function) ? tool.function : tool
    if (!isPlainObject(fn) || typeof fn.name !== 'string') return []
    return [{ name: fn.name, ...(isPlainObject(fn.parameters) ? { parameters: fn.parameters } : {}) }]
  })
}

function schemasProblem(type: string, tools: unknown): string | undefined {
  if (!Array.isArray(tools)) return `${type} \`value\`, when given, is the OpenAI tools array to validate against`
  const schemas = toolSchemas(tools)
  if (schemas.length !== tools.length) return `${type}: every tool needs a name ({type: function, function: {name, parameters}})`
  for (const s of schemas) {
    const problem = s.parameters && schemaProblem(s.parameters)
    if (problem) return `${type}: the parameters of ${s.name} are not a usable JSON Schema: ${problem}`
  }
  return undefined
}

/** The calls to validate: the trial's, else those the output spells out. */
function callsToCheck(ctx: AssertionContext): ToolCall[] {
  if (ctx.toolCalls?.length) return ctx.toolCalls
  const parsed = parseOutputJson(ctx.output)
  if (!parsed.ok) throw new Error(`no tool calls, and the output is not JSON (${parsed.error})`)
  let value = parsed.value
  if (isPlainObject(value) && value.tool_calls !== undefined) value = value.tool_calls
  else if (isPlainObject(value) && value.function_call !== undefined) value = value.function_call
  return normalizeToolCalls(Array.isArray(value) ? value : [value], 'the output')
}

/** Why a call is not valid against the schemas, or undefined when it is. */
function callProblem(call: ToolCall, schemas: readonly ToolSchema[]): string | undefined {
  const schema = schemas.find((s) => s.name === call.name)
  if (!schema) return `${call.name} is not one of the tools (${schemas.map((s) => s.name).join(', ') || 'none'})`
  const errors = schema.parameters && schemaErrors(schema.parameters, call.args)
  return errors && `${call.name} ${shown(call.args)}: ${errors}`
}

const validToolsCall: AssertionHandler = {
  negatable: true,
  validate: (a) => (a.value === undefined ? undefined : schemasProblem(a.type, a.value)),
  run(a, ctx, negated): CheckOutcome {
    const tools = Array.isArray(a.value) ? a.value : ctx.tools
    if (!tools) {
      const message = `${a.type} has no tool schemas: set \`target.tools\` (the OpenAI tools array) or give them as the assertion's \`value\``
      return { pass: false, score: 0, reason: message, error: message }
    }
    let calls: ToolCall[]
    try {
      calls = callsToCheck(ctx)
    } catch (err) {
      // no calls to check: a failure unnegated, and under not- a pass whose reason states the fact
      return { pass: false, score: 0, reason: `${negated ? 'no valid tool calls' : 'expected valid tool calls'}: ${errorMessage(err)}` }
    }
    const schemas = toolSchemas(tools)
    const problems = calls.map((c) => callProblem(c, schemas)).filter((p): p is string => p !== undefined)
    const holds = calls.length > 0 && problems.length === 0
    const names = calls.map((c) => c.name).join(' → ') || 'no tool calls'
    const fact = holds ? `every call is valid against its tool's schema` : calls.length === 0 ? 'no tool calls were made' : problems.join('; ')
    const passes = holds !== negated
    const reason = passes ? `${fact}: ${names}` : `${fact}, expected ${negated ? 'an invalid call' : 'valid calls of the given tools'}: ${names}`
    return { pass: holds, score: holds ? 1 : 0, reason }
  }
}

export const toolsCallAssertions: Record<string, AssertionHandler> = {
  'is-valid-openai-tools-call': validToolsCall,
  'is-valid-openai-function-call': validToolsCall
}
