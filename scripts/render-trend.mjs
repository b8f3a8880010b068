// The trend page over 30 runs of the support agent example (examples/agent),
// screenshot by headless Chromium, to look at it as a reader would.
//
//   node scripts/render-trend.mjs [out-dir]      (default: ../trend-shots)
//
// One real run of the example (`evalgate run`, AGENT_VERSION 1) is the first
// record; the 29 after it are that record as a month of daily runs might have
// left it: each a day later, with another commit, cases failing and passing
// as a seeded walk moves, latency and tokens drifting (a cheaper model for a
// week, then the larger one back). Their summaries are recomputed from their
// cases, as evalgate writes them. Then `evalgate trend` (the built CLI,
// dist/cli/index.js) writes the HTML page and the markdown, and Chromium
// screenshots the page. Needs /usr/bin/chromium and a built dist/.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, '..', 'trend-shots'))
const CLI = path.join(ROOT, 'dist/cli/index.js')
const RUNS = 30
mkdirSync(OUT, { recursive: true })
const work = mkdtempSync(path.join(tmpdir(), 'evalgate-trend-'))

function cli(args, env = {}) {
  try {
    return execFileSync(process.execPath, [CLI, ...args], {
      cwd: path.join(ROOT, 'examples/agent'),
      env: { ...process.env, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    })
  } catch (err) {
    // a failing gate exits 1 with its record written all the same
    if (err.status === 1) return err.stdout
    throw err
  }
}

/** A small seeded generator (mulberry32): the same month every time. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

try {
  const first = path.join(work, 'run-01.json')
  cli(['run', '-c', 'evalgate.yml', '--out', first, '--quiet'], { AGENT_VERSION: '1' })
  const base = JSON.parse(readFileSync(first, 'utf8'))
  const rand = random(37)
  const files = [first]
  // how likely a case is to fail on day i: a regression in the second week, fixed in the third
  const failRate = (i) => (i >= 8 && i <= 13 ? 0.3 : i >= 20 ? 0.04 : 0.12)
  for (let i = 1; i < RUNS; i++) {
    const cheap = i >= 15 && i < 22
    const cases = base.cases.map((c) => {
      const passed = c.passed ? rand() >= failRate(i) : rand() < 0.5
      const drift = (cheap ? 0.55 : 1) * (1 + 0.1 * Math.sin(i / 3) + 0.05 * (rand() - 0.5))
      const usage = c.usage && {
        ...c.usage,
        ...(c.usage.inputTokens !== undefined ? { inputTokens: Math.round(c.usage.inputTokens * drift) } : {}),
        ...(c.usage.outputTokens !== undefined ? { outputTokens: Math.round(c.usage.outputTokens * drift) } : {}),
        ...(c.usage.costUsd !== undefined ? { costUsd: c.usage.costUsd * drift } : {})
      }
      const latencyMs = c.latencyMs === undefined ? undefined : c.latencyMs * (cheap ? 0.7 : 1) * (1 + 0.25 * rand()) * (i >= 8 && i <= 13 ? 1.4 : 1)
      // the judge's scores sag with the regression and recover
      const score = c.score === null ? null : Math.max(0, Math.min(1, c.score - 0.12 * rand() - (i >= 8 && i <= 13 ? 0.15 : 0)))
      return { ...c, passed, passFraction: passed ? 1 : 0, score, ...(usage ? { usage } : {}), ...(latencyMs === undefined ? {} : { latencyMs }) }
    })
    const scores = cases.map((c) => c.score).filter((s) => s !== null)
    const passedCount = cases.filter((c) => c.passed).length
    const record = {
      ...base,
      createdAt: new Date(Date.parse(base.createdAt) + i * 86_400_000).toISOString(),
      git: { ...base.git, sha: createHash('sha1').update(`day ${i}`).digest('hex'), runId: String(1000 + i) },
      summary: {
        ...base.summary,
        passed: passedCount,
        failed: cases.length - passedCount,
        passRate: cases.length ? passedCount / cases.length : 0,
        meanScore: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null
      },
      cases
    }
    const file = path.join(work, `run-${String(i + 1).padStart(2, '0')}.json`)
    writeFileSync(file, JSON.stringify(record))
    files.push(file)
  }
  const html = path.join(OUT, 'trend.html')
  const md = path.join(OUT, 'trend.md')
  cli(['trend', ...files, '--html', html, '--markdown', md])
  const profile = mkdtempSync(path.join(tmpdir(), 'evalgate-chromium-'))
  try {
    execFileSync(
      '/usr/bin/chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        `--user-data-dir=${profile}`,
        '--hide-scrollbars',
        '--window-size=900,1500',
        `--screenshot=${path.join(OUT, 'trend.png')}`,
        pathToFileURL(html).href
      ],
      { stdio: 'ignore' }
    )
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
  console.log(`wrote ${html}, ${md} and ${path.join(OUT, 'trend.png')}`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
