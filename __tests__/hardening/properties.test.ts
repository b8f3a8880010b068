/**
 * Property tests (fast-check): the loaders meet any value at all and either
 * load it or refuse it with a ConfigError (never another exception), and the
 * comparison keeps its invariants on any pair of runs.
 */
import { beforeEach, describe, expect, it } from '@jest/globals'
import { sentences } from '../__fixtures__/report.js'
import fc from 'fast-check'
import { stringify } from 'yaml'
import { validateAssertion } from '../../src/assertions/index.js'
import { compareRuns } from '../../src/compare/index.js'
import { normalizeCases, parseDatasetText } from '../../src/config/dataset.js'
import { parseConfig } from '../../src/config/load.js'
import { parseJsonl } from '../../src/config/parse.js'
import { parseRunRecord } from '../../src/config/record.js'
import { ConfigError } from '../../src/errors.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { makeCase, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

/** Bounded so that the suite stays within seconds. */
const RUNS = { numRuns: 300 }

/** How often each property loaded and refused: both must happen, or the generators miss a side. */
const tally = { loaded: 0, refused: 0 }

/** Runs f; anything but success or a ConfigError (RecordError included) fails the property. */
function loadsOrRefuses(f: () => unknown): void {
  try {
    f()
    tally.loaded++
  } catch (err) {
    if (!(err instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`)
    expect(err.message).not.toBe('')
    tally.refused++
  }
}

beforeEach(() => {
  tally.loaded = 0
  tally.refused = 0
})

function expectBothSides(): void {
  expect(tally.loaded).toBeGreaterThan(0)
  expect(tally.refused).toBeGreaterThan(0)
}

/** JSON-like values, with keys evalgate knows mixed among random ones so that validation is reached. */
const knownKeys = [
  'version',
  'name',
  'dataset',
  'cases',
  'target',
  'command',
  'module',
  'http',
  'openai',
  'judge',
  'gate',
  'defaults',
  'assert',
  'type',
  'value',
  'input',
  'id',
  'tags',
  'expected',
  'check',
  'grading_method',
  'ideal',
  'threshold',
  'weight',
  'flags',
  'timeoutMs',
  'env',
  'url',
  'provider',
  'repeat',
  'concurrency'
]
const key = fc.oneof(fc.constantFrom(...knownKeys), fc.string({ maxLength: 8 }))
const scalar = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    'contains',
    'regex',
    'equals',
    'llm-rubric',
    'javascript',
    'is-json',
    'numeric',
    '(',
    '[a-',
    'not-contains',
    'output.length',
    '${HOME}',
    '{{input}}',
    'node a.js | x'
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null)
)
const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 5 }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 5 }))
}))

/** Mostly `valid`, sometimes anything. */
const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: jsonish, weight: 1 })

/** A config close to valid: the known shape with any value in any place. */
const configLike = fc.record(
  {
    version: mostly(fc.constant(1)),
    name: mostly(fc.constant('x')),
    target: mostly(
      fc.record(
        { command: mostly(fc.constant(['node', 'a.js'])), timeoutMs: mostly(fc.integer({ min: 1, max: 1000 })), env: mostly(fc.constant({ A: 'b' })) },
        { requiredKeys: ['command'] }
      )
    ),
    cases: mostly(fc.array(fc.record({ input: jsonish, assert: jsonish, id: jsonish }, { requiredKeys: [] }), { maxLength: 3 })),
    judge: mostly(fc.constant({ model: 'm', threshold: 0.5 })),
    gate: mostly(fc.record({ maxRegressions: mostly(fc.nat(5)) }, { requiredKeys: [] })),
    defaults: mostly(fc.constant({ tags: ['t'] }))
  },
  { requiredKeys: ['target', 'cases'] }
)

/** Cases close to valid, with any value in any place. */
const assertionLike = fc.record(
  {
    type: fc.oneof(fc.constantFrom('contains', 'regex', 'equals', 'numeric', 'is-json', 'javascript', 'levenshtein', 'not-contains', 'contains-any'), jsonish),
    value: jsonish,
    threshold: jsonish,
    flags: jsonish
  },
  { requiredKeys: [] }
)
const caseLike = fc.oneof(
  fc.record(
    {
      id: jsonish,
      input: jsonish,
      assert: fc.oneof(fc.array(assertionLike, { maxLength: 3 }), jsonish),
      expected: jsonish,
      tags: jsonish,
      grading_method: jsonish,
      check: jsonish,
      ideal: jsonish
    },
    { requiredKeys: [] }
  ),
  jsonish
)
const datasetLike = fc.oneof(fc.array(caseLike, { maxLength: 5 }), fc.record({ cases: fc.array(caseLike, { maxLength: 5 }) }), jsonish)

/** Text a user might save: YAML or JSON of the values above, raw strings, and corrupted versions of both. */
function texts(values: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const serialised = values.chain((v) => fc.constantFrom(JSON.stringify(v) ?? 'null', stringify(v)))
  const corrupted = fc.tuple(serialised, fc.nat(), fc.string({ maxLength: 5 })).map(([text, at, junk]) => {
    const i = text.length ? at % text.length : 0
    return text.slice(0, i) + junk + text.slice(i + 1)
  })
  return fc.oneof(serialised, corrupted, fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }))
}

function loadDataset(text: string, file: string): void {
  const source = parseDatasetText(text, file)
  normalizeCases([source], { defaults: { assert: [], tags: [] }, baseDir: process.cwd(), validateAssertion })
}

describe('the loaders load a value or refuse it with a ConfigError, never another exception', () => {
  it('config text', () => {
    fc.assert(
      fc.property(
        texts(fc.oneof({ arbitrary: configLike, weight: 3 }, { arbitrary: jsonish, weight: 1 })),
        fc.constantFrom('evalgate.yml', 'evalgate.json'),
        (text, file) => loadsOrRefuses(() => parseConfig(text, file))
      ),
      RUNS
    )
    expectBothSides()
  })

  it('dataset text (YAML and JSON)', () => {
    fc.assert(
      fc.property(texts(datasetLike), fc.constantFrom('cases.yaml', 'cases.json'), (text, file) => loadsOrRefuses(() => loadDataset(text, file))),
      RUNS
    )
    expectBothSides()
  })

  it('dataset text (JSONL)', () => {
    const lines = fc
      .array(
        fc.oneof(
          caseLike.map((c) => JSON.stringify(c) ?? 'null'),
          fc.string({ maxLength: 30 })
        ),
        { maxLength: 6 }
      )
      .map((l) => l.join('\n'))
    fc.assert(
      fc.property(lines, (text) => {
        loadsOrRefuses(() => parseJsonl(text, 'cases.jsonl'))
        loadsOrRefuses(() => loadDataset(text, 'cases.jsonl'))
      }),
      RUNS
    )
    expectBothSides()
  })

  it('run records: any JSON, and a valid record with any part replaced', () => {
    const valid = makeRun([makeCase('a'), makeCase('b', false, { trials: makeTrials(1, 2), score: 0.5 })])
    const paths: string[][] = [
      [],
      ['cases'],
      ['cases', '0'],
      ['cases', '0', 'id'],
      ['cases', '1', 'trials'],
      ['cases', '1', 'trials', '0'],
      ['summary'],
      ['summary', 'judge'],
      ['git'],
      ['tool'],
      ['complete'],
      ['config'],
      ['cases', '0', 'assertions', '0']
    ]
    const replaced = fc.tuple(fc.constantFrom(...paths), jsonish).map(([path, value]) => {
      const record = structuredClone(valid) as unknown as Record<string, unknown>
      if (path.length === 0) return value
      let at = record as Record<string, unknown>
      for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>
      at[path[path.length - 1]!] = value
      return record
    })
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant(JSON.stringify(valid)),
          replaced.map((r) => JSON.stringify(r) ?? 'null'),
          texts(jsonish)
        ),
        (text) => loadsOrRefuses(() => parseRunRecord(text, 'run.json'))
      ),
      RUNS
    )
    expectBothSides()
  })
})

// ---------------------------------------------------------------------------
// compareRuns

const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']

interface CaseSpec {
  id: string
  passed: boolean
  fingerprint: 0 | 1
  score: number | null
  trials: [number, number] | null
}

const caseSpec = (withTrials: boolean) =>
  fc.record({
    id: fc.constantFrom(...ids),
    passed: fc.boolean(),
    fingerprint: fc.constantFrom(0 as const, 1 as const),
    score: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    trials: withTrials
      ? fc.option(fc.integer({ min: 2, max: 6 }).chain((total) => fc.tuple(fc.integer({ min: 0, max: total }), fc.constant(total))))
      : fc.constant(null)
  })

function toCase(spec: CaseSpec): CaseResult {
  if (spec.trials) {
    const [passed, total] = spec.trials
    return makeCase(spec.id, passed / total >= 0.5, {
      fingerprint: `fp-${spec.id}-${spec.fingerprint}`,
      score: spec.score,
      passFraction: passed / total,
      trials: makeTrials(passed, total)
    })
  }
  return makeCase(spec.id, spec.passed, { fingerprint: `fp-${spec.id}-${spec.fingerprint}`, score: spec.score })
}

/** A run of distinct case keys in a random order. */
const run = (withTrials: boolean) =>
  fc
    .record({ cases: fc.uniqueArray(caseSpec(withTrials), { selector: (c) => c.id, maxLength: ids.length }), complete: fc.boolean() })
    .map(({ cases, complete }) => makeRun(cases.map(toCase), { complete }))

const gate = fc.record({
  maxRegressions: fc.nat(3),
  maxPassRateDrop: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  minPassRate: fc.double({ min: 0, max: 1, noNaN: true })
})

/** Whether list follows the order of `order` (a subsequence of it). */
function inOrder(list: readonly string[], order: readonly string[]): boolean {
  let at = 0
  for (const key of list) {
    at = order.indexOf(key, at)
    if (at === -1) return false
    at++
  }
  return true
}

describe('compareRuns keeps its invariants on any pair of runs', () => {
  it('outcomes are disjoint, add up to the current cases, and follow dataset order', () => {
    fc.assert(
      fc.property(fc.option(run(true)), run(true), gate, (baseline: RunRecord | null, current: RunRecord, g) => {
        const cmp = compareRuns(baseline, current, makeGate(g))
        const currentIds = current.cases.map((c) => c.id)
        const lists = { regressed: cmp.regressed, fixed: cmp.fixed, flaky: cmp.flaky, changed: cmp.changed, added: cmp.added }
        // every current case is in exactly one list, or counted unchanged
        const listed = Object.values(lists).flat()
        expect(new Set(listed).size).toBe(listed.length)
        if (baseline) expect(listed.length + cmp.unchanged).toBe(current.cases.length)
        expect(cmp.regressed.filter((k) => cmp.fixed.includes(k))).toEqual([])
        for (const list of Object.values(lists)) expect(inOrder(list, currentIds)).toBe(true)
        // baseline cases missing now are removed (complete run) or unfinished (cut short), in the baseline's order
        const missing = (baseline?.cases ?? []).map((c) => c.id).filter((k) => !currentIds.includes(k))
        expect([...cmp.removed, ...cmp.unfinished]).toEqual(missing)
        expect(current.complete === false ? cmp.removed : cmp.unfinished).toEqual([])
        expect(cmp.flakyCases.map((f) => f.key)).toEqual(cmp.flaky)
        // figures are figures
        expect(cmp.current.passRate).toBeGreaterThanOrEqual(0)
        expect(cmp.current.passRate).toBeLessThanOrEqual(1)
        expect(cmp.gate.passed).toBe(sentences(cmp.gate).length === 0)
        if (!baseline) expect([cmp.regressed, cmp.fixed, cmp.flaky, cmp.changed, cmp.added, cmp.removed]).toEqual([[], [], [], [], [], []])
      }),
      RUNS
    )
  })

  it('swapping baseline and current swaps regressed and fixed, and added and removed (single trials)', () => {
    const complete = run(false).map((r) => ({ ...r, complete: true }))
    fc.assert(
      fc.property(complete, complete, (b, c) => {
        const forward = compareRuns(b, c, makeGate())
        const backward = compareRuns(c, b, makeGate())
        const sorted = (list: string[]) => [...list].sort()
        expect(sorted(backward.regressed)).toEqual(sorted(forward.fixed))
        expect(sorted(backward.fixed)).toEqual(sorted(forward.regressed))
        expect(sorted(backward.added)).toEqual(sorted(forward.removed))
        expect(sorted(backward.removed)).toEqual(sorted(forward.added))
        expect(sorted(backward.changed)).toEqual(sorted(forward.changed))
        expect(backward.unchanged).toBe(forward.unchanged)
        expect(forward.flaky).toEqual([])
      }),
      RUNS
    )
  })

  it('a complete run compared with itself has no flips and passes a gate without floors', () => {
    fc.assert(
      fc.property(run(true), (cut) => {
        const r = { ...cut, complete: true }
        const cmp = compareRuns(r, r, makeGate())
        expect([cmp.regressed, cmp.fixed, cmp.flaky, cmp.changed, cmp.added, cmp.removed]).toEqual([[], [], [], [], [], []])
        expect(cmp.unchanged).toBe(r.cases.length)
        expect(cmp.gate.passed).toBe(true)
      }),
      RUNS
    )
  })
})
