/**
 * is-valid-openai-tools-call and is-valid-openai-function-call (SPEC §10):
 * the whole sentences, the shapes of tools and calls they read, and the
 * schemas they refuse, pinned where trajectory.test.ts only checks a part.
 */
import { describe, expect, it } from '@jest/globals'
import { evaluateAssertion, validateAssertion } from '../../src/assertions/index.js'
import { toolsCallAssertions } from '../../src/assertions/tools-call.js'
import type { AssertionContext } from '../../src/assertions/types.js'
import type { Assertion, AssertionResult, ToolCall } from '../../src/types.js'
import { makeContext } from './helpers.js'

const TOOLS_CALL = 'is-valid-openai-tools-call'
const FUNCTION_CALL = 'is-valid-openai-function-call'

const lookupParams = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }
const refundParams = { type: 'object', properties: { amount: { type: 'number', maximum: 100 } }, required: ['amount'] }
const TOOLS = [
  { type: 'function', function: { name: 'lookup_order', parameters: lookupParams } },
  { type: 'function', function: { name: 'refund', parameters: refundParams } }
]

const LOOKUP: ToolCall = { name: 'lookup_order', args: { order_id: 'A18' } }
const REFUND: ToolCall = { name: 'refund', args: { amount: 20 } }

/** Grades a valid assertion. */
async function graded(a: Assertion, ctx: Partial<AssertionContext> & { output?: string }): Promise<AssertionResult> {
  expect(validateAssertion(a)).toBeUndefined()
  const { output = 'ok', ...rest } = ctx
  return evaluateAssertion(a, makeContext(output, rest))
}

describe('the calls checked', () => {
  it('valid calls pass with the path taken, score 1', async () => {
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: [LOOKUP, REFUND], tools: TOOLS })
    expect(result).toMatchObject({ passed: true, score: 1 })
    expect(result.reason).toBe("every call is valid against its tool's schema: lookup_order → refund")
    expect(result.error).toBeUndefined()
  })

  it('not- fails on valid calls, naming what it expected', async () => {
    const result = await graded({ type: `not-${TOOLS_CALL}` }, { toolCalls: [LOOKUP], tools: TOOLS })
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toBe("every call is valid against its tool's schema, expected an invalid call: lookup_order")
  })

  it('an unknown tool fails, listing the tools there are', async () => {
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: [{ name: 'search_kb', args: {} }], tools: TOOLS })
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toBe('search_kb is not one of the tools (lookup_order, refund), expected valid calls of the given tools: search_kb')
  })

  it('not- passes on an invalid call, with what is wrong and the path', async () => {
    const result = await graded({ type: `not-${TOOLS_CALL}` }, { toolCalls: [LOOKUP, { name: 'search_kb', args: {} }], tools: TOOLS })
    expect(result).toMatchObject({ passed: true, score: 1 })
    expect(result.reason).toBe('search_kb is not one of the tools (lookup_order, refund): lookup_order → search_kb')
  })

  it('an empty tools list names none', async () => {
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: [LOOKUP], tools: [] })
    expect(result.passed).toBe(false)
    expect(result.reason).toBe('lookup_order is not one of the tools (none), expected valid calls of the given tools: lookup_order')
  })

  it('arguments against the schema: the call, its args and every problem, joined', async () => {
    const calls: ToolCall[] = [
      { name: 'refund', args: { amount: 500 } },
      { name: 'lookup_order', args: {} },
      { name: 'nope', args: {} }
    ]
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: calls, tools: TOOLS })
    expect(result.passed).toBe(false)
    expect(result.reason).toBe(
      'refund {"amount":500}: /amount must be <= 100; lookup_order {}: (root) must have required property \'order_id\'; ' +
        'nope is not one of the tools (lookup_order, refund), expected valid calls of the given tools: refund → lookup_order → nope'
    )
  })

  it('one bad call among good ones fails the check', async () => {
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: [LOOKUP, { name: 'refund', args: {} }], tools: TOOLS })
    expect(result.passed).toBe(false)
    expect(result.reason).toBe("refund {}: (root) must have required property 'amount', expected valid calls of the given tools: lookup_order → refund")
  })

  // OpenAI's reading, and the peers': a function without parameters takes none
  it('a tool without parameters takes no arguments', async () => {
    const tools = [{ type: 'function', function: { name: 'ping' } }]
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: [{ name: 'ping', args: { anything: [1, 2] } }], tools })
    expect(result.passed).toBe(false)
    expect(result.reason).toBe(
      'ping {"anything":[1,2]}: the tool takes no arguments (its definition has no parameters), expected valid calls of the given tools: ping'
    )
    expect((await graded({ type: TOOLS_CALL }, { toolCalls: [{ name: 'ping', args: {} }], tools })).passed).toBe(true)
    expect((await graded({ type: TOOLS_CALL }, { toolCalls: [{ name: 'ping', args: null }], tools })).passed).toBe(true)
  })

  it('two tools of one name are refused at load, in target.tools as in the value', () => {
    const tools = [
      { name: 'refund', parameters: refundParams },
      { name: 'refund', parameters: { type: 'object', required: ['other'] } }
    ]
    expect(validateAssertion({ type: TOOLS_CALL }, { tools })).toBe(
      'is-valid-openai-tools-call checks calls against target.tools, which cannot grade them: target.tools defines refund twice, so a call of it could be valid against one definition and not the other'
    )
    expect(validateAssertion({ type: TOOLS_CALL, value: tools })).toBe(
      'is-valid-openai-tools-call `value` defines refund twice, so a call of it could be valid against one definition and not the other'
    )
  })

  it('target.tools is checked only where the config is known, and must be set there', () => {
    expect(validateAssertion({ type: TOOLS_CALL })).toBeUndefined()
    expect(validateAssertion({ type: TOOLS_CALL }, {})).toBeUndefined()
    expect(validateAssertion({ type: TOOLS_CALL }, { tools: TOOLS })).toBeUndefined()
    expect(validateAssertion({ type: TOOLS_CALL }, { tools: null })).toBe(
      "is-valid-openai-tools-call has no tool schemas: set `target.tools` (the OpenAI tools array) or give them as the assertion's `value`"
    )
    expect(validateAssertion({ type: TOOLS_CALL, value: TOOLS }, { tools: null })).toBeUndefined()
  })
})

