import { badgeFor } from '../../src/badge/index.js'
import { describe, expect, it } from '@jest/globals'
import { conclude } from '../../src/compare/conclude.js'
import { compareRuns } from '../../src/compare/index.js'
import { gateSchema } from '../../src/config/schema.js'
import { fitBytes, MAX_ANNOTATIONS, outputValues, regressionAnnotations } from '../../src/github/summary.js'
import { buildReport } from '../../src/report/model.js'
import type { RunRecord } from '../../src/types.js'

/** The report model of `current` against `baseline` under `gate`, as the action builds it. */
function modelOf(baseline: RunRecord | null, current: RunRecord, gate = gateSchema.parse({})) {
  return buildReport({ comparison: compareRuns(baseline, current, gate), baseline, current })
}
import { caseResult, record } from './helpers.js'

describe('fitBytes', () => {
  const render = (maxLength: number) => 'é'.repeat(Math.min(maxLength, 1000))
  it('keeps text that fits', () => {
    expect(fitBytes(render, 5000)).toHaveLength(1000)
  })
  it('shrinks multi-byte text until its bytes fit', () => {
    const text = fitBytes(render, 1000)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000)
    expect(text.length).toBeGreaterThan(400)
  })
})

describe('regressionAnnotations', () => {
  const ids = Array.from({ length: 12 }, (_, i) => `case-${i}`)
  const baseline = record(ids.map((id) => caseResult(id, true)))
  const current = record(
    ids.map((id, i) =>
      caseResult(id, false, { source: { file: i % 2 ? '/ws/evals/cases.yaml' : '/elsewhere/cases.yaml', line: i + 1 }, output: 'leaked sk-secret' })
    )
  )

  it('annotates the first ten regressions at their dataset line, relative to the workspace', () => {
    const list = regressionAnnotations(modelOf(baseline, current), '/ws', (s) => s.replace('sk-secret', '***'))
    expect(list).toHaveLength(MAX_ANNOTATIONS)
    expect(list[1]).toEqual({
      level: 'error',
      message: `case "case-1" passed on the baseline and fails now: contains: expected output to contain 'answer', got: bad`,
      properties: { title: 'evalgate: regressed: case-1', file: 'evals/cases.yaml', startLine: 2 }
    })
    // a dataset outside the workspace gets no file
    expect(list[0]!.properties.file).toBeUndefined()
  })

  it('resolves a relative dataset path from the working directory of the run, not from the workspace', () => {
    // the run's cwd is a folder beside the workspace (a clone inside the temp dir, say): the record says ../../ws/…
    const moved = record(ids.map((id) => caseResult(id, false, { source: { file: '../../ws/evals/cases.yaml', line: 3 } })))
    const [first] = regressionAnnotations(modelOf(baseline, moved), '/tmp/x/ws', (s) => s, '/tmp/x/clone/sub')
    expect(first!.properties).toMatchObject({ file: 'evals/cases.yaml', startLine: 3 })
    // a path that is relative to the cwd and happens to lie in the workspace
    const inside = record(ids.map((id) => caseResult(id, false, { source: { file: 'evals/cases.yaml', line: 4 } })))
    expect(regressionAnnotations(modelOf(baseline, inside), '/ws', (s) => s, '/ws/app')[0]!.properties.file).toBe('app/evals/cases.yaml')
  })

  it('warns instead when the gate allowed the regressions', () => {
    const model = modelOf(baseline, current, gateSchema.parse({ maxRegressions: 100, maxPassRateDrop: 1 }))
    expect(model.comparison.gate.passed).toBe(true)
    expect(new Set(regressionAnnotations(model, '/ws').map((a) => a.level))).toEqual(new Set(['warning']))
  })

  it.each([
    { name: 'accepted by the label', context: { acceptLabel: 'evalgate:accept' } },
    { name: 'advisory', context: { failOnRegression: false } }
  ])('warns when a failing verdict passes the check ($name)', ({ context }) => {
    const comparison = compareRuns(baseline, current, gateSchema.parse({}))
    const verdict = conclude(comparison, current, { baselineStatus: 'found', ...context })
    const model = buildReport({ comparison, baseline, current, verdict })
    expect(verdict.exitCode).toBe(0)
    expect(new Set(regressionAnnotations(model, '/ws').map((a) => a.level))).toEqual(new Set(['warning']))
  })
})

describe('outputValues', () => {
  it('sets every output of the action as text', () => {
    const current = record([caseResult('a', true), caseResult('b', false)])
    expect(
      outputValues({
        model: modelOf(null, current),
        resultsPath: '/t/run.json',
        reportPath: '/t/report.md',
        htmlPath: '/t/report.html',
        jsonPath: '/t/comparison.json',
        baselineRunId: null,
        badge: badgeFor(current)
      })
    ).toEqual({
      'pass-rate': '0.5',
      'mean-score': '',
      total: '2',
      passed: '1',
      regressed: '0',
      fixed: '0',
      gate: 'pass',
      verdict: 'pass',
      'baseline-status': 'none',
      'results-path': '/t/run.json',
      'report-path': '/t/report.md',
      'html-path': '/t/report.html',
      'json-path': '/t/comparison.json',
      'baseline-run-id': '',
      'badge-message': '50%',
      'badge-color': 'orange'
    })
  })

  it('gives the mean score when cases are scored', () => {
    const current = record([caseResult('a', true, { score: 0.8 })], { summary: { ...record([]).summary, total: 1, passed: 1, passRate: 1, meanScore: 0.8 } })
    const comparison = compareRuns(null, current, gateSchema.parse({}))
    const failed = conclude(comparison, current, { baselineStatus: 'error', baselineProblem: 'blob 503' })
    const model = buildReport({ comparison, baseline: null, current, verdict: failed })
    expect(outputValues({ model, resultsPath: '', reportPath: '', htmlPath: '', jsonPath: '', baselineRunId: 42, badge: badgeFor(current) })).toMatchObject({
      'mean-score': '0.8',
      gate: 'fail',
      verdict: 'could-not-tell',
      'baseline-status': 'error',
      'baseline-run-id': '42'
    })
  })
})
