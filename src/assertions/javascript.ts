/**
 * The javascript check: a user's expression, function body, module or function
 * grades the output. It runs with the full power of the process, like the target.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { errorMessage } from '../errors.js'
import type { Assertion, EvalCase } from '../types.js'
import { excerpt } from './outcome.js'
import type { AssertionContext, AssertionHandler, CheckOutcome } from './types.js'
import { kindOf, numberOptionProblem } from './values.js'

const DEFAULT_THRESHOLD = 0.5

/** What a module or function check receives besides the output. */
export interface CheckContext {
  input: unknown
  case: EvalCase
}

type CheckFunction = (output: string, context: CheckContext) => unknown
type CompiledCheck = (output: string, input: unknown, context: CheckContext) => Promise<unknown>

const AsyncFunction = (async () => {}).constructor as new (...params: string[]) => CompiledCheck

/** Compiled expressions by source: datasets repeat the same check across cases and trials. */
const compiledChecks = new Map<string, CompiledCheck>()

/**
 * Compiles a check's source. An expression (even over several lines) is
 * returned as is; anything that is not an expression, such as statements with
 * `return`, runs as a function body. `case` is a reserved word, so the case is
 * reachable as `context.case`. Async, so `await` works in both forms.
 */
function compileCheck(source: string): CompiledCheck {
  let check = compiledChecks.get(source)
  if (!check) {
    try {
      // a trailing `;` is habit, not a statement: "output.includes('x');" is still an expression
      check = new AsyncFunction('output', 'input', 'context', `return (${source.trim().replace(/;+$/, '')}\n)`)
    } catch {
      check = new AsyncFunction('output', 'input', 'context', source)
    }
    compiledChecks.set(source, check)
  }
  return check
}

async function loadModuleCheck(file: string): Promise<CheckFunction> {
  // webpackIgnore: ncc would otherwise replace this import of the user's file with an empty stub
  const mod = (await import(/* webpackIgnore: true */ pathToFileURL(file).href)) as { default?: unknown }
  if (typeof mod.default !== 'function') throw new Error(`${file} has no default export function (export default (output, { input, case }) => …)`)
  return mod.default as CheckFunction
}

/**
 * A promptfoo `transform`: an expression or function body of `output` and
 * `context`, or `file:///absolute/module.js[:function]`, run on an output the
 * way checks run; what it returns is the new output, of any type.
 */
export async function transformOutput(source: string, output: unknown, context: CheckContext & { vars: Record<string, unknown>; prompt: { label: string } }): Promise<unknown> {
  let returned: unknown
  if (source.startsWith('file://')) {
    const [file, name] = splitFunctionRef(source.slice('file://'.length))
    const mod = (await import(/* webpackIgnore: true */ pathToFileURL(resolve(file)).href)) as Record<string, unknown>
    const fn = name ? mod[name] : mod.default
    if (typeof fn !== 'function') throw new Error(`${file} exports no function ${name ? `"${name}"` : 'as default'}`)
    returned = await (fn as (output: unknown, context: unknown) => unknown)(output, context)
  } else {
    returned = await (compileCheck(source) as (output: unknown, input: unknown, context: CheckContext) => Promise<unknown>)(output, context.input, context)
  }
  if (returned === undefined || returned === null) throw new Error(`transform returned ${returned}; return the new output`)
  return returned
}

/** "path.js:name" → ["path.js", "name"]; a drive letter's colon is not a separator. */
function splitFunctionRef(ref: string): [string, string | undefined] {
  const at = ref.lastIndexOf(':')
  return at > 1 ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, undefined]
}

/** Runs whichever form of check the assertion carries and returns what it returned. */
async function runCheck(a: Assertion, ctx: AssertionContext): Promise<unknown> {
  const context: CheckContext = { input: ctx.input, case: ctx.case }
  // a promptfoo transform may have made the output an object: the check sees that object
  const output = (ctx.outputValue ?? ctx.output) as string
  if (typeof a.value === 'function') return (a.value as CheckFunction)(output, context)
  if (typeof a.value === 'string') return compileCheck(a.value)(output, ctx.input, context)
  const check = await loadModuleCheck(a.file as string)
  return check(output, context)
}

