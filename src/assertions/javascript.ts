/**
 * The javascript check: a user's expression, function body or module grades
 * the output. Expressions and modules are the dataset's code, so they run in
 * the checks' sandbox under `checkTimeoutMs`, with a clean
 * environment; only a function handed in through the library runs in-process.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { caseView } from '../config/case.js'
import { errorMessage } from '../errors.js'
import { checks, DEFAULT_CHECK_TIMEOUT_MS, type ItemOutcome, type SandboxItem } from '../sandbox/index.js'
import { gradable, type Gradable } from '../sandbox/gradable.js'
import type { AgentResult, Assertion, CaseView, EvalCase } from '../types.js'
import { clampScore } from '../util/score.js'
import { excerpt } from './outcome.js'
import type { AssertionContext, AssertionHandler, CheckOutcome } from './types.js'
import { kindOf, numberOptionProblem } from './values.js'

/** A returned score passes at ≥ threshold, 0.5 unless the assertion sets one. */
const DEFAULT_THRESHOLD = 0.5
/** How much of an expression names it in a reason. */
const LABEL_CHARS = 60
/** Statement ends tried when looking for a body's final expression (the source's last ones). */
const MAX_SPLITS = 200

/** What every check receives besides the output; cloned into the sandbox. */
export interface CheckContext extends AgentResult {
  input: unknown
  case: CaseView
  /** promptfoo cases: what promptfoo's checks read — the test's vars, the rendered prompt, the test */
  vars?: Record<string, unknown>
  prompt?: unknown
  test?: { description?: string; vars: Record<string, unknown>; metadata?: Record<string, unknown> }
}

type CheckFunction = (output: string, context: CheckContext) => unknown

const AsyncFunction = (async () => {}).constructor as new (...params: string[]) => unknown

/** Why a function body of (output, input, context) does not compile, or undefined when it does. */
function compileError(body: string): string | undefined {
  try {
    new AsyncFunction('output', 'input', 'context', body)
    return undefined
  } catch (err) {
    return errorMessage(err)
  }
}

const compiles = (body: string) => compileError(body) === undefined

const returning = (expression: string) => `return (${expression}\n)`

/**
 * The function body a check's source runs as, of (output, input, context). An
 * expression (even over several lines) is returned; a body whose last
 * statement is an expression returns that (`const n = output.length; n > 3`),
 * as promptfoo does; any other body runs as written (with its own `return`).
 * Compiling only parses: nothing of the user's code runs here.
 */
function functionBody(source: string): string {
  // a trailing `;` is habit, not a statement: "output.includes('x');" is still an expression
  const trimmed = source.trim().replace(/;+$/, '')
  if (compiles(returning(trimmed))) return returning(trimmed)
  const problem = compileError(trimmed)
  if (problem !== undefined) throw new SyntaxError(problem)
  const ends: number[] = []
  for (let i = trimmed.length - 1; i >= 0 && ends.length < MAX_SPLITS; i--) if (trimmed[i] === ';' || trimmed[i] === '\n') ends.push(i)
  // the longest tail that is one expression, after statements that compile by themselves: a line
  // that goes on with an operator (`total\n  - limit > 0`) belongs to the expression it continues,
  // as JavaScript reads it, and is not an expression (`-limit > 0`) of its own
  for (const end of ends.reverse()) {
    const statements = trimmed.slice(0, end + 1)
    const tail = trimmed.slice(end + 1)
    if (!compiles(returning(tail)) || !compiles(statements)) continue
    return `${statements}\n${returning(tail)}`
  }
  return trimmed
}

/** Function bodies by source: datasets repeat the same check across cases and trials. */
const bodies = new Map<string, string>()

function bodyOf(source: string): string {
  let body = bodies.get(source)
  if (body === undefined) {
    body = functionBody(source)
    bodies.set(source, body)
  }
  return body
}

/**
 * A promptfoo `transform`: an expression or function body of `output` and
 * `context`, or `file:///absolute/module.js[:function]`, run on an output in
 * the checks' sandbox (it is the pull request's code) under the same
 * deadline; what it returns is the new output, of any value a worker can pass
 * back (text, numbers, lists, plain objects).
 */
