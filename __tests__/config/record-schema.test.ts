/**
 * The record's types and its schema are one definition (config/record-schema.ts).
 * At compile time (`npm run typecheck`): the public types are exactly what the
 * schemas give, and what the engine writes is what the reader accepts. At run
 * time: a record written by `evalgate run --out` parses with the schema into
 * exactly what was written, so a field the engine writes and the schema does
 * not know (which zod would drop) fails here.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { z } from 'zod'
import type * as lib from '../../src/lib.js'
import type { Assertion, EvalCase } from '../../src/config/case.js'
import type { RawPromptfooAssertion } from '../../src/config/promptfoo/schema.js'
import { parseRunRecord } from '../../src/config/record.js'
import {
  assertionResultSchema,
  caseResultSchema,
  judgeVerdictSchema,
  runRecordSchema,
  runSummarySchema,
  trialResultSchema,
  usageSchema
} from '../../src/config/record-schema.js'
import type { assertionSchema, configSchema, ParsedConfig } from '../../src/config/schema.js'
import type { buildRecord } from '../../src/run/record.js'
import type { AssertionResult, CaseResult, JudgeVerdict, RunRecord, RunSummary, TrialResult, Usage } from '../../src/types.js'
import { runCli } from '../__fixtures__/cli.js'
import { chatReply, startServer, type FakeServer } from '../__fixtures__/openai-server.js'
import { tempProject } from '../__fixtures__/cli.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type Expect<T extends true> = T

/** Compile-time only: each line fails `npm run typecheck` when a type drifts from its schema. */
export type TypesAreTheSchemas = [
  Expect<Equal<RunRecord, z.output<typeof runRecordSchema>>>,
  Expect<Equal<CaseResult, z.output<typeof caseResultSchema>>>,
  Expect<Equal<TrialResult, z.output<typeof trialResultSchema>>>,
  Expect<Equal<AssertionResult, z.output<typeof assertionResultSchema>>>,
  Expect<Equal<JudgeVerdict, z.output<typeof judgeVerdictSchema>>>,
  Expect<Equal<RunSummary, z.output<typeof runSummarySchema>>>,
  Expect<Equal<Usage, z.output<typeof usageSchema>>>,
  Expect<Equal<ParsedConfig, z.output<typeof configSchema>>>,
  // the library's names are the same types
  Expect<Equal<lib.RunRecord, RunRecord>>,
  Expect<Equal<lib.CaseResult, CaseResult>>,
  Expect<Equal<lib.EvalCase, EvalCase>>,
  // what the engine writes, the reader accepts as it is
  Expect<ReturnType<typeof buildRecord> extends z.input<typeof runRecordSchema> ? true : false>,
  // every assertion evalgate.yml accepts is one the engine runs; a case hands its record the record's own fields
  Expect<z.output<typeof assertionSchema> extends Assertion ? true : false>,
  Expect<Equal<EvalCase['source'], CaseResult['source']>>,
  // the nested assert-set of a promptfoo assertion is inferred, not any
  Expect<Equal<RawPromptfooAssertion['assert'], RawPromptfooAssertion[] | undefined>>
]

/** Every key path in a JSON value, list positions written as []. */
function keyPaths(value: unknown, at = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keyPaths(v, `${at}[]`, into))
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const here = at ? `${at}.${k}` : k
      into.add(here)
      // free-form values (metadata, tool arguments, inputs) are the user's, not the schema's
      if (!['metadata', 'args', 'result', 'input', 'expected'].includes(k)) keyPaths(v, here, into)
    }
  }
  return into
}

const agent = (answerB: string) => `export default (input) => ({
  output: input === 'b' ? ${JSON.stringify(answerB)} : 'the answer to ' + input,
  toolCalls: [{ name: 'search', args: { q: input }, result: 'found' }],
  usage: { inputTokens: 10, outputTokens: 4, costUsd: 0.001 },
  metadata: { model: 'agent-model' },
  finishReason: 'stop',
  latencyMs: 3
})
`

