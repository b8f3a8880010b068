/**
 * The python check (promptfoo's `python` assertion): an inline expression
 * (one line: its value), a function body (several lines, with `return`),
 * or `file://assert.py[:function]` whose `get_assert(output, context)`
 * grades. It is the dataset's code: it runs in the sandbox's Python
 * processes under `checkTimeoutMs`, with a clean environment. Its value is
 * read as promptfoo reads it: a boolean (or "true"/"false"), a number (passes
 * above 0, or at `threshold` when one is set), or a grading result
 * `{pass, score, reason}` (snake_case accepted, as JSON text too); anything
 * else fails the check.
 */
import path from 'node:path'
import { DEFAULT_CHECK_TIMEOUT_MS, pythonChecks } from '../sandbox/index.js'
import type { Assertion } from '../types.js'
import { checkContext, checkOutcome } from './javascript.js'
import { excerpt, shown } from './outcome.js'
import type { AssertionHandler, CheckOutcome } from './types.js'
import { kindOf, numberOptionProblem } from './values.js'

const FILE = 'file://'
const DEFAULT_FUNCTION = 'get_assert'

/** promptfoo's wrapping of inline code: one line is returned, several are the body of `main(output, context)`. */
export function pythonSource(code: string): string {
  const trimmed = code.replace(/\s+$/, '')
  if (!trimmed.includes('\n')) return `import json\n\ndef main(output, context):\n    return ${trimmed}\n`
  const indent = /^(?!\s*$)(\s+)/m.exec(trimmed)?.[1] ?? '    '
  return `import json\n\ndef main(output, context):\n${trimmed
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n')}\n`
}

/** `file://path.py[:function]` → the file (relative to `baseDir`) and the function. */
function fileRef(value: string, baseDir: string): { file: string; fn: string } {
  const ref = value.slice(FILE.length)
  const m = /^(.*\.py)(?::([A-Za-z_]\w*))?$/.exec(ref)
  return { file: path.resolve(baseDir, m ? m[1]! : ref), fn: m?.[2] ?? DEFAULT_FUNCTION }
}

function labelOf(a: Assertion): string {
  const value = String(a.value)
  if (value.startsWith(FILE)) {
    const file = value.slice(FILE.length)
    const relative = path.relative(process.cwd(), file)
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative
  }
  const line = value.trim().replace(/\s+/g, ' ')
  return `\`${line.length > 60 ? `${line.slice(0, 60)}…` : line}\``
}

type Read = { pass: boolean; score: number; reason: string } | { broken: string }

/** promptfoo's reading of what the check returned. */
export function readPythonResult(value: unknown, threshold: number | undefined): Read {
  const lower = typeof value === 'string' ? value.toLowerCase() : undefined
  if (value === true || lower === 'true') return { pass: true, score: 1, reason: 'returned true' }
  if (value === false || lower === 'false') return { pass: false, score: 0, reason: 'returned false' }
  let result = value
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      result = JSON.parse(value) as unknown
    } catch {
      return { broken: `returned text that starts like JSON but is not: ${excerpt(value)}` }
    }
  }
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
    const r = result as Record<string, unknown>
    const pass = r.pass ?? r.pass_
    if (typeof pass !== 'boolean' || typeof r.score !== 'number' || typeof r.reason !== 'string')
      return { broken: `must return a boolean, a number or {pass, score, reason}; got ${shown(result)}` }
    if (threshold !== undefined && r.score < threshold)
      return { pass: false, score: r.score, reason: `score ${r.score} is less than threshold ${threshold}: ${r.reason}` }
    return { pass, score: r.score, reason: r.reason || `returned pass: ${pass}` }
  }
  const score = typeof result === 'number' ? result : Number.parseFloat(String(result))
  if (Number.isNaN(score)) return { broken: `must return a boolean, a number or {pass, score, reason}; got ${result === null ? 'None' : kindOf(result)}` }
  const pass = threshold === undefined ? score > 0 : score >= threshold
  return { pass, score, reason: threshold === undefined ? `returned ${score}` : `score ${score}, threshold ${threshold}` }
}

const python: AssertionHandler = {
  negatable: true,
  validate: (a) =>
    typeof a.value !== 'string' || a.value.trim() === ''
      ? `python needs a \`value\`: an expression of \`output\` and \`context\`, a function body, or file://check.py; got ${kindOf(a.value)}`
      : numberOptionProblem(a, 'threshold'),
  async run(a, ctx, negated): Promise<CheckOutcome> {
    const value = String(a.value)
    // a file:// value was made absolute when its case was read
    const ref = value.startsWith(FILE) ? fileRef(value, process.cwd()) : undefined
    const call = ref ? { file: ref.file, function: ref.fn } : { source: pythonSource(value), function: 'main' }
    const output = ctx.outputValue ?? ctx.output
    const outcome = await pythonChecks().call(
      { ...call, args: [output, checkContext(ctx)] },
      ctx.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
      undefined,
      'checkTimeoutMs'
    )
    const label = labelOf(a)
    if (!outcome.ok) {
      const reason = outcome.timedOut ? `check ${label} ${outcome.error}` : `check ${label} raised: ${outcome.error}`
      return { pass: false, score: 0, reason, error: outcome.error }
    }
    const read = readPythonResult(outcome.value, a.threshold)
    return checkOutcome(label, 'broken' in read ? read : { pass: read.pass, score: read.score, note: read.reason }, negated, ctx.output)
  }
}

export const pythonAssertions: Record<string, AssertionHandler> = { python }
