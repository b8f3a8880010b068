/**
 * Trajectory checks: what the agent did, read from the trial's tool
 * calls, never from its output text. promptfoo's `trajectory:*` names and
 * value shapes; `trajectory-match` with LangChain agentevals' modes;
 * `tool-call-f1`. Every reason names the tools and ends with the path taken
 * ("refund was called 1 time, allowed 0: lookup_order → refund").
 */
import { errorMessage } from '../errors.js'
import type { Assertion, ToolCall } from '../types.js'
import { matchesGlob } from '../util/glob.js'
import { jsonDifference } from './json.js'
import { shown } from './outcome.js'
import type { AssertionContext, AssertionHandler, CheckOutcome } from './types.js'
import { kindOf, numberOptionProblem, terms } from './values.js'

/** Paths longer than this are cut in the middle of a reason. */
const PATH_STEPS = 12

/**
 * The trial's tool calls. A target that reported none at all (a string, a
 * result object without `toolCalls`) is not one that called none: a check
 * that a tool was never called would pass on an agent that stopped reporting
 * its calls. So it cannot be checked, which fails it whichever way it points
 * (and an llm-rubric asked to show the judge the calls: rubric.ts).
 */
export function reportedToolCalls(ctx: Pick<AssertionContext, 'toolCalls'>): ToolCall[] {
  if (ctx.toolCalls === undefined) throw new Error(UNREPORTED)
  return ctx.toolCalls
}
const UNREPORTED = 'the target reported no toolCalls, so what it called is unknown; an agent that called no tool returns toolCalls: []'

/** "lookup_order → refund", or "no tool calls". */
export function toolPath(calls: readonly ToolCall[]): string {
  if (calls.length === 0) return 'no tool calls'
  if (calls.length <= PATH_STEPS) return namesPath(calls)
  return [...calls.slice(0, PATH_STEPS - 2).map((c) => c.name), `… ${calls.length - PATH_STEPS + 1} more …`, calls.at(-1)!.name].join(' → ')
}

/**
 * Paths already worded, by their steps' names: every trajectory check words
 * its path on every trial, and agents take the same few paths, so each is one
 * string (its hash computed once), found by walking the names. Bounded.
 */
interface PathNode {
  path: string
  next: Map<string, PathNode> | undefined
}
const MAX_PATHS = 4096
let paths: PathNode = { path: '', next: undefined }
let pathCount = 0

/** The names of the steps (tool calls, or reference steps written as names or {name}) joined by arrows ("" for none). */
function namesPath(steps: readonly (string | { name: string })[]): string {
  if (steps.length > PATH_STEPS) return steps.map(nameOf).join(' → ')
  let node = paths
  for (let i = 0; i < steps.length; i++) {
    const name = nameOf(steps[i]!)
    let child = node.next?.get(name)
    if (!child) {
      if (pathCount >= MAX_PATHS) {
        paths = { path: '', next: undefined }
        pathCount = 0
        return namesPath(steps)
      }
      child = { path: i === 0 ? name : `${node.path} → ${name}`, next: undefined }
      ;(node.next ??= new Map()).set(name, child)
      pathCount++
    }
    node = child
  }
  return node.path
}

const nameOf = (step: string | { name: string }): string => (typeof step === 'string' ? step : step.name)

// ---------------------------------------------------------------- which tool a step names

/**
 * A tool as a check names it: a name (exact), or promptfoo's `pattern` — a
 * glob (`*` any characters, `?` one), compared ignoring case as promptfoo
 * does. A name holding `*` or `?` is read as a pattern too (promptfoo reads
 * every name so; tool names have neither).
 */
export interface ToolMatcher {
  /** as written: the name, or the pattern */
  label: string
  matches(name: string): boolean
}

const WILDCARD = /[*?]/

/** A name or a glob. */
export function toolMatcher(written: string, pattern = false): ToolMatcher {
  if (!pattern && !WILDCARD.test(written)) return { label: written, matches: (name) => name === written }
  return { label: written, matches: (name) => matchesGlob(name, written) }
}

/** A step written as a name or as `{name}` / `{pattern}` (validated: exactly one of them). */
function matcherOf(step: unknown): ToolMatcher {
  if (!isRecord(step)) return toolMatcher(String(step))
  return typeof step.pattern === 'string' ? toolMatcher(step.pattern, true) : toolMatcher(String(step.name))
}

/** How many calls the matcher takes. */
function countOf(calls: readonly ToolCall[], tool: ToolMatcher): number {
  let n = 0
  for (const c of calls) if (tool.matches(c.name)) n++
  return n
}

