// Re-records examples/conversation/baseline.json: the refund bot at its
// released version (BOT_VERSION=1) through the built CLI (npm run bundle
// first). Needed when the record or fingerprint format changes; the run's
// metadata and timings are fixed so that the file changes only where the
// format or the bot's answers do.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const dir = 'examples/conversation'
const config = path.join(dir, '.v1.evalgate.yml')
const out = path.join(dir, 'baseline.json')
writeFileSync(config, readFileSync(path.join(dir, 'evalgate.yml'), 'utf8').replace('BOT_VERSION: "2"', 'BOT_VERSION: "1"'))
try {
  execFileSync(process.execPath, ['dist/cli/index.js', 'run', '-c', config, '--out', out, '--quiet'], { stdio: ['ignore', 'inherit', 'inherit'] })
} finally {
  rmSync(config, { force: true })
}
const record = JSON.parse(readFileSync(out, 'utf8'))
record.createdAt = '2026-11-30T14:16:38.356Z'
record.git = { sha: '7d1e4b2a9c8f6e5d4c3b2a190817f6e5d4c3b2a1', ref: 'refs/heads/main', runId: '2001' }
// latencies are kept as measured: the pull request's run measures its own the same way
for (const c of record.cases) {
  c.durationMs = 4
  for (const t of c.trials ?? []) t.durationMs = 4
}
record.summary.durationMs = 120
writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`)
console.log(`wrote ${out}: ${record.cases.length} cases, ${record.summary.passed} passed`)
