/**
 * The bad-input corpus (../__fixtures__/bad-inputs/manifest.ts) through the
 * CLI: every file is refused with exit 2 within seconds, in ONE message that
 * names the file, the place and the fix, without a stack trace, and no --out
 * record is written pretending to be complete.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { configs, datasets, records, type BadInput } from '../__fixtures__/bad-inputs/manifest.js'
import { runCli, tempProject, type CliRun } from '../__fixtures__/cli.js'

const root = path.resolve('__tests__/__fixtures__/bad-inputs')
const support = path.join(root, '_support')
const goodRecord = path.join(support, 'good-run.json')
const supportConfig = path.join(support, 'evalgate.yml')
const agent = path.resolve('__tests__/__fixtures__/agents/agent.mjs')

/**
 * Refused in seconds, not minutes: no parser or walker may spin on a hostile file.
 * Measured in CPU time of this process (the CLI runs in it): a parser that spins
 * burns CPU, while a busy machine only stretches the wall clock. Generous, since
 * the failures it is there for are quadratic or worse and take minutes.
 */
const CPU_MS = 20_000
/** Jest's own deadline for a test of several such runs: far above what they take, below forever. */
const TEST_MS = 180_000

/** Generated files go to one temp folder, made once and removed after the file (they weigh 70 MB). */
const generatedDir = tempProject({})

/** The file on disk: committed under bad-inputs/, or generated now. */
function located(entry: BadInput): string {
  if (!entry.make) return path.join(root, entry.file)
  const file = path.join(generatedDir, entry.file)
  if (!existsSync(file)) writeFileSync(file, entry.make())
  return file
}

async function timed(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun & { cpuMs: number }> {
  const before = process.cpuUsage()
  const run = await runCli(argv, env)
  const used = process.cpuUsage(before)
  return { ...run, cpuMs: (used.user + used.system) / 1000 }
}

/** What every refusal must look like. */
function expectRefusal(run: CliRun & { cpuMs: number }, entry: BadInput, file: string): void {
  const shown = entry.names ?? path.basename(file)
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(entry.says) })
  // one message: one "evalgate:" line opening it, no stack, no internal error
  expect(run.stderr.match(/^evalgate: /gm)).toHaveLength(1)
  expect(run.stderr).not.toMatch(/\n\s+at /)
  expect(run.stderr).not.toMatch(/internal error/)
  expect(run.stdout).toBe('')
  expect(run.stderr).toContain(shown)
  if (entry.line !== undefined) expect(run.stderr).toContain(`${shown}:${entry.line}`)
  if (entry.at !== undefined) expect(run.stderr).toContain(entry.at)
  expect(run.cpuMs).toBeLessThan(CPU_MS)
}

/** No record, or at least none that claims to be complete. */
function expectNoCompleteRecord(out: string): void {
  if (!existsSync(out)) return
  expect(JSON.parse(readFileSync(out, 'utf8')).complete).toBe(false)
}

const label = (entry: BadInput) => entry.file

describe('the corpus', () => {
  it('has at least 60 bad inputs and every committed file is in the manifest', () => {
    const committed = ['config', 'dataset', 'record'].flatMap((kind) => readdirSync(path.join(root, kind)).map((f) => `${kind}/${f}`))
    const listed = [...configs, ...datasets, ...records].filter((e) => !e.make).map((e) => e.file)
    expect(committed.sort()).toEqual([...listed].sort())
    expect(configs.length + datasets.length + records.length).toBeGreaterThanOrEqual(60)
  })
})

describe('bad configs exit 2 with one message naming the file, the place and the fix', () => {
  it.each(configs.map((e) => [label(e), e] as const))(
    '%s',
    async (_label, entry) => {
      const file = located(entry)
      const validated = await timed(['validate', '-c', file])
      if (entry.runOnly) expect(validated.code).toBe(0)
      else expectRefusal(validated, entry, file)
      const out = path.join(tempProject({}), 'run.json')
      expectRefusal(await timed(['run', '-c', file, '--out', out, '--quiet']), entry, file)
      expectNoCompleteRecord(out)
    },
    TEST_MS
  )
})

describe('bad datasets exit 2 with one message naming the file, the line and the fix', () => {
  it.each(datasets.map((e) => [label(e), e] as const))(
    '%s',
    async (_label, entry) => {
      const file = located(entry)
      const dir = tempProject({ 'evalgate.yml': `target: { command: [node, ${JSON.stringify(agent)}, upper] }\ndataset: ${JSON.stringify(file)}\n` })
      const config = path.join(dir, 'evalgate.yml')
      expectRefusal(await timed(['validate', '-c', config]), entry, file)
      const out = path.join(dir, 'run.json')
      expectRefusal(await timed(['run', '-c', config, '--out', out, '--quiet']), entry, file)
      expectNoCompleteRecord(out)
    },
    TEST_MS
  )
})

