// npm run bench:flaky [-- --seeds 20 --cases 500 --broken 10 --flake 0.15 --broken-pass 0 --trials 5 --reruns 5]
// A simulation of flaky agents: agent B is agent A with a few cases truly
// broken, and every case fails at random some of the time. Run records are
// built directly from seeded draws and compared by the bundled library's
// compareRuns (dist/lib, rebuilt by `npm run bundle`), the same code the action
// gates with. It counts how many broken cases each way of comparing catches,
// and how many healthy cases it calls regressed.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { importFixture } from './fixture.mjs'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    cases: { type: 'string', default: '500' },
    broken: { type: 'string', default: '10' },
    flake: { type: 'string', default: '0.15' },
    'broken-pass': { type: 'string', default: '0' },
    trials: { type: 'string', default: '5' },
    reruns: { type: 'string', default: '5' },
    history: { type: 'string', default: '10' },
    // another build of the library, e.g. one made outside dist/
    lib: { type: 'string', default: 'dist/lib/index.js' }
  }
})
const SEEDS = Number(values.seeds)
const CASES = Number(values.cases)
const BROKEN = Number(values.broken)
const FLAKE = Number(values.flake)
const BROKEN_PASS = Number(values['broken-pass'])
const K = Number(values.trials)
const RERUNS = Number(values.reruns)
const HISTORY = Number(values.history)

const { compareRuns } = await import(pathToFileURL(path.resolve(values.lib)).href)

// the tests' seeded generator: the same seed gives the same stream on every machine
const { seededRandom } = await importFixture('__tests__/compare/random.ts')

// the gate as the config schema fills it in (maxRegressions 0, alpha 0.05)
const GATE = { maxRegressions: 0, minPassRate: 0, minMeanScore: 0, failOnMissingBaseline: false, alpha: 0.05, useConfidenceBound: false }
const THRESHOLD = 0.5 // repeatPassThreshold

function trial(passed) {
  return { passed, output: passed ? 'good' : 'bad', error: null, score: null, durationMs: 1, assertions: [] }
}

/** A case result from its trials, folded as the runner does (passFraction ≥ repeatPassThreshold). */
function caseResult(id, trials, extra = {}) {
  const passedTrials = trials.filter((t) => t.passed).length
  const passed = trials.length === 1 ? trials[0].passed : passedTrials / trials.length >= THRESHOLD
  const c = {
    id,
    name: id,
    tags: [],
    fingerprint: `fp-${id}`,
    input: id,
    passed,
    passFraction: passedTrials / trials.length,
    output: passed ? 'good' : 'bad',
    error: null,
    score: null,
    durationMs: 1,
    assertions: [],
    ...extra
  }
  if (trials.length > 1) c.trials = trials
  return c
}

function record(cases) {
  const passed = cases.filter((c) => c.passed).length
  return {
    schemaVersion: 1,
    tool: { name: 'evalgate', version: 'bench' },
    name: 'bench-flaky',
    createdAt: '2026-12-01T00:00:00.000Z',
    complete: true,
    git: { sha: null, ref: 'refs/heads/main', runId: null },
    summary: {
      total: cases.length,
      passed,
      failed: cases.length - passed,
      errors: 0,
      passRate: passed / cases.length,
      meanScore: null,
      durationMs: 0,
      judge: { calls: 0, reused: 0, errors: 0, tokens: 0 }
    },
    cases
  }
}

/** The draws of one seed: which cases are broken, and a stream of trials per case and agent. */
function world(seed) {
  const random = seededRandom(seed)
  const ids = Array.from({ length: CASES }, (_, i) => `case-${i}`)
  const broken = new Set()
  while (broken.size < BROKEN) broken.add(ids[Math.floor(random() * CASES)])
  // each case and agent draws from its own stream, so every scenario sees the same first trials
  const streams = new Map()
  const draw = (agent, id, n) => {
    const key = `${agent}:${id}`
    if (!streams.has(key)) streams.set(key, seededRandom(seed * 1_000_003 + hash(key)))
    const next = streams.get(key)
    const pass = agent === 'B' && broken.has(id) ? BROKEN_PASS : 1 - FLAKE
    return Array.from({ length: n }, () => trial(next() < pass))
  }
  return { ids, broken, draw }
}

function hash(text) {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0
  return h
}

