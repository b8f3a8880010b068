/**
 * The peers' own test suites used as data (issue 35): promptfoo's trajectory,
 * tool-call-f1 and tools-call tests, and LangChain agentevals' trajectory-match
 * tests, rewritten as rows of (assertion, tool calls, the peer's verdict). A row
 * is either graded (passes or fails, as the peer says) or refused at load —
 * where the peer throws on the value, or where the value could never mean
 * what it says.
 *
 * Rows marked with a `class` are the disagreements: run against main at
 * 083ae23 (before this change), each of the 70 gave another verdict — a pass
 * for a fail, a value accepted that the peer refuses or that could never mean
 * what it says, a key refused or ignored that the peer honours. Unmarked rows
 * agreed already (4 of them were refused there too, in other words) and pin it.
 */
import { describe, expect, it } from '@jest/globals'
import { evaluateAssertion, validateAssertion } from '../../src/assertions/index.js'
import type { Assertion, EvalCase, ToolCall } from '../../src/types.js'

const CASE: EvalCase = { id: 'c', name: 'c', input: 'x', tags: [], assert: [], fingerprint: 'f', index: 0 }

/** Where a row's data comes from, and which class of disagreement it shows (issue 35). */
type Klass = 'not-list' | 'f1-empty' | 'invalid-tools' | 'no-parameters' | 'keys' | 'args-modes'

interface Row {
  label: string
  assertion: Assertion
  calls?: ToolCall[]
  /** true/false: the peer's verdict; a string: refused at load, with these words in the reason */
  verdict: boolean | { refused: string }
  class?: Klass
  /** the schemas of is-valid-openai-tools-call (target.tools) */
  tools?: unknown[]
}

// promptfoo's trace fixture, as the tool calls it holds (its command, reasoning and plain spans are not tool calls)
const SEARCH_ORDERS: ToolCall = { name: 'search_orders', args: { order_id: '123', include_history: false } }
const SEARCH_INVENTORY: ToolCall = { name: 'search_inventory', args: { query: 'quantum computing', limit: 3 } }
const COMPOSE: ToolCall = { name: 'compose_reply', args: { tone: 'friendly', citations: ['doc_1', 'doc_2'] } }
const PF = [SEARCH_ORDERS, SEARCH_INVENTORY, COMPOSE]
const orders = (args: unknown): ToolCall[] => [{ name: 'orders', args }]
const searchOrders = (args: unknown): ToolCall[] => [{ name: 'search_orders', args }]
const protoArgs = (extra: string) => JSON.parse(`{"status":"Q","__proto__":{"polluted":true}${extra}}`) as unknown

const used = (value: unknown, not = false): Assertion => ({ type: `${not ? 'not-' : ''}trajectory:tool-used`, value })
const sequence = (value: unknown, not = false): Assertion => ({ type: `${not ? 'not-' : ''}trajectory:tool-sequence`, value })
const argsMatch = (value: unknown, not = false): Assertion => ({ type: `${not ? 'not-' : ''}trajectory:tool-args-match`, value })
const steps = (value: unknown, not = false): Assertion => ({ type: `${not ? 'not-' : ''}trajectory:step-count`, value })