/** Keys of a value object that a check does not read: refused, never ignored (promptfoo's keys are all read or refused). */
function unknownKeyProblem(type: string, v: Record<string, unknown>, known: readonly string[], what = '`value`'): string | undefined {
  const unknown = Object.keys(v).find((k) => !known.includes(k))
  return unknown === undefined ? undefined : `${type} ${what} has an unknown key \`${unknown}\`; it takes ${known.join(', ')}`
}

/** `{name}` or `{pattern}`, exactly one, as a non-blank string. */
function matcherProblem(type: string, v: Record<string, unknown>, where = ''): string | undefined {
  if (v.name !== undefined && v.pattern !== undefined) return `${type}${where} gives both \`name\` and \`pattern\`; give either \`name\` or \`pattern\``
  const written = v.name ?? v.pattern
  if (written === undefined) return `${type}${where} needs a \`name\` or a \`pattern\` in ${shown(v)}`
  return isName(written) ? undefined : `${type}${where} \`${v.name !== undefined ? 'name' : 'pattern'}\` must be a tool name, got ${shown(written)}`
}

/**
 * promptfoo's step `type`: its trajectories hold tool, command, search,
 * reasoning, message and span steps read from a trace. evalgate's are the
 * trial's tool calls, so only `tool` names a step it has.
 */
function stepTypeProblem(type: string, stepType: unknown, where = ''): string | undefined {
  if (stepType === undefined) return undefined
  const types = Array.isArray(stepType) ? stepType : [stepType]
  if (types.length > 0 && types.every((t) => t === 'tool')) return undefined
  return `${type}${where} \`type\` ${shown(stepType)}: evalgate's steps are the trial's tool calls, so the only step type is tool (promptfoo's command, search, reasoning, message and span steps are spans it does not count)`
}

/** Words made of two parts, kept once per pair and found by the parts (short, often shared strings or small numbers), not by hashing the whole. Bounded. */
class Words<Second extends string | number = string> {
  private readonly byFirst = new Map<string, Map<Second, string>>()

  constructor(private readonly make: (first: string, second: Second) => string) {}

  get(first: string, second: Second): string {
    let bySecond = this.byFirst.get(first)
    if (!bySecond) {
      if (this.byFirst.size >= MAX_WORDS) this.byFirst.clear()
      bySecond = new Map()
      this.byFirst.set(first, bySecond)
    }
    let words = bySecond.get(second)
    if (words === undefined) {
      if (bySecond.size >= MAX_WORDS) bySecond.clear()
      words = this.make(first, second)
      bySecond.set(second, words)
    }
    return words
  }
}

const MAX_WORDS = 4096
/** Passing checks tend to give every case the same reason: kept once (nothing else is cached — assertions are mostly a case's own). */
const reasons = new Words((fact, path) => `${fact}: ${path}`)

function times(n: number): string {
  return `${n} ${n === 1 ? 'time' : 'times'}`
}

/** "refund was called 1 time", one string per tool and count (the words of every trial of a tool-used check). */
const calledText = new Words<number>((name, n) => `${name} was called ${times(n)}`)

/**
 * A reason that states the fact, and when failing what was asked, then the
 * path taken. `asked` words what the check (or, under `not-`, its negation)
 * asks; it runs only for a failing check (most pass: the words would be garbage).
 */
function conclude(
  holds: boolean,
  fact: string,
  negated: boolean,
  calls: readonly ToolCall[],
  asked: (negated: boolean) => string,
  score?: number
): CheckOutcome {
  const passes = holds !== negated
  return { pass: holds, score: score ?? (holds ? 1 : 0), reason: reasons.get(passes ? fact : `${fact}, ${asked(negated)}`, toolPath(calls)) }
}

// ---------------------------------------------------------------- value shapes

interface Range {
  min?: number
  max?: number
}

function rangeProblem(type: string, v: Record<string, unknown>): string | undefined {
  for (const key of ['min', 'max'] as const) {
    const n = v[key]
    if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 0)) return `${type} \`${key}\` must be a whole number ≥ 0, got ${shown(n)}`
  }
  if (typeof v.min === 'number' && typeof v.max === 'number' && v.min > v.max) return `${type} has min ${v.min} above max ${v.max}`
  return undefined
}

function rangeText({ min, max }: Range): string {
  if (max === undefined) return `at least ${min ?? 0}`
  if ((min ?? 0) === 0) return max === 0 ? '0' : `at most ${max}`
  return min === max ? `exactly ${min}` : `${min} to ${max}`
}

/** A range every count is in (min 0, no max): under `not-` it could never pass, so validation refuses it there. */
function everyCount({ min, max }: Range): boolean {
  return (min ?? 0) === 0 && max === undefined
}

function alwaysHolds(type: string): string {
  return `${type} can never pass: every count is at least 0, so the range {min: 0} with no max always holds; give a max, or a min above 0`
}

