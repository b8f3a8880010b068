/**
 * promptfoo's own assertion tests, taken as data (__fixtures__/promptfoo-assertions.json):
 * every output/assertion pair graded by evalgate against the verdict promptfoo's
 * test expects. A row marked `difference` is one where evalgate decides otherwise
 * on purpose (README, "Coming from promptfoo"); a row marked `needs` depends on
 * semantics landing from another branch. Everything else must agree.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

interface Pair {
  id: number
  file: string
  assertion: Assertion
  output: string
  finishReason?: string
  expected: boolean
  difference?: string
  needs?: string
}

const fixture = JSON.parse(readFileSync(new URL('../__fixtures__/promptfoo-assertions.json', import.meta.url), 'utf8')) as { pairs: Pair[] }
const pairs = fixture.pairs

async function verdict(p: Pair): Promise<boolean> {
  const result = await grade(p.assertion, p.output, p.finishReason === undefined ? {} : { finishReason: p.finishReason })
  return result.passed
}

const label = (p: Pair) => `#${p.id} ${p.assertion.type} on ${JSON.stringify(p.output.slice(0, 60))}`

describe('promptfoo differential', () => {
  it('holds at least 200 pairs from promptfoo test files', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(200)
    expect(new Set(pairs.map((p) => p.id)).size).toBe(pairs.length)
  })

  const plain = pairs.filter((p) => p.difference === undefined && p.needs === undefined)
  it.each(plain.map((p) => [label(p), p] as const))('%s agrees', async (_label, p) => {
    expect(await verdict(p)).toBe(p.expected)
  })

  const differences = pairs.filter((p) => p.difference !== undefined)
  it.each(differences.map((p) => [label(p), p] as const))('%s is a documented difference', async (_label, p) => {
    // listed differences are exact: a row that starts agreeing must lose its note
    expect(await verdict(p)).toBe(!p.expected)
  })

  it('agrees on at least 98% of the pairs, documented differences counted as disagreements', async () => {
    // pending rows are left out until what they need has landed; then `needs` goes and they count
    const counted = pairs.filter((p) => p.needs === undefined)
    let agree = 0
    for (const p of counted) if ((await verdict(p)) === p.expected) agree++
    expect(agree / counted.length).toBeGreaterThanOrEqual(0.98)
  })
})
