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
import { renderReport } from '../../../src/report/markdown.js'

const EXAMPLES = path.resolve('__tests__/__fixtures__/promptfoo-examples')
const dir = mkdtempSync(path.join(tmpdir(), 'evalgate-pf-gate-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a promptfoo config gated in a pull request', () => {
  it('names exactly the two tests the provider change broke', async () => {
    cpSync(EXAMPLES, dir, { recursive: true })
    const config = path.join(dir, 'simple-test', 'promptfooconfig.yaml')
    const baseline = (await evaluate(await loadEvalConfig(config), { env: {} })).record

    // the PR: the provider answers the first prompt of one test and the second prompt of another differently
    const outputs = path.join(dir, 'simple-test', 'outputs.json')
    const rules = JSON.parse(readFileSync(outputs, 'utf8')) as unknown[]
    const changes = [
      { when: ['Rephrase', 'hungry'], output: 'I could eat' },
      { when: ['Pretend', 'Hello world'], output: 'Hello, world' }
    ]
    writeFileSync(outputs, JSON.stringify([...changes, ...rules]))

    const loaded = await loadEvalConfig(config)
    const { record, comparison } = await evaluate(loaded, { env: {}, baseline })
    const broken = ['Another basic substring check · prompts.txt: 1 · replay', 'Check for semantic similarity · prompts.txt: 2 · replay']
    expect(comparison.regressed).toEqual(broken)
    expect(comparison.gate.passed).toBe(false)
    const report = renderReport({ comparison, baseline, current: record })
    for (const key of broken) expect(report).toContain(key)
    expect(report).toContain('gate failed')
    expect(report).toContain(`2 cases regressed (limit: maxRegressions 0): ${broken.join(', ')}`)
  })
})
