/**
 * The assertions: one dispatch table over the check families, the `not-`
 * prefix, and how a trial's assertion results decide whether it passes.
 */
import { closest, distance } from 'fastest-levenshtein'
import { errorMessage } from '../errors.js'
import type { AssertionScope } from '../config/case.js'
import type { Assertion, AssertionResult } from '../types.js'
import { clampScore } from '../util/score.js'
import { costAssertions } from './cost.js'
import { countAssertions } from './counts.js'
import { finishReasonAssertions } from './finish-reason.js'
import { htmlAssertions, loadHtml } from './html.js'
import { javascriptAssertions, transformContext, transformOutput } from './javascript.js'
import { jsonAssertions } from './json.js'
import { latencyAssertions } from './latency.js'
import { modelGradedAssertions } from './model-graded.js'
import { numericAssertions } from './numeric.js'
import { overlapAssertions } from './overlap.js'
import { pythonAssertions } from './python.js'
import { refusalAssertions } from './refusal.js'
import { rubricAssertions } from './rubric.js'
import { similarAssertions } from './similar.js'
import { sqlAssertions, sqlParser } from './sql.js'
import { textAssertions } from './text.js'
import { toolsCallAssertions } from './tools-call.js'
import { traceAssertions } from './trace.js'
import { trajectoryAssertions } from './trajectory.js'
import { xmlAssertions, loadSaxes } from './xml.js'
import type { AssertionContext, AssertionHandler, CheckOutcome } from './types.js'
import { numberOptionProblem } from './values.js'

const NEGATION = 'not-'

const families: Record<string, AssertionHandler> = {
  ...textAssertions,
  ...jsonAssertions,
  ...numericAssertions,
  ...javascriptAssertions,
  ...pythonAssertions,
  ...latencyAssertions,
  ...rubricAssertions,
  ...modelGradedAssertions,
  ...trajectoryAssertions,
  ...toolsCallAssertions,
  ...traceAssertions,
  ...costAssertions,
  ...refusalAssertions,
  ...countAssertions,
  ...xmlAssertions,
  ...htmlAssertions,
  ...sqlAssertions,
  ...overlapAssertions,
  ...finishReasonAssertions,
  ...similarAssertions
}

/** Names the seed datasets use for checks we already have under a promptfoo name. */
const seedAliases: Record<string, string> = { contains_all: 'contains-all', contains_any: 'contains-any', numeric_close: 'numeric' }

const handlers: Readonly<Record<string, AssertionHandler>> = Object.freeze({
  ...families,
  ...Object.fromEntries(Object.entries(seedAliases).map(([alias, type]) => [alias, families[type]!]))
})

/** The base type names; rule-based ones are also valid as `not-<type>`. */
export const assertionTypes: readonly string[] = Object.freeze(Object.keys(handlers))

/** Every name a user may write, for suggesting the nearest one to a typo. */
const writableTypes = [...assertionTypes, ...assertionTypes.filter((t) => handlers[t].negatable).map((t) => NEGATION + t)]

interface Resolved {
  handler: AssertionHandler
  negated: boolean
}

/**
 * Each type name resolved once: at least two look-ups per graded assertion
 * (validation, then grading). Only names that resolve are kept, so it stays as
 * small as the table. An object, not a Map: a property look-up makes V8 keep one
 * copy of the name, so 100,000 cases' `type` strings read from JSON become one.
 */
const resolvedTypes: Record<string, Resolved> = Object.create(null) as Record<string, Resolved>

function resolve(type: string): Resolved | undefined {
  const known = resolvedTypes[type]
  if (known !== undefined) return known
  let resolved: Resolved | undefined
  if (Object.hasOwn(handlers, type)) resolved = { handler: handlers[type], negated: false }
  else {
    const base = type.startsWith(NEGATION) ? type.slice(NEGATION.length) : undefined
    if (base !== undefined && Object.hasOwn(handlers, base)) resolved = { handler: handlers[base], negated: true }
  }
  if (resolved) resolvedTypes[type] = resolved
  return resolved
}

