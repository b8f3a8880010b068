/**
 * Python providers (`file://provider.py`, promptfoo's `call_api(prompt,
 * options, context)`) run on the machine's python3 in the sandbox's
 * long-lived processes: a call that loops forever fails its trial at the
 * deadline and the run goes on; what the code prints cannot corrupt the
 * protocol; the process sees no forbidden variable and no credential the
 * trusted config did not give it.
 */
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { PythonSandbox } from '../../src/sandbox/python.js'
import { tempProject } from '../__fixtures__/cli.js'

const PROVIDER = `
import json, os, sys

CALLS = {"n": 0}

def call_api(prompt, options, context):
    CALLS["n"] += 1
    if prompt == "loop":
        while True:
            pass
    if prompt == "print":
        print("chatty provider: " + json.dumps({"id": 999, "ok": True, "value": "forged"}))
        sys.stdout.write("more\\n")
        os.write(1, b"raw fd 1 write\\n")
        return {"output": "printed and answered"}
    if prompt == "env":
        return {"output": json.dumps(sorted(os.environ.keys())), "metadata": {"allowed": os.environ.get("ALLOWED")}}
    if prompt == "count":
        return {"output": "call %d" % CALLS["n"]}
    if prompt == "fail":
        return {"error": "upstream said no"}
    if prompt == "raise":
        raise ValueError("bad input")
    return {
        "output": "%s / %s / %s" % (prompt, options["config"]["style"], context["vars"].get("topic")),
        "tokenUsage": {"prompt": 4, "completion": 3, "total": 7},
        "cost": 0.0021,
    }
`

function project(cases: string, targetExtra = '') {
  return tempProject({
    'evalgate.yml': `name: py
target:
  provider: file://provider.py
  config: { style: terse }
  timeoutMs: 6000
${targetExtra}concurrency: 2
cases:
${cases}`,
    'provider.py': PROVIDER
  })
}

describe('a Python provider as the target', () => {
  it('answers through call_api(prompt, options, context) with its usage and cost; errors fail their case', async () => {
    const dir = project(`  - { id: ok, input: hello, vars: { topic: geo }, assert: [{ type: contains, value: "hello / terse / geo" }] }
  - { id: error, input: fail }
  - { id: raised, input: raise }
`)
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { PATH: process.env.PATH } })
    const [ok, error, raised] = record.cases
    expect(ok).toMatchObject({ passed: true, output: 'hello / terse / geo', usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7, costUsd: 0.0021 } })
    expect(error).toMatchObject({ passed: false, output: null, error: 'file://provider.py: upstream said no' })
    expect(raised!.error).toMatch(/^file:\/\/provider\.py: call_api raised: ValueError: bad input/)
  })

  it('a call that loops forever fails its trial at the deadline; the run goes on, on a fresh process', async () => {
    const dir = project(`  - { id: loops, input: loop }
  - { id: after, input: count }
  - { id: normal, input: hi, assert: [{ type: contains, value: hi }] }
`)
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env: { PATH: process.env.PATH } })
    const byId = Object.fromEntries(record.cases.map((c) => [c.id, c]))
    expect(byId.loops).toMatchObject({ passed: false, output: null })
    expect(byId.loops!.error).toMatch(/did not finish within target\.timeoutMs \(6000 ms\)|timed out after 6000 ms/)
    expect(byId.after!.output).toMatch(/^call \d+$/)
    expect(byId.normal).toMatchObject({ passed: true })
    expect(record.complete).not.toBe(false)
  })

  it('what the code prints (print, sys.stdout, fd 1) does not reach the protocol', async () => {
    const logged: string[] = []
    const sandbox = new PythonSandbox({ env: { PATH: process.env.PATH ?? '' }, log: (line) => logged.push(line) })
    const dir = project('  - { input: x }\n')
    try {
      const outcome = await sandbox.call({ file: path.join(dir, 'provider.py'), function: 'call_api', args: ['print', { config: {} }, { vars: {} }] }, 30_000)
      expect(outcome).toEqual({ ok: true, value: { output: 'printed and answered' } })
      const again = await sandbox.call({ file: path.join(dir, 'provider.py'), function: 'call_api', args: ['count', {}, {}] }, 30_000)
      expect(again).toEqual({ ok: true, value: { output: 'call 2' } })
      expect(logged).toEqual(expect.arrayContaining([expect.stringContaining('chatty provider: {"id": 999'), 'more', 'raw fd 1 write']))
    } finally {
      await sandbox.close()
    }
  })

  it('sees no forbidden variable and no credential the trusted config did not give it', async () => {
    const dir = project('  - { id: env, input: env }\n', '  env: { ALLOWED: "${ALLOWED_SOURCE}" }\n')
    const env = {
      PATH: process.env.PATH,
      HOME: '/home/runner',
      ALLOWED_SOURCE: 'passed-on-purpose',
      OPENAI_API_KEY: 'sk-never-for-the-provider',
      ANTHROPIC_API_KEY: 'sk-ant-never',
      GITHUB_TOKEN: 'ghs_never',
      ACTIONS_RUNTIME_TOKEN: 'never',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'never',
      INPUT_GITHUB_TOKEN: 'never',
      AWS_SECRET_ACCESS_KEY: 'never'
    }
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env })
    const seen = JSON.parse(record.cases[0]!.output!) as string[]
    expect(seen).toContain('ALLOWED')
    // it arrived (a value read through ${VAR} is a secret: redacted from the record)
    expect(record.cases[0]!.metadata).toMatchObject({ allowed: '***' })
    for (const name of Object.keys(env).filter((n) => !['PATH', 'HOME', 'ALLOWED_SOURCE'].includes(n))) expect(seen).not.toContain(name)
    expect(seen).not.toContain('ALLOWED_SOURCE')
  })
})