describe('where the schemas come from', () => {
  it('target.tools when the assertion gives none', async () => {
    const result = await graded({ type: TOOLS_CALL }, { toolCalls: [REFUND], tools: TOOLS })
    expect(result.passed).toBe(true)
  })

  it('the assertion’s value wins over target.tools', async () => {
    const value = [{ type: 'function', function: { name: 'search_kb' } }]
    const mine = await graded({ type: TOOLS_CALL, value }, { toolCalls: [{ name: 'search_kb', args: {} }], tools: TOOLS })
    expect(mine.passed).toBe(true)
    const theirs = await graded({ type: TOOLS_CALL, value }, { toolCalls: [REFUND], tools: TOOLS })
    expect(theirs.reason).toBe('refund is not one of the tools (search_kb), expected valid calls of the given tools: refund')
  })

  it('the value alone, without target.tools', async () => {
    const result = await graded({ type: TOOLS_CALL, value: TOOLS }, { toolCalls: [REFUND] })
    expect(result.passed).toBe(true)
  })

  it('functions written flat, {name, parameters}, as well as OpenAI tools', async () => {
    const functions = [{ name: 'refund', parameters: refundParams }]
    const result = await graded({ type: FUNCTION_CALL, value: functions }, { toolCalls: [{ name: 'refund', args: { amount: 101 } }] })
    expect(result.reason).toBe('refund {"amount":101}: /amount must be <= 100, expected valid calls of the given tools: refund')
  })

  it('a `function` that is not an object leaves the tool read flat', async () => {
    const tools = [{ name: 'refund', function: 'refund', parameters: refundParams }]
    expect(validateAssertion({ type: TOOLS_CALL, value: tools })).toBeUndefined()
    const result = await graded({ type: TOOLS_CALL, value: tools }, { toolCalls: [{ name: 'refund', args: {} }] })
    expect(result.reason).toBe("refund {}: (root) must have required property 'amount', expected valid calls of the given tools: refund")
  })

  it('parameters that are not a mapping (null included) are refused', () => {
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ name: 'refund', parameters: ['amount'] }] })).toBe(
      'is-valid-openai-tools-call `value`[0] (refund): `parameters` must be a JSON Schema object, got ["amount"]; leave it out for a tool that takes no arguments'
    )
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ name: 'refund', parameters: null }] })).toBe(
      'is-valid-openai-tools-call `value`[0] (refund): `parameters` must be a JSON Schema object, got null; leave it out for a tool that takes no arguments'
    )
  })

  it('no schemas anywhere is an error, which not- cannot turn into a pass', async () => {
    const message = "is-valid-openai-tools-call has no tool schemas: set `target.tools` (the OpenAI tools array) or give them as the assertion's `value`"
    const plain = await graded({ type: TOOLS_CALL }, { toolCalls: [LOOKUP] })
    expect(plain).toMatchObject({ passed: false, score: 0, reason: message, error: message })
    const negated = await graded({ type: `not-${TOOLS_CALL}` }, { toolCalls: [LOOKUP] })
    const notMessage = message.replace(TOOLS_CALL, `not-${TOOLS_CALL}`)
    expect(negated).toMatchObject({ passed: false, score: 0, reason: notMessage, error: notMessage })
  })

  // the dispatcher fails any outcome with an error; this pins the handler's own finding too
  it('the handler’s own outcome without schemas is a failure with the error', () => {
    const message = "is-valid-openai-tools-call has no tool schemas: set `target.tools` (the OpenAI tools array) or give them as the assertion's `value`"
    const outcome = toolsCallAssertions[TOOLS_CALL]!.run({ type: TOOLS_CALL }, makeContext('ok', { toolCalls: [LOOKUP] }), true)
    expect(outcome).toStrictEqual({ pass: false, score: 0, reason: message, error: message })
  })
})

