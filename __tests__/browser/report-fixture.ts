/**
 * Two runs of a support bot whose comparison has one case of every kind, and
 * outputs that try to inject HTML: the HTML report's fixture, in node and in Chromium.
 */
import { compareRuns } from '../../src/compare/index.js'
import type { ReportInput } from '../../src/report/index.js'
import type { AssertionResult } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

export const HOSTILE_OUTPUT = '<script>window.__pwned = 1</script>"><img src=x onerror="window.__pwned = 2">'
export const HOSTILE_NAME = '"><img src=x onerror="window.__pwned = 3"> & </script><script>window.__pwned = 4</script>'

function failed(type: string, reason: string): AssertionResult {
  return { type, passed: false, score: 0, reason }
}

function judged(score: number, reason: string): AssertionResult {
  return { type: 'llm-rubric', passed: score >= 0.7, score, reason, judge: { model: 'gpt-4o-mini', score, reason, key: 'k' } }
}

const refundBefore =
  'Refunds\n- You can request a refund within 30 days of delivery.\n- Items must be unused.\n- Refunds go to the original payment method.\nThank you!'
const refundNow = 'Refunds\n- Refunds are possible within a month.\n- Items must be unused.\n- Refunds go to the original payment method.\nThank you!'

export function reportFixture(): ReportInput {
  const baseline = makeBaseline([
    makeCase('capital-ireland', true, { tags: ['geo'], output: 'The capital of Ireland is Dublin.' }),
    makeCase('capital-australia', false, {
      tags: ['geo'],
      output: 'Sydney',
      input: 'What is the capital of Australia?',
      expected: 'Canberra',
      assertions: [failed('equals', "expected output to equal 'Canberra', got: Sydney")]
    }),
    makeCase('refund-policy', true, { tags: ['policy'], input: 'How do refunds work?', output: refundBefore, expected: ['refund', '30 days'] }),
    makeCase('tone', true, {
      tags: ['chat', 'judged'],
      score: 0.9,
      output: 'I am sorry your parcel is late; here is a tracking link.',
      assertions: [judged(0.9, 'Apologises and gives a next step.')]
    }),
    makeCase('hostile', true, { name: HOSTILE_NAME, tags: ['<b>tag</b>'], output: 'harmless' }),
    makeCase('flaky-greeting', true, { tags: ['chat'], passFraction: 0.67, trials: makeTrials(2, 3) }),
    makeCase('old-case', true, { tags: ['legacy'], output: 'removed since' }),
    makeCase('rubric-changed', true, { fingerprint: 'fp-old', output: 'same words' }),
    ...Array.from({ length: 6 }, (_, i) => makeCase(`math-${i}`, true, { tags: ['math'], input: `What is ${i} + ${i}?`, output: `The answer is ${2 * i}` }))
  ])
  const current = makeRun([
    makeCase('capital-ireland', true, { tags: ['geo'], output: 'The capital of Ireland is Dublin.' }),
    makeCase('capital-australia', true, { tags: ['geo'], output: 'Canberra', input: 'What is the capital of Australia?', expected: 'Canberra' }),
    makeCase('refund-policy', false, {
      tags: ['policy'],
      input: 'How do refunds work?',
      output: refundNow,
      expected: ['refund', '30 days'],
      assertions: [failed('contains-all', "expected output to contain all of 'refund', '30 days'; missing: '30 days'")]
    }),
    makeCase('tone', false, {
      tags: ['chat', 'judged'],
      score: 0.4,
      output: 'Parcels are sometimes late.',
      assertions: [judged(0.4, 'No apology and no next step.')]
    }),
    makeCase('hostile', false, { name: HOSTILE_NAME, tags: ['<b>tag</b>'], output: HOSTILE_OUTPUT, assertions: [failed('not-contains', HOSTILE_OUTPUT)] }),
    makeCase('flaky-greeting', false, { tags: ['chat'], passFraction: 0.33, trials: makeTrials(1, 3) }),
    makeCase('timeout', false, { tags: ['chat'], output: null, error: 'timed out after 60000 ms', assertions: [] }),
    makeCase('rubric-changed', false, { fingerprint: 'fp-new', output: 'same words' }),
    ...Array.from({ length: 6 }, (_, i) => makeCase(`math-${i}`, true, { tags: ['math'], input: `What is ${i} + ${i}?`, output: `The answer is ${2 * i}` }))
  ])
  const comparison = compareRuns(baseline, current, makeGate({ maxRegressions: 0 }))
  return { comparison, baseline, current }
}
