import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import { parse } from 'yaml'
import { parseAction } from '@actions/workflow-parser/actions/action-parser'
import { NoOperationTraceWriter } from '@actions/workflow-parser'

// GitHub's own action schema (the one the runner and the VS Code extension use), loaded
// through jest because the package imports its JSON schema without import attributes.
function actionErrors(content: string): string[] {
  const result = parseAction({ name: 'action.yml', content }, new NoOperationTraceWriter())
  return result.context.errors.getErrors().map((e) => e.message)
}

const actionYml = readFileSync('action.yml', 'utf8')

describe('action.yml', () => {
  it("is valid against GitHub's action schema, on node24", () => {
    expect(actionErrors(actionYml)).toEqual([])
    expect(parse(actionYml).runs).toEqual({ using: 'node24', main: 'dist/index.js' })
  })

  it('the schema check can fail: an unknown runtime is rejected', () => {
    expect(actionErrors(actionYml.replace('using: node24', 'using: node99')).join('\n')).toMatch(/node99/)
  })

  it('declares exactly the inputs and outputs of SPEC §7', () => {
    const action = parse(actionYml) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> }
    expect(Object.keys(action.inputs).sort()).toEqual(
      [
        'config',
        'github-token',
        'mode',
        'shard',
        'baseline-branch',
        'baseline',
        'artifact-name',
        'comment',
        'fail-on-regression',
        'max-regressions',
        'max-pass-rate-drop',
        'min-pass-rate',
        'badge-path',
        'junit',
        'gate-from',
        'accept-label',
        'on-baseline-error'
      ].sort()
    )
    expect(Object.keys(action.outputs).sort()).toEqual(
      [
        'pass-rate',
        'mean-score',
        'total',
        'passed',
        'regressed',
        'fixed',
        'gate',
        // the verdict itself (gate says fail for could-not-tell), and the HTML report and the JSON beside report.md
        'verdict',
        'baseline-status',
        'results-path',
        'report-path',
        'html-path',
        'json-path',
        'baseline-run-id',
        'badge-message',
        'badge-color'
      ].sort()
    )
  })
})