function notRangeText({ min, max }: Range): string {
  const low = min ?? 0
  // low is at least 1 without a max: validation refuses the range that holds for every count under not-
  if (max === undefined) return low === 1 ? '0' : `fewer than ${low}`
  if (low === 0) return `more than ${max}`
  return `fewer than ${low} or more than ${max}`
}

function inRange(n: number, { min, max }: Range): boolean {
  return n >= (min ?? 0) && (max === undefined || n <= max)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== ''
}

// ---------------------------------------------------------------- trajectory:tool-used

interface Usage extends Range {
  tool: ToolMatcher
}

/**
 * `refund`, `[lookup_order, refund]`, `{name | pattern, min?, max?}` or a list
 * mixing names and such objects; min defaults to 1, except under `max: 0` ("never called").
 */
function usageEntries(value: unknown): Usage[] {
  return Array.isArray(value) ? value.map(usageEntry) : [usageEntry(value)]
}

function usageEntry(entry: unknown): Usage {
  if (!isRecord(entry)) return { tool: toolMatcher(String(entry)), min: 1 }
  const { min, max } = entry as Range
  return { tool: matcherOf(entry), min: min ?? Math.min(1, max ?? 1), max }
}

const USAGE_KEYS = ['name', 'pattern', 'min', 'max'] as const

const toolUsed: AssertionHandler = {
  negatable: true,
  validate(a) {
    const list = Array.isArray(a.value) ? a.value : [a.value]
    if (a.value === undefined || list.length === 0) return `${a.type} needs a \`value\`: a tool name, a list of names, or {name | pattern, min?, max?}`
    for (const entry of list) {
      if (isRecord(entry)) {
        const problem = unknownKeyProblem(a.type, entry, USAGE_KEYS) ?? matcherProblem(a.type, entry) ?? rangeProblem(a.type, entry)
        if (problem) return problem
      } else if (!isName(entry)) return `${a.type} needs tool names, got ${kindOf(entry)}`
    }
    // under not- a list passes only when no entry is in its range: an entry whose range holds every count makes it fail always
    if (a.type.startsWith('not-') && list.some((entry) => isRecord(entry) && everyCount(usageEntry(entry)))) return alwaysHolds(a.type)
    return undefined
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    if (!Array.isArray(a.value)) {
      // one tool (most checks): no lists, and the words of a passing check are kept once
      const entry = usageEntry(a.value)
      const n = countOf(calls, entry.tool)
      return conclude(
        inRange(n, entry),
        calledText.get(entry.tool.label, n),
        negated,
        calls,
        (not) => `allowed ${not ? notRangeText(entry) : rangeText(entry)}`
      )
    }
    // each tool counted once
    const counted = usageEntries(a.value).map((entry) => ({ entry, n: countOf(calls, entry.tool) }))
    if (negated) {
      // promptfoo's reading of a list under not-: none of the tools used (no entry in its range), not "one of them missing"
      const used = counted.filter(({ entry, n }) => inRange(n, entry))
      const decisive = used.length ? used : counted
      return conclude(used.length > 0, decisive.map(({ entry, n }) => calledText.get(entry.tool.label, n)).join(', '), negated, calls, () =>
        decisive.map(({ entry }) => `allowed ${notRangeText(entry)}${decisive.length === 1 ? '' : ` (${entry.tool.label})`}`).join(', ')
      )
    }
    const off = counted.filter(({ entry, n }) => !inRange(n, entry))
    const holds = off.length === 0
    // the facts that decide: the tools out of range when it fails, every tool when it holds
    const decisive = holds ? counted : off
    const one = decisive.length === 1
    return conclude(holds, decisive.map(({ entry, n }) => calledText.get(entry.tool.label, n)).join(', '), negated, calls, () =>
      decisive.map(({ entry }) => `allowed ${rangeText(entry)}${one ? '' : ` (${entry.tool.label})`}`).join(', ')
    )
  }
}

// ---------------------------------------------------------------- trajectory:tool-sequence

type SequenceMode = 'in_order' | 'exact'

function sequenceOf(value: unknown): { steps: ToolMatcher[]; mode: SequenceMode } {
  if (Array.isArray(value)) return { steps: value.map(matcherOf), mode: 'in_order' }
  const v = value as { steps: unknown[]; mode?: SequenceMode }
  return { steps: v.steps.map(matcherOf), mode: v.mode ?? 'in_order' }
}

/** Where the steps stop being found in order: the index of the first step missing, or -1 when all are there. */
function firstMissingStep(names: readonly string[], steps: readonly ToolMatcher[]): number {
  let at = 0
  for (let i = 0; i < steps.length; i++) {
    while (at < names.length && !steps[i]!.matches(names[at]!)) at++
    if (at === names.length) return i
    at++
  }
  return -1
}

