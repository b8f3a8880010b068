// Re-records examples/quickstart/baseline.json: the quick start's bot at its
// previous release (AGENT_VERSION=1) on the previous release's dataset (it had
// legacy-greeting, not unknown-question, and sky checked with icontains) run
// through the built CLI (npm run bundle first). Needed when the record or
// fingerprint format changes; the run's metadata is fixed so that the file
// changes only where the format does.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const dir = 'examples/quickstart'
const config = path.join(dir, '.v1.evalgate.yml')
const cases = path.join(dir, '.v1.cases.yaml')
const out = path.join(dir, 'baseline.json')
const v1Cases = readFileSync(path.join(dir, 'cases.yaml'), 'utf8')
  .replace(/- id: unknown-question\n(?:(?!- id:).*\n)*/, '')
  .replace('assert: [{ type: iequals, value: Blue }]', 'assert: [{ type: icontains, value: blue }]')
writeFileSync(cases, `${v1Cases}- id: legacy-greeting\n  input: Hey\n  expected: Hello\n`)
writeFileSync(
  config,
  readFileSync(path.join(dir, 'evalgate.yml'), 'utf8')
    .replace('AGENT_VERSION: "2"', 'AGENT_VERSION: "1"')
    .replace('dataset: cases.yaml', 'dataset: .v1.cases.yaml')
)
try {
  execFileSync(process.execPath, ['dist/cli/index.js', 'run', '-c', config, '--out', out, '--quiet'], { stdio: ['ignore', 'inherit', 'inherit'] })
} catch (err) {
  // the previous release fails its own gate on nothing (no baseline): only a usage or internal error is one
  if (err.status !== 0 && err.status !== 1) throw err
} finally {
  rmSync(config, { force: true })
  rmSync(cases, { force: true })
}
const record = JSON.parse(readFileSync(out, 'utf8'))
record.createdAt = '2026-11-30T14:16:38.356Z'
record.git = { sha: '3f2c1a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39', ref: 'refs/heads/main', runId: '1001' }
for (const c of record.cases) {
  if (c.source) c.source.file = c.source.file.replace('.v1.cases.yaml', 'cases.yaml')
  c.durationMs = 20
  for (const t of c.trials ?? []) t.durationMs = 20
}
record.summary.durationMs = 573
writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`)
console.log(`wrote ${out}: ${record.cases.length} cases, ${record.summary.passed} passed`)
