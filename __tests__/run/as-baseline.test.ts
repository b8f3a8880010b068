/**
 * Changed cases run as the baseline ran them (SPEC §9 Coverage), through the
 * engine with a real module agent: the record keeps how each case ran, a
 * changed case that passed on the baseline is run again with the baseline's
 * input and assertions, and the comparison counts its failure as a regression.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/compare.js'
import { runRecordSchema } from '../../src/config/record-schema.js'
import { ranOf, resolveRan } from '../../src/config/ran.js'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { failureSentence } from '../../src/report/words.js'
import type { EvalCase } from '../../src/types.js'
import { tempProject } from '../__fixtures__/cli.js'
import { makeBaseline, makeCase, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

/** Answers `aN` to `qN`, or what answers.json says for that input. */
const AGENT = `import { readFileSync } from 'node:fs'
export default (input) => {
  const answers = JSON.parse(readFileSync(new URL('answers.json', import.meta.url), 'utf8'))
  return answers[input] ?? String(input).replace('q', 'a')
}
`

function project(cases: string, answers: Record<string, string> = {}): string {
  const dir = tempProject({
    'evalgate.yml': 'version: 1\nname: t\ndataset: cases.yaml\ntarget:\n  module: ./agent.mjs\n',
    'cases.yaml': cases,
    'agent.mjs': AGENT,
    'answers.json': JSON.stringify(answers),
    'checks/is-a1.mjs': "export default (output) => output === 'a1'\n"
  })
  return path.join(dir, 'evalgate.yml')
}

async function run(config: string, baseline = null as Awaited<ReturnType<typeof evaluate>>['record'] | null, baselineFiles?: string) {
  return evaluate(await loadEvalConfig(config), { baseline, env: { PATH: process.env.PATH }, ...(baselineFiles ? { baselineFiles } : {}) })
}

describe('run as the baseline ran it', () => {
  const base = '- {id: one, input: q1, expected: a1}\n- {id: two, input: q2, expected: a2}\n- {id: gone, input: q3, expected: zzz}\n'

  it('the record keeps how each case ran: assertions with files relative to the config, valid as a record', async () => {
    const config = project('- {id: one, input: q1, assert: [{type: javascript, file: checks/is-a1.mjs}], vars: {x: 1}, metadata: {m: 2}}\n')
    const { record } = await run(config)
    expect(record.cases[0]!.ran).toEqual({ assert: [{ type: 'javascript', file: 'checks/is-a1.mjs' }], vars: { x: 1 }, metadata: { m: 2 } })
    expect(runRecordSchema.parse(JSON.parse(JSON.stringify(record))).cases[0]!.ran).toEqual(record.cases[0]!.ran)
  })

  it('a changed case that passed on the baseline and fails as it ran there is regressed; one that still passes there is only changed', async () => {
    const config = project(base)
    const { record: baseline } = await run(config)
    expect(baseline.cases.map((c) => c.passed)).toEqual([true, true, false])
    // the agent breaks one and two; one's check is rewritten to the broken answer, two's tightened
    // (it now fails it); gone, which failed on the baseline, changes too
    writeFileSync(path.join(path.dirname(config), 'answers.json'), JSON.stringify({ q1: 'no idea', q2: 'the a2' }))
    writeFileSync(
      path.join(path.dirname(config), 'cases.yaml'),
      '- {id: one, input: q1, expected: no idea}\n- {id: two, input: q2, assert: [{type: equals, value: a2}]}\n- {id: gone, input: q3, expected: a3}\n'
    )
    const { record, comparison } = await run(config, baseline)
    const [one, two, gone] = record.cases
    expect(one!.passed).toBe(true)
    expect(one!.asBaseline).toMatchObject({ passed: false, output: 'no idea' })
    expect(one!.asBaseline!.assertions[0]).toMatchObject({ type: 'contains', passed: false })
    // two fails its tightened check but still contains a2, as the baseline checked it: a change, not a regression
    expect(two!.passed).toBe(false)
    expect(two!.asBaseline).toMatchObject({ passed: true })
    expect(gone!.asBaseline).toBeUndefined()
    expect(comparison.regressed).toEqual(['one'])
    expect(comparison.changedRegressed).toEqual(['one'])
    expect(comparison.changed).toEqual(['two', 'gone'])
    expect(comparison.gate.checks[0]).toMatchObject({ check: 'maxRegressions', keys: ['one'], changedInPr: ['one'] })
    expect(failureSentence(comparison.gate.checks[0]!)).toBe(
      '1 case regressed (limit: maxRegressions 0): one (it changed in this pull request and fails as the baseline ran it)'
    )
    // not compared by fingerprint: the figures leave it out
    expect(comparison.coverage).toEqual({ baseline: 3, compared: 0 })
  })

  it('a conversation keeps no `ran` and is never run as the baseline ran it: a case that became one stays changed', async () => {
    const config = project(base)
    const { record: baseline } = await run(config)
    writeFileSync(
      path.join(path.dirname(config), 'cases.yaml'),
      '- {id: one, turns: [{user: q1, assert: [{type: equals, value: a1}]}, {user: q2}]}\n- {id: two, input: q2, expected: a2}\n- {id: gone, input: q3, expected: zzz}\n'
    )
    const { record, comparison } = await run(config, baseline)
    expect(record.cases.find((c) => c.id === 'one')!.ran).toBeUndefined()
    expect(record.cases.find((c) => c.id === 'one')!.asBaseline).toBeUndefined()
    expect(comparison.changed).toEqual(['one'])
    expect(comparison.regressed).toEqual([])
  })

  it('the files the baseline’s checks name are read from `baselineFiles` (the base commit’s copies in a pull-request run)', async () => {
    const config = project('- {id: one, input: q1, assert: [{type: javascript, file: checks/is-a1.mjs}]}\n')
    const { record: baseline } = await run(config)
    // the agent breaks the case, which changes (a second check); as the baseline ran it, the config folder's check fails it
    const dir = path.dirname(config)
    writeFileSync(path.join(dir, 'answers.json'), JSON.stringify({ q1: 'no idea' }))
    writeFileSync(
      path.join(dir, 'cases.yaml'),
      '- {id: one, input: q1, assert: [{type: javascript, file: checks/is-a1.mjs}, {type: not-contains, value: zzz}]}\n'
    )
    expect((await run(config, baseline)).comparison.regressed).toEqual(['one'])
    // a base commit whose copy of the check accepts the answer: that copy grades
    const trusted = tempProject({ 'checks/is-a1.mjs': "export default (output) => output === 'no idea'\n" })
    const { comparison } = await run(config, baseline, trusted)
    expect(comparison.changed).toEqual(['one'])
  })
})