/** The first index where two sequences differ, or -1 when they are equal. */
function firstDifference<T, U>(a: readonly T[], b: readonly U[], same: (x: T, y: U) => boolean): number {
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (i >= a.length || i >= b.length || !same(a[i]!, b[i]!)) return i
  }
  return -1
}

const STEP_KEYS = ['name', 'pattern', 'type'] as const

function stepProblem(type: string, step: unknown, i: number): string | undefined {
  if (!isRecord(step)) return isName(step) ? undefined : `${type} steps must be tool names or {name | pattern}, got ${kindOf(step)} at step ${i + 1}`
  const at = ` step ${i + 1}`
  return unknownKeyProblem(type, step, STEP_KEYS, `step ${i + 1}`) ?? matcherProblem(type, step, at) ?? stepTypeProblem(type, step.type, at)
}

const toolSequence: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    const steps = Array.isArray(v) ? v : isRecord(v) ? v.steps : undefined
    if (!Array.isArray(steps) || steps.length === 0) return `${a.type} needs a \`value\`: a list of tool names, or {steps: [...], mode: in_order | exact}`
    if (isRecord(v)) {
      const problem = unknownKeyProblem(a.type, v, ['steps', 'mode'])
      if (problem) return problem
    }
    for (let i = 0; i < steps.length; i++) {
      const problem = stepProblem(a.type, steps[i], i)
      if (problem) return problem
    }
    if (isRecord(v) && v.mode !== undefined && v.mode !== 'in_order' && v.mode !== 'exact')
      return `${a.type} \`mode\` is in_order or exact, got ${shown(v.mode)}`
    return undefined
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const names = calls.map((c) => c.name)
    const { steps, mode } = sequenceOf(a.value)
    const labels = steps.map((s) => s.label)
    const sequence = labels.join(' → ')
    if (mode === 'exact') {
      const at = firstDifference(names, steps, (name, step) => step.matches(name))
      const holds = at === -1
      const fact = holds ? `the calls are exactly ${sequence}` : `step ${at + 1} is ${names[at] ?? 'missing'} instead of ${labels[at] ?? 'the end'}`
      return conclude(holds, fact, negated, calls, (not) => (not ? `expected anything but exactly ${sequence}` : `expected exactly ${sequence}`))
    }
    const missing = firstMissingStep(names, steps)
    const holds = missing === -1
    const fact = holds
      ? `the calls contain ${sequence} in order`
      : missing === 0
        ? `${labels[0]} was never called`
        : `${labels[missing]} was not called after ${labels.slice(0, missing).join(' → ')}`
    return conclude(holds, fact, negated, calls, (not) => (not ? `expected not to find ${sequence} in order` : `expected ${sequence} in order`))
  }
}

// ---------------------------------------------------------------- trajectory:tool-args-match

/** How `actual` arguments depart from `expected`, or undefined when they match (partial: a deep subset, into array items too, as promptfoo). */
function argsDifference(expected: unknown, actual: unknown, partial: boolean): string | undefined {
  return jsonDifference(expected, actual, partial, partial)
}

interface ArgsExpectation {
  tool: ToolMatcher
  args: unknown
  partial: boolean
  /** a call's top-level argument deep-equal to its default here is dropped before comparing */
  defaults?: Record<string, unknown>
  /** argument keys (or key globs) dropped from both sides */
  ignore: readonly ToolMatcher[]
}

const ARGS_KEYS = ['name', 'pattern', 'args', 'arguments', 'mode', 'defaults', 'ignore'] as const

function argsExpectation(v: Record<string, unknown>): ArgsExpectation {
  const ignore = v.ignore === undefined ? [] : Array.isArray(v.ignore) ? (v.ignore as string[]) : [v.ignore as string]
  return {
    tool: matcherOf(v),
    args: Object.hasOwn(v, 'args') ? v.args : v.arguments,
    partial: v.mode !== 'exact',
    ...(isRecord(v.defaults) && Object.keys(v.defaults).length ? { defaults: v.defaults } : {}),
    // an entry is a key, or a glob of keys (promptfoo), compared with case as written for plain keys
    ignore: ignore.map((k) => toolMatcher(k))
  }
}

/**
 * A copy of the arguments without the keys `drop` names (an own `__proto__`
 * key stays an own key). Arguments that are no object are kept as they are.
 */
function withoutKeys(args: unknown, drop: (key: string, value: unknown) => boolean, dropped: string[]): unknown {
  if (!isRecord(args)) return args
  const before = dropped.length
  for (const key of Object.keys(args)) if (drop(key, args[key])) dropped.push(key)
  if (dropped.length === before) return args
  const kept: Record<string, unknown> = {}
  for (const key of Object.keys(args))
    if (!dropped.includes(key, before)) Object.defineProperty(kept, key, { value: args[key], enumerable: true, configurable: true, writable: true })
  return kept
}

