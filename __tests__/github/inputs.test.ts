import { describe, expect, it } from '@jest/globals'
import { Inputs, readInputs, type InputName } from '../../src/github/inputs.js'
import { UsageError } from '../../src/errors.js'

function reader(values: Partial<Record<InputName, string>>) {
  return (name: InputName) => values[name] ?? ''
}

describe('readInputs', () => {
  it('gives the defaults of action.yml when nothing is set', () => {
    expect(readInputs(reader({}))).toEqual({
      acceptLabel: 'evalgate:accept',
      gateFrom: 'base',
      onBaselineError: 'fail',
      config: 'evalgate.yml',
      token: '',
      mode: 'run',
      shard: null,
      baselineBranch: null,
      baseline: null,
      artifactName: null,
      comment: 'always',
      failOnRegression: true,
      gate: {},
      badgePath: null,
      junit: null
    })
  })

  it('reads every input by its action.yml name', () => {
    const inputs = readInputs(
      reader({
        config: ' evals/evalgate.yml ',
        'github-token': 'ghs_x',
        mode: 'comment',
        'baseline-branch': 'develop',
        'artifact-name': 'evals-api',
        comment: 'on-change',
        'fail-on-regression': 'False',
        'max-regressions': '2',
        'max-pass-rate-drop': '2%',
        'min-pass-rate': '0.8',
        'badge-path': 'badge.svg',
        junit: ' reports/evalgate.xml '
      })
    )
    expect(inputs).toMatchObject({
      config: 'evals/evalgate.yml',
      token: 'ghs_x',
      mode: 'comment',
      baselineBranch: 'develop',
      artifactName: 'evals-api',
      comment: 'on-change',
      failOnRegression: false,
      gate: { maxRegressions: 2, maxPassRateDrop: 0.02, minPassRate: 0.8 },
      badgePath: 'badge.svg',
      junit: 'reports/evalgate.xml'
    })
  })

  it('refuses junit on a shard: the merge job reports every case', () => {
    expect(() => readInputs(reader({ shard: '1/2', junit: 'j.xml' }))).toThrow(/junit: a shard's cases are reported with the others by the mode: merge job/)
  })

  it('reads a shard as i of n, and mode: merge', () => {
    expect(readInputs(reader({ shard: ' 2/4 ' })).shard).toEqual({ index: 2, count: 4 })
    expect(readInputs(reader({ mode: 'merge', 'github-token': 'ghs_x' }))).toMatchObject({ mode: 'merge', shard: null })
  })

  it('names each input once', () => {
    expect(new Set(Object.values(Inputs)).size).toBe(Object.values(Inputs).length)
  })

  it.each<[Partial<Record<InputName, string>>, string]>([
    [{ 'max-regressions': 'x' }, 'max-regressions: "x" is not a whole number (0, 1, 2, …)'],
    [{ 'max-regressions': '-1' }, 'max-regressions: "-1" is not a whole number'],
    [{ 'max-regressions': '1.5' }, 'max-regressions: "1.5" is not a whole number'],
    [{ 'max-pass-rate-drop': 'lots' }, 'max-pass-rate-drop: "lots" is not a fraction between 0 and 1'],
    [{ 'min-pass-rate': '120%' }, 'min-pass-rate: "120%" is not a fraction between 0 and 1'],
    [{ 'min-pass-rate': '1e-1' }, 'min-pass-rate: "1e-1" is not a fraction'],
    [{ 'fail-on-regression': 'yes' }, 'fail-on-regression: "yes" is not a boolean; use true or false'],
    [{ comment: 'sometimes' }, 'comment: "sometimes" is not one of always, on-change, never'],
    [{ mode: 'shard' }, 'mode: "shard" is not one of run, merge, comment'],
    [{ shard: '0/4' }, 'shard "0/4": use i/n with 1 ≤ i ≤ n, e.g. 1/4'],
    [{ shard: '5/4' }, 'shard "5/4": use i/n'],
    [{ shard: 'half' }, 'shard "half": use i/n'],
    [{ mode: 'merge', 'github-token': 'ghs_x', shard: '1/4' }, 'shard: only for mode: run (the shard jobs); the mode: merge job takes no shard'],
    [{ mode: 'comment', shard: '1/4' }, 'shard: only for mode: run'],
    [{ shard: '1/4', 'badge-path': 'badge.svg' }, 'badge-path: a shard has no badge of its own; give badge-path to the mode: merge job'],
    [{ mode: 'merge' }, "mode: merge needs a github-token that can read this run's artifacts (actions: read)"],
    [{ 'artifact-name': 'a/b' }, 'artifact-name: "a/b" may hold only letters, digits'],
    [{ mode: 'comment', baseline: 'run.json' }, 'baseline: not used with mode: comment']
  ])('%j → %s', (values, message) => {
    expect(() => readInputs(reader(values))).toThrow(UsageError)
    expect(() => readInputs(reader(values))).toThrow(message)
  })

  it.each([
    ['0', 0],
    ['1', 1],
    ['.5', 0.5],
    ['50%', 0.5],
    ['0.02', 0.02]
  ])('reads the fraction %s as %d', (text, value) => {
    expect(readInputs(reader({ 'min-pass-rate': text })).gate.minPassRate).toBe(value)
  })
})