/**
 * The ways of comparing, each on fresh draws of the same world:
 * single: one trial each side, every flip counts (what a plain diff of two runs does);
 * history: one trial each side, with the flake history of `HISTORY` earlier runs of A on main
 *   (known-flaky cases: a single failure is not counted);
 * fisher: k trials each side, one-sided Fisher exact test per case;
 * reruns: k trials each side, flips re-run `RERUNS` times (rerunFlips), then Fisher.
 */
const SCENARIOS = {
  single: { label: 'single sample (k=1 both sides, every flip counts)', run: (w) => compare(w, 1, 0, 0) },
  'single+reruns': { label: `k=1, rerunFlips ${RERUNS}`, run: (w) => compare(w, 1, RERUNS, 0) },
  'single+history': { label: `k=1, flake history of ${HISTORY} runs on main`, run: (w) => compare(w, 1, 0, HISTORY) },
  'single+history+reruns': { label: `k=1, flake history + rerunFlips ${RERUNS}`, run: (w) => compare(w, 1, RERUNS, HISTORY) },
  fisher: { label: `evalgate k=${K}, Fisher at alpha 0.05`, run: (w) => compare(w, K, 0, 0) },
  reruns: { label: `evalgate k=${K}, Fisher + rerunFlips ${RERUNS}`, run: (w) => compare(w, K, RERUNS, 0) }
}

function compare(w, k, reruns, historyRuns) {
  const { ids, draw } = w
  const baselineCases = ids.map((id) => {
    // earlier runs of A on main, from a stream of their own so that the baseline's trials are the same as without
    const history = historyRuns
      ? draw('H', id, historyRuns)
          .map((t) => (t.passed ? 'P' : 'F'))
          .join('')
      : undefined
    return caseResult(id, draw('A', id, k), history ? { history } : {})
  })
  const before = new Map(baselineCases.map((c) => [c.id, c]))
  const currentCases = ids.map((id) => {
    const first = draw('B', id, k)
    const c = caseResult(id, first)
    if (!reruns || c.passed === before.get(id).passed) return c
    return caseResult(id, [...first, ...draw('B', id, reruns)], { reruns })
  })
  const comparison = compareRuns(record(baselineCases), record(currentCases), GATE)
  const caught = comparison.regressed.filter((id) => w.broken.has(id)).length
  const falseRegressions = comparison.regressed.length - caught
  const trials = currentCases.reduce((n, c) => n + (c.trials?.length ?? 1), 0)
  return { caught, falseRegressions, trials, flaky: comparison.flaky.length }
}

const results = Object.fromEntries(Object.keys(SCENARIOS).map((name) => [name, []]))
for (let seed = 1; seed <= SEEDS; seed++) {
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    // the same world for every scenario of a seed: the same broken cases and the same first trials
    results[name].push(scenario.run(world(seed)))
  }
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
console.log(
  `bench:flaky — ${CASES} cases, ${BROKEN} truly broken in B (pass probability ${BROKEN_PASS}), every case failing ${(FLAKE * 100).toFixed(0)}% of trials at random; ${SEEDS} seeds`
)
console.log('')
console.log('scenario                                              caught (of 10)   false regressions   flaky   current trials')
console.log('                                                      seed 1 · mean    seed 1 · mean · max  (mean)  (mean)')
for (const [name, scenario] of Object.entries(SCENARIOS)) {
  const r = results[name]
  const caught = r.map((x) => x.caught)
  const falses = r.map((x) => x.falseRegressions)
  console.log(
    `${scenario.label.padEnd(54)}${String(caught[0]).padStart(6)} · ${mean(caught).toFixed(2).padEnd(8)}${String(falses[0]).padStart(5)} · ${mean(falses).toFixed(2).padStart(5)} · ${String(Math.max(...falses)).padEnd(5)}${mean(
      r.map((x) => x.flaky)
    )
      .toFixed(1)
      .padStart(7)}${mean(r.map((x) => x.trials))
      .toFixed(0)
      .padStart(9)}`
  )
}
const goal = results.reruns
const met = goal.filter((x) => x.caught >= Math.ceil(BROKEN * 0.9) && x.falseRegressions <= 1).length
console.log('')
console.log(
  `goal (≥ ${Math.ceil(BROKEN * 0.9)} of ${BROKEN} caught, ≤ 1 false regression) met by "${SCENARIOS.reruns.label}" in ${met} of ${SEEDS} seeds; ` +
    `by "${SCENARIOS.fisher.label}" in ${results.fisher.filter((x) => x.caught >= Math.ceil(BROKEN * 0.9) && x.falseRegressions <= 1).length} of ${SEEDS}`
)