/** What a call's arguments and the expected ones are once `ignore` and `defaults` have had their say, and which keys they dropped. */
function comparedArgs(e: ArgsExpectation, callArgs: unknown) {
  const ignored: string[] = []
  const defaulted: string[] = []
  const ignoring = (key: string) => e.ignore.some((m) => m.matches(key))
  let actual = e.ignore.length ? withoutKeys(callArgs, ignoring, ignored) : callArgs
  const defaults = e.defaults
  if (defaults)
    actual = withoutKeys(actual, (key, value) => Object.hasOwn(defaults, key) && jsonDifference(defaults[key], value, false) === undefined, defaulted)
  const expected = e.ignore.length ? withoutKeys(e.args, ignoring, []) : e.args
  return { expected, actual, ignored, defaulted }
}

function argsProblem(type: string, v: Record<string, unknown>): string | undefined {
  const problem = unknownKeyProblem(type, v, ARGS_KEYS) ?? matcherProblem(type, v)
  if (problem) return problem
  if (v.args !== undefined && v.arguments !== undefined) return `${type} gives both \`args\` and \`arguments\` (one name for the same thing); keep one`
  if (v.args === undefined && v.arguments === undefined) return `${type} needs \`args\` in its value: the arguments the call must have`
  if (v.mode !== undefined && v.mode !== 'partial' && v.mode !== 'exact') return `${type} \`mode\` is partial or exact, got ${shown(v.mode)}`
  if (v.defaults !== undefined && !isRecord(v.defaults))
    return `${type} \`defaults\` must be an object of argument names and their default values, got ${kindOf(v.defaults)}`
  if (v.ignore !== undefined && !(isName(v.ignore) || (Array.isArray(v.ignore) && v.ignore.length > 0 && v.ignore.every(isName))))
    return `${type} \`ignore\` must be an argument name or a list of them (globs allowed), got ${shown(v.ignore)}`
  const args = v.args ?? v.arguments
  if (isRecord(v.defaults) && isRecord(args)) {
    // the call's key at its default is dropped before comparing, so expected args asking for that very value can never be met
    const clash = Object.keys(args).find(
      (k) => Object.hasOwn(v.defaults as object, k) && jsonDifference(args[k], (v.defaults as Record<string, unknown>)[k], false) === undefined
    )
    if (clash !== undefined)
      return `${type} has \`${clash}\` ${shown(args[clash])} in both \`args\` and \`defaults\`, which can never match: a call's argument at its default is dropped before comparing; keep it in one of them`
  }
  return undefined
}

const toolArgsMatch: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    if (!isRecord(v)) return `${a.type} needs a \`value\` {name | pattern, args, mode?: partial | exact, defaults?, ignore?}`
    return argsProblem(a.type, v)
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const e = argsExpectation(a.value as Record<string, unknown>)
    const name = e.tool.label
    const ofTool = calls.filter((c) => e.tool.matches(c.name))
    const compared = ofTool.map((c) => comparedArgs(e, c.args))
    const differences = compared.map(({ expected, actual }) => argsDifference(expected, actual, e.partial))
    const at = differences.indexOf(undefined)
    const holds = at !== -1
    const wanted = () => `${name} with ${e.partial ? 'arguments including' : 'exactly the arguments'} ${shown(e.args)}`
    let fact: string
    if (holds) {
      const { ignored, defaulted } = compared[at]!
      const dropped = [
        ...(ignored.length ? [`ignored: ${ignored.join(', ')}`] : []),
        ...(defaulted.length ? [`at their defaults: ${defaulted.join(', ')}`] : [])
      ]
      fact = `${ofTool[at]!.name} was called with ${shown(ofTool[at]!.args)}${dropped.length ? ` (${dropped.join('; ')})` : ''}`
    } else
      fact =
        ofTool.length === 0
          ? `${name} was never called`
          : `${name} was called ${times(ofTool.length)}, never with matching arguments (first call: ${differences[0]})`
    return conclude(holds, fact, negated, calls, (not) => (not ? `expected no call of ${wanted()}` : `expected ${wanted()}`))
  }
}

// ---------------------------------------------------------------- trajectory:step-count

const STEP_COUNT_KEYS = ['min', 'max', 'name', 'pattern', 'type'] as const

