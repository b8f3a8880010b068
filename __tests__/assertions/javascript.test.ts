import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import type { Assertion } from '../../src/types.js'
import { grade, makeCase } from './helpers.js'
import { tempDir } from '../__fixtures__/temp.js'
import { validateAssertion } from '../../src/assertions/index.js'
import { transformContext, transformOutput } from '../../src/assertions/javascript.js'

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

/**
 * The javascript check and promptfoo's transforms (src/assertions/javascript.ts)
 * pinned down: how a source becomes a function body, how each kind of returned
 * value grades, the labels and reasons, the context a check sees, and the
 * validation messages. Checks run in the real sandbox.
 */

const js = (value: unknown, extra: Partial<Assertion> = {}): Assertion => ({ type: 'javascript', value, ...extra })

function freshModule(name: string, source: string): string {
  const file = path.join(tempDir('evalgate-js-fresh-'), name)
  writeFileSync(file, source)
  return file
}

describe('function bodies', () => {
  it('drops any number of trailing semicolons from an expression', async () => {
    expect(await grade(js('output === "x";;;'), 'x')).toMatchObject({ passed: true, reason: 'check `output === "x";;;` passed (returned true)' })
  })

  it('returns the final expression after statements ended by a semicolon or a newline', async () => {
    expect((await grade(js('const a = "x"; output === a'), 'x')).passed).toBe(true)
    expect((await grade(js('const a = "x"\noutput === a'), 'x')).passed).toBe(true)
    expect((await grade(js('const a = "x"\n\noutput === a\n'), 'x')).passed).toBe(true)
  })

  it('takes the longest tail that is one expression, as JavaScript reads a line that goes on', async () => {
    // "b" alone is an expression, but "const a = 1; a +" does not compile: the tail is "a +\nb"
    expect((await grade(js('const a = 0.25; const b = 0.5\na +\nb'), 'x')).score).toBe(0.75)
    // "- 3 > 0" alone is an expression too, and compiles after "…\ntotal\n": JavaScript reads `total - 3 > 0`
    expect((await grade(js('const total = output.length\ntotal\n  - 3 > 0'), 'hello')).passed).toBe(true)
    expect((await grade(js('const total = output.length\ntotal\n  - 3 > 0'), 'abc')).passed).toBe(false)
  })

  it('a statement end at the very start counts: an empty statement, then the expression', async () => {
    expect(await grade(js(';output === "x"'), 'x')).toMatchObject({ passed: true, reason: 'check `;output === "x"` passed (returned true)' })
  })

  it('a source with blank space around it is the same check, and named without it', async () => {
    expect(await grade(js('  output === "x";  \n'), 'x')).toMatchObject({ passed: true, reason: 'check `output === "x";` passed (returned true)' })
    expect(await grade(js('\n  const n = output.length;\n  n === 1\n'), 'x')).toMatchObject({
      passed: true,
      reason: 'check `const n = output.length; n === 1` passed (returned true)'
    })
  })

  it('runs a body without a final expression as written', async () => {
    expect(await grade(js('if (output === "x") { return 0.75 }'), 'x')).toMatchObject({ passed: true, score: 0.75 })
    expect(await grade(js('let n = 1; n++'), 'x')).toMatchObject({ passed: true, score: 1 })
    expect(await grade(js('const n = 1;'), 'x')).toMatchObject({
      passed: false,
      reason: 'expected check `const n = 1;` to pass (returned undefined undefined, which counts as false), got: "x"'
    })
  })

  it('looks for the final expression among the last 200 statement ends only', async () => {
    const expression = Array.from({ length: 201 }, () => 'true').join(' &&\n')
    expect((await grade(js(`const x = 1; ${expression}`), 'x')).passed).toBe(false)
    // 199 newlines and the semicolon: exactly 200 ends, the first of them the one that works
    const shorter = Array.from({ length: 200 }, () => 'true').join(' &&\n')
    expect((await grade(js(`const x = 1; ${shorter}`), 'x')).passed).toBe(true)
  })

  it('grades the same source the same way each time', async () => {
    const a = js('const k = output.length; k === 2')
    expect((await grade(a, 'ab')).passed).toBe(true)
    expect((await grade(a, 'abc')).passed).toBe(false)
    expect((await grade(a, 'ab')).passed).toBe(true)
  })
})