const promptfooTrajectory: Row[] = [
  // trajectory:tool-used
  { label: 'a tool that was called', assertion: used('search_orders'), calls: PF, verdict: true },
  { label: 'a pattern counted (search* twice)', assertion: used({ pattern: 'search*', min: 2, max: 2 }), calls: PF, verdict: true, class: 'keys' },
  { label: 'a pattern with a min only', assertion: used({ pattern: 'search*', min: 1 }), calls: PF, verdict: true, class: 'keys' },
  { label: 'a pattern counted over its max', assertion: used({ pattern: 'search*', max: 1 }), calls: PF, verdict: false, class: 'keys' },
  { label: 'not-: a forbidden tool that was called', assertion: used('compose_reply', true), calls: PF, verdict: false },
  {
    label: 'not-: a list, one forbidden tool called, one not',
    assertion: used(['missing_tool', 'compose_reply'], true),
    calls: PF,
    verdict: false,
    class: 'not-list'
  },
  { label: 'not-: a list, both forbidden tools called', assertion: used(['search_orders', 'compose_reply'], true), calls: PF, verdict: false },
  { label: 'not-: a list, no forbidden tool called', assertion: used(['missing_tool'], true), calls: PF, verdict: true },
  { label: 'not-: a list of two, neither called', assertion: used(['missing_tool', 'other_tool'], true), calls: PF, verdict: true },
  { label: 'not-: a count not satisfied', assertion: used({ name: 'missing_tool', min: 1 }, true), calls: PF, verdict: true },
  { label: 'a list with a tool missing', assertion: used(['search_orders', 'missing_tool']), calls: PF, verdict: false },
  { label: 'a number', assertion: used(123), verdict: { refused: 'tool names' } },
  { label: 'a count without a name or pattern', assertion: used({ min: 1 }), verdict: { refused: 'needs a `name` or a `pattern`' } },
  { label: 'a name and a pattern at once', assertion: used({ name: 'a', pattern: 'a*' }), verdict: { refused: 'either `name` or `pattern`' }, class: 'keys' },
  { label: 'an unknown key (maxx)', assertion: used({ name: 'search_orders', maxx: 1 }), verdict: { refused: '`maxx`' }, class: 'keys' },
  // trajectory:tool-sequence
  { label: 'steps in order', assertion: sequence(['search_orders', 'compose_reply']), calls: PF, verdict: true },
  { label: 'exact, with a step between', assertion: sequence({ mode: 'exact', steps: ['search_orders', 'compose_reply'] }), calls: PF, verdict: false },
  {
    label: 'exact, the same steps',
    assertion: sequence({ mode: 'exact', steps: ['search_orders', 'compose_reply'] }),
    calls: [SEARCH_ORDERS, COMPOSE],
    verdict: true
  },
  { label: 'steps out of order', assertion: sequence(['compose_reply', 'search_orders']), calls: PF, verdict: false },
  { label: 'not-: the sequence is there', assertion: sequence(['search_orders', 'compose_reply'], true), calls: PF, verdict: false },
  { label: 'not-: the sequence is not there', assertion: sequence(['compose_reply', 'search_orders'], true), calls: PF, verdict: true },
  {
    label: 'steps written as {name} and {pattern}',
    assertion: sequence([{ name: 'search_orders' }, { pattern: 'compose_*' }]),
    calls: PF,
    verdict: true,
    class: 'keys'
  },
  { label: 'a pattern step out of order', assertion: sequence([{ pattern: 'compose_*' }, 'search_inventory']), calls: PF, verdict: false, class: 'keys' },
  { label: 'a step without a name or pattern', assertion: sequence([{ type: 'tool' }, 'compose_reply']), verdict: { refused: 'step 1' } },
  { label: 'one name, not a list', assertion: sequence('search_orders'), verdict: { refused: 'a list of tool names' } },
  { label: 'no steps', assertion: sequence({ steps: [] }), verdict: { refused: 'a list of tool names' } },
  { label: 'a step of another type (command)', assertion: sequence([{ name: 'ls', type: 'command' }]), verdict: { refused: 'type' }, class: 'keys' },
  // trajectory:tool-args-match
  { label: 'a subset of the arguments', assertion: argsMatch({ name: 'search_orders', args: { order_id: '123' } }), calls: PF, verdict: true },
  { label: 'an array argument', assertion: argsMatch({ name: 'compose_reply', args: { citations: ['doc_1', 'doc_2'] } }), calls: PF, verdict: true },
  {
    label: 'exact, by pattern, written as `arguments`',
    assertion: argsMatch({ pattern: 'compose_*', mode: 'exact', arguments: { tone: 'friendly', citations: ['doc_1', 'doc_2'] } }),
    calls: PF,
    verdict: true,
    class: 'keys'
  },
  {
    label: 'partial inside array items',
    assertion: argsMatch({ name: 'create', args: { items: [{ sku: 'A' }] } }),
    calls: [{ name: 'create', args: { items: [{ sku: 'A', qty: 2 }] } }],
    verdict: true,
    class: 'keys'
  },
  { label: 'another value', assertion: argsMatch({ name: 'search_orders', args: { order_id: '999' } }), calls: PF, verdict: false },
  { label: 'a tool never called', assertion: argsMatch({ name: 'missing_tool', args: { order_id: '123' } }), calls: PF, verdict: false },
  { label: 'not-: a matching call made', assertion: argsMatch({ name: 'search_orders', args: { order_id: '123' } }, true), calls: PF, verdict: false },
  { label: 'not-: the tool never called', assertion: argsMatch({ name: 'missing_tool', args: { order_id: '123' } }, true), calls: PF, verdict: true },
  { label: 'no args', assertion: argsMatch({ name: 'search_orders' }), verdict: { refused: '`args`' } },
  { label: 'a misspelt mode', assertion: argsMatch({ name: 'search_orders', mode: 'excat', args: {} }), verdict: { refused: 'partial or exact' } },
  { label: 'a name, not an object', assertion: argsMatch('search_orders'), verdict: { refused: 'needs a `value`' } },
  { label: 'args without a name or pattern', assertion: argsMatch({ args: { order_id: '123' } }), verdict: { refused: 'needs a `name` or a `pattern`' } },
  // defaults: a call's argument equal to its declared default is dropped before comparing
  {
    label: 'defaults: an extra key at its default',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { order_id: '123' }, defaults: { include_history: false } }),
    calls: PF,
    verdict: true,
    class: 'keys'
  },
  {
    label: 'defaults: an extra key off its default',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { order_id: '123' }, defaults: { include_history: true } }),
    calls: PF,
    verdict: false
  },
  {
    label: 'defaults: several keys at their defaults',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1, page_size: 5 } }),
    calls: orders({ status: 'Q', page: 1, page_size: 5 }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'defaults: keys left out',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1, page_size: 5 } }),
    calls: orders({ status: 'Q' }),
    verdict: true
  },
  {
    label: 'defaults: a hallucinated key besides',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1 } }),
    calls: orders({ status: 'Q', page: 1, delete_database: true }),
    verdict: false
  },
  {
    label: 'defaults: empty is none',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { order_id: '123' }, defaults: {} }),
    calls: PF,
    verdict: false
  },
  {
    label: 'defaults: a structured default',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { sort: { field: 'created', order: 'desc' } } }),
    calls: orders({ status: 'Q', sort: { field: 'created', order: 'desc' } }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'defaults: partial mode',
    assertion: argsMatch({ name: 'search_orders', args: { order_id: '123' }, defaults: { include_history: false } }),
    calls: PF,
    verdict: true
  },
  {
    label: 'defaults: a page off its default',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1, page_size: 5 } }),
    calls: orders({ status: 'Q', page: 2 }),
    verdict: false
  },
  {
    label: 'defaults: null',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { cursor: null } }),
    calls: orders({ status: 'Q', cursor: null }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'defaults: args asks another value than the default the call has',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q', page: 2 }, defaults: { page: 1 } }),
    calls: orders({ status: 'Q', page: 1 }),
    verdict: false
  },
  {
    label: 'defaults: not into nested objects',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1 } }),
    calls: orders({ status: 'Q', pagination: { page: 1 } }),
    verdict: false
  },
  {
    label: 'defaults: not- when a default lets the call match',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { order_id: '123' }, defaults: { include_history: false } }, true),
    calls: PF,
    verdict: false,
    class: 'keys'
  },
  {
    label: 'defaults: a __proto__ argument is still an extra key',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1 } }),
    calls: orders(protoArgs('')),
    verdict: false
  },
  {
    label: 'defaults: with the arguments alias',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', arguments: { order_id: '123' }, defaults: { include_history: false } }),
    calls: PF,
    verdict: true,
    class: 'keys'
  },
  {
    label: 'defaults: arguments that are an array',
    assertion: argsMatch({ name: 'orders', mode: 'exact', args: [1, 2, 3], defaults: { page: 1 } }),
    calls: orders([1, 2, 3]),
    verdict: true
  },
  {
    label: 'defaults: "*" is a value, not a wildcard (matching)',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, defaults: { fields: '*' } }),
    calls: searchOrders({ status: 'Q', fields: '*' }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'defaults: "*" is a value, not a wildcard (other value)',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, defaults: { fields: '*' } }),
    calls: searchOrders({ status: 'Q', fields: 'ssn,password' }),
    verdict: false
  },
  ...[
    ['a list', ['include_history']],
    ['null', null],
    ['a string', 'include_history'],
    ['a number', 1]
  ].map(([what, defaults]): Row => ({
    label: `defaults: ${String(what)}`,
    assertion: argsMatch({ name: 'search_orders', args: { order_id: '123' }, defaults }),
    verdict: { refused: '`defaults` must be an object' },
    class: 'keys'
  })),
  {
    // promptfoo drops the call's page: 1 before comparing, so args' page: 1 can never be met
    label: 'defaults: the same key and value in args and defaults can never match',
    assertion: argsMatch({ name: 'orders', args: { status: 'Q', page: 1 }, defaults: { page: 1 } }),
    verdict: { refused: 'can never match' },
    class: 'keys'
  },
  // ignore: argument keys (or key patterns) dropped from both sides
  {
    label: 'ignore: a key whatever its value',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['request_id'] }),
    calls: searchOrders({ status: 'Q', request_id: 'a' }),
    verdict: true,
    class: 'keys'
  },
  ...['eyJvZmZzZXQiOjQyfQ==', null, 0, { page: 3 }].map((cursor): Row => ({
    label: `ignore: a key of any value (${JSON.stringify(cursor)})`,
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['cursor'] }),
    calls: searchOrders({ status: 'Q', cursor }),
    verdict: true,
    class: 'keys'
  })),
  {
    label: 'ignore: a single name',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: 'request_id' }),
    calls: searchOrders({ status: 'Q', request_id: 'abc' }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'ignore: a hallucinated key not ignored',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['request_id'] }),
    calls: searchOrders({ status: 'Q', request_id: 'abc', delete_database: true }),
    verdict: false
  },
  {
    label: 'ignore: dropped from the expected args too',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q', request_id: 'expected' }, ignore: ['request_id'] }),
    calls: searchOrders({ status: 'Q' }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'ignore: with defaults',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, defaults: { page: 1 }, ignore: ['request_id'] }),
    calls: searchOrders({ status: 'Q', page: 1, request_id: 'abc' }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'ignore: partial mode',
    assertion: argsMatch({ name: 'search_orders', mode: 'partial', args: { status: 'Q' }, ignore: ['request_id'] }),
    calls: searchOrders({ status: 'Q', request_id: 'abc' }),
    verdict: true
  },
  {
    label: 'ignore: not-',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['request_id'] }, true),
    calls: searchOrders({ status: 'Q', request_id: 'abc' }),
    verdict: false,
    class: 'keys'
  },
  {
    label: 'ignore: a __proto__ argument is still an extra key',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['request_id'] }),
    calls: searchOrders(protoArgs(',"request_id":"abc"')),
    verdict: false
  },
  {
    label: 'ignore: arguments that are an array',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: ['a', 'b'], ignore: ['request_id'] }),
    calls: searchOrders(['a', 'b']),
    verdict: true
  },
  {
    label: 'ignore: a key pattern',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['*_id'] }),
    calls: searchOrders({ status: 'Q', request_id: 'a1', order_id: 'b2' }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'ignore: a key pattern that does not cover a hallucinated key',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['*_id'] }),
    calls: searchOrders({ status: 'Q', request_id: 'a1', delete_database: true }),
    verdict: false
  },
  {
    label: 'ignore: ? matches one character',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['v?'] }),
    calls: searchOrders({ status: 'Q', v1: 'x' }),
    verdict: true,
    class: 'keys'
  },
  {
    label: 'ignore: a plain name is not a prefix',
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore: ['request'] }),
    calls: searchOrders({ status: 'Q', request_id: 'a1' }),
    verdict: false
  },
  ...[
    ['a number', [5]],
    ['an empty string', ['']],
    ['null', [null]],
    ['an object', [{ request_id: true }]]
  ].map(([what, ignore]): Row => ({
    label: `ignore: ${String(what)}`,
    assertion: argsMatch({ name: 'search_orders', mode: 'exact', args: { status: 'Q' }, ignore }),
    verdict: { refused: '`ignore`' },
    class: 'keys'
  })),
  { label: 'an unknown key (ignroe)', assertion: argsMatch({ name: 'a', args: {}, ignroe: ['x'] }), verdict: { refused: '`ignroe`' }, class: 'keys' },
  // trajectory:step-count: evalgate counts tool calls, so only `type: tool` is a step it has
  { label: 'type tool, at most 3', assertion: steps({ type: 'tool', max: 3 }), calls: PF, verdict: true },
  { label: 'type tool, at most 2', assertion: steps({ type: 'tool', max: 2 }), calls: PF, verdict: false },
  { label: 'types as a list', assertion: steps({ type: ['tool'], min: 3 }), calls: PF, verdict: true },
  { label: 'not-: type tool, at least 4', assertion: steps({ type: 'tool', min: 4 }, true), calls: PF, verdict: true },
  { label: 'a pattern of tools', assertion: steps({ pattern: 'search_*', min: 2, max: 2 }), calls: PF, verdict: true, class: 'keys' },
  { label: 'a pattern of tools, over its max', assertion: steps({ pattern: 'search_*', max: 1 }), calls: PF, verdict: false },
  { label: 'no min or max', assertion: steps({ type: 'tool' }), verdict: { refused: 'with min or max' } },
  { label: 'not an object', assertion: steps('tool'), verdict: { refused: 'needs a `value`' } },
  { label: 'a step type evalgate has no calls of (command)', assertion: steps({ type: 'command', min: 1 }), verdict: { refused: '`type`' }, class: 'keys' },
  { label: 'an unknown key (nmae)', assertion: steps({ max: 2, nmae: 'x' }), verdict: { refused: '`nmae`' }, class: 'keys' }
]