const stepCount: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    if (!isRecord(v)) return `${a.type} needs a \`value\` {min?, max?, name | pattern?} with min or max`
    const problem =
      unknownKeyProblem(a.type, v, STEP_COUNT_KEYS) ??
      (v.name !== undefined || v.pattern !== undefined ? matcherProblem(a.type, v) : undefined) ??
      stepTypeProblem(a.type, v.type)
    if (problem) return problem
    if (v.min === undefined && v.max === undefined) return `${a.type} needs a \`value\` {min?, max?, name | pattern?} with min or max`
    return rangeProblem(a.type, v) ?? (a.type.startsWith('not-') && everyCount(v) ? alwaysHolds(a.type) : undefined)
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const range = a.value as Range & { name?: string; pattern?: string }
    const tool = range.name === undefined && range.pattern === undefined ? undefined : matcherOf(range)
    const counted = tool === undefined ? calls.length : countOf(calls, tool)
    const what = tool === undefined ? 'tool calls' : `calls of ${tool.label}`
    const fact = tool === undefined ? `${counted} tool ${counted === 1 ? 'call' : 'calls'}` : calledText.get(tool.label, counted)
    return conclude(inRange(counted, range), fact, negated, calls, (not) => `allowed ${not ? notRangeText(range) : rangeText(range)} ${what}`)
  }
}

// ---------------------------------------------------------------- trajectory-match

export type MatchMode = 'strict' | 'unordered' | 'subset' | 'superset'
export type ArgsMode = 'exact' | 'ignore' | 'subset' | 'superset'
const MATCH_MODES: readonly MatchMode[] = ['strict', 'unordered', 'subset', 'superset']
const ARGS_MODES: readonly ArgsMode[] = ['exact', 'ignore', 'subset', 'superset']

/**
 * How a call's arguments are compared with a reference step's (agentevals'
 * toolArgsMatchMode): `exact`, `ignore`, `subset` (every argument of the call
 * is in the reference's, with the same value) or `superset` (every argument of
 * the reference's is in the call's); per tool (toolArgsMatchOverrides) a mode
 * or the argument paths to compare (`time.start`), the others not looked at.
 */
export interface ArgsMatching {
  mode: ArgsMode
  byTool?: Readonly<Record<string, ArgsMode | readonly string[]>>
}

export interface ReferenceCall {
  name: string
  /** absent: any arguments */
  args?: unknown
}

/** The rule for a tool's arguments: its own in `byTool`, else the mode. */
function argsRule(name: string, matching: ArgsMatching): ArgsMode | readonly string[] {
  return matching.byTool && Object.hasOwn(matching.byTool, name) ? matching.byTool[name]! : matching.mode
}

/** A call answers a reference step (written as a name or {name, args?}): same tool, and arguments that answer the step's by the rule, when it gives any. */
function answers(call: ToolCall, ref: string | ReferenceCall, matching: ArgsMatching): boolean {
  if (typeof ref === 'string') return call.name === ref
  if (call.name !== ref.name) return false
  if (ref.args === undefined) return true
  const rule = argsRule(call.name, matching)
  const args = call.args ?? {}
  if (typeof rule !== 'string') return rule.every((path) => jsonDifference(valueAt(ref.args, path), valueAt(args, path), false) === undefined)
  if (rule === 'ignore') return true
  if (rule === 'exact') return jsonDifference(ref.args, args, false) === undefined
  return rule === 'subset' ? within(args, ref.args) : within(ref.args, args)
}

/** Every top-level argument of `part` is in `whole` with an equal value (arguments that are no object: equal). */
function within(part: unknown, whole: unknown): boolean {
  if (!isRecord(part) || !isRecord(whole)) return jsonDifference(part, whole, false) === undefined
  for (const key of Object.keys(part)) if (!Object.hasOwn(whole, key) || jsonDifference(part[key], whole[key], false) !== undefined) return false
  return true
}

/** The value at a dotted path (`time.start`), or undefined where the path stops. */
function valueAt(value: unknown, path: string): unknown {
  let at = value
  for (const part of path.split('.')) {
    if (!isRecord(at) || !Object.hasOwn(at, part)) return undefined
    at = at[part]
  }
  return at
}

/**
 * The most calls that can be paired with distinct reference steps they answer
 * (Kuhn's augmenting paths: a step that gives no args answers several calls,
 * so pairing greedily could miss a full match). `pairOf[j]` is the call paired
 * with step j, or -1. Small arrays, no table of answers: it runs on every trial.
 */
function maximumPairing(calls: readonly ToolCall[], refs: readonly ReferenceCall[], matching: ArgsMatching): number[] {
  const pairOf = new Array<number>(refs.length).fill(-1)
  const seen = new Array<boolean>(refs.length)
  const augment = (i: number): boolean => {
    for (let j = 0; j < refs.length; j++) {
      if (seen[j] || !answers(calls[i]!, refs[j]!, matching)) continue
      seen[j] = true
      if (pairOf[j] === -1 || augment(pairOf[j]!)) {
        pairOf[j] = i
        return true
      }
    }
    return false
  }
  for (let i = 0; i < calls.length; i++) {
    seen.fill(false)
    augment(i)
  }
  return pairOf
}

export interface MatchResult {
  holds: boolean
  /** calls made that no reference step accounts for */
  unexpected: ToolCall[]
  /** reference steps no call accounts for */
  missing: ReferenceCall[]
  /** strict: the first step where the calls and the reference differ, or -1 */
  firstDifference: number
}

