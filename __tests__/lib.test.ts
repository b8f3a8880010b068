import { describe, expect, it } from '@jest/globals'
import { datasetSharer, loadEvalConfig, readRunRecord, runEval, runJudgeEval } from '../src/lib.js'

describe('runEval (SPEC §8)', () => {
  it('reproduces the seed: 2 of 3 pass, 0.667, the failing output recorded', async () => {
    const agent = (input: unknown) => ({ 'What is 2+2?': '4', 'Capital of France?': 'Paris', 'Largest planet?': 'Saturn' })[String(input)]
    const report = await runEval(agent, [
      { name: 'math', input: 'What is 2+2?', expected: '4' },
      { name: 'capital', input: 'Capital of France?', check: (out) => out.includes('Paris') },
      { name: 'planet', input: 'Largest planet?', expected: 'Jupiter' }
    ])
    expect(report).toMatchObject({ passed: 2, total: 3, passRate: 0.667 })
    expect(report.results[2]).toEqual({ name: 'planet', passed: false, output: 'Saturn', error: null })
  })

  it('names cases case_<i>, fails a throwing agent or check with the error, and lets check win over expected', async () => {
    const report = await runEval(
      (input) => {
        if (input === 'boom') throw new Error('agent exploded')
        return `echo ${String(input)}`
      },
      [
        { input: 'boom', expected: 'x' },
        {
          input: 'a',
          check: () => {
            throw new Error('bad check')
          }
        },
        { input: 'b', expected: 'nowhere', check: (out) => out === 'echo b' }
      ]
    )
    expect(report.results.map((r) => r.name)).toEqual(['case_0', 'case_1', 'case_2'])
    expect(report.results[0]).toEqual({ name: 'case_0', passed: false, output: null, error: 'agent error: agent exploded' })
    expect(report.results[1]).toMatchObject({ passed: false, output: 'echo a', error: 'check error: bad check' })
    expect(report.results[2]).toMatchObject({ passed: true, error: null })
  })

  it('gives a pass rate of 0 for no cases', async () => {
    expect(await runEval(() => 'x', [])).toEqual({ results: [], passed: 0, total: 0, passRate: 0 })
  })

  it('awaits async agents', async () => {
    const report = await runEval(async (input) => `hello ${String(input)}`, [{ input: 'world', expected: 'hello world' }])
    expect(report.passRate).toBe(1)
  })
})

describe('runJudgeEval (SPEC §8)', () => {
  it('reproduces the seed: mean 0.667, flagged ["bad"]', async () => {
    const scores: Record<string, number> = { good: 1, fine: 1, bad: 0 }
    const result = await runJudgeEval(
      ({ output }) => ({ score: scores[output]!, reason: `judged ${output}` }),
      [
        { name: 'good', prompt: 'p', output: 'good' },
        { name: 'fine', prompt: 'p', output: 'fine' },
        { name: 'bad', prompt: 'p', output: 'bad' }
      ]
    )
    expect(result.meanScore).toBe(0.667)
    expect(result.flagged).toEqual(['bad'])
    expect(result.total).toBe(3)
  })
})

describe('readRunRecord with datasetSharer', () => {
  it('reads the quick start baseline with its unchanged cases sharing the loaded dataset’s values', async () => {
    const loaded = await loadEvalConfig('examples/quickstart/evalgate.yml')
    const shared = await readRunRecord('examples/quickstart/baseline.json', { onCase: datasetSharer(loaded.cases) })
    const plain = await readRunRecord('examples/quickstart/baseline.json')
    expect(shared).toEqual(plain)
    const dataset = new Map(loaded.cases.map((c) => [c.id, c]))
    const unchanged = shared.cases.filter((b) => dataset.get(b.id)?.fingerprint === b.fingerprint)
    expect(unchanged.length).toBeGreaterThan(10)
    // the same objects, not equal copies (strings cannot tell: toBe compares their values)
    for (const b of unchanged) {
      expect(b.tags).toBe(dataset.get(b.id)!.tags)
      // a source is shared only where it still says the same line
      const source = dataset.get(b.id)!.source
      if (b.source?.line === source?.line) expect(b.source).toBe(source)
      else expect(b.source).not.toBe(source)
    }
    expect(plain.cases.find((b) => b.id === unchanged[0]!.id)!.tags).not.toBe(dataset.get(unchanged[0]!.id)!.tags)
    // a case whose fingerprint changed keeps what the baseline said
    const changed = shared.cases.filter((b) => dataset.has(b.id) && dataset.get(b.id)!.fingerprint !== b.fingerprint)
    expect(changed.length).toBeGreaterThan(0)
    for (const b of changed) expect(b.fingerprint).not.toBe(dataset.get(b.id)!.fingerprint)
  })
})
