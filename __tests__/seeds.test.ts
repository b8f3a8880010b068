import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { loadEvalConfig } from '../src/engine.js'
import { runCli, tempProject } from './__fixtures__/cli.js'

const seeds = path.resolve('__tests__/__fixtures__/seeds')

describe("seed 002's cases.json through the CLI", () => {
  it('grades exact_match, contains and json_exact with reasons, task_type as tags', async () => {
    const out = path.join(tempProject({}), 'run.json')
    const res = await runCli(['run', '-c', path.join(seeds, 'evalgate.yml'), '--out', out, '--quiet'])
    expect(res.code).toBe(0)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    const byId = Object.fromEntries(record.cases.map((c: { id: string }) => [c.id, c]))
    expect(record.summary).toMatchObject({ total: 5, passed: 3, failed: 2, passRate: 0.6 })
    expect(byId.add.assertions[0]).toMatchObject({ type: 'exact_match', passed: true })
    expect(byId.person.assertions[0]).toMatchObject({ type: 'json_exact', passed: true })
    expect(byId.person.tags).toEqual(['json'])
    expect(byId['wrong-json'].assertions[0].reason).toMatch(/born/)
    expect(byId['wrong-json'].assertions[0].reason).toMatch(/1912/)
    expect(byId['wrong-capital'].assertions[0].reason).toMatch(/expected output to contain "Madrid", got: "Barcelona"/)
  })
})

describe('seed shorthands', () => {
  it('maps OpenAI evals lines to contains / contains-any of the ideal', async () => {
    const dir = tempProject({
      'evalgate.yml': `target: { module: ./a.mjs }\ndataset: ${path.join(seeds, 'openai-evals.jsonl')}\n`,
      'a.mjs': 'export default () => "x"'
    })
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    expect(loaded.cases.map((c) => c.assert)).toEqual([[{ type: 'contains', value: '4' }], [{ type: 'contains-any', value: ['red', 'blue', 'yellow'] }]])
    expect(Array.isArray(loaded.cases[0]!.input)).toBe(true)
  })

  it('grades the seed 001 names exact_match, contains_all and numeric_close', async () => {
    const dir = tempProject({
      'a.mjs': 'export default (q) => ({ sum: "The total is 41.99", list: "apples, pears and plums", ok: "OK" })[q]',
      'evalgate.yml': `target: { module: ./a.mjs }
cases:
  - { id: ok, input: ok, assert: [{ type: exact_match, value: OK }] }
  - { id: list, input: list, assert: [{ type: contains_all, value: [apples, plums] }] }
  - { id: sum, input: sum, assert: [{ type: numeric_close, value: 42, tolerance: 0.05 }] }
  - { id: sum-strict, input: sum, assert: [{ type: numeric_close, value: 42 }] }
`
    })
    const out = path.join(dir, 'run.json')
    await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out, '--quiet'])
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.cases.map((c: { passed: boolean }) => c.passed)).toEqual([true, true, true, false])
    expect(record.cases[3].assertions[0].reason).toMatch(/41\.99/)
  })

  it('check wins over expected; expected alone is contains', async () => {
    const dir = tempProject({
      'evalgate.yml': 'target: { module: ./a.mjs }\ncases:\n  - { input: q, expected: "4", check: "output.length > 100" }\n  - { input: r, expected: "4" }\n',
      'a.mjs': 'export default () => "x"'
    })
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    expect(loaded.cases[0]!.assert).toEqual([{ type: 'javascript', value: 'output.length > 100' }])
    expect(loaded.cases[1]!.assert).toEqual([{ type: 'contains', value: '4' }])
  })
})
