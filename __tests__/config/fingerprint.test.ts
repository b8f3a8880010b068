/**
 * Honest fingerprints (SPEC §2, §9; issue 12 rows 4, 5 and 14): a case's
 * fingerprint changes with everything that decides its verdict — input,
 * assertions, the contents of the files they name, the judge settings when it
 * is judged — and with nothing else, not even the checkout path.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { caseView } from '../../src/config/case.js'
import { changedSince, datasetFingerprint, FINGERPRINT_VERSION } from '../../src/config/fingerprint.js'
import { loadEvalConfig } from '../../src/engine.js'
import { tempProject } from '../__fixtures__/cli.js'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const CONFIG = `name: fp
dataset: evals/cases.yaml
target: { command: [node, agent.js] }
judge: { model: judge-a, baseUrl: http://127.0.0.1:9/v1, threshold: 0.5 }
`
const CASES = `- id: checked
  input: refund A18
  assert:
    - type: javascript
      file: ../checks/refund.mjs
- id: judged
  input: capital of Ireland
  assert:
    - { type: contains, value: Dublin }
    - { type: llm-rubric, value: Answers with the city only. }
- id: plain
  input: 2+2
  expected: "4"
- id: rubric-file
  input: tone
  assert:
    - { type: llm-rubric, value: "file://rubrics/tone.txt" }
`

function project(files: Record<string, string> = {}): string {
  const dir = tempProject({
    'evalgate.yml': CONFIG,
    'evals/cases.yaml': CASES,
    'checks/refund.mjs': `import { amountOf } from './amount.mjs'\nexport default (output) => amountOf(output) === 20.5\n`,
    'checks/amount.mjs': `export const amountOf = (text) => Number(/\\$(\\d+(\\.\\d+)?)/.exec(text)?.[1])\n`,
    'rubrics/tone.txt': 'Polite and brief.\n',
    ...files
  })
  made.push(dir)
  return dir
}

async function fingerprints(dir: string): Promise<Record<string, string>> {
  const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
  return Object.fromEntries(loaded.cases.map((c) => [c.id, c.fingerprint]))
}

/** Which cases' fingerprints differ between two loads. */
function changed(a: Record<string, string>, b: Record<string, string>): string[] {
  return Object.keys(a).filter((id) => a[id] !== b[id])
}

describe('a case fingerprint covers the files its assertions name', () => {
  it('row 4: a `file:` check edited to () => true, dataset untouched, changes that case (and only it)', async () => {
    const dir = project()
    const before = await fingerprints(dir)
    writeFileSync(path.join(dir, 'checks/refund.mjs'), 'export default () => true\n')
    expect(changed(before, await fingerprints(dir))).toEqual(['checked'])
  })

  it('a module the check imports, edited, changes the case', async () => {
    const dir = project()
    const before = await fingerprints(dir)
    writeFileSync(path.join(dir, 'checks/amount.mjs'), 'export const amountOf = () => 20.5\n')
    expect(changed(before, await fingerprints(dir))).toEqual(['checked'])
  })

  it('a `file://` reference in an assertion value counts by its contents', async () => {
    const dir = project()
    const before = await fingerprints(dir)
    writeFileSync(path.join(dir, 'rubrics/tone.txt'), 'Anything goes.\n')
    expect(changed(before, await fingerprints(dir))).toEqual(['rubric-file'])
  })

  it('a `file:` check in `defaults` changes every case when edited', async () => {
    const dir = project({
      'evalgate.yml': `${CONFIG}defaults:\n  assert: [{ type: javascript, file: checks/amount-free.mjs }]\n`,
      'checks/amount-free.mjs': 'export default (o) => !o.includes("$")\n'
    })
    const before = await fingerprints(dir)
    writeFileSync(path.join(dir, 'checks/amount-free.mjs'), 'export default () => true\n')
    expect(changed(before, await fingerprints(dir)).sort()).toEqual(['checked', 'judged', 'plain', 'rubric-file'])
  })

  it.each([
    ['metadata', '{ forbidden: refund }', 'forbidden: refund', 'forbidden: none', { forbidden: 'none' }],
    ['vars', '{ expected: 4 }', 'expected: 4', 'expected: 5', { expected: 5 }]
  ] as const)(
    'a case’s %s, which checks read on context.case, is covered; a case without it keeps its old fingerprint',
    async (field, written, from, to, seen) => {
      const dir = project()
      const before = await fingerprints(dir)
      const given = CASES.replace('  input: 2+2\n', `  input: 2+2\n  ${field}: ${written}\n`)
      writeFileSync(path.join(dir, 'evals/cases.yaml'), given)
      const once = await fingerprints(dir)
      expect(changed(before, once)).toEqual(['plain'])
      writeFileSync(path.join(dir, 'evals/cases.yaml'), given.replace(from, to))
      expect(changed(once, await fingerprints(dir))).toEqual(['plain'])
      const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
      expect(caseView(loaded.cases.find((c) => c.id === 'plain')!)[field]).toEqual(seen)
    }
  )

  it('editing the input or an assertion changes the case; reformatting the dataset does not', async () => {
    const dir = project()
    const before = await fingerprints(dir)
    writeFileSync(path.join(dir, 'evals/cases.yaml'), CASES.replace('value: Dublin', 'value: Cork').replace('input: 2+2', 'input: "2+2"   # same input'))
    expect(changed(before, await fingerprints(dir))).toEqual(['judged'])
  })
})