describe('validation', () => {
  it('names what is wrong with the source', () => {
    expect(validateAssertion(js(undefined))).toBe(
      'javascript needs a `value` (an expression of `output`, `input` and `context`) or a `file` exporting a check function'
    )
    expect(validateAssertion(js(['x']))).toBe('javascript `value` must be an expression (a string), got a list')
    expect(validateAssertion(js(' \n '))).toBe('javascript has an empty `value`; write an expression of `output`, e.g. output.includes("Paris")')
    expect(validateAssertion(js('output.includes('))).toBe('javascript `value` does not compile: Unexpected token \'}\' in "output.includes("')
    expect(validateAssertion(js(`${'x'.repeat(130)} +`))).toMatch(/^javascript `value` does not compile: Unexpected token '}' in "x{120}…"$/)
    // output, input and context are the function's parameters: a body cannot declare them again
    expect(validateAssertion(js('const context = 1; output.length > context'))).toBe(
      'javascript `value` does not compile: Identifier \'context\' has already been declared in "const context = 1; output.length > context"'
    )
    expect(validateAssertion(js('let input = 1\ninput'))).toMatch(/^javascript `value` does not compile: Identifier 'input' has already been declared/)
  })

  it('a file must be a path to a file; its value may be anything', () => {
    expect(validateAssertion({ type: 'javascript', file: 5 } as unknown as Assertion)).toBe('javascript `file` must be a path, got number 5')
    const file = freshModule('ok.mjs', 'export default () => true\n')
    expect(validateAssertion({ type: 'javascript', file, value: 42 })).toBeUndefined()
    expect(validateAssertion({ type: 'javascript', file })).toBeUndefined()
  })

  it('with a file, a function is refused as the value: the parameter goes to the sandbox as data', async () => {
    const file = freshModule('fn.mjs', 'export default () => true\n')
    const a: Assertion = { type: 'javascript', file, value: () => true }
    const refusal = "javascript `value` with a `file` is the check's parameter, passed to it as data: give data, or drop `file` to run the function itself"
    expect(validateAssertion(a)).toBe(refusal)
    expect(await grade(a, 'x')).toMatchObject({ passed: false, reason: `invalid assertion: ${refusal}` })
  })

  it('accepts a function, and a threshold in [0, 1]', () => {
    expect(validateAssertion(js(() => true))).toBeUndefined()
    expect(validateAssertion(js('true', { threshold: 0 }))).toBeUndefined()
    expect(validateAssertion(js('true', { threshold: 1 }))).toBeUndefined()
    expect(validateAssertion(js('true', { threshold: -0.1 }))).toBe('javascript `threshold` must be at least 0, got -0.1')
    expect(validateAssertion(js(42, { threshold: 2 }))).toBe('javascript `value` must be an expression (a string), got number 42')
  })
})