const promptfooF1: Row[] = [
  { label: 'the expected names', assertion: { type: 'tool-call-f1', value: ['search_orders', 'search_inventory', 'compose_reply'] }, calls: PF, verdict: true },
  { label: 'a comma-separated list', assertion: { type: 'tool-call-f1', value: 'search_orders, compose_reply', threshold: 0.8 }, calls: PF, verdict: true },
  { label: 'no names (an empty list)', assertion: { type: 'tool-call-f1', value: [] }, verdict: { refused: 'at least one tool name' }, class: 'f1-empty' },
  { label: 'an empty string', assertion: { type: 'tool-call-f1', value: '' }, verdict: { refused: 'at least one tool name' }, class: 'f1-empty' },
  { label: 'only commas and spaces', assertion: { type: 'tool-call-f1', value: ' , ' }, verdict: { refused: 'at least one tool name' }, class: 'f1-empty' },
  { label: 'a blank name in a list', assertion: { type: 'tool-call-f1', value: ['search_orders', ' '] }, verdict: { refused: 'blank' }, class: 'f1-empty' }
]

const fn = (name: unknown, parameters?: unknown) => ({ type: 'function', function: { name, ...(parameters === undefined ? {} : { parameters }) } })
const OBJ = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }
const toolsCall = (value?: unknown): Assertion => ({ type: 'is-valid-openai-tools-call', ...(value === undefined ? {} : { value }) })

