/**
 * Trajectory checks (SPEC §10): what the agent did, read from the trial's tool
 * calls, never from its output text. promptfoo's `trajectory:*` names and
 * value shapes; `trajectory-match` with LangChain agentevals' modes;
 * `tool-call-f1`. Every reason names the tools and ends with the path taken
 * ("refund was called 1 time, allowed 0: lookup_order → refund").
 */
import type { Assertion, ToolCall } from '../types.js'
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

/** How many calls name the tool. */
function countOf(calls: readonly ToolCall[], name: string): number {
  let n = 0
  for (const c of calls) if (c.name === name) n++
  return n
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
  name: string
}

/**
 * `refund`, `[lookup_order, refund]`, `{name, min?, max?}` or a list mixing
 * names and such objects; min defaults to 1, except under `max: 0` ("never called").
 */
function usageEntries(value: unknown): Usage[] {
  return Array.isArray(value) ? value.map(usageEntry) : [usageEntry(value)]
}

function usageEntry(entry: unknown): Usage {
  if (!isRecord(entry)) return { name: String(entry), min: 1 }
  const { name, min, max } = entry as unknown as Usage
  return { name, min: min ?? Math.min(1, max ?? 1), max }
}

const toolUsed: AssertionHandler = {
  negatable: true,
  validate(a) {
    const list = Array.isArray(a.value) ? a.value : [a.value]
    if (a.value === undefined || list.length === 0) return `${a.type} needs a \`value\`: a tool name, a list of names, or {name, min?, max?}`
    for (const entry of list) {
      if (isRecord(entry)) {
        if (!isName(entry.name)) return `${a.type} needs a \`name\` in ${shown(entry)}`
        const problem = rangeProblem(a.type, entry)
        if (problem) return problem
      } else if (!isName(entry)) return `${a.type} needs tool names, got ${kindOf(entry)}`
    }
    if (a.type.startsWith('not-') && list.every((entry) => isRecord(entry) && everyCount(usageEntry(entry)))) return alwaysHolds(a.type)
    return undefined
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    if (!Array.isArray(a.value)) {
      // one tool (most checks): no lists, and the words of a passing check are kept once
      const entry = usageEntry(a.value)
      const n = countOf(calls, entry.name)
      return conclude(inRange(n, entry), calledText.get(entry.name, n), negated, calls, (not) => `allowed ${not ? notRangeText(entry) : rangeText(entry)}`)
    }
    // each tool counted once
    const counted = usageEntries(a.value).map((entry) => ({ entry, n: countOf(calls, entry.name) }))
    const off = counted.filter(({ entry, n }) => !inRange(n, entry))
    const holds = off.length === 0
    // the facts that decide: the tools out of range when it fails, every tool when it holds
    const decisive = holds || negated ? counted : off
    const one = decisive.length === 1
    return conclude(holds, decisive.map(({ entry, n }) => calledText.get(entry.name, n)).join(', '), negated, calls, (not) =>
      not
        ? one
          ? `allowed ${notRangeText(decisive[0]!.entry)}`
          : 'expected at least one of them out of its range'
        : decisive.map(({ entry }) => `allowed ${rangeText(entry)}${one ? '' : ` (${entry.name})`}`).join(', ')
    )
  }
}

// ---------------------------------------------------------------- trajectory:tool-sequence

type SequenceMode = 'in_order' | 'exact'

function sequenceOf(value: unknown): { steps: string[]; mode: SequenceMode } {
  if (Array.isArray(value)) return { steps: value.map(String), mode: 'in_order' }
  const v = value as { steps: unknown[]; mode?: SequenceMode }
  return { steps: v.steps.map(String), mode: v.mode ?? 'in_order' }
}

/** Where the steps stop being found in order: the index of the first step missing, or -1 when all are there. */
export function firstMissingStep(names: readonly string[], steps: readonly string[]): number {
  let at = 0
  for (let i = 0; i < steps.length; i++) {
    while (at < names.length && names[at] !== steps[i]) at++
    if (at === names.length) return i
    at++
  }
  return -1
}

/** The first index where two sequences differ, or -1 when they are equal. */
function firstDifference<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): number {
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (i >= a.length || i >= b.length || !same(a[i]!, b[i]!)) return i
  }
  return -1
}