describe('returned values', () => {
  it('a number is a score, clamped into [0, 1], passing at the threshold', async () => {
    expect(await grade(js('-3'), 'x')).toMatchObject({ passed: false, score: 0, reason: 'expected check `-3` to pass (score -3, threshold 0.5), got: "x"' })
    expect(await grade(js('0.5'), 'x')).toMatchObject({ passed: true, score: 0.5, reason: 'check `0.5` passed (score 0.5, threshold 0.5)' })
    expect(await grade(js('0.49'), 'x')).toMatchObject({ passed: false, score: 0.49 })
    expect(await grade(js('0.2', { threshold: 0.2 }), 'x')).toMatchObject({ passed: true, reason: 'check `0.2` passed (score 0.2, threshold 0.2)' })
    expect(await grade(js('0', { threshold: 0 }), 'x')).toMatchObject({ passed: true, score: 0 })
  })

  it('{pass, score, reason}: each part read as given', async () => {
    expect(await grade(js('({ pass: false, score: 0.9 })'), 'x')).toMatchObject({
      passed: false,
      score: 0.9,
      reason: 'expected check `({ pass: false, score: 0.9 })` to pass (score 0.9, threshold 0.5), got: "x"'
    })
    expect(await grade(js('({ pass: true })'), 'x')).toMatchObject({ passed: true, score: 1, reason: 'check `({ pass: true })` passed (returned pass: true)' })
    expect(await grade(js('({ pass: 0 })'), 'x')).toMatchObject({ passed: false, score: 0, reason: expect.stringContaining('(returned pass: false)') })
    expect(await grade(js('({ pass: "yes" })'), 'x')).toMatchObject({ passed: true, score: 1 })
    expect(await grade(js('({ pass: true, reason: "" })'), 'x')).toMatchObject({ reason: 'check `({ pass: true, reason: "" })` passed (returned pass: true)' })
    expect(await grade(js('({ pass: true, score: 2, reason: "great" })'), 'x')).toMatchObject({
      passed: true,
      score: 1,
      reason: expect.stringContaining('(great)')
    })
    expect(await grade(js('({ pass: true, score: -1 })'), 'x')).toMatchObject({ passed: true, score: 0 })
  })

  it('a bare {score} passes at the threshold, clamped', async () => {
    expect(await grade(js('({ score: 0.5 })'), 'x')).toMatchObject({
      passed: true,
      score: 0.5,
      reason: 'check `({ score: 0.5 })` passed (score 0.5, threshold 0.5)'
    })
    expect(await grade(js('({ score: 0.4 })'), 'x')).toMatchObject({ passed: false, score: 0.4 })
    expect(await grade(js('({ score: 3 })', { threshold: 1 }), 'x')).toMatchObject({
      passed: true,
      score: 1,
      reason: expect.stringContaining('(score 1, threshold 1)')
    })
    expect(await grade(js('({ score: "high" })'), 'x')).toMatchObject({ passed: false, score: 0, reason: expect.stringContaining('(returned pass: false)') })
  })

  it('a {score} that is not finite fails as an error', async () => {
    const result = await grade(js('({ score: NaN })'), 'x')
    expect(result).toMatchObject({
      passed: false,
      score: 0,
      reason: 'check `({ score: NaN })` returned a score that is not a finite number (NaN)',
      error: 'returned a score that is not a finite number (NaN)'
    })
  })

  it('anything else counts as truthy or falsy, named by its kind', async () => {
    expect((await grade(js('"yes"'), 'x')).reason).toBe('check `"yes"` passed (returned the string "yes", which counts as true)')
    expect((await grade(js('""'), 'x')).reason).toBe('expected check `""` to pass (returned the string "", which counts as false), got: "x"')
    expect((await grade(js('null'), 'x')).reason).toBe('expected check `null` to pass (returned null, which counts as false), got: "x"')
    expect(await grade(js('[1]'), 'x')).toMatchObject({ passed: true, score: 1, reason: 'check `[1]` passed (returned an array, which counts as true)' })
    expect(await grade(js('new Map()'), 'x')).toMatchObject({ passed: true, reason: 'check `new Map()` passed (returned a object, which counts as true)' })
    expect(await grade(js('0n'), 'x')).toMatchObject({ passed: false, score: 0, reason: expect.stringContaining('(returned bigint 0, which counts as false)') })
  })

  it('a returned boolean, negated', async () => {
    expect(await grade({ type: 'not-javascript', value: 'false' }, 'x')).toMatchObject({
      passed: true,
      score: 1,
      reason: 'check `false` did not pass, as required (returned false)'
    })
  })
})

describe('labels', () => {
  it('an expression of exactly 60 characters is shown whole, a longer one cut', async () => {
    const sixty = `output === "${'a'.repeat(47)}"`
    expect(sixty).toHaveLength(60)
    expect((await grade(js(sixty), 'x')).reason).toBe(`expected check \`${sixty}\` to pass (returned false), got: "x"`)
    const longer = `${sixty} `.concat('|| false')
    expect((await grade(js(longer), 'x')).reason).toBe(`expected check \`${sixty}…\` to pass (returned false), got: "x"`)
  })

  it('names a function by its name, or as a function', async () => {
    function isOk(output: string): boolean {
      return output === 'ok'
    }
    expect((await grade(js(isOk), 'no')).reason).toBe('expected check function isOk to pass (returned false), got: "no"')
    const anonymous = [(output: string) => output === 'ok'][0]!
    expect((await grade(js(anonymous), 'ok')).reason).toBe('check function passed (returned true)')
  })

  it('names a file inside the working directory by its relative path', async () => {
    const file = path.join(process.cwd(), 'package.json')
    const result = await grade({ type: 'javascript', file }, 'x')
    expect(result).toMatchObject({ passed: false })
    expect(result.reason).toMatch(/^check package\.json threw: /)
  })
})

describe('failures', () => {
  it('a check that runs past checkTimeoutMs fails, naming the deadline', async () => {
    const result = await grade(js('for (;;) {}'), 'x', { checkTimeoutMs: 300 })
    expect(result).toMatchObject({
      passed: false,
      score: 0,
      reason: 'check `for (;;) {}` did not finish within checkTimeoutMs (300 ms)',
      error: 'did not finish within checkTimeoutMs (300 ms)'
    })
  })

  it('a function that throws fails with its message', async () => {
    const result = await grade(
      js(() => {
        throw new Error('bad')
      }),
      'x'
    )
    expect(result).toMatchObject({ passed: false, score: 0, reason: 'check function threw: bad', error: 'bad' })
  })

  it('a function returning a non-finite score fails as an error', async () => {
    expect(
      await grade(
        js(() => Infinity),
        'x'
      )
    ).toMatchObject({ passed: false, error: 'returned a score that is not a finite number (Infinity)' })
  })

  it('a file check is given the value', async () => {
    const file = freshModule('value.mjs', 'export default (output, context, value) => value === 3\n')
    expect((await grade({ type: 'javascript', file, value: 3 }, 'x')).passed).toBe(true)
    expect((await grade({ type: 'javascript', file, value: 4 }, 'x')).passed).toBe(false)
  })
})

