/**
 * promptfoo configs read as they are (SPEC §11): detection, cases with stable
 * keys, defaultTest, Nunjucks, CSV tests with the `__expected` shorthand,
 * threshold, assert-set, weight, metric, transforms, and the providers.
 */
import { afterAll, afterEach, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ConfigError } from '../../../src/errors.js'
import { evaluate, loadEvalConfig } from '../../../src/engine.js'
import { assertionFromString } from '../../../src/config/promptfoo/tests.js'
import { runCli } from '../../__fixtures__/cli.js'
import { chatReply, startServer, type FakeServer } from '../../__fixtures__/openai-server.js'

const root = mkdtempSync(path.join(tmpdir(), 'evalgate-pf-load-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0

/** A folder with these files; returns the config's path. */
function project(files: Record<string, string>): string {
  const dir = path.join(root, `p${n++}`)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), text)
  }
  return path.join(dir, 'promptfooconfig.yaml')
}

async function run(files: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const { record } = await evaluate(await loadEvalConfig(project(files)), { env: { PATH: process.env.PATH, ...env } })
  return record
}

describe('reading a promptfoo config', () => {
  it('makes tests × prompts × providers cases keyed by description, prompt label and provider', async () => {
    const loaded = await loadEvalConfig(
      project({
        'promptfooconfig.yaml': `
prompts:
  - 'Say {{word}}'
  - id: file://p.txt
    label: filed
providers: [echo, {id: echo, label: again}]
tests:
  - description: first
    vars: {word: hi}
  - vars: {word: bye}
`,
        'p.txt': 'From a file: {{ word }}'
      })
    )
    expect(loaded.cases.map((c) => [c.id, c.input])).toEqual([
      ['first · Say {{word}} · echo', 'Say hi'],
      ['first · filed · echo', 'From a file: hi'],
      ['first · Say {{word}} · again', 'Say hi'],
      ['first · filed · again', 'From a file: hi'],
      ['test 2 · Say {{word}} · echo', 'Say bye'],
      ['test 2 · filed · echo', 'From a file: bye'],
      ['test 2 · Say {{word}} · again', 'Say bye'],
      ['test 2 · filed · again', 'From a file: bye']
    ])
    expect(loaded.config.target.promptfoo?.providers.map((p) => p.label ?? p.id)).toEqual(['echo', 'again'])
  })

  it('is told from an evalgate config by its keys: prompts, providers and tests, and no version', async () => {
    const file = project({ 'promptfooconfig.yaml': 'version: 1\nprompts: [x]\nproviders: [echo]\ntests: []\ntarget: {command: node}\n' })
    await expect(loadEvalConfig(file)).rejects.toThrow(/unknown key "prompts"/)
  })

  it('merges defaultTest into every test, expands list vars, and renders vars into assertion values', async () => {
    const record = await run({
      'promptfooconfig.yaml': `
prompts: ['{{city}} is in {{country}}']
providers: [echo]
defaultTest:
  vars: {country: France}
  assert:
    - type: icontains
      value: '{{ country | lower }}'
tests:
  - vars: {city: [Paris, Lyon]}
    assert:
      - type: starts-with
        value: '{{city}}'
  - vars: {city: Rome, country: Italy}
    options: {disableDefaultAsserts: true}
`
    })
    expect(record.cases.map((c) => [c.id, c.output, c.passed, c.assertions.map((a) => a.type)])).toEqual([
      ['test 1 [1] · {{city}} is in {{country}} · echo', 'Paris is in France', true, ['icontains', 'starts-with']],
      ['test 1 [2] · {{city}} is in {{country}} · echo', 'Lyon is in France', true, ['icontains', 'starts-with']],
      ['test 2 · {{city}} is in {{country}} · echo', 'Rome is in Italy', true, []]
    ])
  })

  it('reads CSV tests: vars, __expected shorthands, __description, __metric and __threshold', async () => {
    const record = await run({
      'promptfooconfig.yaml': 'prompts: ["{{q}}"]\nproviders: [echo]\ntests: file://tests.csv\n',
      'tests.csv': [
        'q,__expected1,__expected2,__description,__metric,__threshold',
        `"Sorry, I can't help","not-contains-any: ""Sorry, I can't"", ""As an AI""",,guard,safety,`,
        'the capital is Paris,contains: Paris,javascript: output.length > 3,,,',
        'Paris,Paris,icontains-all: paris,exact,,',
        'partly right,contains: partly,contains: wrong,half,,0.5'
      ].join('\n')
    })
    expect(record.cases.map((c) => [c.id, c.passed])).toEqual([
      ['guard · {{q}} · echo', false],
      ['Row #2 · {{q}} · echo', true],
      ['exact · {{q}} · echo', true],
      ['half · {{q}} · echo', true]
    ])
    expect(record.cases[0]!.namedScores).toEqual({ safety: 0 })
    expect(record.summary.namedScores).toEqual({ safety: { score: 0, cases: 1 } })
  })

  it('grades a test with a threshold, weights and assert-sets as promptfoo does', async () => {
    const record = await run({
      'promptfooconfig.yaml': `
prompts: ['{{t}}']
providers: [echo]
tests:
  - description: weighted below threshold
    vars: {t: a b}
    threshold: 0.8
    assert:
      - {type: contains, value: a, weight: 3}
      - {type: contains, value: z, weight: 1}
  - description: weighted at threshold
    vars: {t: a b}
    threshold: 0.75
    assert:
      - {type: contains, value: a, weight: 3, metric: m}
      - {type: contains, value: z, weight: 1, metric: m}
  - description: forgiving set
    vars: {t: a b}
    assert:
      - type: assert-set
        threshold: 0.5
        metric: tone
        assert:
          - {type: contains, value: a}
          - {type: contains, value: z}
  - description: strict set
    vars: {t: a b}
    assert:
      - type: assert-set
        assert:
          - {type: contains, value: a}
          - {type: contains, value: z}
  - description: informational
    vars: {t: a b}
    assert:
      - {type: contains, value: z, weight: 0}
`
    })
    expect(record.cases.map((c) => [c.name.split(' · ')[0], c.passed])).toEqual([
      ['weighted below threshold', false],
      ['weighted at threshold', true],
      ['forgiving set', true],
      ['strict set', false],
      ['informational', true]
    ])
    expect(record.cases[1]!.namedScores).toEqual({ m: 0.75 })
    expect(record.cases[2]!.namedScores).toEqual({ tone: 0.5 })
  })

  it('runs options.transform before every assertion, and an assertion transform for that assertion', async () => {
    const record = await run({
      'promptfooconfig.yaml': `
prompts: ['{"n": {{n}}, "tags": ["x", "y"]}']
providers: [echo]
tests:
  - vars: {n: 3}
    options: {transform: JSON.parse(output)}
    assert:
      - {type: javascript, value: output.n === 3}
      - {type: contains-any, transform: output.tags, value: [y]}
      - {type: equals, transform: 'file://upper.mjs', value: DONE}
`,
      'upper.mjs': 'export default (output) => (typeof output === "object" ? "DONE" : String(output).toUpperCase())\n'
    })
    expect(record.cases[0]!.assertions.map((a) => [a.type, a.passed])).toEqual([
      ['javascript', true],
      ['contains-any', true],
      ['equals', true]
    ])
  })

  it('runs options.transform once per output, however many assertions grade it', async () => {
    const config = project({
      'promptfooconfig.yaml': `
prompts: ['{{q}}']
providers: [echo]
tests:
  - vars: {q: a}
    options: {transform: 'file://count.mjs'}
    assert: [{type: contains, value: A}, {type: icontains, value: a}, {type: equals, value: A}]
`,
      'count.mjs':
        'import { appendFileSync } from "node:fs"\nexport default (output) => { appendFileSync(new URL("calls.txt", import.meta.url), "x"); return output.toUpperCase() }\n'
    })
    const { record } = await evaluate(await loadEvalConfig(config), { env: { PATH: process.env.PATH } })
    expect(record.cases[0]!.assertions.map((a) => a.passed)).toEqual([true, true, true])
    expect(readFileSync(path.join(path.dirname(config), 'calls.txt'), 'utf8')).toBe('x')
  })

  it('gives javascript checks promptfoo’s context: vars, the rendered prompt, and the test with its description and metadata', async () => {
    const record = await run({
      'promptfooconfig.yaml': `
prompts: ['Capital of {{country}}?']
providers: [echo]
defaultTest:
  metadata: {suite: geo}
tests:
  - description: ireland
    vars: {country: Ireland}
    metadata: {topic: capitals}
    assert:
      - {type: javascript, value: output.includes(context.vars.country)}
      - {type: javascript, value: "context.prompt === 'Capital of Ireland?' && context.test.vars.country === 'Ireland'"}
      - {type: javascript, value: "context.test.description === 'ireland' && context.test.metadata.topic === 'capitals' && context.test.metadata.suite === 'geo'"}
      - {type: javascript, value: 'file://check.mjs'}
      - {type: javascript, value: "context.vars.country === 'France'"}
`,
      'check.mjs': 'export default (output, context) => context.case.metadata.topic === "capitals" && context.vars.country === "Ireland"\n'
    })
    expect(record.cases[0]!.assertions.map((a) => [a.type, a.passed])).toEqual([
      ['javascript', true],
      ['javascript', true],
      ['javascript', true],
      ['javascript', true],
      ['javascript', false]
    ])
  })

  it('a test’s metadata is part of its fingerprint; a test without metadata keeps the fingerprint it had', async () => {
    const config = (metadata: string) => `
prompts: ['Capital of {{country}}?']
providers: [echo]
tests:
  - description: ireland
    vars: {country: Ireland}
    ${metadata}
    assert: [{type: contains, value: Ireland}]
  - description: plain
    vars: {country: France}
    assert: [{type: contains, value: France}]
`
    const fingerprints = async (metadata: string) =>
      (await loadEvalConfig(project({ 'promptfooconfig.yaml': config(metadata) }))).cases.map((c) => c.fingerprint)
    const [bare, plain] = await fingerprints('')
    const [tagged, plainAgain] = await fingerprints('metadata: {topic: capitals}')
    const [retagged] = await fingerprints('metadata: {topic: cities}')
    expect(new Set([bare, tagged, retagged]).size).toBe(3)
    expect(plainAgain).toBe(plain)
  })

  it('names the file, the place and the fix of what it cannot run', async () => {
    const bad = async (files: Record<string, string>) => (await loadEvalConfig(project(files)).catch((e: unknown) => e)) as ConfigError
    const provider = await bad({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [replicate:meta/llama-3]\ntests: []\n' })
    expect(provider).toBeInstanceOf(ConfigError)
    expect(provider.message).toMatch(
      /promptfooconfig\.yaml:2 at providers\[0\]: provider "replicate:meta\/llama-3" is not supported by evalgate; supported: echo, exec:.*anthropic:messages:<model>/
    )
    const type = await bad({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests:\n  - assert:\n      - {type: contians, value: a}\n' })
    expect(type.message).toMatch(/promptfooconfig\.yaml:4 at tests\[0\]\.assert\[0\]: unknown assertion type "contians"\. Did you mean "contains"\?/)
    const scenarios = await bad({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: []\nscenarios: []\n' })
    expect(scenarios.message).toMatch(/:4 at scenarios: not supported by evalgate: write the combinations out as tests/)
    const derived = await bad({
      'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: []\nderivedMetrics:\n  - {name: f1, value: 2 * p * r / (p + r)}\n'
    })
    expect(derived.message).toMatch(/:5 at derivedMetrics: not supported by evalgate: remove it; evalgate reports each named metric/)
    const csv = await bad({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: file://t.csv\n', 't.csv': 'a,__expected\n1,ruby: output\n' })
    expect(csv.message).toMatch(/unknown assertion type "ruby"/)
  })

  it('is what `evalgate validate -c` checks', async () => {
    const file = project({ 'promptfooconfig.yaml': 'prompts: [a, b]\nproviders: [echo]\ntests:\n  - assert: [{type: contains, value: a}]\n' })
    const ok = await runCli(['validate', '-c', file])
    expect([ok.code, ok.stdout]).toEqual([0, `${file}: valid: 2 cases, target promptfoo\n`])
    writeFileSync(file, 'prompts: [a]\nproviders: [echo]\ntests:\n  - assert: [{type: contains}]\n')
    const bad = await runCli(['validate', '-c', file])
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/promptfooconfig\.yaml:4 at tests\[0\]\.assert\[0\]: contains needs a `value`/)])
  })

  it('takes evalgate settings from an `evalgate:` block', async () => {
    const loaded = await loadEvalConfig(
      project({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: []\nevalgate:\n  name: support-bot\n  gate: {maxRegressions: 2}\n' })
    )
    expect([loaded.config.name, loaded.config.gate.maxRegressions, loaded.cases.length]).toEqual(['support-bot', 2, 1])
    await expect(
      loadEvalConfig(project({ 'promptfooconfig.yaml': 'prompts: [x]\nproviders: [echo]\ntests: []\nevalgate: {gate: {maxRegresions: 2}}\n' }))
    ).rejects.toThrow(/:4 at evalgate\.gate\.maxRegresions: unknown key "maxRegresions"/)
  })
})

describe('assertionFromString (the __expected shorthand)', () => {
  it.each([
    ['Paris', { type: 'equals', value: 'Paris' }],
    ['contains: Paris', { type: 'contains', value: 'Paris' }],
    ['not-icontains:  as an AI ', { type: 'not-icontains', value: 'as an AI' }],
    ['contains-any: "a, b", c', { type: 'contains-any', value: ['a, b', 'c'] }],
    ['levenshtein(3): kitten', { type: 'levenshtein', value: 'kitten', threshold: 3 }],
    ['starts-with: Yes', { type: 'starts-with', value: 'Yes', threshold: 0.75 }],
    ['is-json', { type: 'is-json' }],
    ['javascript: output.length > 2', { type: 'javascript', value: 'output.length > 2' }],
    ['fn:output === "x"', { type: 'javascript', value: 'output === "x"' }],
    ['grade: is polite', { type: 'llm-rubric', value: ' is polite' }],
    ['llm-rubric:is polite', { type: 'llm-rubric', value: 'is polite' }]
  ])('%s', (text, expected) => {
    expect(assertionFromString(text, 'x.csv row 1')).toEqual(expected)
  })
})

describe('promptfoo providers', () => {
  let server: FakeServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('exec: runs the command with the prompt, options and context as arguments', async () => {
    const record = await run({
      'promptfooconfig.yaml':
        'prompts: ["hello {{who}}"]\nproviders: ["exec: node agent.mjs --loud"]\ntests:\n  - vars: {who: world}\n    assert: [{type: equals, value: "HELLO WORLD --LOUD world"}]\n',
      'agent.mjs':
        'const [flag, prompt, options, context] = process.argv.slice(2)\nJSON.parse(options)\nconsole.log(`\\u001b[1m${prompt.toUpperCase()} ${flag.toUpperCase()} ${JSON.parse(context).vars.who}\\u001b[0m  `)\n'
    })
    expect([record.cases[0]!.output, record.cases[0]!.error, record.cases[0]!.passed]).toEqual(['HELLO WORLD --LOUD world', null, true])
  })

  it('file:// loads promptfoo’s provider interface: a class, or a function; {error} fails the case', async () => {
    const record = await run({
      'promptfooconfig.yaml':
        'prompts: ["{{q}}"]\nproviders:\n  - {id: file://cls.mjs, config: {suffix: "!"}}\n  - file://fn.cjs\ntests:\n  - vars: {q: hi}\n  - vars: {q: fail}\n',
      'cls.mjs':
        'export default class { constructor(o) { this.o = o } id() { return "cls" } async callApi(p, c) { return p === "fail" ? { error: "refused" } : { output: p + this.o.config.suffix + c.vars.q } } }\n',
      'fn.cjs': 'module.exports = async (prompt) => ({ output: { said: prompt } })\n'
    })
    expect(record.cases.map((c) => [c.id, c.output, c.error])).toEqual([
      ['test 1 · {{q}} · file://cls.mjs', 'hi!hi', null],
      ['test 1 · {{q}} · file://fn.cjs', '{"said":"hi"}', null],
      ['test 2 · {{q}} · file://cls.mjs', null, 'refused'],
      ['test 2 · {{q}} · file://fn.cjs', '{"said":"fail"}', null]
    ])
  })

  it('file:// providers: tokenUsage and cost are the case’s usage, metadata is what checks see as context.metadata', async () => {
    const record = await run({
      'promptfooconfig.yaml':
        'prompts: ["{{q}}"]\nproviders: [file://p.mjs]\ntests:\n  - vars: {q: hi}\n    assert: [{type: javascript, value: "context.metadata.model === \'m-1\'"}, {type: cost, threshold: 0.01}]\n',
      'p.mjs':
        'export default class { id() { return "p" } async callApi(p) { return { output: p, tokenUsage: { prompt: 12, completion: 3, total: 15 }, cost: 0.004, metadata: { model: "m-1" } } } }\n'
    })
    const [c] = record.cases
    expect(c!.usage).toEqual({ inputTokens: 12, outputTokens: 3, totalTokens: 15, costUsd: 0.004 })
    expect(c!.metadata).toEqual({ model: 'm-1' })
    expect(c!.assertions.map((a) => a.passed)).toEqual([true, true])
  })

  it('runs file:// providers and transforms in the sandbox: none sees the runner’s secrets, or sets the exit code (SPEC §9)', async () => {
    const secrets = { OPENAI_API_KEY: 'sk-runner', 'INPUT_GITHUB-TOKEN': 'ghs-runner', ACTIONS_RUNTIME_TOKEN: 'rt-runner', GITHUB_TOKEN: 'ght-runner' }
    const seen = 'Object.keys(process.env).filter((k) => /KEY|TOKEN/.test(k)).sort().join(",") || "none"'
    const record = await run(
      {
        'promptfooconfig.yaml': `
prompts: ['{{q}}']
providers: [{id: file://p.mjs, transform: 'output + " | provider transform saw " + (${seen.replace(/'/g, "''")})'}]
evalgate:
  target: {env: {AGENT_KEY: granted}}
tests:
  - vars: {q: hi}
    options: {transform: 'output + " | test transform saw " + (${seen.replace(/'/g, "''")})'}
    assert:
      - {type: equals, value: 'provider saw AGENT_KEY | provider transform saw none | test transform saw none'}
      - {type: contains, transform: 'file://exit.mjs', value: kept}
`,
        'p.mjs': `export default class { id() { return "p" } async callApi() { process.exitCode = 0; return { output: "provider saw " + (${seen}) } } }\n`,
        'exit.mjs': 'export default (output) => { process.exitCode = 0; process.on("exit", () => { process.exitCode = 0 }); return output + " kept" }\n'
      },
      secrets
    )
    expect(record.cases[0]!.assertions.map((a) => [a.type, a.passed, a.reason])).toEqual([
      ['equals', true, expect.any(String)],
      ['contains', true, expect.any(String)]
    ])
    expect(process.exitCode).toBeUndefined()
  })

  it('a transform that never returns fails its assertion at checkTimeoutMs, and the run goes on', async () => {
    const record = await run({
      'promptfooconfig.yaml': `
prompts: ['{{q}}']
providers: [echo]
evalgate: {checkTimeoutMs: 1000}
tests:
  - vars: {q: loop}
    assert: [{type: contains, transform: 'while (true) {}', value: loop}]
  - vars: {q: fine}
    assert: [{type: contains, transform: 'output.toUpperCase()', value: FINE}]
`
    })
    expect(record.cases.map((c) => [c.input, c.passed, c.assertions[0]!.reason])).toEqual([
      ['loop', false, 'contains could not be checked: did not finish within checkTimeoutMs (1000 ms)'],
      ['fine', true, expect.any(String)]
    ])
  })

  it('a file:// provider that exports no provider is refused at load, naming the file and what it exports', async () => {
    await expect(
      run({ 'promptfooconfig.yaml': 'prompts: [hi]\nproviders: [file://p.mjs]\ntests: [{vars: {}}]\n', 'p.mjs': 'export const callApi = 1\n' })
    ).rejects.toThrow(/^provider file:\/\/p\.mjs: .*p\.mjs must export as default a provider class .*; it exports no default, only callApi$/)
  })

  it('openai:chat:<model> is the openai target at OPENAI_BASE_URL; a JSON prompt of chat messages is sent as messages', async () => {
    server = await startServer()
    server.respond(() => ({ body: chatReply('Dublin') }))
    const record = await run(
      {
        'promptfooconfig.yaml': `
prompts:
  - '[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of {{c}}?"}]'
providers:
  - id: openai:chat:gpt-test
    config: {temperature: 0}
tests:
  - vars: {c: Ireland}
    assert: [{type: equals, value: Dublin}]
`
      },
      { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-test' }
    )
    expect(record.cases[0]!.passed).toBe(true)
    expect(server.requests[0]!.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of Ireland?' }
      ]
    })
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test')
  })
})