describe('bad run records exit 2 with one message naming the file, the path and the fix', () => {
  it.each(records.map((e) => [label(e), e] as const))(
    '%s',
    async (_label, entry) => {
      const file = located(entry)
      expectRefusal(await timed(['compare', file, goodRecord, '-c', supportConfig, '--quiet']), entry, file)
      expectRefusal(await timed(['compare', goodRecord, file, '-c', supportConfig, '--quiet']), entry, file)
      const out = path.join(tempProject({}), 'run.json')
      expectRefusal(await timed(['run', '-c', supportConfig, '--baseline', file, '--out', out, '--quiet']), entry, file)
      expectNoCompleteRecord(out)
      expectRefusal(await timed(['badge', file]), entry, file)
    },
    TEST_MS
  )
})

describe('hostile but valid inputs are read, and what they hold stays bounded', () => {
  const good = JSON.parse(readFileSync(goodRecord, 'utf8'))
  const hostile = '<img src=x onerror=alert(1)> @everyone </details> ``` [x](javascript:alert(1)) '

  it('a run of 10 MB strings compares within seconds; the report and the HTML stay small', async () => {
    const huge = hostile.repeat(Math.ceil((10 * 1024 * 1024) / hostile.length))
    const regressed = {
      ...good.cases[0],
      passed: false,
      passFraction: 0,
      name: huge.slice(0, 100_000),
      output: huge,
      error: huge,
      input: huge,
      tags: [huge.slice(0, 50_000)]
    }
    const current = { ...good, name: 'n'.repeat(10_000), cases: [regressed, good.cases[1]] }
    const dir = tempProject({ 'current.json': JSON.stringify(current) })
    const [report, html, json] = ['r.md', 'r.html', 'c.json'].map((f) => path.join(dir, f))
    const run = await timed([
      'compare',
      goodRecord,
      path.join(dir, 'current.json'),
      '-c',
      supportConfig,
      '--quiet',
      '--report',
      report!,
      '--html',
      html!,
      '--json',
      json!
    ])
    expect(run.code).toBe(1)
    expect(JSON.parse(readFileSync(json!, 'utf8')).regressed).toEqual(['greet'])
    expect(run.cpuMs).toBeLessThan(CPU_MS)
    expect(readFileSync(report!, 'utf8').length).toBeLessThanOrEqual(60_000)
    expect(readFileSync(html!, 'utf8').length).toBeLessThan(2_000_000)
  })

  it('a baseline whose createdAt is not a date is compared without an "Invalid Date"', async () => {
    const dir = tempProject({ 'baseline.json': JSON.stringify({ ...good, createdAt: 'yesterday' }) })
    const report = path.join(dir, 'r.md')
    const run = await timed([
      'compare',
      path.join(dir, 'baseline.json'),
      goodRecord,
      '-c',
      supportConfig,
      '--quiet',
      '--report',
      report,
      '--html',
      path.join(dir, 'r.html')
    ])
    expect(run.code).toBe(0)
    expect(readFileSync(report, 'utf8')).not.toMatch(/Invalid Date|NaN/)
  })

  it(
    'a dataset line of 50 MB is read and run; the record is complete and the oversized output is an error of its case',
    async () => {
      const dir = tempProject({
        'cases.jsonl': `{"id":"small","input":"hi","expected":"HI"}\n{"id":"big","input":"${'x'.repeat(50 * 1024 * 1024)}"}\n`,
        'evalgate.yml': `target: { command: [node, ${JSON.stringify(agent)}, upper] }\ndataset: cases.jsonl\n`
      })
      const out = path.join(dir, 'run.json')
      const run = await timed(['run', '-c', path.join(dir, 'evalgate.yml'), '--out', out, '--quiet'])
      expect(run.code).toBe(0)
      expect(run.cpuMs).toBeLessThan(CPU_MS)
      const record = JSON.parse(readFileSync(out, 'utf8'))
      expect(record.complete).toBe(true)
      expect(record.cases.map((c: { id: string; passed: boolean }) => [c.id, c.passed])).toEqual([
        ['small', true],
        ['big', false]
      ])
      expect(record.cases[1].error).toMatch(/output exceeded 4194304 bytes \(target.maxOutputBytes\)/)
    },
    TEST_MS
  )
})