const toolsRows: Row[] = [
  { label: 'a valid call', assertion: toolsCall([fn('search', OBJ)]), calls: [{ name: 'search', args: { q: 'x' } }], verdict: true },
  { label: 'an invalid call', assertion: toolsCall([fn('search', OBJ)]), calls: [{ name: 'search', args: {} }], verdict: false },
  { label: 'no tools', assertion: toolsCall([]), verdict: { refused: 'no tools' }, class: 'invalid-tools' },
  { label: 'a tool with an empty name', assertion: toolsCall([fn('', OBJ)]), verdict: { refused: 'needs a name' }, class: 'invalid-tools' },
  { label: 'parameters: null', assertion: toolsCall([fn('search', null)]), verdict: { refused: 'parameters' }, class: 'invalid-tools' },
  { label: 'two tools with one name', assertion: toolsCall([fn('search', OBJ), fn('search')]), verdict: { refused: 'twice' }, class: 'invalid-tools' },
  { label: 'target.tools: no tools', assertion: toolsCall(), tools: [], verdict: { refused: 'target.tools' }, class: 'invalid-tools' },
  { label: 'target.tools: an empty name', assertion: toolsCall(), tools: [fn('')], verdict: { refused: 'target.tools' }, class: 'invalid-tools' },
  { label: 'target.tools: parameters: null', assertion: toolsCall(), tools: [fn('a', null)], verdict: { refused: 'target.tools' }, class: 'invalid-tools' },
  { label: 'target.tools: one name twice', assertion: toolsCall(), tools: [fn('a'), fn('a')], verdict: { refused: 'target.tools' }, class: 'invalid-tools' },
  { label: 'target.tools: none set', assertion: toolsCall(), tools: undefined, verdict: { refused: 'target.tools' }, class: 'invalid-tools' },
  {
    label: 'a tool without parameters, called with arguments',
    assertion: toolsCall([fn('get_time')]),
    calls: [{ name: 'get_time', args: { tz: 'UTC' } }],
    verdict: false,
    class: 'no-parameters'
  },
  { label: 'a tool without parameters, called with none', assertion: toolsCall([fn('get_time')]), calls: [{ name: 'get_time', args: {} }], verdict: true },
  {
    label: 'target.tools: a tool without parameters, called with arguments',
    assertion: toolsCall(),
    tools: [fn('get_time')],
    calls: [{ name: 'get_time', args: { tz: 'UTC' } }],
    verdict: false,
    class: 'no-parameters'
  }
]

