/**
 * From spans to the §10 result (SPEC §12), table-driven: which spans are tool
 * calls (GenAI execute_tool, OpenInference TOOL), what usage and model the LLM
 * spans give (innermost only: no sum counted twice), the order of calls, and
 * promptfoo's rules for error spans.
 */
import { describe, expect, it } from '@jest/globals'
import { agentFromSpans, durationMs, isErrorSpan, toolCallOf, type Span } from '../../src/tracing/spans.js'

let n = 0
const span = (name: string, attributes: Span['attributes'] = {}, extra: Partial<Span> = {}): Span => ({
  traceId: 'a'.repeat(32),
  spanId: (++n).toString(16).padStart(16, '0'),
  name,
  startNs: BigInt(n),
  endNs: BigInt(n + 1),
  attributes,
  statusCode: 0,
  ...extra
})

describe('tool calls', () => {
  it.each<[string, Span, unknown]>([
    [
      'GenAI execute_tool, arguments and result as JSON text',
      span('execute_tool refund', {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'refund',
        'gen_ai.tool.call.arguments': '{"order_id":"A18"}',
        'gen_ai.tool.call.result': '{"ok":true}'
      }),
      { name: 'refund', args: { order_id: 'A18' }, result: { ok: true } }
    ],
    ['GenAI, the name from the span name', span('execute_tool lookup', { 'gen_ai.operation.name': 'execute_tool' }), { name: 'lookup', args: {} }],
    [
      'OpenInference TOOL, arguments from input.value',
      span('refund', { 'openinference.span.kind': 'TOOL', 'tool.name': 'refund', 'input.value': '{"amount":5}', 'output.value': 'done' }),
      { name: 'refund', args: { amount: 5 }, result: 'done' }
    ],
    [
      'OpenInference TOOL, else tool.parameters',
      span('t', { 'openinference.span.kind': 'TOOL', 'tool.name': 'x', 'tool.parameters': '{"q":1}' }),
      { name: 'x', args: { q: 1 } }
    ],
    [
      'arguments that are not JSON stay text',
      span('t', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'sh', 'gen_ai.tool.call.arguments': 'ls -la' }),
      { name: 'sh', args: 'ls -la' }
    ],
    ['a chat span is no tool call', span('chat gpt', { 'gen_ai.operation.name': 'chat' }), undefined],
    ['OpenInference LLM is no tool call', span('llm', { 'openinference.span.kind': 'LLM' }), undefined],
    ['a plain span is no tool call', span('GET /orders', { 'http.method': 'GET' }), undefined]
  ])('%s', (_label, s, call) => {
    expect(toolCallOf(s)).toEqual(call)
  })

  it('come in start-time order, whatever order the spans arrived in', () => {
    const tool = (name: string, start: bigint) =>
      span(`execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name }, { startNs: start, endNs: start + 5n })
    expect(agentFromSpans([tool('third', 30n), tool('first', 10n), tool('second', 20n)]).toolCalls.map((c) => c.name)).toEqual(['first', 'second', 'third'])
  })

  it('in one millisecond (the JS SDK stamps starts to the ms), in the order they ended and arrived, whatever their durations', () => {
    // as exported by the JS SDK: lookup_order then refund in one ms, the first taking longer
    const at = 1_796_481_859_334_000_000n
    const lookup = span(
      'execute_tool lookup_order',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' },
      { startNs: at, endNs: at + 117_292n }
    )
    const refund = span('execute_tool refund', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'refund' }, { startNs: at, endNs: at + 117_044n })
    expect(agentFromSpans([lookup, refund]).toolCalls.map((c) => c.name)).toEqual(['lookup_order', 'refund'])
  })
})

describe('usage and model', () => {
  const chat = (input: number, output: number, model: string, extra: Partial<Span> = {}) =>
    span(
      `chat ${model}`,
      { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output, 'gen_ai.response.model': model },
      extra
    )

  it('sums the LLM spans, and names the model with the most tokens', () => {
    expect(agentFromSpans([chat(100, 10, 'mini'), chat(300, 30, 'large'), chat(50, 5, 'mini')])).toMatchObject({
      usage: { inputTokens: 450, outputTokens: 45, totalTokens: 495 },
      model: 'large'
    })
  })

  it('counts an enclosing span that sums its children once: not at all', () => {
    const agent = span('invoke_agent', { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 400, 'gen_ai.usage.output_tokens': 40 })
    const step = span('step', {}, { parentSpanId: agent.spanId })
    const inner = chat(100, 10, 'mini', { parentSpanId: step.spanId })
    expect(agentFromSpans([agent, step, inner]).usage).toEqual({ inputTokens: 100, outputTokens: 10, totalTokens: 110 })
  })

  it('an agent span (invoke_agent) is never read for tokens', () => {
    const agent = span('invoke_agent', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 999 })
    expect(agentFromSpans([agent, chat(1, 2, 'm')]).usage).toEqual({ inputTokens: 1, outputTokens: 2, totalTokens: 3 })
  })

  it('OpenInference LLM spans, tokens as text too', () => {
    const llm = span('llm', {
      'openinference.span.kind': 'LLM',
      'llm.token_count.prompt': '70',
      'llm.token_count.completion': 7,
      'llm.model_name': 'gpt-4o-mini'
    })
    expect(agentFromSpans([llm])).toMatchObject({ usage: { inputTokens: 70, outputTokens: 7 }, model: 'gpt-4o-mini' })
  })

  it('no LLM span, no usage (not zero)', () => {
    expect(agentFromSpans([span('x')])).toEqual({ toolCalls: [] })
  })

  it('a parent cycle in a malformed trace does not hang', () => {
    const a = chat(1, 1, 'm')
    const b = chat(2, 2, 'm', { parentSpanId: a.spanId })
    a.parentSpanId = b.spanId
    expect(agentFromSpans([a, b]).toolCalls).toEqual([])
  })
})

describe('error spans (promptfoo rules)', () => {
  it.each<[string, Partial<Span>, boolean]>([
    ['status ERROR', { statusCode: 2 }, true],
    ['status OK', { statusCode: 1 }, false],
    ['error: true', { attributes: { error: true } }, true],
    ['error: "true"', { attributes: { error: 'true' } }, true],
    ['exception as an object', { attributes: { exception: { type: 'Boom' } } }, true],
    ['error: false', { attributes: { error: false } }, false],
    ['http.status_code 500', { attributes: { 'http.status_code': 500 } }, true],
    ['http.status_code "404"', { attributes: { 'http.status_code': '404' } }, true],
    ['http.status_code 200', { attributes: { 'http.status_code': 200 } }, false],
    ['otel.status_code ERROR', { attributes: { 'otel.status_code': 'ERROR' } }, true],
    ['a status message of a timeout', { statusMessage: 'upstream timeout' }, true],
    ['a status message of nothing wrong', { statusMessage: 'cache hit' }, false]
  ])('%s', (_label, extra, error) => {
    expect(isErrorSpan(span('s', {}, extra))).toBe(error)
  })

  it('durations come from integer nanoseconds', () => {
    expect(durationMs(span('s', {}, { startNs: 1_700_000_000_000_000_000n, endNs: 1_700_000_000_012_345_678n }))).toBe(12.345678)
    expect(durationMs(span('s', {}, { startNs: 10n, endNs: 5n }))).toBe(0)
  })
})