describe('calls read from the output', () => {
  const check = (output: string, type = FUNCTION_CALL, toolCalls?: ToolCall[]) =>
    graded({ type }, { output, tools: TOOLS, ...(toolCalls ? { toolCalls } : {}) })

  it('one call, {name, arguments} with the arguments as JSON text', async () => {
    const result = await check(JSON.stringify({ name: 'lookup_order', arguments: '{"order_id":"A18"}' }))
    expect(result.passed).toBe(true)
    expect(result.reason).toBe("every call is valid against its tool's schema: lookup_order")
  })

  it('a list of calls, in OpenAI’s {type, function} shape', async () => {
    const output = JSON.stringify([
      { type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"A18"}' } },
      { type: 'function', function: { name: 'refund', arguments: '{"amount":5}' } }
    ])
    const result = await check(output)
    expect(result.reason).toBe("every call is valid against its tool's schema: lookup_order → refund")
  })

  it('{tool_calls: […]}', async () => {
    const output = JSON.stringify({ tool_calls: [{ type: 'function', function: { name: 'refund', arguments: '{"amount":500}' } }] })
    const result = await check(output, TOOLS_CALL)
    expect(result.reason).toBe('refund {"amount":500}: /amount must be <= 100, expected valid calls of the given tools: refund')
  })

  it('{function_call: …}', async () => {
    const output = JSON.stringify({ function_call: { name: 'refund', arguments: '{}' } })
    const result = await check(output)
    expect(result.reason).toBe("refund {}: (root) must have required property 'amount', expected valid calls of the given tools: refund")
  })

  it('tool_calls win over function_call when both are there', async () => {
    const output = JSON.stringify({ tool_calls: [{ name: 'refund', arguments: { amount: 1 } }], function_call: { name: 'nope' } })
    const result = await check(output)
    expect(result.reason).toBe("every call is valid against its tool's schema: refund")
  })

  it('a JSON null is not a call', async () => {
    const result = await check('null')
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toBe('expected valid tool calls: the output[0] must be an object {name, args}, got null')
    expect(result.error).toBeUndefined()
  })

  it('a JSON string is not a call', async () => {
    const result = await check('"refund"')
    expect(result.reason).toBe('expected valid tool calls: the output[0] must be an object {name, args}, got a string')
  })

  it('a single call under tool_calls is read as a list of one', async () => {
    const result = await check(JSON.stringify({ tool_calls: { name: 'refund' } }))
    expect(result.reason).toBe("refund {}: (root) must have required property 'amount', expected valid calls of the given tools: refund")
  })

  it('an empty list is no tool calls: a failure, and a pass for not-', async () => {
    const plain = await check('[]')
    expect(plain).toMatchObject({ passed: false, score: 0 })
    expect(plain.reason).toBe('no tool calls were made, expected valid calls of the given tools: no tool calls')
    const negated = await check('{"tool_calls": []}', `not-${FUNCTION_CALL}`)
    expect(negated).toMatchObject({ passed: true, score: 1 })
    expect(negated.reason).toBe('no tool calls were made: no tool calls')
  })

  it('the trial’s own calls win over the output', async () => {
    const output = JSON.stringify({ name: 'nope', arguments: {} })
    const result = await check(output, TOOLS_CALL, [LOOKUP])
    expect(result.reason).toBe("every call is valid against its tool's schema: lookup_order")
  })

  it('an empty list of trial calls reads the output instead', async () => {
    const output = JSON.stringify({ name: 'refund', arguments: { amount: 3 } })
    const result = await check(output, TOOLS_CALL, [])
    expect(result.reason).toBe("every call is valid against its tool's schema: refund")
  })

  it('an output that is not JSON fails, saying why; not- passes', async () => {
    const output = '```json\n{}\n```\n```json\n[]\n```'
    const why = '2 fenced code blocks; expected the JSON alone or in a single block'
    const plain = await check(output)
    expect(plain).toMatchObject({ passed: false, score: 0 })
    expect(plain.reason).toBe(`expected valid tool calls: no tool calls, and the output is not JSON (${why})`)
    expect(plain.error).toBeUndefined()
    const negated = await check(output, `not-${FUNCTION_CALL}`)
    expect(negated).toMatchObject({ passed: true, score: 1 })
    expect(negated.reason).toBe(`no valid tool calls: no tool calls, and the output is not JSON (${why})`)
  })
})