function unknownTypeProblem(type: string): string {
  const guess = closest(type.toLowerCase(), writableTypes)
  // only a near miss is worth suggesting: a third of the name may be wrong, at least two letters
  const near = distance(type.toLowerCase(), guess) <= Math.max(2, Math.floor(type.length / 3))
  const hint = near ? ` Did you mean "${guess}"?` : ''
  return `unknown assertion type "${type}".${hint} Valid types: ${assertionTypes.join(', ')}; rule-based types also take the prefix "${NEGATION}".`
}

/** Whether grading the assertion asks a grader model, the judge or one the check names (llm-rubric, factuality, similar…). */
export function asksGrader(a: Assertion): boolean {
  return resolve(a.type)?.handler.usesJudge === true
}

/**
 * Whether grading the assertion falls back to the judge itself (llm-rubric,
 * similar, a model-graded check without a `provider` of its own): the
 * judge's key must then be there before the run. A check with its own grader
 * does not need it, unless it also asks the judge's embeddings.
 */
export function needsJudge(a: Assertion): boolean {
  const handler = resolve(a.type)?.handler
  return handler?.usesJudge === true && (a.provider === undefined || handler.judgeEmbeds === true)
}

/** A human-readable problem with an assertion as configured (under the config `scope`, when known), or undefined when it can run. */
export function validateAssertion(a: Assertion, scope?: AssertionScope): string | undefined {
  if (typeof a.type !== 'string' || a.type === '') return 'an assertion needs a `type`, e.g. {type: contains, value: "Paris"}'
  const resolved = resolve(a.type)
  if (!resolved) return unknownTypeProblem(a.type)
  if (resolved.negated && !resolved.handler.negatable) {
    return `"${a.type}": ${a.type.slice(NEGATION.length)} cannot take the prefix "${NEGATION}"; only rule-based checks can be negated`
  }
  return numberOptionProblem(a, 'weight', { min: 0 }) ?? resolved.handler.validate?.(a, scope)
}

/**
 * Validation results of the assertions graded lately, so that a case's trials
 * and the assertions every case shares (`defaultTest`) are validated once. A
 * Map bounded in size rather than a WeakMap of every assertion: at 100,000
 * cases such a WeakMap was walked by every young-generation collection, and the
 * run took half again as long.
 */
const validated = new Map<Assertion, string | undefined>()
const MAX_VALIDATED = 4096

function problemOf(a: Assertion): string | undefined {
  if (validated.has(a)) return validated.get(a)
  const problem = validateAssertion(a)
  if (validated.size >= MAX_VALIDATED) validated.clear()
  validated.set(a, problem)
  return problem
}

function toResult(a: Assertion, outcome: CheckOutcome, negated: boolean): AssertionResult {
  // an error is a failure whichever way the check points: `not-` never turns it into a pass
  const broken = outcome.error !== undefined
  const passed = !broken && outcome.pass !== negated
  const score = broken ? 0 : negated ? 1 - outcome.score : outcome.score
  // field by field, not spreads: every result is kept in the record, and a spread copy costs V8 several hundred bytes more
  const result: AssertionResult = { type: a.type, passed, score: clampScore(score), reason: outcome.reason }
  if (a.weight !== undefined) result.weight = a.weight
  if (outcome.error !== undefined) result.error = outcome.error
  if (outcome.judge !== undefined) result.judge = outcome.judge
  return result
}

/** Grades one output. Never throws: a broken check fails with its message in `reason` and `error`. */
export async function evaluateAssertion(a: Assertion, ctx: AssertionContext): Promise<AssertionResult> {
  return grade(a, ctx)
}