interface Grade {
  pass: boolean
  score: number
  /** what the check returned, for the reason: "returned false", "score 0.3, threshold 0.5", or its own reason */
  note: string
}

function clampScore(score: number): number {
  return Math.min(1, Math.max(0, score))
}

function scoreNote(score: number, threshold: number): string {
  return `score ${score}, threshold ${threshold}`
}

/** Reads a check's return value: boolean, score in [0,1], {pass, score, reason}, or anything truthy/falsy. */
function gradeOf(returned: unknown, threshold: number): Grade {
  if (typeof returned === 'boolean') return { pass: returned, score: returned ? 1 : 0, note: `returned ${returned}` }
  if (typeof returned === 'number') {
    if (Number.isNaN(returned)) return { pass: false, score: 0, note: 'returned NaN' }
    const score = clampScore(returned)
    return { pass: score >= threshold, score, note: scoreNote(returned, threshold) }
  }
  if (returned !== null && typeof returned === 'object' && ('pass' in returned || 'score' in returned)) {
    const { pass, score, reason } = returned as { pass?: unknown; score?: unknown; reason?: unknown }
    const scored = typeof score === 'number' && !Number.isNaN(score) ? clampScore(score) : undefined
    // a bare {score} passes at the threshold, like a returned number
    const passed = pass !== undefined ? Boolean(pass) : scored !== undefined && scored >= threshold
    const note = typeof reason === 'string' && reason !== '' ? reason : scored !== undefined ? scoreNote(scored, threshold) : `returned pass: ${passed}`
    return { pass: passed, score: scored ?? (passed ? 1 : 0), note }
  }
  const truthy = Boolean(returned)
  return { pass: truthy, score: truthy ? 1 : 0, note: `returned ${kindOf(returned)}, which counts as ${truthy}` }
}

function sourceProblem(a: Assertion): string | undefined {
  if (typeof a.value === 'function') return undefined
  if (typeof a.value === 'string') {
    if (a.value.trim() === '') return 'javascript has an empty `value`; write an expression of `output`, e.g. output.includes("Paris")'
    try {
      compileCheck(a.value)
      return undefined
    } catch (err) {
      return `javascript \`value\` does not compile: ${errorMessage(err)} in ${excerpt(a.value, 120)}`
    }
  }
  if (a.value !== undefined) return `javascript \`value\` must be an expression (a string), got ${kindOf(a.value)}`
  if (a.file === undefined) return 'javascript needs a `value` (an expression of `output`, `input` and `context`) or a `file` exporting a check function'
  if (typeof a.file !== 'string') return `javascript \`file\` must be a path, got ${kindOf(a.file)}`
  if (!existsSync(a.file)) return `javascript \`file\` not found: ${a.file}`
  return undefined
}

const javascript: AssertionHandler = {
  negatable: true,
  validate: (a) => {
    if (a.value !== undefined && a.file !== undefined) return 'javascript takes either `value` or `file`, not both'
    return sourceProblem(a) ?? numberOptionProblem(a, 'threshold', { min: 0, max: 1 })
  },
  async run(a, ctx, negated): Promise<CheckOutcome> {
    let returned: unknown
    try {
      returned = await runCheck(a, ctx)
    } catch (err) {
      const message = errorMessage(err)
      return { pass: false, score: 0, reason: `check threw: ${message}`, error: message }
    }
    const grade = gradeOf(returned, a.threshold ?? DEFAULT_THRESHOLD)
    const passes = grade.pass !== negated
    const reason = passes
      ? `check ${negated ? 'did not pass, as required' : 'passed'} (${grade.note})`
      : `expected the check ${negated ? 'not ' : ''}to pass (${grade.note}), got: ${excerpt(ctx.output)}`
    return { pass: grade.pass, score: grade.score, reason }
  }
}

export const javascriptAssertions: Record<string, AssertionHandler> = { javascript }
