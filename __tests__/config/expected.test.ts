import { rmSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from '@jest/globals'
import { describeAssertion, expectedText } from '../../src/config/expected.js'
import { loadEvalConfig } from '../../src/engine.js'
import { tempProject } from '../__fixtures__/cli.js'
import type { Assertion } from '../../src/types.js'

describe('describeAssertion', () => {
  it.each<{ a: Assertion; text: string }>([
    { a: { type: 'contains', value: 'Dublin' }, text: 'contains: Dublin' },
    { a: { type: 'llm-rubric', value: 'Says "refund" and "30 days".', threshold: 0.7 }, text: 'llm-rubric (threshold 0.7): Says "refund" and "30 days".' },
    { a: { type: 'latency', threshold: 500 }, text: 'latency (threshold 500 ms)' },
    { a: { type: 'not-latency', threshold: 5 }, text: 'not-latency (threshold 5 ms)' },
    { a: { type: 'cost', threshold: 0.01 }, text: 'cost (threshold $0.01)' },
    { a: { type: 'contains-all', value: ['refund', '30 days'] }, text: 'contains-all: ["refund","30 days"]' },
    { a: { type: 'regex', value: '^\\d+$', flags: 'i' }, text: 'regex (flags i): ^\\d+$' },
    { a: { type: 'numeric', value: 3.333, tolerance: 0.001 }, text: 'numeric (tolerance 0.001): 3.333' },
    { a: { type: 'javascript', file: '/abs/checks/refund.mjs' }, text: 'javascript: refund.mjs' },
    {
      a: { type: 'trajectory-match', value: [{ name: 'lookup_order' }, 'refund'], mode: 'superset' },
      text: 'trajectory-match (mode superset): [{"name":"lookup_order"},"refund"]'
    },
    {
      a: { type: 'not-trajectory-match', value: ['search_kb'], mode: 'strict', args: 'ignore' },
      text: 'not-trajectory-match (mode strict, args ignore): ["search_kb"]'
    },
    {
      a: { type: 'trajectory-match', value: ['lookup_policy'], args: 'superset', argsByTool: { lookup_policy: ['time.start'] } },
      text: 'trajectory-match (args superset, argsByTool {"lookup_policy":["time.start"]}): ["lookup_policy"]'
    },
    { a: { type: 'tool-call-f1', value: ['lookup_order', 'refund'], threshold: 0.8 }, text: 'tool-call-f1 (threshold 0.8): ["lookup_order","refund"]' }
  ])('$text', ({ a, text }) => {
    expect(describeAssertion(a)).toBe(text)
  })
})

describe('expectedText', () => {
  const own: Assertion[] = [{ type: 'contains', value: '4' }]
  const defaults: Assertion[] = [{ type: 'not-icontains', value: 'as an ai language model' }]

  it.each([
    { name: 'the shorthand as written, without defaults', written: '4', defaults: [], text: '4' },
    { name: 'own assertions, without defaults', written: undefined, defaults: [], text: 'contains: 4' },
    {
      name: 'every assertion with defaults, the defaults marked',
      written: '4',
      defaults,
      text: 'contains: 4\nnot-icontains: as an ai language model  (defaults.assert)'
    },
    { name: 'nothing to expect', written: undefined, defaults: [], own: [], text: undefined }
  ])('$name', (row) => {
    expect(expectedText(row.written, row.own ?? own, row.defaults)).toBe(row.text)
  })
})

describe("a case's expected, through the loader", () => {
  let dir: string
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('lists defaults.assert and reads a latency check plainly', async () => {
    dir = tempProject({
      'evalgate.yml':
        'version: 1\ndataset: cases.yaml\ntarget: {command: ["node", "agent.js"]}\ndefaults:\n  assert: [{type: not-icontains, value: as an ai language model}]\n',
      'cases.yaml': '- {id: quick, input: hi, assert: [{type: latency, threshold: 500}]}\n- {id: math, input: "2+2", expected: "4"}\n'
    })
    const { cases } = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    expect(cases.map((c) => c.expected)).toEqual([
      'latency (threshold 500 ms)\nnot-icontains: as an ai language model  (defaults.assert)',
      'contains: 4\nnot-icontains: as an ai language model  (defaults.assert)'
    ])
  })
})