function broken(a: Assertion, err: unknown): AssertionResult {
  const message = errorMessage(err)
  return toResult(a, { pass: false, score: 0, reason: `${a.type} could not be checked: ${message}`, error: message }, false)
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/**
 * `evaluateAssertion` without a promise when the check answers at once, as
 * rule-based checks do: at three checks a trial, their promises were a good
 * part of what grading allocated.
 */
function grade(a: Assertion, ctx: AssertionContext, validated = false): AssertionResult | Promise<AssertionResult> {
  const problem = validated ? undefined : problemOf(a)
  const resolved = problem === undefined ? resolve(a.type) : undefined
  if (!resolved) {
    const message = `invalid assertion: ${problem ?? problemOf(a)}`
    return toResult(a, { pass: false, score: 0, reason: message, error: message }, false)
  }
  const { handler, negated } = resolved
  if (ctx.case.promptfoo?.transform !== undefined || typeof a.transform === 'string') return gradeTransformed(a, ctx, resolved)
  try {
    const outcome = handler.run(a, ctx, negated)
    if (!isPromise(outcome)) return toResult(a, outcome, negated)
    return outcome.then(
      (o) => toResult(a, o, negated),
      (err: unknown) => broken(a, err)
    )
  } catch (err) {
    return broken(a, err)
  }
}

async function gradeTransformed(a: Assertion, ctx: AssertionContext, { handler, negated }: Resolved): Promise<AssertionResult> {
  try {
    return toResult(a, await handler.run(a, await transformed(a, ctx), negated), negated)
  } catch (err) {
    return broken(a, err)
  }
}

/** The test's `options.transform` of each graded output (the context every assertion of a trial shares). */
const testTransformed = new WeakMap<AssertionContext, Promise<unknown>>()

/**
 * promptfoo's transforms, the test's `options.transform` then the assertion's
 * own: this assertion grades what they return (text as `output`, any other
 * value as its JSON, and as itself to javascript checks).
 */
async function transformed(a: Assertion, ctx: AssertionContext): Promise<AssertionContext> {
  const testTransform = ctx.case.promptfoo?.transform
  let value: unknown = ctx.output
  if (testTransform !== undefined) {
    // once per graded output, as promptfoo does, not once per assertion (each is a trip to the sandbox)
    let shared = testTransformed.get(ctx)
    if (!shared) {
      shared = transformOutput(testTransform, ctx.output, transformContext(ctx.input, ctx.case), ctx.checkTimeoutMs)
      testTransformed.set(ctx, shared)
    }
    value = await shared
  }
  if (typeof a.transform === 'string') value = await transformOutput(a.transform, value, transformContext(ctx.input, ctx.case), ctx.checkTimeoutMs)
  return typeof value === 'string' ? { ...ctx, output: value } : { ...ctx, output: JSON.stringify(value) ?? String(value), outputValue: value }
}

export interface GradingOptions {
  /**
   * The assertions were validated when their cases loaded (loadConfig validates
   * every one, naming its file and line): grading does not validate them again
   * on every trial. An unknown type is still refused.
   */
  validated?: boolean
}

/** Grades one output against a list of assertions; results in the list's order. */
export function evaluateAssertions(list: Assertion[], ctx: AssertionContext, options: GradingOptions = {}): Promise<AssertionResult[]> {
  const validated = options.validated === true
  const graded = list.map((a) => grade(a, ctx, validated))
  return graded.some(isPromise) ? Promise.all(graded) : Promise.resolve(graded as AssertionResult[])
}

/**
 * Whether a trial passes its assertions: every one passed, except those with
 * weight 0. Weight 0 marks an assertion as informational — graded, recorded and
 * reported, but never failing the case.
 */
export function casePasses(results: AssertionResult[]): boolean {
  return results.every((r) => r.passed || r.weight === 0)
}

/**
 * Loads now every module grading loads on demand (HTML, XML and SQL parsers,
 * the templates of model-graded prompts): called before any code of the pull
 * request runs. The bundle keeps such modules in chunk files beside it
 * (dist/<n>.index.js), read when first imported; a process of the runner's
 * user could rewrite one meanwhile and have it run inside evalgate. Once
 * loaded, a module is never read from disk again (SECURITY.md).
 */
export async function preloadGrading(): Promise<void> {
  await Promise.all([loadHtml(), loadSaxes(), sqlParser(), import('../llm/nunjucks.js')])
}