describe('what a check sees', () => {
  it('without a promptfoo case: no vars, prompt or test', async () => {
    const result = await grade(js('context.vars === undefined && context.prompt === undefined && context.test === undefined'), 'x')
    expect(result.passed).toBe(true)
    expect((await grade(js('Object.keys(context).sort().join()'), 'x')).reason).toContain('returned the string "case,input"')
  })

  it('a promptfoo case: its vars, prompt and test', async () => {
    const c = makeCase({ vars: { city: 'Cork' }, metadata: { tier: 'gold' }, promptfoo: { provider: 0, description: 'about Cork' } })
    const value =
      'context.vars.city === "Cork" && context.prompt === input && context.test.vars.city === "Cork" && ' +
      'context.test.description === "about Cork" && context.test.metadata.tier === "gold"'
    expect((await grade(js(value), 'x', { case: c })).passed).toBe(true)
  })

  it('a promptfoo case without vars, description or metadata', async () => {
    const c = makeCase({ promptfoo: { provider: 0 } })
    const value = 'JSON.stringify(context.vars) === "{}" && JSON.stringify(Object.keys(context.test)) === \'["vars"]\''
    expect((await grade(js(value), 'x', { case: c })).passed).toBe(true)
  })

  it('a function sees the same context', async () => {
    const c = makeCase({ vars: { n: 1 }, promptfoo: { provider: 0 } })
    const seen: unknown[] = []
    const check = (output: string, context: unknown) => {
      seen.push(output, context)
      return true
    }
    await grade(js(check), 'out', { case: c, finishReason: 'stop', latencyMs: 7 })
    expect(seen[0]).toBe('out')
    expect(seen[1]).toMatchObject({ input: c.input, finishReason: 'stop', latencyMs: 7, vars: { n: 1 }, prompt: c.input, test: { vars: { n: 1 } } })
  })

  it('a transformed output that is not text is the value the check sees', async () => {
    expect((await grade(js('Array.isArray(output) && output[1] === 2'), 'x', { outputValue: [1, 2] })).passed).toBe(true)
    expect((await grade(js('output === "x"'), 'x')).passed).toBe(true)
  })
})

describe('transformOutput', () => {
  const context = () => transformContext('the prompt', makeCase({ name: 'a case', vars: { v: 'V' } }))

  it('gives the transform its output, input and context', async () => {
    expect(await transformOutput('output + "|" + context.vars.v + "|" + context.prompt.raw + "|" + context.prompt.label', 'o', context())).toBe(
      'o|V|the prompt|a case'
    )
    expect(transformContext('p', makeCase()).vars).toEqual({})
    expect(transformContext('p', makeCase()).case).toEqual({ id: 'case-1', name: 'case 1', input: 'What is the capital of Ireland?', tags: [], index: 0 })
  })

  it('runs a file’s default export, or the function it names', async () => {
    const file = freshModule('t.mjs', 'export default (o) => o + "!"\nexport const upper = (o, c) => o.toUpperCase() + c.vars.v\n')
    expect(await transformOutput(`file://${file}`, 'o', context())).toBe('o!')
    expect(await transformOutput(`file://${file}:upper`, 'o', context())).toBe('OV')
  })

  it('resolves a relative file from the working directory, and does not split at a drive letter', async () => {
    await expect(transformOutput('file://no/such/t.mjs', 'o', context())).rejects.toThrow(path.resolve('no/such/t.mjs'))
    await expect(transformOutput('file://C:/no/such/t.mjs', 'o', context())).rejects.toThrow(path.resolve('C:/no/such/t.mjs'))
  })

  it('throws what went wrong, under the deadline given', async () => {
    await expect(transformOutput('for (;;) {}', 'o', context(), 300)).rejects.toThrow('did not finish within checkTimeoutMs (300 ms)')
    await expect(transformOutput('throw new Error("nope")', 'o', context())).rejects.toThrow('nope')
  })
})
