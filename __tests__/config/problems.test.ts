/**
 * Config and dataset problems are reported together, up to 20 (SPEC §6):
 * three broken dataset lines are three lines of one message, not three runs.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { loadEvalConfig } from '../../src/engine.js'
import { ConfigError } from '../../src/errors.js'
import { MAX_PROBLEMS } from '../../src/config/problems.js'
import { runCli } from '../__fixtures__/cli.js'
import { tempDir } from '../__fixtures__/temp.js'

function project(files: Record<string, string>): string {
  const dir = tempDir()
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  return dir
}

async function loadError(files: Record<string, string>): Promise<{ message: string; problems: string[] | undefined }> {
  const dir = project(files)
  const error = await loadEvalConfig(path.join(dir, 'evalgate.yml')).then(
    () => new ConfigError('loaded'),
    (err: unknown) => err as ConfigError
  )
  const strip = (text: string) => text.replaceAll(dir + path.sep, '')
  return { message: strip(error.message), problems: error.problems?.map(strip) }
}

const CONFIG = 'version: 1\ndataset: cases.jsonl\ntarget:\n  command: [node, agent.js]\n'
const line = (id: string) => JSON.stringify({ id, input: 'q', expected: 'a' })

describe('one pass over the config and the dataset', () => {
  it('three broken dataset lines: one message naming each, in file order', async () => {
    const { message } = await loadError({
      'evalgate.yml': CONFIG,
      'cases.jsonl': [line('a'), '{"id": "b", "input": "q", expected: "a"}', line('c'), '{"id": "d", "inptu": "q"}', line('e'), line('a')].join('\n') + '\n'
    })
    // JSON.parse words its message by Node version: only its start is pinned
    expect(message.split('\n')).toEqual([
      '3 problems in the config and dataset:',
      expect.stringMatching(/^ {2}- cases\.jsonl:2: not valid JSON: Expected double-quoted property name/),
      '  - cases.jsonl:4 at [3].inptu: unknown key "inptu": did you mean "input"?',
      '  - cases.jsonl:6 at [5]: duplicate case id "a" (also at cases.jsonl:1 at [0]); ids must be unique'
    ])
  })

  it('a problem of the config and problems of its dataset, together; the dataset is read though the config is not valid', async () => {
    const { message, problems } = await loadError({
      'evalgate.yml': `${CONFIG}gate:\n  maxRegresions: 0\n`,
      'cases.jsonl': `${line('a')}\n{"id": "b"}\n`
    })
    expect(problems).toEqual([
      'evalgate.yml:6 at gate.maxRegresions: unknown key "maxRegresions": did you mean "maxRegressions"?',
      'cases.jsonl:2 at [1]: the case has no `input` (or `turns`, or `simulate`)'
    ])
    expect(message.split('\n')[0]).toBe('2 problems in the config and dataset:')
  })

  it('a case left out for its problem does not shift where later cases are said to be', async () => {
    const { problems } = await loadError({
      'evalgate.yml': 'version: 1\ndataset: cases.yaml\ntarget:\n  command: [node, agent.js]\n',
      'cases.yaml': '- {id: x, input: q}\n- {id: y, input: q, assert: [{type: containz, value: a}]}\n- {id: z, input: q}\n- {id: z, input: r}\n'
    })
    expect(problems).toHaveLength(2)
    expect(problems![0]).toMatch(/^cases\.yaml:2 at \[1\]\.assert\[0\]: unknown assertion type "containz"/)
    // the first z is the third case of the file, [2], though only two cases were kept before it
    expect(problems![1]).toBe('cases.yaml:4 at [3]: duplicate case id "z" (also at cases.yaml:3 at [2]); ids must be unique')
  })

  it('a default assertion with a problem is one problem of the config, not one more per case it applies to', async () => {
    const { message, problems } = await loadError({
      'evalgate.yml': `${CONFIG}defaults:\n  assert:\n    - {type: contains, value: a}\n    - {type: containz, value: a}\n`,
      'cases.jsonl': `${line('a')}\n${line('b')}\n{"id": "c", "input": "q", "assert": [{"type": "regex", "value": "("}]}\n`
    })
    expect(problems).toEqual([
      expect.stringMatching(/^evalgate\.yml at defaults\.assert\[1\]: unknown assertion type "containz"/),
      // the case's own assertions are numbered as the case writes them, after the defaults
      expect.stringMatching(/^cases\.jsonl:3 at \[2\]\.assert\[0\]: .*regex/)
    ])
    expect(message.split('\n')[0]).toBe('2 problems in the config and dataset:')
  })

  it(`stops at ${MAX_PROBLEMS} problems and says so; the lines after are not read`, async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `{"id": "c${i}", "input": "q", "expeced": "a"}`)
    const { message, problems } = await loadError({ 'evalgate.yml': CONFIG, 'cases.jsonl': lines.join('\n') + '\n' })
    expect(problems).toHaveLength(MAX_PROBLEMS)
    expect(message.split('\n')[0]).toBe(`the first ${MAX_PROBLEMS} problems in the config and dataset (reading stopped there; fix these and run again):`)
    expect(message).toContain(`cases.jsonl:${MAX_PROBLEMS} at [${MAX_PROBLEMS - 1}].expeced`)
    expect(message).not.toContain(`cases.jsonl:${MAX_PROBLEMS + 1} `)
  })

  it('one problem reads as before: its own message, no list', async () => {
    const { message, problems } = await loadError({ 'evalgate.yml': CONFIG, 'cases.jsonl': `${line('a')}\n{"id": "b"}\n` })
    expect(message).toBe('cases.jsonl:2 at [1]: the case has no `input` (or `turns`, or `simulate`)')
    expect(problems).toBeUndefined()
  })

  it('the CLI prints them all and exits 2, from validate and from run alike', async () => {
    const dir = project({ 'evalgate.yml': CONFIG, 'cases.jsonl': `{"id": "a"}\n{"id": "b"}\n${line('c')}\n` })
    for (const command of ['validate', 'run']) {
      const res = await runCli([command, '-c', path.join(dir, 'evalgate.yml')])
      expect(res.code).toBe(2)
      expect(res.stderr).toContain('2 problems in the config and dataset:')
      expect(res.stderr).toContain('cases.jsonl:1 at [0]: the case has no `input`')
      expect(res.stderr).toContain('cases.jsonl:2 at [1]: the case has no `input` (or `turns`, or `simulate`)')
    }
  })
})