describe('a record written by the engine and its schema', () => {
  let server: FakeServer
  let dir: string
  let written: { baseline: string; current: string }

  beforeAll(async () => {
    server = await startServer()
    server.respond(() => ({ body: chatReply(JSON.stringify({ score: 0.9, reason: 'polite' })) }))
    const config = (agentFile: string) => `name: drift
target: { module: ./${agentFile} }
repeat: 2
rerunFlips: 1
budget: { maxCostUsd: 100 }
pricing: { judge-model: { input: 1, output: 2 } }
judge: { model: judge-model, baseUrl: "${server.baseUrl}", apiKeyEnv: JUDGE_KEY }
dataset: cases.yaml
`
    dir = tempProject({
      'v1.yml': config('v1.mjs'),
      'v2.yml': config('v2.mjs'),
      'v1.mjs': agent('the answer to b'),
      'v2.mjs': agent('no idea'),
      'cases.yaml': `- { id: a, input: a, tags: [polite], assert: [{ type: llm-rubric, value: Answers politely }] }
- { id: b, input: b, expected: answer }
- { id: c, input: c, assert: [{ type: trajectory:tool-used, value: search }, { type: latency, threshold: 10000 }] }
`
    })
    const env = { JUDGE_KEY: 'sk-test' }
    const base = path.join(dir, 'base.json')
    const run = path.join(dir, 'run.json')
    await runCli(['run', '-c', path.join(dir, 'v1.yml'), '--out', base, '--quiet'], env)
    // against that baseline: b regresses (and is re-run), every case carries its history, the run its trend
    await runCli(['run', '-c', path.join(dir, 'v2.yml'), '--baseline', base, '--out', run, '--quiet'], env)
    written = { baseline: readFileSync(base, 'utf8'), current: readFileSync(run, 'utf8') }
  })
  afterAll(() => server.close())

  it('exercises the record: trials, agent fields, judge verdicts, history, re-runs, trend, budget', () => {
    const paths = keyPaths(JSON.parse(written.current), '', keyPaths(JSON.parse(written.baseline)))
    const expected = [
      'fingerprintVersion',
      'budget.spentUsd',
      'dataset.fingerprint',
      'config.repeat',
      'summary.judge.costUsd',
      'summary.reruns',
      'trend[].passRate',
      'cases[].index',
      'cases[].source.line',
      'cases[].expected',
      'cases[].history',
      'cases[].reruns',
      'cases[].toolCalls[].name',
      'cases[].usage.costUsd',
      'cases[].latencyMs',
      'cases[].metadata',
      'cases[].finishReason',
      'cases[].assertions[].judge.key',
      'cases[].trials[].toolCalls[].result',
      'cases[].trials[].usage.outputTokens',
      'cases[].trials[].assertions[].judge.tokens'
    ]
    expect(expected.filter((p) => !paths.has(p))).toEqual([])
  })

  it.each(['baseline', 'current'] as const)('the %s record parses with the schema into exactly what was written', (which) => {
    const value: unknown = JSON.parse(written[which])
    const parsed = runRecordSchema.safeParse(value)
    expect(parsed.error?.issues).toBeUndefined()
    expect(parsed.data).toStrictEqual(value)
    // the reader, which validates a case at a time, gives the same
    expect(parseRunRecord(written[which], 'run.json')).toStrictEqual(value)
  })

  it('round-trips: written again, the parsed record reads back the same', () => {
    const once = parseRunRecord(written.current, 'run.json')
    expect(parseRunRecord(JSON.stringify(once), 'again.json')).toStrictEqual(once)
  })
})

describe('old records the schema migrates, and what it refuses', () => {
  const current = (): Record<string, unknown> => ({
    schemaVersion: 1,
    tool: { name: 'evalgate', version: '0.0.1' },
    name: 'old',
    createdAt: '2026-01-01T00:00:00.000Z',
    git: { sha: null, ref: null, runId: null },
    summary: { total: 1, passed: 1, failed: 0, errors: 0, passRate: 1, meanScore: null, durationMs: 1, judge: { calls: 0, reused: 0, errors: 0, tokens: 0 } },
    cases: [
      {
        id: 'a',
        name: 'a',
        tags: [],
        fingerprint: 'f',
        input: 'a',
        passed: true,
        passFraction: 1,
        output: 'x',
        error: null,
        score: null,
        durationMs: 1,
        assertions: [],
        usage: { promptTokens: 7, completionTokens: 2, totalTokens: 9 }
      }
    ]
  })

  it('fills fingerprintVersion and complete, and reads promptTokens/completionTokens as input and output tokens', () => {
    const read = parseRunRecord(JSON.stringify(current()), 'old.json')
    expect(read.fingerprintVersion).toBe(1)
    expect(read.complete).toBe(true)
    expect(read.cases[0]!.usage).toStrictEqual({ inputTokens: 7, outputTokens: 2, totalTokens: 9 })
    expect(runRecordSchema.parse(current())).toStrictEqual(read)
  })

  it.each([
    ['cases[0].passFraction', (r: Record<string, unknown>) => ((r.cases as Record<string, unknown>[])[0]!.passFraction = 2)],
    ['cases[0].usage.inputTokens', (r: Record<string, unknown>) => ((r.cases as Record<string, unknown>[])[0]!.usage = { inputTokens: 'many' })],
    // a negative cost, count or time would be compared as it is: a baseline at -$1 makes any cost a fall
    ['cases[0].usage.costUsd', (r: Record<string, unknown>) => ((r.cases as Record<string, unknown>[])[0]!.usage = { costUsd: -1 })],
    ['cases[0].usage.totalTokens', (r: Record<string, unknown>) => ((r.cases as Record<string, unknown>[])[0]!.usage = { totalTokens: -5 })],
    ['cases[0].latencyMs', (r: Record<string, unknown>) => ((r.cases as Record<string, unknown>[])[0]!.latencyMs = -0.5)],
    ['tool.name', (r: Record<string, unknown>) => (r.tool = { name: 'other', version: '1' })],
    ['summary.judge', (r: Record<string, unknown>) => delete (r.summary as Record<string, unknown>).judge]
  ])('refuses a record wrong at %s, naming the path', (at, spoil) => {
    const bad = current()
    spoil(bad)
    expect(() => parseRunRecord(JSON.stringify(bad), 'bad.json')).toThrow(`bad.json: not a valid run record at ${at}: `)
    expect(runRecordSchema.safeParse(bad).success).toBe(false)
  })
})