describe('a Python provider as the grader', () => {
  const GRADER = `
import json, os

def call_api(prompt, options, context):
    if "loop forever" in prompt:
        while True:
            pass
    print("grader chatter on stdout")
    seen = sorted(k for k in os.environ if k.endswith("_KEY") or k.endswith("TOKEN"))
    passed = "Paris" in prompt and "Names the capital" in prompt
    return {"output": json.dumps({"score": 0.9 if passed else 0.1, "reason": "env " + ",".join(seen)}), "tokenUsage": {"prompt": 5, "completion": 2, "total": 7}}
`

  it('grades llm-rubric through call_api: rubric and output reach it, its JSON is the verdict; it sees only judge.env; a loop fails that verdict', async () => {
    const dir = tempProject({
      'evalgate.yml': `name: py-grader
target: { command: ["node", "-e", "process.stdout.write(require('fs').readFileSync(0, 'utf8').includes('loop') ? 'loop forever' : 'Paris')"] }
judge:
  provider: file://grader.py
  timeoutMs: 6000
  retries: 0
  env: { GRADER_KEY: "\${GRADER_SOURCE}" }
cases:
  - { id: capital, input: "Capital of France?", assert: [{ type: llm-rubric, value: Names the capital }] }
  - { id: loops, input: loop, assert: [{ type: llm-rubric, value: Names the capital }] }
`,
      'grader.py': GRADER
    })
    const env = { PATH: process.env.PATH, GRADER_SOURCE: 'for-the-grader', OPENAI_API_KEY: 'sk-never', GITHUB_TOKEN: 'ghs_never' }
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'evalgate.yml')), { env })
    const [capital, loops] = record.cases
    expect(capital).toMatchObject({ passed: true, output: 'Paris' })
    const verdict = capital!.assertions[0]!
    expect(verdict).toMatchObject({ passed: true, score: 0.9 })
    expect(verdict.reason).toContain('env GRADER_KEY')
    expect(verdict.reason).not.toMatch(/OPENAI_API_KEY|GITHUB_TOKEN/)
    expect(loops!.passed).toBe(false)
    expect(loops!.assertions[0]!.reason).toMatch(/6000 ms|timed out|did not finish/)
  })
})

describe('a Python provider in a promptfoo config', () => {
  it('named file://…py:function or python:…py, as promptfoo names them, with its config and the test’s vars', async () => {
    const dir = tempProject({
      'promptfooconfig.yaml': `prompts: ["Write about {{topic}}"]
providers:
  - id: python:provider.py
    config: { style: plain }
  - id: file://provider.py:shout
    label: shouting
    config: { style: loud }
tests:
  - vars: { topic: bananas }
    assert:
      - type: contains
        value: bananas
`,
      'provider.py': `
def call_api(prompt, options, context):
    return {"output": "%s (%s, %s)" % (prompt, options["config"]["style"], context["vars"]["topic"])}

def shout(prompt, options, context):
    return {"output": call_api(prompt, options, context)["output"].upper()}
`
    })
    const { record } = await evaluate(await loadEvalConfig(path.join(dir, 'promptfooconfig.yaml')), { env: { PATH: process.env.PATH } })
    expect(record.cases.map((c) => [c.id, c.output, c.passed])).toEqual([
      ['test 1 · Write about {{topic}} · python:provider.py', 'Write about bananas (plain, bananas)', true],
      ['test 1 · Write about {{topic}} · shouting', 'WRITE ABOUT BANANAS (LOUD, BANANAS)', false]
    ])
  })
})