export async function transformOutput(source: string, output: unknown, context: TransformContext, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<unknown> {
  let item: SandboxItem
  if (source.startsWith('file://')) {
    const [file, name] = splitFunctionRef(source.slice('file://'.length))
    item = { kind: 'transform', file: path.resolve(file), output, context, ...(name ? { name } : {}) }
  } else item = { kind: 'transform', body: bodyOf(source), output, input: context.input, context }
  const outcome = await checks().run(item, timeoutMs)
  if (!outcome.ok) throw new Error(outcome.error)
  return outcome.value
}

/** What a transform receives besides the output: promptfoo's `vars` and `prompt`, and the case as checks see it. */
export interface TransformContext {
  input: unknown
  case: CaseView
  vars: Record<string, unknown>
  prompt: { raw: unknown; label: string }
}

/** The context of a transform of this case's output. */
export function transformContext(input: unknown, evalCase: EvalCase): TransformContext {
  return { input, case: caseView(evalCase), vars: evalCase.vars ?? {}, prompt: { raw: input, label: evalCase.name } }
}

/** "path.js:name" → ["path.js", "name"]; a drive letter's colon is not a separator. */
function splitFunctionRef(ref: string): [string, string | undefined] {
  const at = ref.lastIndexOf(':')
  return at > 1 ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, undefined]
}

/** Names the check in reasons: its file, or the start of its expression. */
function labelOf(a: Assertion): string {
  if (typeof a.file === 'string') {
    const relative = path.relative(process.cwd(), a.file)
    return relative.startsWith('..') || path.isAbsolute(relative) ? a.file : relative
  }
  if (typeof a.value === 'function') return a.value.name ? `function ${a.value.name}` : 'function'
  const oneLine = String(a.value).trim().replace(/\s+/g, ' ')
  return `\`${oneLine.length > LABEL_CHARS ? `${oneLine.slice(0, LABEL_CHARS)}…` : oneLine}\``
}

/** What a check written in code receives besides the output (javascript, python). */
export function checkContext(ctx: AssertionContext): CheckContext {
  const context: CheckContext = { input: ctx.input, case: caseView(ctx.case) }
  if (ctx.toolCalls !== undefined) context.toolCalls = ctx.toolCalls
  if (ctx.usage !== undefined) context.usage = ctx.usage
  if (ctx.metadata !== undefined) context.metadata = ctx.metadata
  if (ctx.finishReason !== undefined) context.finishReason = ctx.finishReason
  if (ctx.latencyMs !== undefined) context.latencyMs = ctx.latencyMs
  const promptfoo = ctx.case.promptfoo
  if (promptfoo) {
    const vars = ctx.case.vars ?? {}
    context.vars = vars
    context.prompt = ctx.case.input
    context.test = { vars }
    if (promptfoo.description !== undefined) context.test.description = promptfoo.description
    if (ctx.case.metadata !== undefined) context.test.metadata = ctx.case.metadata
  }
  return context
}

/** Runs whichever form of check the assertion carries: what it returned, or why it did not. */
async function runCheck(a: Assertion, ctx: AssertionContext): Promise<ItemOutcome> {
  const context = checkContext(ctx)
  // a promptfoo transform may have made the output an object: the check sees that object
  const output = (ctx.outputValue ?? ctx.output) as string
  if (typeof a.value === 'function') {
    try {
      return { ok: true, value: gradable(await (a.value as CheckFunction)(output, context)) }
    } catch (err) {
      return { ok: false, error: errorMessage(err) }
    }
  }
  const timeoutMs = ctx.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS
  if (typeof a.file === 'string') return checks().run({ kind: 'module', file: a.file, output, context, value: a.value }, timeoutMs)
  return checks().run({ kind: 'script', body: bodyOf(String(a.value)), output, input: ctx.input, context }, timeoutMs)
}

interface Grade {
  pass: boolean
  score: number
  /** what the check returned, for the reason: "returned false", "score 0.3, threshold 0.5", or its own reason */
  note: string
}

/** A score that is not a finite number fails whatever `pass` says: why. */
interface Broken {
  broken: string
}

function scoreNote(score: number, threshold: number): string {
  return `score ${score}, threshold ${threshold}`
}

const nonFinite = (score: number): Broken => ({ broken: `returned a score that is not a finite number (${score})` })

/**
 * Reads a check's return value: boolean, score in [0,1], {pass, score,
 * reason}, or anything truthy/falsy. `aboveZero`: a returned number passes
 * when above 0 (promptfoo's reading when the assertion sets no threshold).
 */
