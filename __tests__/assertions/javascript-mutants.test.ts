/**
 * The javascript check and promptfoo's transforms (src/assertions/javascript.ts)
 * pinned down: how a source becomes a function body, how each kind of returned
 * value grades, the labels and reasons, the context a check sees, and the
 * validation messages. Checks run in the real sandbox.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import { transformContext, transformOutput } from '../../src/assertions/javascript.js'
import type { Assertion } from '../../src/types.js'
import { tempDir } from '../__fixtures__/temp.js'
import { grade, makeCase } from './helpers.js'

const js = (value: unknown, extra: Partial<Assertion> = {}): Assertion => ({ type: 'javascript', value, ...extra })

function moduleFile(name: string, source: string): string {
  const file = path.join(tempDir('evalgate-js-mutants-'), name)
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
    const file = moduleFile('ok.mjs', 'export default () => true\n')
    expect(validateAssertion({ type: 'javascript', file, value: 42 })).toBeUndefined()
    expect(validateAssertion({ type: 'javascript', file })).toBeUndefined()
  })

  it('with a file, a function is refused as the value: the parameter goes to the sandbox as data', async () => {
    const file = moduleFile('fn.mjs', 'export default () => true\n')
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
    const file = moduleFile('value.mjs', 'export default (output, context, value) => value === 3\n')
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
    const file = moduleFile('t.mjs', 'export default (o) => o + "!"\nexport const upper = (o, c) => o.toUpperCase() + c.vars.v\n')
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
