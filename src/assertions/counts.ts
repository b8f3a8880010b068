/** word-count: how many whitespace-separated words the output has, exactly or within bounds. */
import type { Assertion } from '../types.js'
import { claim, ruled } from './outcome.js'
import type { AssertionHandler } from './types.js'
import { kindOf } from './values.js'

interface Bounds {
  min?: number
  max?: number
}

function countWords(text: string): number {
  const trimmed = text.trim()
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0
}

/** `value`: a count (a number, or a string holding one), or {min, max} with either or both. */
function boundsOf(value: unknown): Bounds | undefined {
  if (isCount(value)) return { min: value, max: value }
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return boundsOf(Number(value))
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const { min, max, ...rest } = value as Record<string, unknown>
  if (Object.keys(rest).length > 0 || (min === undefined && max === undefined)) return undefined
  if ((min !== undefined && !isCount(min)) || (max !== undefined && !isCount(max))) return undefined
  if (min !== undefined && max !== undefined && min > max) return undefined
  return { min: min as number | undefined, max: max as number | undefined }
}

function boundsProblem(a: Assertion): string | undefined {
  if (boundsOf(a.value) !== undefined) return undefined
  const got = a.value === undefined ? 'none' : kindOf(a.value)
  return `${a.type} needs a \`value\`: a word count such as 50, or {min: 20, max: 50} (either bound alone works, min ≤ max), got ${got}`
}

function describe({ min, max }: Bounds): string {
  if (min === max) return `exactly ${min} words`
  if (min === undefined) return `at most ${max} words`
  if (max === undefined) return `at least ${min} words`
  return `between ${min} and ${max} words`
}

const wordCount: AssertionHandler = {
  negatable: true,
  validate: boundsProblem,
  run(a, { output }, negated) {
    const bounds = boundsOf(a.value) as Bounds
    const n = countWords(output)
    const holds = (bounds.min === undefined || n >= bounds.min) && (bounds.max === undefined || n <= bounds.max)
    return ruled(holds, negated, output, claim('be', `${describe(bounds)} long`), `${n} words`)
  }
}

export const countAssertions: Record<string, AssertionHandler> = { 'word-count': wordCount }
