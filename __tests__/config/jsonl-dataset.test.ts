import { describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { validateAssertion } from '../../src/assertions/index.js'
import { CaseNormalizer, readJsonlCases } from '../../src/config/dataset.js'
import { loadConfig } from '../../src/config/load.js'
import { ConfigError } from '../../src/errors.js'
import { tempProject } from '../__fixtures__/cli.js'

/** The cases of one JSONL file, read as a dataset reads it. */
async function readJsonl(file: string) {
  const normalizer = new CaseNormalizer({ defaults: { assert: [], tags: [] }, baseDir: process.cwd(), validateAssertion })
  await readJsonlCases(file, normalizer)
  return normalizer.finish()
}

function file(content: string | Buffer, name = 'cases.jsonl'): string {
  const dir = tempProject({})
  const full = path.join(dir, name)
  writeFileSync(full, content)
  return full
}

describe('JSONL datasets, read line by line', () => {
  it('keeps each case’s line, skipping blank lines, with CRLF endings and a byte-order mark', async () => {
    const cases = await readJsonl(file('\uFEFF{"id": "a", "input": "x"}\r\n\r\n   \n{"id": "b", "input": "y", "expected": "y"}\r\n{"id": "c", "input": "z"}'))
    expect(cases.map((c) => [c.id, c.input, c.expected, c.source?.line, c.index])).toEqual([
      ['a', 'x', undefined, 1, 0],
      ['b', 'y', 'y', 4, 1],
      ['c', 'z', undefined, 5, 2]
    ])
  })

  it('names the file and line of a line that is not JSON', async () => {
    const attempt = readJsonl(file('{"input": 1}\n\n{"input": 2\n'))
    await expect(attempt).rejects.toThrow(ConfigError)
    await expect(attempt).rejects.toThrow(/cases\.jsonl:3: not valid JSON/)
  })

  it('refuses a line nested past 256 levels, the shortest such line too; one level less is only not a case', async () => {
    // 257 lists, 514 characters: the shortest line too deep
    await expect(readJsonl(file(`{"input": 1}\n${'['.repeat(257)}${']'.repeat(257)}\n`))).rejects.toThrow(/cases\.jsonl:2: nested more than 256 levels deep/)
    const shallower = readJsonl(file(`{"input": 1}\n${'['.repeat(256)}${']'.repeat(256)}\n`))
    await expect(shallower).rejects.toThrow(/cases\.jsonl:2/)
    await expect(shallower).rejects.not.toThrow(/levels deep/)
  })

  it('names the line of a case the schema refuses', async () => {
    await expect(readJsonl(file('{"input": 1}\n{"input": 2, "asert": []}\n'))).rejects.toThrow(
      /cases\.jsonl:2 at \[1\]\.asert: unknown key "asert": did you mean "assert"\?/
    )
  })

  it('refuses bytes that are not UTF-8, even split across reads', async () => {
    const bad = Buffer.concat([Buffer.from(`{"input": "${'x'.repeat(70_000)}"}\n{"input": "`), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')])
    await expect(readJsonl(file(bad))).rejects.toThrow('not valid UTF-8 text')
    // a multi-byte character cut by the read boundary is fine
    const ok = Buffer.from(`{"input": "${'x'.repeat(65_536 - 12)}é ✓"}\n`)
    expect(await readJsonl(file(ok))).toHaveLength(1)
  })

  it('says so when the file is missing', async () => {
    await expect(readJsonl(path.join(tempProject({}), 'none.jsonl'))).rejects.toThrow('none.jsonl: cannot read: no such file')
  })

  it('is what a config with a .jsonl (or .ndjson) dataset loads', async () => {
    const dir = tempProject({
      'evalgate.yml': 'target: { module: ./agent.mjs }\ndataset: [a.jsonl, b.ndjson]\n',
      'a.jsonl': '{"id": "one", "input": "1"}\n',
      'b.ndjson': '{"id": "two", "input": "2"}\n'
    })
    const loaded = await loadConfig(path.join(dir, 'evalgate.yml'), validateAssertion)
    expect(loaded.cases.map((c) => c.id)).toEqual(['one', 'two'])
  })
})

describe('dataset names and patterns', () => {
  it('reads every file a pattern matches, in name order, and a plain name as it is', async () => {
    const dir = tempProject({
      'evalgate.yml': "name: t\ntarget: { command: ['echo'] }\ndataset: ['sets/*.jsonl', 'one-copy.jsonl']\n",
      'sets/b.jsonl': '{"id": "b", "input": "y"}\n',
      'sets/a.jsonl': '{"id": "a", "input": "x"}\n',
      'sets/c.yaml': '- {id: skipped, input: z}\n',
      'one-copy.jsonl': '{"id": "copy", "input": "w"}\n'
    })
    const loaded = await loadConfig(path.join(dir, 'evalgate.yml'), validateAssertion)
    expect(loaded.cases.map((c) => c.id)).toEqual(['a', 'b', 'copy'])
  })

  it('refuses a pattern that matches no file, naming it', async () => {
    const dir = tempProject({ 'evalgate.yml': "name: t\ntarget: { command: ['echo'] }\ndataset: 'sets/*.jsonl'\n" })
    await expect(loadConfig(path.join(dir, 'evalgate.yml'), validateAssertion)).rejects.toThrow('dataset pattern "sets/*.jsonl" matches no file')
  })
})
