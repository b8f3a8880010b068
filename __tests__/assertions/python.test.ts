/**
 * The python check, on the machine's python3: promptfoo's inline forms and
 * `file://…py` with get_assert(output, context), its value read as promptfoo
 * reads it; in the sandbox's Python processes with the checks' deadline, a
 * clean environment and a protocol that prints cannot corrupt.
 */
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { pythonSource, readPythonResult } from '../../src/assertions/python.js'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { tempProject } from '../__fixtures__/cli.js'
import { grade } from './helpers.js'

describe('python', () => {
  it.each([
    ['an expression', "'Dublin' in output", 'The capital is Dublin', true],
    ['an expression that fails', "output.startswith('Cork')", 'The capital is Dublin', false],
    ['a body with return', 'words = output.split()\nreturn len(words) == 4', 'The capital is Dublin', true],
    ['a body indented as written', '  n = len(output)\n  return n > 100', 'short', false],
    ['the context', "context['vars']['city'] in output and context['test']['vars']['city'] == 'Dublin'", 'in Dublin', true],
    ['a number above 0', 'len(output) / 100', 'abc', true],
    ['zero', '0', 'abc', false],
    ['a grading result', "{'pass': True, 'score': 0.9, 'reason': 'fine'}", 'x', true],
    ['snake_case pass_', "{'pass_': False, 'score': 0.1, 'reason': 'nope'}", 'x', false],
    ['JSON text of a grading result', 'json.dumps({"pass": True, "score": 1, "reason": "ok"})', 'x', true],
    ['"true" as text', "'true'", 'x', true]
  ])('%s', async (_name, value, output, passed) => {
    const vars = { city: 'Dublin' }
    const result = await grade({ type: 'python', value }, output, {
      case: { id: 'c', name: 'c', input: 'q', tags: [], assert: [], fingerprint: 'f', index: 0, vars, promptfoo: { provider: 0 } }
    })
    expect(result.error).toBeUndefined()
    expect(result.passed).toBe(passed)
  })

  it('a threshold applies to a number and to a grading result’s score', async () => {
    expect((await grade({ type: 'python', value: '0.6', threshold: 0.7 }, 'x')).passed).toBe(false)
    expect((await grade({ type: 'python', value: '0.8', threshold: 0.7 }, 'x')).passed).toBe(true)
    const result = await grade({ type: 'python', value: "{'pass': True, 'score': 0.5, 'reason': 'meh'}", threshold: 0.7 }, 'x')
    expect(result).toMatchObject({ passed: false, reason: expect.stringContaining('score 0.5 is less than threshold 0.7: meh') })
  })

  it('not-python inverts a verdict, never an error', async () => {
    expect((await grade({ type: 'not-python', value: "'x' in output" }, 'y')).passed).toBe(true)
    expect((await grade({ type: 'not-python', value: 'undefined_name' }, 'y')).passed).toBe(false)
  })

  it.each([
    ['text that is no verdict', "'maybe'", /must return a boolean, a number or \{pass, score, reason\}; got the string "maybe"/],
    ['None', 'None', /must return a boolean, a number or \{pass, score, reason\}; got/],
    ['a dict that is not a grading result', "{'ok': True}", /must return a boolean, a number or \{pass, score, reason\}; got \{"ok":true\}/],
    ['an exception', "int('x')", /raised: ValueError: invalid literal for int\(\) with base 10: 'x'/],
    ['a syntax error', 'output ==', /raised: [\s\S]*SyntaxError: invalid syntax/]
  ])('returning %s fails with the reason', async (_name, value, reason) => {
    const result = await grade({ type: 'python', value }, 'x')
    expect(result.passed).toBe(false)
    expect(result.reason).toMatch(reason)
  })

  it('wraps inline code as promptfoo does', () => {
    expect(pythonSource("'a' in output")).toBe("import json\n\ndef main(output, context):\n    return 'a' in output\n")
    expect(pythonSource('x = 1\nreturn x')).toBe('import json\n\ndef main(output, context):\n    x = 1\n    return x\n')
    expect(readPythonResult('FALSE', undefined)).toMatchObject({ pass: false })
    expect(readPythonResult('0.3', 0.2)).toMatchObject({ pass: true, score: 0.3 })
  })
})