const toolSequence: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    const steps = Array.isArray(v) ? v : isRecord(v) ? v.steps : undefined
    if (!Array.isArray(steps) || steps.length === 0) return `${a.type} needs a \`value\`: a list of tool names, or {steps: [...], mode: in_order | exact}`
    if (!steps.every(isName)) return `${a.type} steps must be tool names`
    if (isRecord(v) && v.mode !== undefined && v.mode !== 'in_order' && v.mode !== 'exact')
      return `${a.type} \`mode\` is in_order or exact, got ${shown(v.mode)}`
    return undefined
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const names = calls.map((c) => c.name)
    const { steps, mode } = sequenceOf(a.value)
    const sequence = steps.join(' → ')
    if (mode === 'exact') {
      const at = firstDifference(names, steps, (x, y) => x === y)
      const holds = at === -1
      const fact = holds ? `the calls are exactly ${sequence}` : `step ${at + 1} is ${names[at] ?? 'missing'} instead of ${steps[at] ?? 'the end'}`
      return conclude(holds, fact, negated, calls, (not) => (not ? `expected anything but exactly ${sequence}` : `expected exactly ${sequence}`))
    }
    const missing = firstMissingStep(names, steps)
    const holds = missing === -1
    const fact = holds
      ? `the calls contain ${sequence} in order`
      : missing === 0
        ? `${steps[0]} was never called`
        : `${steps[missing]} was not called after ${steps.slice(0, missing).join(' → ')}`
    return conclude(holds, fact, negated, calls, (not) => (not ? `expected not to find ${sequence} in order` : `expected ${sequence} in order`))
  }
}

// ---------------------------------------------------------------- trajectory:tool-args-match

/** How `actual` arguments depart from `expected`, or undefined when they match (partial: a deep subset). */
function argsDifference(expected: unknown, actual: unknown, partial: boolean): string | undefined {
  return jsonDifference(expected, actual, partial)
}

const toolArgsMatch: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    if (!isRecord(v) || !isName(v.name)) return `${a.type} needs a \`value\` {name, args, mode?: partial | exact}`
    if (v.args === undefined) return `${a.type} needs \`args\` in its value: the arguments the call must have`
    if (v.mode !== undefined && v.mode !== 'partial' && v.mode !== 'exact') return `${a.type} \`mode\` is partial or exact, got ${shown(v.mode)}`
    return undefined
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const { name, args, mode } = a.value as { name: string; args: unknown; mode?: 'partial' | 'exact' }
    const partial = mode !== 'exact'
    const ofTool = calls.filter((c) => c.name === name)
    const differences = ofTool.map((c) => argsDifference(args, c.args, partial))
    const holds = differences.some((d) => d === undefined)
    const wanted = () => `${name} with ${partial ? 'arguments including' : 'exactly the arguments'} ${shown(args)}`
    const fact = holds
      ? `${name} was called with ${shown(ofTool[differences.indexOf(undefined)]!.args)}`
      : ofTool.length === 0
        ? `${name} was never called`
        : `${name} was called ${times(ofTool.length)}, never with matching arguments (first call: ${differences[0]})`
    return conclude(holds, fact, negated, calls, (not) => (not ? `expected no call of ${wanted()}` : `expected ${wanted()}`))
  }
}

// ---------------------------------------------------------------- trajectory:step-count

const stepCount: AssertionHandler = {
  negatable: true,
  validate(a) {
    const v = a.value
    if (!isRecord(v) || (v.min === undefined && v.max === undefined)) return `${a.type} needs a \`value\` {min?, max?, name?} with min or max`
    if (v.name !== undefined && !isName(v.name)) return `${a.type} \`name\` must be a tool name`
    return rangeProblem(a.type, v) ?? (a.type.startsWith('not-') && everyCount(v) ? alwaysHolds(a.type) : undefined)
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const range = a.value as Range & { name?: string }
    const counted = range.name === undefined ? calls.length : countOf(calls, range.name)
    const what = range.name === undefined ? 'tool calls' : `calls of ${range.name}`
    const fact = range.name === undefined ? `${counted} tool ${counted === 1 ? 'call' : 'calls'}` : calledText.get(range.name, counted)
    return conclude(inRange(counted, range), fact, negated, calls, (not) => `allowed ${not ? notRangeText(range) : rangeText(range)} ${what}`)
  }
}

// ---------------------------------------------------------------- trajectory-match

export type MatchMode = 'strict' | 'unordered' | 'subset' | 'superset'
export type ArgsMode = 'exact' | 'ignore'
const MATCH_MODES: readonly MatchMode[] = ['strict', 'unordered', 'subset', 'superset']

export interface ReferenceCall {
  name: string
  /** absent: any arguments */
  args?: unknown
}

/** A call answers a reference step (written as a name or {name, args?}): same tool, and (args: exact) deep-equal arguments when the step gives any. */
function answers(call: ToolCall, ref: string | ReferenceCall, argsMode: ArgsMode): boolean {
  if (typeof ref === 'string') return call.name === ref
  if (call.name !== ref.name) return false
  return argsMode === 'ignore' || ref.args === undefined || argsDifference(ref.args, call.args ?? {}, false) === undefined
}

/**
 * The most calls that can be paired with distinct reference steps they answer
 * (Kuhn's augmenting paths: a step that gives no args answers several calls,
 * so pairing greedily could miss a full match). `pairOf[j]` is the call paired
 * with step j, or -1. Small arrays, no table of answers: it runs on every trial.
 */