describe('ranOf and resolveRan', () => {
  it('name files relative to the config’s folder, and back against another folder', () => {
    const c: EvalCase = {
      id: 'x',
      name: 'x',
      tags: [],
      fingerprint: 'f',
      index: 0,
      input: 'q',
      assert: [
        { type: 'javascript', file: '/repo/evals/checks/a.mjs' },
        { type: 'javascript', value: 'file:///repo/evals/t.js:fn', transform: 'file:///repo/evals/tr.js' },
        { type: 'javascript', file: '/elsewhere/b.mjs' },
        { type: 'contains', value: 'q' }
      ],
      promptfoo: { provider: 1, threshold: 0.5 }
    }
    const ran = ranOf(c, '/repo/evals')!
    expect(ran.assert).toEqual([
      { type: 'javascript', file: 'checks/a.mjs' },
      { type: 'javascript', value: 'file://t.js:fn', transform: 'file://tr.js' },
      { type: 'javascript', file: '/elsewhere/b.mjs' },
      { type: 'contains', value: 'q' }
    ])
    expect(ran.promptfoo).toEqual({ provider: 1, threshold: 0.5 })
    // the same assertion object (a default shared by every case) is converted once
    expect(ranOf(c, '/repo/evals')!.assert[0]).toBe(ran.assert[0])
    expect(resolveRan(ran, '/base/copy').assert.slice(0, 3)).toEqual([
      { type: 'javascript', file: '/base/copy/checks/a.mjs' },
      { type: 'javascript', value: 'file:///base/copy/t.js:fn', transform: 'file:///base/copy/tr.js' },
      { type: 'javascript', file: '/elsewhere/b.mjs' }
    ])
  })
})

describe('the comparison of a case run as the baseline ran it', () => {
  const gate = makeGate()
  const changed = (id: string, asBaseline: Record<string, unknown>) =>
    makeCase(id, true, { fingerprint: `fp-${id}-changed`, asBaseline: { ...asBaseline } as never })

  it.each([
    ['fails as the baseline ran it', { passed: false, passFraction: 0, output: 'x', error: null, score: null, assertions: [] }, 'regressed'],
    ['passes as the baseline ran it', { passed: true, passFraction: 1, output: 'x', error: null, score: null, assertions: [] }, 'changed']
  ])('%s: %s', (_what, asBaseline, outcome) => {
    const c = compareRuns(makeBaseline([makeCase('a')]), makeRun([changed('a', asBaseline)]), gate)
    expect(c.regressed.includes('a') ? 'regressed' : c.changed.includes('a') ? 'changed' : 'other').toBe(outcome)
  })

  it('with trials, as any flip: 3/3 → 0/3 counts (too few trials for the test), 5/5 → 3/5 does not', () => {
    const trials = (passed: number, total: number) => ({
      passed: passed / total >= 0.5,
      passFraction: passed / total,
      output: 'x',
      error: null,
      score: null,
      assertions: [],
      trials: makeTrials(passed, total)
    })
    const repeated = (passed: number, total: number) => makeCase('a', true, { passFraction: passed / total, trials: makeTrials(passed, total) })
    const broke = compareRuns(makeBaseline([repeated(3, 3)]), makeRun([changed('a', trials(0, 3))]), gate)
    expect({ regressed: broke.regressed, changedRegressed: broke.changedRegressed, tooFewTrials: broke.tooFewTrials }).toEqual({
      regressed: ['a'],
      changedRegressed: ['a'],
      tooFewTrials: ['a']
    })
    const held = compareRuns(makeBaseline([repeated(5, 5)]), makeRun([changed('a', trials(3, 5))]), gate)
    expect(held.changed).toEqual(['a'])
  })

  it('a baseline case that failed is not run again: changed', () => {
    const c = compareRuns(
      makeBaseline([makeCase('a', false)]),
      makeRun([changed('a', { passed: false, passFraction: 0, output: 'x', error: null, score: null, assertions: [] })]),
      gate
    )
    expect(c.changed).toEqual(['a'])
  })
})