// agentevals' trajectory tests: their messages' tool calls, in order
const weather = (city: string): ToolCall[] => [{ name: 'get_weather', args: { city } }]
const flight = (args: Record<string, unknown>): ToolCall[] => [{ name: 'get_flight_info', args }]
const match = (value: ToolCall[], extra: Partial<Assertion> = {}): Assertion => ({
  type: 'trajectory-match',
  value: value.map(({ name, args }) => ({ name, args })),
  ...extra
})
const TIME = { start: '2025-03-22T18:34:40Z', end: '2025-03-22T20:34:40Z' }
const FLIGHT_CALLS: ToolCall[] = [
  { name: 'fetch_user_flight_information', args: { user_id: '123' } },
  { name: 'lookup_policy', args: { query: 'flight upgrades', time: TIME } },
  { name: 'lookup_policy', args: { query: 'first class', time: TIME } }
]
const FLIGHT_REFERENCE: ToolCall[] = [
  { name: 'fetch_user_flight_information', args: { user_id: '123' } },
  { name: 'lookup_policy', args: { query: 'foo', time: { start: TIME.start, end: 'baz' } } },
  { name: 'lookup_policy', args: { query: 'bar', time: { start: TIME.start, end: 'baz' } } }
]

const agentevalsRows: Row[] = [
  { label: 'strict, other args, exact', assertion: match(weather('San Francisco')), calls: weather('SF'), verdict: false },
  { label: 'strict, other args, ignore', assertion: match(weather('San Francisco'), { args: 'ignore' }), calls: weather('SF'), verdict: true },
  ...(
    [
      ['exact', false],
      ['ignore', true],
      ['subset', false],
      ['superset', true]
    ] as const
  ).map(([args, verdict]): Row => ({
    label: `a call with more args than the reference, args: ${args}`,
    assertion: match(flight({ flight_no: 'LX0112' }), { args }),
    calls: flight({ is_cool: true, flight_no: 'LX0112' }),
    verdict,
    ...(args === 'subset' || args === 'superset' ? { class: 'args-modes' as const } : {})
  })),
  ...(
    [
      ['exact', false],
      ['ignore', true],
      ['subset', true],
      ['superset', false]
    ] as const
  ).map(([args, verdict]): Row => ({
    label: `a call with fewer args than the reference, args: ${args}`,
    assertion: match(flight({ flight_no: 'LX0112', foo: 'bar' }), { args }),
    calls: flight({ flight_no: 'LX0112' }),
    verdict,
    ...(args === 'subset' || args === 'superset' ? { class: 'args-modes' as const } : {})
  })),
  ...(['exact', 'ignore', 'subset', 'superset'] as const).map((args): Row => ({
    label: `the same args, args: ${args}`,
    assertion: match(flight({ flight_no: 'LX0112' }), { args }),
    calls: flight({ flight_no: 'LX0112' }),
    verdict: true,
    ...(args === 'subset' || args === 'superset' ? { class: 'args-modes' as const } : {})
  })),
  ...(['strict', 'unordered', 'subset', 'superset'] as const).flatMap((mode): Row[] => [
    { label: `${mode}: nested args differ, no override`, assertion: match(FLIGHT_REFERENCE, { mode }), calls: FLIGHT_CALLS, verdict: false },
    {
      label: `${mode}: argsByTool compares lookup_policy on time.start only`,
      assertion: match(FLIGHT_REFERENCE, { mode, argsByTool: { lookup_policy: ['time.start'] } }),
      calls: FLIGHT_CALLS,
      verdict: true,
      class: 'args-modes'
    }
  ]),
  {
    label: 'argsByTool: a mode for one tool',
    assertion: match([...weather('San Francisco'), ...flight({ flight_no: 'LX0112' })], { argsByTool: { get_weather: 'ignore' } }),
    calls: [...weather('SF'), ...flight({ flight_no: 'LX0112' })],
    verdict: true,
    class: 'args-modes'
  },
  {
    label: 'argsByTool: the other tools keep args',
    assertion: match([...weather('San Francisco'), ...flight({ flight_no: 'LX0112' })], { args: 'exact', argsByTool: { get_weather: 'ignore' } }),
    calls: [...weather('SF'), ...flight({ flight_no: 'LX9999' })],
    verdict: false
  },
  { label: 'args: a misspelt mode', assertion: match([], { args: 'supreset' }), verdict: { refused: 'exact, ignore, subset or superset' } },
  {
    label: 'argsByTool: a misspelt mode',
    assertion: match([], { argsByTool: { a: 'exakt' } }),
    verdict: { refused: 'argsByTool.a' },
    class: 'args-modes'
  },
  {
    label: 'argsByTool: an empty key list',
    assertion: match([], { argsByTool: { a: [] } }),
    verdict: { refused: 'argsByTool.a' },
    class: 'args-modes'
  }
]

