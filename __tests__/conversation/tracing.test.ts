/**
 * A traced agent in a conversation: every turn continues the trial's one
 * trace, the case's checks grade the spans of the whole conversation (tool
 * calls and usage come from them when the agent reports none), each repeat is
 * a trace of its own; a turn's checks grade its reply, so a trace assertion
 * there is refused at load, naming where to put it.
 */
import path from 'node:path'
import { writeFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { tempDir } from '../__fixtures__/temp.js'

const AGENTS = path.resolve('__tests__/__fixtures__/agents/otel')
const env = { PATH: process.env.PATH }

function writeConfig(cases: string, extra = ''): string {
  const dir = tempDir('evalgate-traced-conversation-')
  const file = path.join(dir, 'evalgate.yml')
  writeFileSync(file, `version: 1\ntracing: true\n${extra}target:\n  module: ${AGENTS}/module.mjs\ncases:\n${cases}`)
  return file
}

describe('a traced conversation', () => {
  it('is one trace: the case’s checks see every turn’s spans, and the tool calls come from them', async () => {
    const file = writeConfig(
      `  - id: two-orders
    turns:
      - user: What is the status of B7?
        assert: [{ type: contains, value: B7 }]
      - user: Please refund A18
    assert:
      - { type: trace-span-count, value: { pattern: "execute_tool *", min: 3, max: 3 } }
      - { type: trajectory:tool-sequence, value: [lookup_order, lookup_order, refund] }
`,
      'repeat: 2\n'
    )
    const { record } = await evaluate(await loadEvalConfig(file), { env })
    const c = record.cases[0]!
    expect(c.assertions.map((a) => [a.type, a.passed, a.reason])).toEqual([
      ['contains', true, expect.stringMatching(/^turn 1: /)],
      ['trace-span-count', true, expect.any(String)],
      ['trajectory:tool-sequence', true, expect.any(String)]
    ])
    expect(c.passed).toBe(true)
    // the agent reports nothing but its answers: the tool calls of both turns are its spans'
    expect(c.toolCalls!.map((t) => [t.name, (t.args as { order_id: string }).order_id])).toEqual([
      ['lookup_order', 'B7'],
      ['lookup_order', 'A18'],
      ['refund', 'A18']
    ])
    expect(c.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) })
    // two conversations, two traces, each with the spans of both its turns
    const traces = c.trials!.map((t) => t.trace!)
    expect(new Set(traces.map((t) => t.traceId)).size).toBe(2)
    for (const t of traces) expect(t.spans).toBeGreaterThanOrEqual(9)
  })

  it('a trace assertion in a turn’s checks is refused at load, naming the case’s assert', async () => {
    const file = writeConfig(`  - id: misplaced
    turns:
      - user: Please refund A18
        assert: [{ type: trace-error-spans, value: 0 }]
`)
    await expect(loadEvalConfig(file)).rejects.toThrow(
      /turns\[0\]\.assert\[0\].*trace-error-spans grades a trace, and a conversation is one trace: put it in the case's `assert`/s
    )
  })
})