describe('the files the fingerprints were made from, read again after the run (changedSince)', () => {
  it('names each file that grades and changed since loading — a check, a module it imports, a file:// rubric — and nothing else', async () => {
    const dir = project()
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    const read = loaded.gradingFiles!
    expect([...read.keys()].map((f) => path.relative(dir, f)).sort()).toEqual(['checks/amount.mjs', 'checks/refund.mjs', 'rubrics/tone.txt'])
    expect(changedSince(read, loaded.baseDir)).toEqual([])
    writeFileSync(path.join(dir, 'checks/amount.mjs'), 'export const amountOf = () => 20.5\n')
    writeFileSync(path.join(dir, 'rubrics/tone.txt'), 'Anything goes.\n')
    // the dataset itself is read once, at load: rewriting it later changes nothing that runs
    writeFileSync(path.join(dir, 'evals/cases.yaml'), '[]\n')
    expect(changedSince(read, loaded.baseDir)).toEqual(['checks/amount.mjs', 'rubrics/tone.txt'])
    rmSync(path.join(dir, 'checks/refund.mjs'))
    expect(changedSince(read, loaded.baseDir)).toEqual(['checks/amount.mjs', 'checks/refund.mjs', 'rubrics/tone.txt'])
  })
})

describe('a judged case fingerprint covers the judge settings', () => {
  it.each([
    ['model', 'model: judge-b'],
    ['baseUrl', 'baseUrl: http://127.0.0.1:10/v1'],
    ['threshold', 'threshold: 0.9'],
    ['samples', 'samples: 3'],
    ['provider', 'provider: command, command: [node, judge.mjs]']
  ])('changing judge %s changes the llm-rubric cases only', async (_what, setting) => {
    const dir = project()
    const before = await fingerprints(dir)
    const key = setting.split(':')[0]!
    const judge = `judge: { model: judge-a, baseUrl: http://127.0.0.1:9/v1, threshold: 0.5 }`
    const edited = judge.includes(`${key}:`) ? judge.replace(new RegExp(`${key}: [^,}]+`), setting) : judge.replace(' }', `, ${setting} }`)
    writeFileSync(path.join(dir, 'evalgate.yml'), CONFIG.replace(judge, edited))
    expect(changed(before, await fingerprints(dir)).sort()).toEqual(['judged', 'rubric-file'])
  })

  it.each([
    ['embeddingModel', 'embeddingModel: other-embedder'],
    ['baseUrl', 'baseUrl: http://127.0.0.1:10/v1']
  ])('changing judge %s changes a `similar` case', async (_what, setting) => {
    const dir = project({ 'evals/cases.yaml': `${CASES}- id: near\n  input: greet\n  assert: [{ type: similar, value: Hello there }]\n` })
    const before = await fingerprints(dir)
    const judge = 'judge: { model: judge-a, baseUrl: http://127.0.0.1:9/v1, threshold: 0.5 }'
    const edited = setting.startsWith('baseUrl') ? judge.replace(/baseUrl: [^,]+/, setting) : judge.replace(' }', `, ${setting} }`)
    writeFileSync(path.join(dir, 'evalgate.yml'), CONFIG.replace(judge, edited))
    const moved = changed(before, await fingerprints(dir))
    expect(moved).toContain('near')
    expect(moved).not.toContain('plain')
    expect(moved.includes('judged')).toBe(setting.startsWith('baseUrl'))
  })

  it("a command judge's script counts by its contents", async () => {
    const judgeConfig = 'judge: { provider: command, command: [node, judges/grade.mjs] }'
    const dir = project({ 'evalgate.yml': CONFIG.replace(/judge: .*/, judgeConfig), 'judges/grade.mjs': 'console.log(JSON.stringify({ score: 0 }))\n' })
    const before = await fingerprints(dir)
    writeFileSync(path.join(dir, 'judges/grade.mjs'), 'console.log(JSON.stringify({ score: 1 }))\n')
    expect(changed(before, await fingerprints(dir)).sort()).toEqual(['judged', 'rubric-file'])
  })

  it('with the trusted copies of a command judge (a pull-request run) they count, not the checkout’s', async () => {
    const judgeConfig = 'judge: { provider: command, command: [node, judges/grade.mjs] }'
    const original = "import './util.mjs'\nconsole.log(JSON.stringify({ score: 0 }))\n"
    const dir = project({ 'evalgate.yml': CONFIG.replace(/judge: .*/, judgeConfig), 'judges/grade.mjs': original, 'judges/util.mjs': '1\n' })
    const before = await fingerprints(dir)
    const trusted = mkdtempSync(path.join(tmpdir(), 'evalgate-trusted-'))
    made.push(trusted)
    cpSync(path.join(dir, 'judges'), path.join(trusted, 'judges'), { recursive: true })
    // the pull request rewrites the judge and what it imports: the base commit's copies still decide
    writeFileSync(path.join(dir, 'judges/grade.mjs'), 'console.log(JSON.stringify({ score: 1 }))\n')
    writeFileSync(path.join(dir, 'judges/util.mjs'), '2\n')
    const withTrusted = async () => {
      const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'), { judgeDir: trusted })
      expect(loaded.judgeDir).toBe(trusted)
      return Object.fromEntries(loaded.cases.map((c) => [c.id, c.fingerprint]))
    }
    expect(await withTrusted()).toEqual(before)
    // and an edit of the trusted copy is seen
    writeFileSync(path.join(trusted, 'judges/util.mjs'), '3\n')
    expect(changed(before, await withTrusted()).sort()).toEqual(['judged', 'rubric-file'])
  })
})