function gradeOf(returned: Gradable, threshold: number, aboveZero = false): Grade | Broken {
  if (typeof returned === 'boolean') return { pass: returned, score: returned ? 1 : 0, note: `returned ${returned}` }
  if (typeof returned === 'number') {
    if (!Number.isFinite(returned)) return nonFinite(returned)
    const score = clampScore(returned)
    if (aboveZero) return { pass: returned > 0, score, note: `returned ${returned}, which passes above 0 without a threshold, as in promptfoo` }
    return { pass: score >= threshold, score, note: scoreNote(returned, threshold) }
  }
  if (returned !== null && typeof returned === 'object' && 'truthy' in returned) {
    return { pass: returned.truthy, score: returned.truthy ? 1 : 0, note: `returned ${returned.kind}, which counts as ${returned.truthy}` }
  }
  if (returned !== null && typeof returned === 'object') {
    const { pass, score, reason } = returned
    if (typeof score === 'number' && !Number.isFinite(score)) return nonFinite(score)
    const scored = typeof score === 'number' ? clampScore(score) : undefined
    // a bare {score} passes at the threshold, like a returned number
    const passed = pass !== undefined ? Boolean(pass) : scored !== undefined && scored >= threshold
    const note = reason !== undefined && reason !== '' ? reason : scored !== undefined ? scoreNote(scored, threshold) : `returned pass: ${passed}`
    return { pass: passed, score: scored ?? (passed ? 1 : 0), note }
  }
  const truthy = Boolean(returned)
  return { pass: truthy, score: truthy ? 1 : 0, note: `returned ${kindOf(returned)}, which counts as ${truthy}` }
}

/** What a promptfoo check returned when it is no verdict (text, null, a list, an object without pass or score), in words; else undefined. */
function notAVerdict(returned: Gradable): string | undefined {
  if (typeof returned === 'boolean' || typeof returned === 'number') return undefined
  if (returned !== null && typeof returned === 'object' && !('truthy' in returned)) return undefined
  if (returned !== null && typeof returned === 'object') return returned.kind
  return returned === undefined ? 'undefined' : kindOf(returned)
}

function sourceProblem(a: Assertion): string | undefined {
  if (a.file !== undefined) {
    // with a file, `value` is the check's parameter (its third argument), whatever it is
    if (typeof a.file !== 'string') return `javascript \`file\` must be a path, got ${kindOf(a.file)}`
    if (!existsSync(a.file)) return `javascript \`file\` not found: ${a.file}`
    // the parameter travels to the check's sandbox as data, and a function cannot
    if (typeof a.value === 'function')
      return "javascript `value` with a `file` is the check's parameter, passed to it as data: give data, or drop `file` to run the function itself"
    return undefined
  }
  if (typeof a.value === 'function') return undefined
  if (a.value === undefined) return 'javascript needs a `value` (an expression of `output`, `input` and `context`) or a `file` exporting a check function'
  if (typeof a.value !== 'string') return `javascript \`value\` must be an expression (a string), got ${kindOf(a.value)}`
  if (a.value.trim() === '') return 'javascript has an empty `value`; write an expression of `output`, e.g. output.includes("Paris")'
  try {
    bodyOf(a.value)
    return undefined
  } catch (err) {
    return `javascript \`value\` does not compile: ${errorMessage(err)} in ${excerpt(a.value, 120)}`
  }
}

const javascript: AssertionHandler = {
  negatable: true,
  validate: (a) => sourceProblem(a) ?? numberOptionProblem(a, 'threshold', { min: 0, max: 1 }),
  async run(a, ctx, negated): Promise<CheckOutcome> {
    const label = labelOf(a)
    const returned = await runCheck(a, ctx)
    if (!returned.ok) {
      const reason = 'timedOut' in returned ? `check ${label} ${returned.error}` : `check ${label} threw: ${returned.error}`
      return { pass: false, score: 0, reason, error: returned.error }
    }
    // promptfoo's checks must return a boolean, a number or a grading result: anything else fails, as it does there
    const foreign = ctx.case.promptfoo !== undefined && notAVerdict(returned.value as Gradable)
    const grade = foreign
      ? { broken: `must return a boolean, a number or {pass, score, reason}, as in promptfoo; it returned ${foreign}` }
      : gradeOf(returned.value as Gradable, a.threshold ?? DEFAULT_THRESHOLD, ctx.case.promptfoo !== undefined && a.threshold === undefined)
    return checkOutcome(label, 'broken' in grade ? grade : { pass: grade.pass, score: grade.score, note: grade.note }, negated, ctx.output)
  }
}

/** A code check's outcome (javascript, python) worded the same: what it returned, or why that is no verdict. */
export function checkOutcome(
  label: string,
  read: { pass: boolean; score: number; note: string } | { broken: string },
  negated: boolean,
  output: string
): CheckOutcome {
  if ('broken' in read) return { pass: false, score: 0, reason: `check ${label} ${read.broken}`, error: read.broken }
  const reason =
    read.pass !== negated
      ? `check ${label} ${negated ? 'did not pass, as required' : 'passed'} (${read.note})`
      : `expected check ${label} ${negated ? 'not ' : ''}to pass (${read.note}), got: ${excerpt(output)}`
  return { pass: read.pass, score: read.score, reason }
}

export const javascriptAssertions: Record<string, AssertionHandler> = { javascript }