/**
 * agentevals' trajectory match: strict (the same calls in the same order),
 * unordered (the same calls in any order), subset (every call made is in the
 * reference), superset (every reference call was made). Calls count with
 * their multiplicity: a reference step accounts for one call.
 */
export function matchTrajectory(calls: readonly ToolCall[], refs: readonly ReferenceCall[], mode: MatchMode, matching: ArgsMatching): MatchResult {
  if (mode === 'strict') {
    const at = firstDifference(calls, refs, (c, r) => answers(c, r, matching))
    return { holds: at === -1, unexpected: at === -1 ? [] : calls.slice(at), missing: at === -1 ? [] : refs.slice(at), firstDifference: at }
  }
  const pairOf = maximumPairing(calls, refs, matching)
  const paired = new Array<boolean>(calls.length).fill(false)
  for (let j = 0; j < pairOf.length; j++) if (pairOf[j] !== -1) paired[pairOf[j]!] = true
  const unexpected = calls.filter((_, i) => !paired[i])
  const missing = refs.filter((_, j) => pairOf[j] === -1)
  const holds = mode === 'unordered' ? unexpected.length === 0 && missing.length === 0 : mode === 'subset' ? unexpected.length === 0 : missing.length === 0
  return { holds, unexpected, missing, firstDifference: -1 }
}

function stepText(step: ToolCall | ReferenceCall | undefined, matching: ArgsMatching): string {
  if (!step) return 'nothing'
  return argsRule(step.name, matching) === 'ignore' || step.args === undefined ? step.name : `${step.name} ${shown(step.args)}`
}

const REFERENCE_KEYS = ['name', 'args'] as const

function argsByToolProblem(type: string, byTool: unknown): string | undefined {
  if (!isRecord(byTool)) return `${type} \`argsByTool\` maps tool names to ${ARGS_MODES.join(' | ')} or a list of argument paths, got ${kindOf(byTool)}`
  for (const [tool, rule] of Object.entries(byTool)) {
    if (typeof rule === 'string' ? ARGS_MODES.includes(rule as ArgsMode) : Array.isArray(rule) && rule.length > 0 && rule.every(isName)) continue
    return `${type} \`argsByTool.${tool}\` is one of ${ARGS_MODES.join(', ')}, or a list of the argument paths to compare (e.g. [time.start]), got ${shown(rule)}`
  }
  return undefined
}

function argsMatchingOf(a: Assertion): ArgsMatching {
  const mode = (a.args as ArgsMode | undefined) ?? 'exact'
  return a.argsByTool === undefined ? { mode } : { mode, byTool: a.argsByTool as ArgsMatching['byTool'] }
}

const trajectoryMatch: AssertionHandler = {
  negatable: true,
  validate(a) {
    if (!Array.isArray(a.value) || !a.value.every((s) => isName(s) || (isRecord(s) && isName(s.name)))) {
      return `${a.type} needs a \`value\`: the reference trajectory, a list of {name, args?}`
    }
    for (const [i, step] of a.value.entries()) {
      const problem = isRecord(step) ? unknownKeyProblem(a.type, step, REFERENCE_KEYS, `reference step ${i + 1}`) : undefined
      if (problem) return problem
    }
    if (a.mode !== undefined && !MATCH_MODES.includes(a.mode as MatchMode))
      return `${a.type} \`mode\` is one of ${MATCH_MODES.join(', ')}, got ${shown(a.mode)}`
    if (a.args !== undefined && !ARGS_MODES.includes(a.args as ArgsMode)) return `${a.type} \`args\` is exact, ignore, subset or superset, got ${shown(a.args)}`
    return a.argsByTool === undefined ? undefined : argsByToolProblem(a.type, a.argsByTool)
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const steps = a.value as (string | ReferenceCall)[]
    const mode = (a.mode as MatchMode | undefined) ?? 'strict'
    const matching = argsMatchingOf(a)
    const reference = namesPath(steps) || 'no tool calls'
    const asked = (not: boolean) =>
      not ? `expected no ${mode} match of ${reference}` : `expected ${mode === 'unordered' ? 'an' : 'a'} ${mode} match of ${reference}`
    // a match found at once (most trials) is worded without the lists of what is unexpected and missing
    if (matchesAtOnce(calls, steps, mode, matching)) return conclude(true, matchFacts.get(reference, mode), negated, calls, asked)
    const refs = referenceOf(a)
    const m = matchTrajectory(calls, refs, mode, matching)
    const list = (steps: readonly (ToolCall | ReferenceCall)[]) => steps.map((s) => stepText(s, matching)).join(', ')
    let fact: string
    if (m.holds) fact = matchFacts.get(reference, mode)
    else if (mode === 'strict')
      fact = `step ${m.firstDifference + 1} is ${stepText(calls[m.firstDifference], matching)}, the reference has ${stepText(refs[m.firstDifference], matching)}`
    else {
      const parts = [
        ...(m.unexpected.length && mode !== 'superset' ? [`not in the reference: ${list(m.unexpected)}`] : []),
        ...(m.missing.length && mode !== 'subset' ? [`reference steps not made: ${list(m.missing)}`] : [])
      ]
      fact = parts.join('; ')
    }
    return conclude(m.holds, fact, negated, calls, asked)
  }
}