describe('python checks through the engine', () => {
  const files = {
    'check.py': `import json, os, sys
def get_assert(output, context):
    print("check says hi " + json.dumps({"id": 1, "ok": True, "value": False}))
    return {"pass": "Dublin" in output, "score": 1.0 if "Dublin" in output else 0.0, "reason": "looked for Dublin"}

def named(output, context):
    return len(output) > 3

def loops(output, context):
    while True:
        pass

def environment(output, context):
    return {"pass": True, "score": 1, "reason": json.dumps(sorted(os.environ.keys()))}
`,
    'agent.mjs': 'export default (q) => q'
  }

  it('file:// with get_assert or a named function; a check that loops fails at checkTimeoutMs and the run goes on; prints do not corrupt', async () => {
    const dir = tempProject({
      ...files,
      'evalgate.yml': `name: py
target: { module: ./agent.mjs }
checkTimeoutMs: 6000
cases:
  - { id: dublin, input: "Dublin!", assert: [{ type: python, value: "file://check.py" }] }
  - { id: cork, input: "Cork", assert: [{ type: python, value: "file://check.py" }] }
  - { id: named, input: "long enough", assert: [{ type: python, value: "file://check.py:named" }] }
  - { id: loops, input: "x", assert: [{ type: python, value: "file://check.py:loops" }] }
  - { id: after, input: "Dublin again", assert: [{ type: python, value: "file://check.py" }] }
`
    })
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { PATH: process.env.PATH } })
    const byId = Object.fromEntries(record.cases.map((c) => [c.id, c]))
    expect(Object.fromEntries(record.cases.map((c) => [c.id, c.passed]))).toEqual({ dublin: true, cork: false, named: true, loops: false, after: true })
    expect(byId.dublin!.assertions[0]!.reason).toMatch(/^check .*check\.py passed \(looked for Dublin\)$/)
    expect(byId.loops!.assertions[0]!.reason).toMatch(/did not finish within checkTimeoutMs \(6000 ms\)/)
  })

  it('sees no forbidden variable, and no credential at all', async () => {
    const dir = tempProject({
      ...files,
      'evalgate.yml': `name: py
target: { module: ./agent.mjs, env: { TARGET_ONLY: "\${TARGET_SOURCE}" } }
cases:
  - { id: env, input: x, assert: [{ type: python, value: "file://check.py:environment" }] }
`
    })
    const env = {
      PATH: process.env.PATH,
      TARGET_SOURCE: 'for-the-agent',
      OPENAI_API_KEY: 'sk-x',
      GITHUB_TOKEN: 'ghs',
      ACTIONS_RUNTIME_TOKEN: 'a',
      INPUT_TOKEN: 'i'
    }
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env })
    const seen = JSON.parse(record.cases[0]!.assertions[0]!.reason.replace(/^check .*check\.py:environment passed \((.*)\)$/, '$1')) as string[]
    for (const name of ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'INPUT_TOKEN', 'TARGET_ONLY', 'TARGET_SOURCE'])
      expect(seen).not.toContain(name)
  })

  it('a promptfoo config’s python assertions and CSV `python:` cells run', async () => {
    const dir = tempProject({
      ...files,
      'promptfooconfig.yaml': `prompts: ["{{q}}"]
providers: [echo]
tests:
  - vars: { q: "Dublin" }
    assert:
      - { type: python, value: "file://check.py" }
      - { type: python, value: "output.lower() == 'dublin'" }
  - file://more.csv
`,
      'more.csv': 'q,__expected\nCork,python: len(output) == 4\nLimerick,file://check.py\n'
    })
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml')), { env: { PATH: process.env.PATH } })
    expect(record.cases.map((c) => c.passed)).toEqual([true, true, false])
  })
})
