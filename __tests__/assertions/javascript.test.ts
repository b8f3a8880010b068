import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import type { Assertion } from '../../src/types.js'
import { grade, makeCase } from './helpers.js'
import { tempDir } from '../__fixtures__/temp.js'

const dir = tempDir('evalgate-js-')

function moduleFile(name: string, source: string): string {
  const file = path.join(dir, name)
  writeFileSync(file, source)
  return file
}

const containsInput = moduleFile(
  'contains-input.mjs',
  'export default (output, { input, case: c }) => ({ pass: output.includes(input), reason: `looked for ${input} in case ${c.id}` })\n'
)
const asyncScore = moduleFile('async-score.mjs', 'export default async (output) => output.length / 10\n')
const noDefault = moduleFile('no-default.mjs', 'export const check = () => true\n')

type Row = [name: string, assertion: Assertion, output: string, passed: boolean, score: number]

const rows: Row[] = [
  ['an expression', { type: 'javascript', value: "output.includes('Paris')" }, 'Paris', true, 1],
  ['a failing expression', { type: 'javascript', value: "output.includes('Paris')" }, 'Rome', false, 0],
  ['an expression with a trailing semicolon', { type: 'javascript', value: "output.includes('Paris');" }, 'Paris', true, 1],
  ['an expression over several lines', { type: 'javascript', value: "output.startsWith('a') &&\n  output.endsWith('z')" }, 'abcz', true, 1],
  ['an expression of input and context.case', { type: 'javascript', value: "input.includes('Ireland') && context.case.id === 'case-1'" }, 'x', true, 1],
  ['a body with return', { type: 'javascript', value: 'const words = output.split(" ")\nreturn words.length === 2' }, 'two words', true, 1],
  ['a one-line body with return', { type: 'javascript', value: 'return output.length > 100' }, 'short', false, 0],
  ['await in an expression', { type: 'javascript', value: 'await Promise.resolve(output === "x")' }, 'x', true, 1],
  ['a score above the default threshold', { type: 'javascript', value: 'output.length / 10' }, 'abcdef', true, 0.6],
  ['a score below the default threshold', { type: 'javascript', value: 'output.length / 10' }, 'abc', false, 0.3],
  ['a score at its own threshold', { type: 'javascript', value: 'output.length / 10', threshold: 0.3 }, 'abc', true, 0.3],
  ['a score clamped into [0, 1]', { type: 'javascript', value: 'output.length' }, 'abc', true, 1],
  ['declarations and a final expression', { type: 'javascript', value: 'const n = output.length; n > 3' }, 'abcd', true, 1],
  ['declarations and a final expression that fails', { type: 'javascript', value: 'const n = output.length; n > 3' }, 'abc', false, 0],
  [
    'statements and a final expression over lines',
    { type: 'javascript', value: 'let n = 0\nfor (const c of output) if (c === "a") n++\nn === 2' },
    'banana!',
    false,
    0
  ],
  ['a final expression after a string holding a semicolon', { type: 'javascript', value: 'const s = "a;b"; output === s' }, 'a;b', true, 1],
  ['a final expression over several lines', { type: 'javascript', value: 'const a = "a"\noutput.startsWith(a) &&\n  output.endsWith("z")' }, 'abcz', true, 1],
  ['{pass, score}', { type: 'javascript', value: '({ pass: true, score: 0.25 })' }, 'x', true, 0.25],
  ['{score} alone', { type: 'javascript', value: '({ score: 0.9 })' }, 'x', true, 0.9],
  ['a truthy value', { type: 'javascript', value: 'output.match(/\\d+/)' }, 'call 555', true, 1],
  ['a falsy value', { type: 'javascript', value: 'output.match(/\\d+/)' }, 'no digits', false, 0],
  ['a function value', { type: 'javascript', value: (output: string) => output === 'ok' }, 'ok', true, 1],
  [
    'a function value seeing the case',
    { type: 'javascript', value: (_o: string, ctx: { case: { name: string } }) => ctx.case.name === 'case 1' },
    'ok',
    true,
    1
  ],
  [
    'an async function value',
    { type: 'javascript', value: async (output: string) => new Promise((r) => setTimeout(() => r(output === 'ok'), 5)) },
    'ok',
    true,
    1
  ],
  ['a module file', { type: 'javascript', file: containsInput }, 'What is the capital of Ireland? Dublin', true, 1],
  ['a failing module file', { type: 'javascript', file: containsInput }, 'Dublin', false, 0],
  ['an async module file', { type: 'javascript', file: asyncScore }, 'abcdefgh', true, 0.8]
]

