// node scripts/mutation-table.mjs [reports/mutation]
//
// The per-file and per-folder mutation scores of the last `npm run mutate` runs, from their JSON
// reports (one per run name: a folder, or folder-file), as a Markdown table. A file measured by more
// than one report counts once, from the newest report. Score = (killed + timeout) / (killed + timeout
// + survived + no coverage); ignored mutants (--ignoreStatic) are outside it. A run limited to some
// tests (EVALGATE_MUTATE_TESTS) gives a lower bound: a mutant only other tests kill counts as survived.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

const dir = process.argv[2] ?? 'reports/mutation'
const reports = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && !f.endsWith('-incremental.json'))
  .map((f) => path.join(dir, f))
  .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)

const STATUSES = ['Killed', 'Timeout', 'Survived', 'NoCoverage', 'Ignored']
const zero = () => Object.fromEntries(STATUSES.map((status) => [status, 0]))

const files = new Map()
for (const report of reports) {
  const { files: measured } = JSON.parse(readFileSync(report, 'utf8'))
  for (const [file, { mutants }] of Object.entries(measured)) {
    const count = zero()
    for (const m of mutants) if (m.status in count) count[m.status]++
    files.set(file.replace(/^src\//, ''), count)
  }
}

const score = (c) => {
  const valid = c.Killed + c.Timeout + c.Survived + c.NoCoverage
  return valid === 0 ? '—' : `${((100 * (c.Killed + c.Timeout)) / valid).toFixed(1)}%`
}
const row = (name, c) => `| ${name} | ${score(c)} | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${c.Ignored} |`
console.log('| file | score | killed | timeout | survived | no coverage | ignored |')
console.log('|---|---|---|---|---|---|---|')
const folders = new Map()
for (const [file, c] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(row(file, c))
  const folder = file.split('/')[0]
  const sum = folders.get(folder) ?? { ...zero(), files: 0 }
  for (const status of STATUSES) sum[status] += c[status]
  sum.files++
  folders.set(folder, sum)
}
for (const [folder, c] of folders) console.log(row(`**${folder}/ (${c.files} files)**`, c))
