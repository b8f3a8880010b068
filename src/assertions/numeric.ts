/** The numeric check: the number in the output against a value, with absolute or relative tolerance. */
import type { Assertion } from '../types.js'
import { claim, ruled } from './outcome.js'
import type { AssertionHandler } from './types.js'
import { kindOf, firstProblem, numberOptionProblem } from './values.js'

/**
 * A number as written in prose: optional sign, digits with optional thousands
 * commas in groups of three ("1,234,567"), optional decimals and exponent.
 * Not glued to a preceding letter, digit or dot, so "v1.2.3", "gpt4" and the
 * "-" of a range like "3-4" do not read as numbers. A comma is never a decimal
 * point: "3,5" is the numbers 3 and 5.
 */
const NUMBER = /(?<![\p{L}\p{N}_.])[-+]?(?:(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?/gu

function toNumber(written: string): number {
  return Number(written.replace(/,/g, ''))
}

/**
 * The number an output states: the last one in it. When the whole trimmed
 * output is a number, that number is also the last one.
 */
export function lastNumber(text: string): number | undefined {
  let last: string | undefined
  for (const m of text.matchAll(NUMBER)) last = m[0]
  return last === undefined ? undefined : toNumber(last)
}

/** The expected number: a number, or a string holding exactly one ("42", "1,000"). */
function expectedNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  const m = trimmed.match(NUMBER)
  // NUMBER cannot match the empty string, so a first match that is the whole text is the only one
  return m !== null && m[0] === trimmed ? toNumber(trimmed) : undefined
}

/** The tolerances as a phrase: "42", "42 ± 0.5", "42 ± 1%". */
function target(expected: number, a: Assertion): string {
  const parts = [String(expected)]
  if (a.tolerance) parts.push(`± ${a.tolerance}`)
  if (a.relTolerance !== undefined) parts.push(`${a.tolerance ? 'or ' : ''}± ${+(a.relTolerance * 100).toPrecision(6)}%`)
  return parts.join(' ')
}

function withinTolerance(actual: number, expected: number, a: Assertion): boolean {
  const gap = Math.abs(actual - expected)
  // forgive float rounding in the subtraction: 1.0 is within 0.1 of 1.1
  const slack = 1e-12 * Math.max(1, Math.abs(actual), Math.abs(expected))
  if (gap <= (a.tolerance ?? 0) + slack) return true
  return a.relTolerance !== undefined && gap <= a.relTolerance * Math.abs(expected) + slack
}

const numeric: AssertionHandler = {
  negatable: true,
  validate: (a) =>
    firstProblem(
      () =>
        expectedNumber(a.value) === undefined ? `numeric needs a number as \`value\`, got ${a.value === undefined ? 'none' : kindOf(a.value)}` : undefined,
      () => numberOptionProblem(a, 'tolerance', { min: 0 }),
      () => numberOptionProblem(a, 'relTolerance', { min: 0 })
    ),
  run(a, { output }, negated) {
    const expected = expectedNumber(a.value) as number
    const what = claim('state', `a number equal to ${target(expected, a)}`)
    const actual = lastNumber(output)
    if (actual === undefined) return ruled(false, negated, output, what, 'no number in output')
    return ruled(withinTolerance(actual, expected, a), negated, output, what, `found ${actual}`)
  }
}

export const numericAssertions: Record<string, AssertionHandler> = { numeric }
