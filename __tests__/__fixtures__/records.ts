/**
 * Run records for tests of the comparison, the gate and the report, built from
 * a few case shorthands so that each table row states only what matters to it.
 */
import { FINGERPRINT_VERSION } from '../../src/config/fingerprint.js'
import { gateSchema, type GateConfig } from '../../src/config/schema.js'
import type { AssertionResult, CaseResult, RunRecord, TrialResult } from '../../src/types.js'

/** The one assertion of a fixture case or trial. */
function containsAnswer(passed: boolean): AssertionResult {
  return {
    type: 'contains',
    passed,
    score: passed ? 1 : 0,
    reason: passed ? 'output contains the expected text' : `expected output to contain 'answer', got: bad`
  }
}

/** A case result; by default it passed, has no score and fingerprint "fp-<id>". */
export function makeCase(id: string, passed = true, overrides: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    name: id,
    tags: [],
    fingerprint: `fp-${id}`,
    input: `input of ${id}`,
    passed,
    passFraction: passed ? 1 : 0,
    output: passed ? `good answer to ${id}` : `bad answer to ${id}`,
    error: null,
    score: null,
    durationMs: 1,
    assertions: [containsAnswer(passed)],
    ...overrides
  }
}

/** k trials of which `passed` passed, for cases run with repeat k. */
export function makeTrials(passed: number, total: number): TrialResult[] {
  return Array.from({ length: total }, (_, i) => ({
    passed: i < passed,
    output: i < passed ? 'good' : 'bad',
    error: null,
    score: null,
    durationMs: 1,
    assertions: [containsAnswer(i < passed)]
  }))
}

/** A case with repeated trials; it passes when at least half of them did (the default repeatPassThreshold). */
export function makeRepeatedCase(id: string, passed: number, total: number): CaseResult {
  return makeCase(id, passed / total >= 0.5, { passFraction: passed / total, trials: makeTrials(passed, total) })
}

/**
 * Cases from a compact spec: "a" passed, "!a" failed, "a~" passed with another
 * fingerprint than "a" (a changed case).
 */
export function makeCases(...spec: string[]): CaseResult[] {
  return spec.map((s) => {
    const passed = !s.startsWith('!')
    const id = s.replace(/^!/, '').replace(/~$/, '')
    return makeCase(id, passed, s.endsWith('~') ? { fingerprint: `fp-${id}-changed` } : {})
  })
}

/** A run record whose summary agrees with its cases. */
export function makeRun(cases: CaseResult[], overrides: Partial<RunRecord> = {}): RunRecord {
  const passed = cases.filter((c) => c.passed).length
  const scores = cases.map((c) => c.score).filter((s): s is number => s !== null)
  return {
    schemaVersion: 1,
    tool: { name: 'evalgate', version: '0.1.0' },
    fingerprintVersion: FINGERPRINT_VERSION,
    name: 'support-bot',
    createdAt: '2026-11-30T12:00:00.000Z',
    complete: true,
    git: { sha: 'c0ffee0000000000000000000000000000000000', ref: 'refs/heads/feature', runId: '42' },
    summary: {
      total: cases.length,
      passed,
      failed: cases.length - passed,
      errors: cases.filter((c) => c.error !== null).length,
      passRate: cases.length ? passed / cases.length : 0,
      meanScore: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null,
      durationMs: 134_000,
      judge: { calls: 0, reused: 0, errors: 0, tokens: 0 }
    },
    cases,
    ...overrides
  }
}

/** A baseline record: an older run on the default branch. */
export function makeBaseline(cases: CaseResult[], overrides: Partial<RunRecord> = {}): RunRecord {
  return makeRun(cases, {
    createdAt: '2026-11-30T09:00:00.000Z',
    git: { sha: 'ba5e110000000000000000000000000000000000', ref: 'refs/heads/main', runId: '41' },
    ...overrides
  })
}

/** The gate config as the schema fills it in, with overrides. */
export function makeGate(overrides: Partial<GateConfig> = {}): GateConfig {
  return gateSchema.parse(overrides)
}

/** n case ids: "case-0" … */
export function ids(n: number, prefix = 'case'): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`)
}