describe('fingerprints do not depend on where the repository is checked out', () => {
  it('row 5: the same dataset under two checkout paths gives the same case and dataset fingerprints', async () => {
    const dir = project()
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'evalgate-other-checkout-'))
    made.push(elsewhere)
    const copy = path.join(elsewhere, 'deeper', 'repo')
    cpSync(dir, copy, { recursive: true })
    const [a, b] = await Promise.all([loadEvalConfig(path.join(dir, 'evalgate.yml')), loadEvalConfig(path.join(copy, 'evalgate.yml'))])
    expect(b.cases.map((c) => c.fingerprint)).toEqual(a.cases.map((c) => c.fingerprint))
    expect(b.dataset).toEqual(a.dataset)
    // the files are still resolved where each checkout has them
    expect(b.cases[0]!.assert[0]!.file).toBe(path.join(copy, 'checks/refund.mjs'))
  })
})

describe('the dataset fingerprint (row 14)', () => {
  const cases = [
    { id: 'a', fingerprint: '1' },
    { id: 'b', fingerprint: '2' }
  ]

  it('covers every key, every fingerprint and the config name, not the order', () => {
    const base = datasetFingerprint('evals', cases)
    expect(base.cases).toBe(2)
    expect(datasetFingerprint('evals', [...cases].reverse())).toEqual(base)
    expect(datasetFingerprint('other', cases).fingerprint).not.toBe(base.fingerprint)
    expect(datasetFingerprint('evals', [cases[0]!, { id: 'b', fingerprint: '3' }]).fingerprint).not.toBe(base.fingerprint)
    expect(datasetFingerprint('evals', [cases[0]!, { id: 'c', fingerprint: '2' }]).fingerprint).not.toBe(base.fingerprint)
    expect(datasetFingerprint('evals', cases.slice(0, 1)).fingerprint).not.toBe(base.fingerprint)
  })

  it('is of the whole dataset: a run with --filter or --shard records the same one', async () => {
    const { evaluate } = await import('../../src/engine.js')
    const dir = tempProject({
      'evalgate.yml': 'name: sliced\ndataset: cases.yaml\ntarget: { module: ./agent.mjs }\n',
      'cases.yaml': '- { id: one, input: a, expected: a }\n- { id: two, input: b, expected: b }\n- { id: three, input: c, expected: c }\n',
      'agent.mjs': 'export default (input) => input\n'
    })
    made.push(dir)
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    const whole = await evaluate(loaded, { env: {} })
    const filtered = await evaluate(loaded, { env: {}, filter: 'two' })
    expect(filtered.record.cases.map((c) => c.id)).toEqual(['two'])
    expect(filtered.record.dataset).toEqual(whole.record.dataset)
    expect(whole.record.dataset).toEqual({ fingerprint: loaded.dataset.fingerprint, cases: 3 })
    expect(whole.record.fingerprintVersion).toBe(FINGERPRINT_VERSION)
  })
})