describe('javascript assertion', () => {
  it.each(rows)('%s', async (_name, assertion, output, passed, score) => {
    const result = await grade(assertion, output)
    expect(result).toMatchObject({ type: 'javascript', passed, score })
    expect(result.error).toBeUndefined()
  })

  it.each<[string, Assertion, string]>([
    ['a returned boolean', { type: 'javascript', value: 'output === "yes"' }, 'expected check `output === "yes"` to pass (returned false), got: "no"'],
    ['a score', { type: 'javascript', value: '0.2' }, 'expected check `0.2` to pass (score 0.2, threshold 0.5), got: "no"'],
    [
      'the check’s own reason',
      { type: 'javascript', value: '({ pass: false, reason: "too short" })' },
      'expected check `({ pass: false, reason: "too short" })` to pass (too short), got: "no"'
    ],
    ['a module’s reason', { type: 'javascript', file: containsInput }, 'looked for What is the capital of Ireland? in case case-1'],
    ['the module’s file', { type: 'javascript', file: containsInput }, `expected check ${containsInput} to pass`],
    [
      'the first 60 characters of a long expression',
      { type: 'javascript', value: 'output.length > 1000 &&\n   output.includes("a very long phrase that goes on and on")' },
      'expected check `output.length > 1000 && output.includes("a very long phrase …` to pass'
    ]
  ])('a failure reason shows %s', async (_name, assertion, reason) => {
    expect((await grade(assertion, 'no')).reason).toContain(reason)
  })

  it.each<[string, Assertion]>([
    ['an expression', { type: 'javascript', value: 'JSON.parse(output).a' }],
    ['a body', { type: 'javascript', value: 'throw new Error("boom")' }],
    [
      'a function',
      {
        type: 'javascript',
        value: () => {
          throw new TypeError('bad input')
        }
      }
    ],
    ['an async function', { type: 'javascript', value: async () => Promise.reject(new Error('later')) }],
    ['a module without a default export', { type: 'javascript', file: noDefault }],
    ['not-javascript, which never turns a throw into a pass', { type: 'not-javascript', value: 'undefinedVariable.x' }]
  ])('a throwing check fails with the message: %s', async (_name, assertion) => {
    const result = await grade(assertion, 'oops')
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toMatch(/^check .+ threw: /)
    expect(result.reason.endsWith(` threw: ${result.error}`)).toBe(true)
  })

  it('names the module that lacks a default export', async () => {
    expect((await grade({ type: 'javascript', file: noDefault }, 'x')).error).toContain('no-default.mjs must export a function as default')
  })

  it.each<[string, string]>([
    ['NaN', 'Number(output)'],
    ['Infinity', '1 / 0'],
    ['-Infinity', '-1 / 0'],
    ['{pass: true, score: Infinity}', '({ pass: true, score: Infinity })']
  ])('a non-finite score fails: %s', async (_name, value) => {
    const result = await grade({ type: 'javascript', value }, 'abc')
    expect(result).toMatchObject({ passed: false, score: 0 })
    expect(result.reason).toContain('returned a score that is not a finite number')
    // an error, so not-javascript cannot turn it into a pass either
    expect((await grade({ type: 'not-javascript', value }, 'abc')).passed).toBe(false)
  })

  it('negates', async () => {
    expect(await grade({ type: 'not-javascript', value: 'output.length / 10' }, 'abc')).toMatchObject({
      passed: true,
      score: 0.7,
      reason: 'check `output.length / 10` did not pass, as required (score 0.3, threshold 0.5)'
    })
    expect(await grade({ type: 'not-javascript', value: 'true' }, 'x')).toMatchObject({
      passed: false,
      reason: 'expected check `true` not to pass (returned true), got: "x"'
    })
  })

  const trial = {
    toolCalls: [{ name: 'refund', args: { order: 'A18' } }],
    usage: { inputTokens: 12, outputTokens: 3 },
    metadata: { model: 'mini' },
    finishReason: 'stop',
    latencyMs: 42
  }

  it('gives an expression the trial’s tool calls, usage, metadata, finish reason, latency and case', async () => {
    const value =
      'context.toolCalls[0].name === "refund" && context.usage.outputTokens === 3 && context.metadata.model === "mini" && ' +
      'context.finishReason === "stop" && context.latencyMs === 42 && context.case.id === "case-1" && context.input === input'
    expect(await grade({ type: 'javascript', value }, 'x', trial)).toMatchObject({ passed: true })
    expect(await grade({ type: 'javascript', value }, 'x')).toMatchObject({ passed: false })
  })

  it('gives a check the case’s own fields, metadata and vars included, and not how evalgate grades it', async () => {
    const c = makeCase({
      metadata: { forbidden: 'refund' },
      vars: { order: 'A18' },
      assert: [{ type: 'contains', value: 'x' }],
      source: { file: 'cases.yaml' }
    })
    // the check passes only when the case it sees is exactly this (key order aside from JSON's own)
    const file = moduleFile('case-keys.mjs', 'export default (output, context, value) => JSON.stringify(context.case) === JSON.stringify(value)\n')
    const seen = {
      id: 'case-1',
      name: 'case 1',
      input: 'What is the capital of Ireland?',
      tags: [],
      index: 0,
      vars: { order: 'A18' },
      metadata: { forbidden: 'refund' }
    }
    expect(await grade({ type: 'javascript', file, value: seen }, 'x', { case: c })).toMatchObject({ passed: true })
    expect(await grade({ type: 'javascript', file, value: { ...seen, metadata: {} } }, 'x', { case: c })).toMatchObject({ passed: false })
    const inline = await grade({ type: 'javascript', value: 'context.case.metadata.forbidden === "refund" && context.case.assert === undefined' }, 'x', {
      case: c
    })
    expect(inline).toMatchObject({ passed: true })
  })

  it('gives a file check the same context, and the assertion’s value as its third parameter', async () => {
    const file = moduleFile(
      'context.mjs',
      'export default (output, context, value) => context.toolCalls.length === value.calls && context.case.name === "case 1" && context.latencyMs === 42\n'
    )
    expect(await grade({ type: 'javascript', file, value: { calls: 1 } }, 'x', trial)).toMatchObject({ passed: true })
    expect(await grade({ type: 'javascript', file, value: { calls: 2 } }, 'x', trial)).toMatchObject({ passed: false })
  })

  it('resolves a check file’s relative imports from its own folder', async () => {
    const sub = path.join(dir, 'checks')
    mkdirSync(sub)
    writeFileSync(path.join(sub, 'words.mjs'), 'export const WORD = "Dublin"\n')
    writeFileSync(path.join(sub, 'has-word.mjs'), 'import { WORD } from "./words.mjs"\nexport default (output) => output.includes(WORD)\n')
    const file = path.join(sub, 'has-word.mjs')
    expect(await grade({ type: 'javascript', file }, 'Dublin, Ireland')).toMatchObject({ passed: true })
    expect(await grade({ type: 'javascript', file }, 'Cork')).toMatchObject({ passed: false })
  })
})