async function verdictOf(row: Row): Promise<boolean | { refused: string }> {
  const problem = validateAssertion(row.assertion, { tools: row.tools ?? null })
  if (problem !== undefined) return { refused: problem }
  const result = await evaluateAssertion(row.assertion, {
    output: 'done',
    input: CASE.input,
    case: CASE,
    durationMs: 1,
    toolCalls: row.calls ?? [],
    ...(row.tools ? { tools: row.tools } : {})
  })
  if (result.error !== undefined) throw new Error(`${row.label}: ${result.error}`)
  return result.passed
}

describe.each([
  ['promptfoo trajectory:* (test/assertions/trajectory.test.ts)', promptfooTrajectory],
  ['promptfoo tool-call-f1', promptfooF1],
  ['is-valid-openai-tools-call against its tool definitions', toolsRows],
  ['agentevals trajectory-match (js/src/trajectory/tests/trajectory.test.ts)', agentevalsRows]
])('%s', (_suite, rows) => {
  it.each(rows.map((row) => [row.class ? `${row.label} [${row.class}]` : row.label, row] as const))('%s', async (_label, row) => {
    const verdict = await verdictOf(row)
    if (typeof row.verdict === 'boolean') expect(verdict).toBe(row.verdict)
    else {
      expect(verdict).toEqual({ refused: expect.any(String) })
      expect((verdict as { refused: string }).refused).toContain(row.verdict.refused)
    }
  })
})

it('every class of disagreement has rows', () => {
  const classes = new Set([...promptfooTrajectory, ...promptfooF1, ...toolsRows, ...agentevalsRows].map((r) => r.class).filter(Boolean))
  expect([...classes].sort()).toEqual(['args-modes', 'f1-empty', 'invalid-tools', 'keys', 'no-parameters', 'not-list'])
})
