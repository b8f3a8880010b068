// npm run bench [-- --cases N]
// 10,000 cases (default) with an instant in-process `module` target and one
// `contains` assertion each, through the bundled library (dist/lib): the whole
// pipeline of `evalgate run` (load, run, record, compare, report). Each scenario
// runs in a fresh Node process that reports its own wall time and peak memory.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { cases: { type: 'string', default: '10000' }, child: { type: 'string' } } })

if (values.child) {
  // child mode: run one evaluation and print its figures as JSON
  const started = performance.now()
  const lib = await import(path.resolve('dist/lib/index.js'))
  const loaded = await lib.loadEvalConfig(values.child)
  const { record, comparison } = await lib.evaluate(loaded, { env: {} })
  const report = lib.renderReport({ comparison, baseline: null, current: record })
  const wallMs = performance.now() - started
  process.stdout.write(JSON.stringify({ wallMs, peakRssMb: process.resourceUsage().maxRSS / 1024, passed: record.summary.passed, total: record.summary.total, reportChars: report.length }))
  process.exit(0)
}

function scenario(n) {
  const dir = mkdtempSync(path.join(tmpdir(), 'evalgate-bench-'))
  writeFileSync(path.join(dir, 'agent.mjs'), 'export default (input) => `echo: ${input}`\n')
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ id: `c${i}`, input: `question ${i}`, assert: [{ type: 'contains', value: `question ${i}` }] }))
  writeFileSync(path.join(dir, 'cases.jsonl'), `${lines.join('\n')}\n`)
  writeFileSync(path.join(dir, 'evalgate.yml'), 'name: bench\ndataset: cases.jsonl\nconcurrency: 64\ntarget: { module: ./agent.mjs }\n')
  return dir
}

const n = Number(values.cases)
const dir = scenario(n)
try {
  const t0 = performance.now()
  const child = spawnSync(process.execPath, [process.argv[1], '--child', path.join(dir, 'evalgate.yml')], { encoding: 'utf8' })
  const processMs = performance.now() - t0
  if (child.status !== 0) throw new Error(`bench child failed (${child.status}): ${child.stderr}`)
  const r = JSON.parse(child.stdout)
  if (r.passed !== n) throw new Error(`expected ${n} passing cases, got ${r.passed}`)
  // promptfoo 0.121 on this machine, same work (issue 2): about 13 s and 690 MB
  const peer = { wallMs: 13000, peakRssMb: 690 }
  console.log(`cases: ${n} (module target, one contains assertion each)`)
  console.log(`wall (process start to exit): ${(processMs / 1000).toFixed(2)} s  — pipeline ${(r.wallMs / 1000).toFixed(2)} s, ${((r.wallMs * 1000) / n).toFixed(1)} µs/case`)
  console.log(`peak memory (maxRSS): ${r.peakRssMb.toFixed(0)} MB`)
  if (n === 10000) {
    console.log(`vs promptfoo reference (${peer.wallMs / 1000} s, ${peer.peakRssMb} MB): time ×${(processMs / peer.wallMs).toFixed(3)}, memory ×${(r.peakRssMb / peer.peakRssMb).toFixed(3)}`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