describe('validation of the value', () => {
  it('no value is fine (target.tools then)', () => {
    expect(validateAssertion({ type: TOOLS_CALL })).toBeUndefined()
  })

  it('a value that is not a list', () => {
    expect(validateAssertion({ type: TOOLS_CALL, value: { name: 'refund' } })).toBe(
      'is-valid-openai-tools-call `value` must be the OpenAI tools array ([{type: function, function: {name, parameters}}])'
    )
    expect(validateAssertion({ type: FUNCTION_CALL, value: 'refund' })).toBe(
      'is-valid-openai-function-call `value` must be the OpenAI tools array ([{type: function, function: {name, parameters}}])'
    )
  })

  it('a tool without a name', () => {
    const problem = (i: number) => `is-valid-openai-tools-call \`value\`[${i}] needs a name ({type: function, function: {name, parameters}})`
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ type: 'function', function: { parameters: {} } }] })).toBe(problem(0))
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ type: 'function', function: { name: 7 } }] })).toBe(problem(0))
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ type: 'function', function: { name: ' ' } }] })).toBe(problem(0))
    expect(validateAssertion({ type: TOOLS_CALL, value: [...TOOLS, 'refund'] })).toBe(problem(2))
    expect(validateAssertion({ type: TOOLS_CALL, value: [null] })).toBe(problem(0))
  })

  it('a tool whose `function` is not an object and that has no name of its own', () => {
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ function: 'refund' }] })).toBe(
      'is-valid-openai-tools-call `value`[0] needs a name ({type: function, function: {name, parameters}})'
    )
  })

  it('parameters that are not a usable JSON Schema, naming the tool', () => {
    const value = [TOOLS[0], { type: 'function', function: { name: 'refund', parameters: { type: 'nonsense' } } }]
    expect(validateAssertion({ type: TOOLS_CALL, value })).toMatch(
      /^is-valid-openai-tools-call `value`\[1\] \(refund\): the parameters are not a usable JSON Schema: schema is invalid: data\/type must be equal to one of the allowed values/
    )
  })

  it('tools without parameters are valid', () => {
    expect(validateAssertion({ type: TOOLS_CALL, value: [{ name: 'ping' }, { type: 'function', function: { name: 'pong' } }] })).toBeUndefined()
    expect(validateAssertion({ type: TOOLS_CALL, value: [] })).toBe(
      'is-valid-openai-tools-call `value` lists no tools, so no call could be valid; list the tools the agent may call'
    )
  })
})
