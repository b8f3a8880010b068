/**
 * `--junit FILE` on run, compare and merge: the one verdict and every case,
 * valid against the common JUnit schema and read back by a JUnit parser.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { parse, type TestSuite } from 'junit2json'
import { validateXML } from 'xmllint-wasm'
import { runCli, tempProject } from './__fixtures__/cli.js'
import { makeBaseline, makeCases, makeRun } from './__fixtures__/records.js'

const XSD = readFileSync(fileURLToPath(new URL('./__fixtures__/junit/junit-10.xsd', import.meta.url)), 'utf8')
const quickstart = path.resolve('examples/quickstart')
/** The quick start's config and its committed baseline. */
const againstBaseline = ['-c', path.join(quickstart, 'evalgate.yml'), '--baseline', path.join(quickstart, 'baseline.json')]

async function readJunit(file: string): Promise<TestSuite> {
  const xml = readFileSync(file, 'utf8')
  const valid = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: XSD }] })
  expect(valid.errors.map((e) => e.rawMessage)).toEqual([])
  const parsed = (await parse(xml)) as { testsuite: TestSuite[] }
  return parsed.testsuite[0]!
}

const property = (suite: TestSuite, name: string) => (suite.properties ?? []).filter((p) => p.name === name).map((p) => String(p.value))

describe('--junit', () => {
  it('run: the quick start against its baseline — every case, the regressed ones said so, the verdict fail', async () => {
    const dir = tempProject({})
    const f = (name: string) => path.join(dir, name)
    const outputs = ['--out', f('run.json'), '--json', f('cmp.json'), '--junit', f('out/junit.xml'), '--quiet']
    const res = await runCli(['run', ...againstBaseline, ...outputs])
    expect(res.code).toBe(1)
    const suite = await readJunit(f('out/junit.xml'))
    const record = JSON.parse(readFileSync(f('run.json'), 'utf8')) as { name: string; cases: { id: string; name: string; passed: boolean }[] }
    const cmp = JSON.parse(readFileSync(f('cmp.json'), 'utf8')) as { regressed: string[]; verdict: { status: string } }
    expect(suite.name).toBe(record.name)
    expect(suite.testcase!.map((t) => t.name)).toEqual(record.cases.map((c) => c.name))
    expect(suite.failures! + suite.errors!).toBe(record.cases.filter((c) => !c.passed).length)
    const byName = new Map(record.cases.map((c) => [c.name, c.id]))
    const regressed = suite.testcase!.filter((t) => (t.failure ?? t.error)?.[0]?.type === 'regressed').map((t) => byName.get(t.name!))
    expect(regressed).toEqual(cmp.regressed)
    expect(property(suite, 'verdict')).toEqual([cmp.verdict.status])
    expect(property(suite, 'verdict')).toEqual(['fail'])
  })

  it('compare: a baseline that cannot be compared is could-not-tell in the JUnit too', async () => {
    const dir = tempProject({
      'base.json': JSON.stringify(makeBaseline(makeCases('a', 'b'), { fingerprintVersion: 1 })),
      'cur.json': JSON.stringify(makeRun(makeCases('a', '!b')))
    })
    const f = (name: string) => path.join(dir, name)
    const res = await runCli(['compare', f('base.json'), f('cur.json'), '--junit', f('j.xml'), '--quiet'])
    expect(res.code).toBe(1)
    const suite = await readJunit(f('j.xml'))
    expect(property(suite, 'verdict')).toEqual(['could-not-tell'])
    expect(property(suite, 'reason')[0]).toMatch(/^baseline-incompatible: the baseline cannot be compared with this run/)
    expect(suite.failures).toBe(1)
  })

  it('merge: the merged run', async () => {
    const dir = tempProject({})
    const f = (name: string) => path.join(dir, name)
    const config = path.join(quickstart, 'evalgate.yml')
    for (const shard of ['1/2', '2/2']) expect((await runCli(['run', '-c', config, '--shard', shard, '--out', f(`s${shard[0]}.json`), '--quiet'])).code).toBe(0)
    const res = await runCli(['merge', f('s1.json'), f('s2.json'), '--out', f('m.json'), '-c', config, '--junit', f('m.xml'), '--quiet'])
    expect(res.code).toBe(0)
    const merged = JSON.parse(readFileSync(f('m.json'), 'utf8')) as { cases: unknown[] }
    expect((await readJunit(f('m.xml'))).tests).toBe(merged.cases.length)
  })

  it('a path that cannot be written is a usage error naming the flag', async () => {
    const dir = tempProject({ 'cur.json': JSON.stringify(makeRun(makeCases('a'))), taken: '' })
    writeFileSync(path.join(dir, 'taken'), 'a file, not a folder')
    const res = await runCli(['compare', path.join(dir, 'cur.json'), path.join(dir, 'cur.json'), '--junit', path.join(dir, 'taken', 'j.xml'), '--quiet'])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`--junit ${path.join(dir, 'taken', 'j.xml')}: cannot write it`)
  })
})
