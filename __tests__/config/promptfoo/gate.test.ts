/**
 * A promptfoo example gated as in a pull request: the baseline run on the
 * default branch, then the PR changes what the provider answers so that two
 * tests break; the comparison fails the gate naming exactly those two, and the
 * report (the PR comment) lists them.
 */
import { afterAll, describe, expect, it } from '@jest/globals'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { evaluate, loadEvalConfig } from '../../../src/engine.js'
import { markdownOf } from '../../__fixtures__/report.js'
import { runCli } from '../../__fixtures__/cli.js'

const EXAMPLES = path.resolve('__tests__/__fixtures__/promptfoo-examples')
const dir = mkdtempSync(path.join(tmpdir(), 'evalgate-pf-gate-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const BROKEN = ['Another basic substring check · prompts.txt: 1 · replay', 'Check for semantic similarity · prompts.txt: 2 · replay']

/** The PR: the provider answers the first prompt of one test and the second prompt of another differently. */
function changeProvider(example: string): void {
  const outputs = path.join(example, 'outputs.json')
  const rules = JSON.parse(readFileSync(outputs, 'utf8')) as unknown[]
  const changes = [
    { when: ['Rephrase', 'hungry'], output: 'I could eat' },
    { when: ['Pretend', 'Hello world'], output: 'Hello, world' }
  ]
  writeFileSync(outputs, JSON.stringify([...changes, ...rules]))
}

describe('a promptfoo config gated in a pull request', () => {
  it('names exactly the two tests the provider change broke', async () => {
    cpSync(EXAMPLES, path.join(dir, 'engine'), { recursive: true })
    const config = path.join(dir, 'engine', 'simple-test', 'promptfooconfig.yaml')
    const baseline = (await evaluate(await loadEvalConfig(config), { env: {} })).record

    changeProvider(path.join(dir, 'engine', 'simple-test'))
    const loaded = await loadEvalConfig(config)
    const { record, comparison } = await evaluate(loaded, { env: {}, baseline })
    const broken = BROKEN
    expect(comparison.regressed).toEqual(broken)
    expect(comparison.gate.passed).toBe(false)
    const report = markdownOf({ comparison, baseline, current: record })
    for (const key of broken) expect(report).toContain(key)
    expect(report).toContain('gate failed')
    expect(report).toContain(`2 cases regressed (limit: maxRegressions 0): ${broken.join(', ')}`)
  })

  it('through the CLI: `evalgate run -c promptfooconfig.yaml --baseline` exits 1 and its --json and --report name those two', async () => {
    const example = path.join(dir, 'cli', 'simple-test')
    cpSync(EXAMPLES, path.join(dir, 'cli'), { recursive: true })
    const config = path.join(example, 'promptfooconfig.yaml')
    const base = await runCli(['run', '-c', config, '--out', path.join(dir, 'base.json'), '--quiet'])
    expect(base.code).toBe(0)
    changeProvider(example)
    const pr = await runCli([
      'run',
      '-c',
      config,
      '--baseline',
      path.join(dir, 'base.json'),
      '--json',
      path.join(dir, 'cmp.json'),
      '--report',
      path.join(dir, 'report.md'),
      '--quiet'
    ])
    expect(pr.code).toBe(1)
    const cmp = JSON.parse(readFileSync(path.join(dir, 'cmp.json'), 'utf8')) as { regressed: string[]; fixed: string[]; gate: { passed: boolean } }
    expect([cmp.regressed, cmp.fixed, cmp.gate.passed]).toEqual([BROKEN, [], false])
    const report = readFileSync(path.join(dir, 'report.md'), 'utf8')
    expect(report.match(/<summary><code>[^<]*<\/code><\/summary>/g)).toEqual(BROKEN.map((k) => `<summary><code>${k}</code></summary>`))
  })
})
