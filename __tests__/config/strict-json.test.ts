/**
 * `.json` files are strict JSON (SPEC §9, issue 12 row 15): what a reviewer's
 * JSON tooling would reject is refused, with the file, line and column; YAML
 * files stay YAML.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { parseConfig } from '../../src/config/load.js'
import { formatOf } from '../../src/config/parse.js'
import { parseRunRecord } from '../../src/config/record.js'
import { loadEvalConfig } from '../../src/engine.js'
import { ConfigError, RecordError } from '../../src/errors.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'

const made: string[] = []
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function project(files: Record<string, string>): string {
  const dir = tempProject({ 'agent.mjs': 'export default (input) => String(input)\n', ...files })
  made.push(dir)
  return dir
}

const CONFIG_JSON = `{
  "name": "strict",
  "dataset": "cases.json",
  "target": { "module": "./agent.mjs" }
}
`
const CASES_JSON = `[
  { "id": "a", "input": "x", "expected": "x" }
]
`

async function loadError(dir: string, config = 'evalgate.json'): Promise<ConfigError> {
  const err = await loadEvalConfig(path.join(dir, config)).then(
    () => undefined,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(ConfigError)
  return err as ConfigError
}

describe('a .json config or dataset is strict JSON', () => {
  it('well-formed JSON loads', async () => {
    const dir = project({ 'evalgate.json': CONFIG_JSON, 'cases.json': CASES_JSON })
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.json'))
    expect(loaded.cases.map((c) => c.id)).toEqual(['a'])
    expect(loaded.cases[0]!.source?.line).toBe(2)
  })

  it.each([
    [
      'a trailing comma in the config',
      { 'evalgate.json': CONFIG_JSON.replace('"./agent.mjs" }', '"./agent.mjs" },'), 'cases.json': CASES_JSON },
      'evalgate.json',
      5,
      1,
      'a trailing comma before "}"'
    ],
    [
      'a comment in the config',
      { 'evalgate.json': CONFIG_JSON.replace('"name"', '// the name\n  "name"'), 'cases.json': CASES_JSON },
      'evalgate.json',
      2,
      3,
      'a comment'
    ],
    [
      'a trailing comma in the dataset',
      { 'evalgate.json': CONFIG_JSON, 'cases.json': CASES_JSON.replace('"x" }', '"x" },') },
      'cases.json',
      3,
      1,
      'a trailing comma before "]"'
    ],
    [
      'a block comment in the dataset',
      { 'evalgate.json': CONFIG_JSON, 'cases.json': CASES_JSON.replace('"input"', '/* why */ "input"') },
      'cases.json',
      2,
      16,
      'a comment'
    ],
    [
      'a single-quoted string in the dataset',
      { 'evalgate.json': CONFIG_JSON, 'cases.json': CASES_JSON.replace('"x" }', "'x' }") },
      'cases.json',
      2,
      42,
      'a string in single quotes'
    ],
    [
      'a text cut short',
      { 'evalgate.json': CONFIG_JSON.slice(0, 30), 'cases.json': CASES_JSON },
      'evalgate.json',
      3,
      9,
      'the text ends where the rest of the key should come'
    ],
    [
      'an unquoted key',
      { 'evalgate.json': CONFIG_JSON.replace('"name"', 'name'), 'cases.json': CASES_JSON },
      'evalgate.json',
      2,
      3,
      'expected a key in double quotes, found "name: \\"stric"'
    ]
  ])('row 15: %s is an error naming file, line and column', async (_name, files, bad, line, column, what) => {
    const dir = project(files)
    const err = await loadError(dir)
    expect(err.message).toContain(`${path.join(dir, bad)}:${line}:${column}: not valid JSON: ${what}`)
    expect(err.message).toMatch(/\.json files are strict JSON/)
    expect(err.file).toBe(path.join(dir, bad))
  })

  it('a key given twice in a .json file is an error, not the last one silently winning', async () => {
    const dir = project({ 'evalgate.json': CONFIG_JSON.replace('"name": "strict",', '"name": "strict",\n  "name": "other",'), 'cases.json': CASES_JSON })
    expect((await loadError(dir)).message).toMatch(/evalgate\.json:3:\d+: .*"name".*(twice|duplicate|unique)/i)
  })

  it('a schema error in a .json file still names its line', async () => {
    const dir = project({ 'evalgate.json': CONFIG_JSON.replace('"name": "strict"', '"name": "strict",\n  "repeat": "three"'), 'cases.json': CASES_JSON })
    expect((await loadError(dir)).message).toContain(`${path.join(dir, 'evalgate.json')}:3 at repeat:`)
  })

  it('YAML files stay YAML: comments and trailing commas in flow style are fine there', async () => {
    const dir = project({
      'evalgate.yml': '# a comment\nname: relaxed\ndataset: cases.yaml\ntarget: { module: ./agent.mjs, }\n',
      'cases.yaml': '[ { id: a, input: x, expected: x }, ]  # flow style\n'
    })
    const loaded = await loadEvalConfig(path.join(dir, 'evalgate.yml'))
    expect(loaded.cases.map((c) => c.id)).toEqual(['a'])
  })

  it("a config fetched from elsewhere (the base commit's) is read in the format its path says", () => {
    const text = '{\n  "target": { "module": "./agent.mjs" },\n  "dataset": "cases.json",\n}\n'
    const where = 'evalgate.json at the base commit abc1234'
    expect(() => parseConfig(text, where, formatOf('evalgate.json'))).toThrow(`${where}:4:1: not valid JSON: a trailing comma before "}"`)
    expect(parseConfig(text, where, 'yaml').dataset).toBe('cases.json')
  })

  it('the CLI exits 2 with the place', async () => {
    const dir = project({ 'evalgate.json': CONFIG_JSON, 'cases.json': CASES_JSON.replace('"x" }', '"x" },') })
    const res = await runCli(['validate', '-c', path.join(dir, 'evalgate.json')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`${path.join(dir, 'cases.json')}:3:1: not valid JSON`)
  })
})

describe('a run record is strict JSON', () => {
  const text = JSON.stringify(makeRun([makeCase('a'), makeCase('b')]), null, 2)

  it.each([
    ['a trailing comma after the last case', text.replace(/\}\n {2}\]\n\}$/, '},\n  ]\n}')],
    ['a trailing comma after the last field', text.replace(/\]\n\}$/, '],\n}')],
    ['a comment between fields', text.replace('"cases"', '// the cases\n  "cases"')],
    ['a comment inside a case', text.replace('"id": "b"', '/* b */ "id": "b"')]
  ])('%s is refused', (_name, bad) => {
    expect(bad).not.toBe(text)
    expect(() => parseRunRecord(bad, 'run.json')).toThrow(RecordError)
  })
})
