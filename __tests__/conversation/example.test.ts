/**
 * examples/conversation through the CLI: the released refund bot passes every
 * conversation; its pull request (BOT_VERSION 2), which forgets the order
 * number at turn 3, regresses against the committed baseline, and the
 * comment names the first differing turn with both replies and the failing
 * check, the rest of the transcript folded.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { readRunRecord } from '../../src/config/record.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'

const DIR = path.resolve('examples/conversation')
const CONFIG = path.join(DIR, 'evalgate.yml')

describe('examples/conversation', () => {
  it('the pull request regresses at turn 3 against the committed baseline, and the comment says so', async () => {
    const out = tempProject({})
    const report = path.join(out, 'report.md')
    const run = await runCli([
      'run',
      '-c',
      CONFIG,
      '--baseline',
      path.join(DIR, 'baseline.json'),
      '--out',
      path.join(out, 'run.json'),
      '--report',
      report,
      '--junit',
      path.join(out, 'junit.xml'),
      '--quiet'
    ])
    expect(run.stderr).toMatch(/^evalgate: gate failed: 3 cases regressed \(limit: maxRegressions 0\): refund-happy-path, no-double-refund, refund-simulated/)
    expect(run.code).toBe(1)
    const record = await readRunRecord(path.join(out, 'run.json'))
    expect(record.cases.filter((c) => !c.passed).map((c) => c.id)).toEqual(['refund-happy-path', 'no-double-refund', 'refund-simulated'])
    // JUnit: a conversation's time is the sum over its turns, its failure names the turn
    const junit = readFileSync(path.join(out, 'junit.xml'), 'utf8')
    const happyRecord = record.cases.find((c) => c.id === 'refund-happy-path')!
    const summed = happyRecord.turns!.reduce((n, t) => n + t.latencyMs!, 0)
    const testcase = /<testcase [^>]*name="refund-happy-path"[^>]*time="([\d.]+)"[^>]*>([\s\S]*?)<\/testcase>/.exec(junit)
    expect(testcase).not.toBeNull()
    expect(Number(testcase![1])).toBeCloseTo(summed / 1000, 3)
    expect(testcase![2]).toContain('turn 3: expected output to contain')
    const markdown = readFileSync(report, 'utf8')
    const happy = markdown.slice(markdown.indexOf('<summary><code>refund-happy-path</code>'))
    expect(happy).toContain('**First differing turn: turn 3 of 4** — it passed on the baseline and fails now')
    expect(happy).toContain('Yes, please refund it.')
    expect(happy).toMatch(/\*\*Baseline reply\*\*\n\n```\nRefund of \$20\.50 issued for A18\.\n```/)
    expect(happy).toMatch(/\*\*Current reply\*\*\n\n```\nWhich order should I refund\? Please give me the order number\.\n```/)
    expect(happy).toContain('**Failing check**: <code>contains</code> — turn 3: expected output to contain')
    expect(happy).toContain("<details><summary>This run's conversation (4 turns)</summary>")
    // the simulated conversation is judged as a whole: the turn its rubric failed on, and where it first went another way
    const simulated = markdown.slice(markdown.indexOf('<summary><code>refund-simulated</code>'))
    expect(simulated).toContain('**First differing turn: turn 5 of 5**')
    expect(simulated).toContain('first read differently at **turn 3**')
  })

  it('the released bot (BOT_VERSION 1) passes every case, as the baseline did', async () => {
    // the example as it is, but for the bot's version: fingerprints name files relative to the config
    const dir = tempProject({})
    cpSync(DIR, dir, { recursive: true })
    const config = path.join(dir, 'evalgate.yml')
    writeFileSync(config, readFileSync(config, 'utf8').replace('BOT_VERSION: "2"', 'BOT_VERSION: "1"'))
    const run = await runCli(['run', '-c', config, '--out', path.join(dir, 'run.json'), '--quiet'])
    expect(run.code).toBe(0)
    const record = await readRunRecord(path.join(dir, 'run.json'))
    expect(record.cases.every((c) => c.passed)).toBe(true)
    const baseline = await readRunRecord(path.join(DIR, 'baseline.json'))
    // the baseline is this run: the same cases, fingerprints and transcripts
    expect(baseline.cases.map((c) => [c.id, c.fingerprint, c.turns?.map((t) => t.output)])).toEqual(
      record.cases.map((c) => [c.id, c.fingerprint, c.turns?.map((t) => t.output)])
    )
  })
})
