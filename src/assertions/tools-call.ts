/**
 * `is-valid-openai-tools-call` and promptfoo's
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
  /** absent: the tool takes no arguments (OpenAI's reading of a function without parameters) */
  parameters?: Record<string, unknown>
}

/** `{type: "function", function: {name, parameters}}` (tools) or `{name, parameters}` (functions); only of definitions definitionsProblem accepts. */
function toolSchemas(tools: readonly unknown[]): ToolSchema[] {
  return tools.map((tool) => {
    const fn = functionOf(tool) as { name: string; parameters?: Record<string, unknown> }
    return { name: fn.name, ...(fn.parameters ? { parameters: fn.parameters } : {}) }
  })
}

function functionOf(tool: unknown): unknown {
  return isPlainObject(tool) && isPlainObject(tool.function) ? tool.function : tool
}

/**
 * Why a list of tool definitions cannot grade calls, or undefined: no tools
 * (every call refused), a tool without a name, two tools of one name (a call
 * valid against one and not the other), `parameters` that are no JSON Schema
 * object (`null` included). A tool without `parameters` takes no arguments.
 */
function definitionsProblem(tools: unknown, where: string): string | undefined {
  if (!Array.isArray(tools)) return `${where} must be the OpenAI tools array ([{type: function, function: {name, parameters}}])`
  if (tools.length === 0) return `${where} lists no tools, so no call could be valid; list the tools the agent may call`
  const names = new Set<string>()
  for (let i = 0; i < tools.length; i++) {
    const fn = functionOf(tools[i])
    if (!isPlainObject(fn) || typeof fn.name !== 'string' || fn.name.trim() === '')
      return `${where}[${i}] needs a name ({type: function, function: {name, parameters}})`
    if (names.has(fn.name)) return `${where} defines ${fn.name} twice, so a call of it could be valid against one definition and not the other`
    names.add(fn.name)
    if (!Object.hasOwn(fn, 'parameters')) continue
    if (!isPlainObject(fn.parameters))
      return `${where}[${i}] (${fn.name}): \`parameters\` must be a JSON Schema object, got ${shown(fn.parameters)}; leave it out for a tool that takes no arguments`
    const problem = schemaProblem(fn.parameters)
    if (problem) return `${where}[${i}] (${fn.name}): the parameters are not a usable JSON Schema: ${problem}`
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
  if (!schema.parameters) {
    const none = call.args === undefined || call.args === null || (isPlainObject(call.args) && Object.keys(call.args).length === 0)
    return none ? undefined : `${call.name} ${shown(call.args)}: the tool takes no arguments (its definition has no parameters)`
  }
  const errors = schemaErrors(schema.parameters, call.args)
  return errors && `${call.name} ${shown(call.args)}: ${errors}`
}

const validToolsCall: AssertionHandler = {
  negatable: true,
  validate(a, scope) {
    if (a.value !== undefined) return definitionsProblem(a.value, `${a.type} \`value\``)
    // the schemas are target.tools: checked here when the config is known
    if (scope?.tools === undefined) return undefined
    if (scope.tools === null) return `${a.type} has no tool schemas: set \`target.tools\` (the OpenAI tools array) or give them as the assertion's \`value\``
    const problem = definitionsProblem(scope.tools, 'target.tools')
    return problem && `${a.type} checks calls against target.tools, which cannot grade them: ${problem}`
  },
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