const matchFacts = new Words((reference, mode) => `the calls match the reference ${reference} (${mode})`)

/** A reference step written as a name is that tool with any arguments. */
const asReference = (step: string | ReferenceCall): ReferenceCall => (typeof step === 'string' ? { name: step } : step)

/**
 * Whether the calls match, found without lists: strict by walking both; the
 * other modes by pairing greedily, each step (or call) with the first partner
 * left that answers it. A greedy pairing that pairs everything it must proves
 * the match; one that does not proves nothing (matchTrajectory's search decides).
 */
function matchesAtOnce(calls: readonly ToolCall[], steps: readonly (string | ReferenceCall)[], mode: MatchMode, matching: ArgsMatching): boolean {
  if (mode === 'strict') {
    if (calls.length !== steps.length) return false
    for (let i = 0; i < calls.length; i++) if (!answers(calls[i]!, steps[i]!, matching)) return false
    return true
  }
  if (mode === 'unordered' && calls.length !== steps.length) return false
  if (mode === 'subset') return pairsGreedily(calls, steps, (call, step) => answers(call, step, matching))
  return pairsGreedily(steps, calls, (step, call) => answers(call, step, matching))
}

/** Whether each of `from` takes a partner of its own in `to`: the first one left that fits. Longer lists (the taken ones are bits) go to the search. */
function pairsGreedily<A, B>(from: readonly A[], to: readonly B[], fits: (a: A, b: B) => boolean): boolean {
  if (from.length > 30 || to.length > 30) return false
  let taken = 0
  for (const a of from) {
    let j = 0
    while (j < to.length && ((taken >> j) & 1 || !fits(a, to[j]!))) j++
    if (j === to.length) return false
    taken |= 1 << j
  }
  return true
}

function referenceOf(a: Assertion): ReferenceCall[] {
  return (a.value as (string | ReferenceCall)[]).map(asReference)
}

// ---------------------------------------------------------------- tool-call-f1

/** F1 of the set of tool names called against the expected set; 1 when both are empty. */
export function toolCallF1(called: readonly string[], expected: readonly string[]): { f1: number; precision: number; recall: number } {
  const made = new Set(called)
  const wanted = new Set(expected)
  if (made.size === 0 && wanted.size === 0) return { f1: 1, precision: 1, recall: 1 }
  const hits = [...made].filter((n) => wanted.has(n)).length
  const precision = made.size ? hits / made.size : 0
  const recall = wanted.size ? hits / wanted.size : 0
  return { f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall), precision, recall }
}

const toolCallF1Check: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    if (!(typeof v === 'string' || (Array.isArray(v) && v.every((n) => typeof n === 'string'))))
      return `${a.type} needs a \`value\`: the expected tool names (a list or a comma-separated string)`
    let names: string[]
    try {
      names = terms(v)
    } catch (err) {
      return `${a.type} \`value\` ${shown(v)}: ${errorMessage(err)}`
    }
    // promptfoo refuses an empty list; a blank name would be graded as a tool no agent calls
    if (names.length === 0) return `${a.type} needs at least one tool name in \`value\` (a list or a comma-separated string)`
    if (names.some((n) => n.trim() === '')) return `${a.type} has a blank tool name in \`value\`; give the names of the tools expected`
    return numberOptionProblem(a, 'threshold', { min: 0, max: 1 })
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const expected = terms(a.value)
    const threshold = a.threshold ?? 1
    const { f1, precision, recall } = toolCallF1(
      calls.map((c) => c.name),
      expected
    )
    const fact = `tool-call F1 ${f1.toFixed(2)} (precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)} against ${expected.join(', ') || 'no tools'})`
    return conclude(f1 >= threshold, fact, negated, calls, (not) => (not ? `needs below ${threshold}` : `needs at least ${threshold}`), f1)
  }
}

export const trajectoryAssertions: Record<string, AssertionHandler> = {
  'trajectory:tool-used': toolUsed,
  'trajectory:tool-sequence': toolSequence,
  'trajectory:tool-args-match': toolArgsMatch,
  'trajectory:step-count': stepCount,
  'trajectory-match': trajectoryMatch,
  'tool-call-f1': toolCallF1Check
}
