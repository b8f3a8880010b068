/** Config and dataset errors point at the line of the problem and say what would be valid. */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { loadEvalConfig } from '../../src/engine.js'
import { tempDir } from '../__fixtures__/temp.js'

async function loadError(files: Record<string, string>): Promise<string> {
  const dir = tempDir()
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  const error = await loadEvalConfig(path.join(dir, 'evalgate.yml')).then(
    () => new Error('loaded'),
    (err: unknown) => err as Error
  )
  return error.message.replaceAll(dir + path.sep, '')
}

const CASES = '- input: a\n  expected: a\n'

describe('unknown keys', () => {
  it('a key of target: written at the top level: its own line, and where it belongs', async () => {
    const message = await loadError({
      'evalgate.yml': 'version: 1\ndataset: cases.yaml\ntarget:\n  command: [node, agent.js]\ntimeoutMs: 5000\n',
      'cases.yaml': CASES
    })
    expect(message).toBe(
      'invalid config:\nevalgate.yml:5 at timeoutMs: unknown key "timeoutMs" here: did you mean target.timeoutMs or judge.timeoutMs? (it belongs under target: or judge:)'
    )
  })

  it('a key one level too deep: a judge key under target:', async () => {
    const message = await loadError({
      'evalgate.yml': 'dataset: cases.yaml\ntarget:\n  command: [node, agent.js]\n  threshold: 0.7\n',
      'cases.yaml': CASES
    })
    expect(message).toBe(
      'invalid config:\nevalgate.yml:4 at target.threshold: unknown key "threshold" here: did you mean judge.threshold? (it belongs under judge:)'
    )
  })

  it('a near spelling of a key of the same mapping', async () => {
    const message = await loadError({
      'evalgate.yml': 'dataset: cases.yaml\ntarget: { command: [node, agent.js] }\ngate:\n  minPassRate: 0.9\n  maxRegression: 1\n',
      'cases.yaml': CASES
    })
    expect(message).toBe('invalid config:\nevalgate.yml:5 at gate.maxRegression: unknown key "maxRegression": did you mean "maxRegressions"?')
  })

  it('a key that is nowhere: remove or fix the spelling, each key on its line', async () => {
    const message = await loadError({ 'evalgate.yml': 'dataset: cases.yaml\ntarget: { command: [node, agent.js] }\nzzz: 1\nqqq: 2\n', 'cases.yaml': CASES })
    expect(message).toBe(
      'invalid config:\nevalgate.yml:3 at zzz: unknown key "zzz" (remove or fix the spelling)\nevalgate.yml:4 at qqq: unknown key "qqq" (remove or fix the spelling)'
    )
  })
})

describe('values that are not one of the valid ones', () => {
  it('an unknown grading_method names the value given and the valid ones, at its line', async () => {
    const message = await loadError({
      'evalgate.yml': 'dataset: cases.yaml\ntarget: { command: [node, agent.js] }\n',
      'cases.yaml': '- input: a\n  expected: a\n- input: b\n  expected: b\n  grading_method: fuzzy\n'
    })
    expect(message).toContain('cases.yaml:5 at [1].grading_method: the string "fuzzy" is not one of "exact_match", "contains", "json_exact"')
  })

  it('an unknown protocol, the same way', async () => {
    const message = await loadError({ 'evalgate.yml': 'dataset: cases.yaml\ntarget:\n  command: [node, agent.js]\n  protocol: grpc\n', 'cases.yaml': CASES })
    expect(message).toBe('invalid config:\nevalgate.yml:4 at target.protocol: the string "grpc" is not one of "stdio", "jsonl"')
  })
})

describe('a missing file', () => {
  it('names a file beside it that differs only in its extension: evalgate.yaml for evalgate.yml, cases.yml for cases.yaml', async () => {
    expect(await loadError({ 'evalgate.yaml': 'dataset: cases.yaml\ntarget: { command: [node, agent.js] }\n' })).toBe(
      'evalgate.yml: cannot read: no such file; there is evalgate.yaml beside it: did you mean that?'
    )
    expect(await loadError({ 'evalgate.yml': 'dataset: cases.yaml\ntarget: { command: [node, agent.js] }\n', 'cases.yml': CASES })).toMatch(
      /cases\.yaml: cannot read: no such file; there is .*cases\.yml beside it: did you mean that\?$/
    )
  })

  it('says only that it is missing when nothing beside it looks like it', async () => {
    expect(await loadError({ 'evalgate.yml': 'dataset: cases.yaml\ntarget: { command: [node, agent.js] }\n', 'cases.txt': CASES })).toMatch(
      /cases\.yaml: cannot read: no such file$/
    )
  })
})
