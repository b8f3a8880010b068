import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from './__fixtures__/cli.js'

const agent = `export default (input) => (String(input).includes('7') ? 'no' : 'yes: ' + input)\n`
const cases = Array.from({ length: 24 }, (_, i) => JSON.stringify({ id: `c${i}`, input: `q${i}`, expected: 'yes' })).join('\n')
const config = (name = 'sharded', extra = '') => `name: ${name}\ndataset: cases.jsonl\ntarget: { module: ./agent.mjs }\n${extra}`

/** A project and its run split in three, each shard written by `evalgate run --shard i/3`. */
async function shardedProject(extra = ''): Promise<{ dir: string; shards: string[] }> {
  const dir = tempProject({ 'agent.mjs': agent, 'cases.jsonl': cases, 'evalgate.yml': config('sharded', extra) })
  const shards: string[] = []
  for (const i of [1, 2, 3]) {
    const out = path.join(dir, `shard-${i}.json`)
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--shard', `${i}/3`, '--out', out, '--quiet'])
    expect(res.code).toBe(0)
    shards.push(out)
  }
  return { dir, shards }
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'))

describe('evalgate merge', () => {
  it('joins the shards into the record of the whole run, in dataset order, and gates it', async () => {
    const { dir, shards } = await shardedProject()
    const out = path.join(dir, 'run.json')
    const report = path.join(dir, 'report.md')
    const res = await runCli(['merge', ...shards, '--out', out, '-c', path.join(dir, 'evalgate.yml'), '--report', report])
    expect(res.code).toBe(0)
    expect(res.stderr).toContain(`evalgate: merged 3 shards: 24 cases written to ${out}`)
    const merged = read(out)
    expect(merged.cases.map((c: { id: string }) => c.id)).toEqual(Array.from({ length: 24 }, (_, i) => `c${i}`))
    expect(merged.summary).toMatchObject({ total: 24, passed: 22, failed: 2 })
    expect(merged.config.shard).toBeNull()
    expect(readFileSync(report, 'utf8')).toBe(res.stdout)
  })

  it('holds the merged run, not each shard, to the floors: a shard below minPassRate passes, the merged run fails', async () => {
    // c7 and c17 fail: 22 of 24 (91.7%) overall; shardedProject checks that every shard run exits 0
    const { dir, shards } = await shardedProject('gate: { minPassRate: 0.95, minMeanScore: 0 }\n')
    const below = shards.map(read).filter((r: { summary: { passRate: number } }) => r.summary.passRate < 0.95)
    expect(below.length).toBeGreaterThan(0)
    const res = await runCli(['merge', ...shards, '--out', path.join(dir, 'run.json'), '-c', path.join(dir, 'evalgate.yml'), '--quiet'])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('pass rate 91.7% is below minPassRate 95.0% (22 of 24 cases passed); failing: c7, c17')
  })

  it('compares with a baseline and fails the gate on a regression', async () => {
    const { dir, shards } = await shardedProject()
    // the baseline: the merged run with c7 passing
    const whole = path.join(dir, 'whole.json')
    expect((await runCli(['merge', ...shards, '--out', whole, '--quiet'])).code).toBe(0)
    const record = read(whole)
    const c7 = record.cases.find((c: { id: string }) => c.id === 'c7')
    Object.assign(c7, { passed: true, passFraction: 1 })
    writeFileSync(path.join(dir, 'baseline.json'), JSON.stringify(record))
    const cmp = path.join(dir, 'cmp.json')
    const res = await runCli(['merge', ...shards, '--out', path.join(dir, 'run.json'), '--baseline', path.join(dir, 'baseline.json'), '--json', cmp, '--quiet'])
    expect(res.code).toBe(1)
    expect(read(cmp).regressed).toEqual(['c7'])
  })

  it.each([
    ['a missing shard', (shards: string[]) => [shards[0]!, shards[2]!], 'missing shard 2/3'],
    ['a shard given twice', (shards: string[]) => [...shards, shards[1]!], 'given twice'],
    ['no shard at all', () => [], 'merge takes the shard records']
  ])('exits 2 on %s', async (_label, pick, message) => {
    const { dir, shards } = await shardedProject()
    const res = await runCli(['merge', ...pick(shards), '--out', path.join(dir, 'run.json')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(message)
    expect(res.stderr).not.toContain('    at ')
  })

  it('exits 2 without --out, and on shards of another config named with -c', async () => {
    const { dir, shards } = await shardedProject()
    const noOut = await runCli(['merge', ...shards])
    expect(noOut.code).toBe(2)
    expect(noOut.stderr).toContain('merge needs --out run.json')
    writeFileSync(path.join(dir, 'other.yml'), config('other'))
    const other = await runCli(['merge', ...shards, '--out', path.join(dir, 'run.json'), '-c', path.join(dir, 'other.yml')])
    expect(other.code).toBe(2)
    // the config's name is part of its dataset's fingerprint
    expect(other.stderr).toContain(`${shards[0]}: shard 1/3 was made from dataset`)
    expect(other.stderr).toContain(`the dataset of ${path.join(dir, 'other.yml')}`)
  })

  it('row 14: refuses shard 3 of a run of a different dataset, naming its file', async () => {
    const { dir, shards } = await shardedProject()
    // shard 3 again, from a dataset with one case edited: same config, same split, same case keys
    const edited = cases.replace('"input":"q23"', '"input":"q23 edited"')
    const other = tempProject({ 'agent.mjs': agent, 'cases.jsonl': edited, 'evalgate.yml': config() })
    const foreign = path.join(other, 'shard-3.json')
    expect((await runCli(['run', '-c', path.join(other, 'evalgate.yml'), '--shard', '3/3', '--out', foreign, '--quiet'])).code).toBe(0)
    const res = await runCli(['merge', shards[0]!, shards[1]!, foreign, '--out', path.join(dir, 'run.json')])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`${foreign}: shard 3/3 was made from dataset`)
    expect(res.stderr).toContain("not from the other shards' dataset")
    // and with the config named, against the config's own dataset
    const named = await runCli(['merge', shards[0]!, shards[1]!, foreign, '--out', path.join(dir, 'run.json'), '-c', path.join(dir, 'evalgate.yml')])
    expect(named.code).toBe(2)
    expect(named.stderr).toContain(`${foreign}: shard 3/3 was made from dataset`)
    expect(named.stderr).toContain(`the dataset of ${path.join(dir, 'evalgate.yml')}`)
  })
})