function maximumPairing(calls: readonly ToolCall[], refs: readonly ReferenceCall[], argsMode: ArgsMode): number[] {
  const pairOf = new Array<number>(refs.length).fill(-1)
  const seen = new Array<boolean>(refs.length)
  const augment = (i: number): boolean => {
    for (let j = 0; j < refs.length; j++) {
      if (seen[j] || !answers(calls[i]!, refs[j]!, argsMode)) continue
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
export function matchTrajectory(calls: readonly ToolCall[], refs: readonly ReferenceCall[], mode: MatchMode, argsMode: ArgsMode): MatchResult {
  if (mode === 'strict') {
    const at = firstDifference<ToolCall | ReferenceCall>(calls, refs, (c, r) => answers(c as ToolCall, r, argsMode))
    return { holds: at === -1, unexpected: at === -1 ? [] : calls.slice(at), missing: at === -1 ? [] : refs.slice(at), firstDifference: at }
  }
  const pairOf = maximumPairing(calls, refs, argsMode)
  const paired = new Array<boolean>(calls.length).fill(false)
  for (let j = 0; j < pairOf.length; j++) if (pairOf[j] !== -1) paired[pairOf[j]!] = true
  const unexpected = calls.filter((_, i) => !paired[i])
  const missing = refs.filter((_, j) => pairOf[j] === -1)
  const holds = mode === 'unordered' ? unexpected.length === 0 && missing.length === 0 : mode === 'subset' ? unexpected.length === 0 : missing.length === 0
  return { holds, unexpected, missing, firstDifference: -1 }
}

function stepText(step: ToolCall | ReferenceCall | undefined, argsMode: ArgsMode): string {
  if (!step) return 'nothing'
  return argsMode === 'ignore' || step.args === undefined ? step.name : `${step.name} ${shown(step.args)}`
}

const trajectoryMatch: AssertionHandler = {
  negatable: true,
  validate(a) {
    if (!Array.isArray(a.value) || !a.value.every((s) => isName(s) || (isRecord(s) && isName(s.name)))) {
      return `${a.type} needs a \`value\`: the reference trajectory, a list of {name, args?}`
    }
    if (a.mode !== undefined && !MATCH_MODES.includes(a.mode as MatchMode))
      return `${a.type} \`mode\` is one of ${MATCH_MODES.join(', ')}, got ${shown(a.mode)}`
    if (a.args !== undefined && a.args !== 'exact' && a.args !== 'ignore') return `${a.type} \`args\` is exact or ignore, got ${shown(a.args)}`
    return undefined
  },
  run(a, ctx, negated) {
    const calls = reportedToolCalls(ctx)
    const steps = a.value as (string | ReferenceCall)[]
    const mode = (a.mode as MatchMode | undefined) ?? 'strict'
    const argsMode = (a.args as ArgsMode | undefined) ?? 'exact'
    const reference = namesPath(steps) || 'no tool calls'
    const asked = (not: boolean) =>
      not ? `expected no ${mode} match of ${reference}` : `expected ${mode === 'unordered' ? 'an' : 'a'} ${mode} match of ${reference}`
    // a match found at once (most trials) is worded without the lists of what is unexpected and missing
    if (matchesAtOnce(calls, steps, mode, argsMode)) return conclude(true, matchFacts.get(reference, mode), negated, calls, asked)
    const refs = referenceOf(a)
    const m = matchTrajectory(calls, refs, mode, argsMode)
    const list = (steps: readonly (ToolCall | ReferenceCall)[]) => steps.map((s) => stepText(s, argsMode)).join(', ')
    let fact: string
    if (m.holds) fact = matchFacts.get(reference, mode)
    else if (mode === 'strict')
      fact = `step ${m.firstDifference + 1} is ${stepText(calls[m.firstDifference], argsMode)}, the reference has ${stepText(refs[m.firstDifference], argsMode)}`
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
function matchesAtOnce(calls: readonly ToolCall[], steps: readonly (string | ReferenceCall)[], mode: MatchMode, argsMode: ArgsMode): boolean {
  if (mode === 'strict') {
    if (calls.length !== steps.length) return false
    for (let i = 0; i < calls.length; i++) if (!answers(calls[i]!, steps[i]!, argsMode)) return false
    return true
  }
  if (mode === 'unordered' && calls.length !== steps.length) return false
  if (mode === 'subset') return pairsGreedily(calls, steps, (call, step) => answers(call, step, argsMode))
  return pairsGreedily(steps, calls, (step, call) => answers(call, step, argsMode))
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
    if (a.value === undefined || a.value === null || (Array.isArray(a.value) && !a.value.every(isName)))
      return `${a.type} needs a \`value\`: the expected tool names (a list or a comma-separated string)`
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
