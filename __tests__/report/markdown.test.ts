import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/config/schema.js'
import { formatKeys, plural } from '../../src/report/format.js'
import { conclude, type ConcludeContext } from '../../src/compare/conclude.js'
import type { Verdict } from '../../src/compare/types.js'
import { DEFAULT_MAX_LENGTH, escapeInline, formatDuration, relativeAge, type ReportInput, type ReportOptions } from '../../src/report/index.js'
import { withoutNamedKeys } from '../../src/report/markdown/verdict.js'
import { markdownOf } from '../__fixtures__/report.js'
import type { AssertionResult, CaseResult, RunRecord } from '../../src/types.js'
import { ids, makeBaseline, makeCase, makeCases, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

function input(baseline: RunRecord | null, current: RunRecord, gate: Partial<GateConfig> = {}): ReportInput {
  return { comparison: compareRuns(baseline, current, makeGate(gate)), baseline, current }
}

function report(baseline: RunRecord | null, current: RunRecord, gate: Partial<GateConfig> = {}, options: ReportOptions = {}) {
  return markdownOf({ ...input(baseline, current, gate), gate: makeGate(gate) }, options)
}

/** The verdict conclude() gives in this context. */
function verdictOf(i: ReportInput, context: Partial<ConcludeContext>): Verdict {
  return conclude(i.comparison, i.current, { baselineStatus: i.baseline ? 'found' : 'none', ...context })
}

function judged(score: number, reason: string): AssertionResult {
  return { type: 'llm-rubric', passed: score >= 0.7, score, reason, judge: { model: 'gpt-4o-mini', score, reason, key: 'k' } }
}

/** The markdown with fenced blocks and code spans removed: what GitHub would parse as text. */
function outsideCode(markdown: string): string {
  const kept: string[] = []
  let fence: string | null = null
  for (const line of markdown.split('\n')) {
    const run = /^(`{3,})/.exec(line)?.[1]
    if (fence === null && run) fence = run
    else if (fence !== null && line.trim() === fence) fence = null
    else if (fence === null) kept.push(line)
  }
  // a code span opens at an unescaped run of backticks and closes at the next run of the same length
  return kept.join('\n').replace(/(?<!\\)(`+)[\s\S]*?(?<!`)\1(?!`)/g, '')
}

const HOSTILE = 'Ask @octocat! <script>alert(1)</script> | see #12 ```\n``` **bold**'

const richBaseline = makeBaseline([
  makeCase('capital-ireland', true, {
    name: 'Capital of Ireland',
    tags: ['geo'],
    output: 'Dublin',
    expected: 'Dublin'
  }),
  makeCase('math-2', true, { tags: ['math'] }),
  makeCase('fixed-one', false, { tags: ['math'] }),
  makeCase('gone', true)
])
const richCurrent = makeRun(
  [
    makeCase('capital-ireland', false, {
      name: 'Capital of Ireland',
      tags: ['geo'],
      expected: 'Dublin',
      output: HOSTILE,
      assertions: [
        { type: 'contains', passed: false, score: 0, reason: `expected output to contain 'Dublin', got: ${HOSTILE}` },
        {
          type: 'llm-rubric',
          passed: false,
          score: 0.2,
          reason: 'score 0.2 is below the threshold 0.7',
          judge: { model: 'gpt-4o-mini', score: 0.2, reason: 'The answer hedges and pings @octocat', key: 'k' }
        }
      ]
    }),
    makeCase('math-2', false, { tags: ['math'], output: null, error: 'timeout after 60000 ms' }),
    makeCase('fixed-one', true, { tags: ['math'] }),
    makeCase('new-case', true, { tags: ['a|b'] })
  ],
  {
    summary: { ...makeRun([]).summary, durationMs: 134_000, judge: { calls: 12, reused: 3, errors: 1, tokens: 45_210 } }
  }
)
const richInput = input(richBaseline, richCurrent, { maxPassRateDrop: 0.02 })
const rich = markdownOf(richInput, { marker: '<!-- evalgate:support-bot -->' })

describe('renderReport: content', () => {
  it('puts the marker first, then the verdict as an alert', () => {
    const lines = rich.split('\n')
    expect(lines[0]).toBe('<!-- evalgate:support-bot -->')
    expect(lines.slice(2, 8)).toEqual([
      '> [!CAUTION]',
      '> **evalgate · support-bot: gate failed**',
      '>',
      '> - 2 cases regressed (limit: maxRegressions 0): capital-ireland, math-2',
      '> - 1 baseline case is missing from this run (limit: maxRemoved 0): gone',
      expect.stringMatching(/^> - pass rate dropped 33\.3 points .* 66\.7% → 33\.3% .*; passed before, fail now: the 2 cases above$/)
    ])
  })

  it('keeps the sections in the order of SPEC §7', () => {
    const order = [
      '> [!CAUTION]',
      '| pass rate |',
      'Baseline: commit `ba5e110` on `main`, 3 hours older than this run, workflow run `41`. This run: commit `c0ffee0`, workflow run `42`.',
      '#### Regressed (2)',
      '| case | tags | first failing check | reason |',
      '<details><summary><code>capital-ireland</code> Capital of Ireland</summary>',
      '<details><summary><code>math-2</code></summary>',
      '#### Fixed (1)\n- `fixed-one`',
      '0 flaky · 1 added · 1 removed · 0 changed (fingerprint differs, not compared) · 0 unchanged',
      '- Removed: `gone`\n- Added: `new-case`',
      '#### By tag',
      '#### Errors (1)\n- `math-2`: timeout after 60000 ms',
      '<sub>judge: 12 calls, 3 reused, 1 error, 45,210 tokens · duration: 2 min 14 s · 4 cases · evalgate 0.1.0</sub>'
    ]
    const positions = order.map((text) => rich.indexOf(text))
    expect(positions.every((p) => p >= 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
  })

  it('shows pass rate and mean score, baseline → current, with the paired CI over enough cases where a limit gates them', () => {
    const baseline = makeBaseline(ids(25).map((id, i) => makeCase(id, i < 23, { score: 0.9 })))
    const current = makeRun(ids(25).map((id, i) => makeCase(id, i < 22, { score: 0.8 })))
    // an interval on a figure no limit gates reads as a finding: none
    const ungated = report(baseline, current)
    expect(ungated).toContain('| pass rate | 92.0% (23/25) | 88.0% (22/25) | −4.0 pts |')
    expect(ungated).toContain('| mean score | 0.900 | 0.800 | −0.100 |')
    const md = report(baseline, current, { maxPassRateDrop: 0.5, maxMeanScoreDrop: 0.5 })
    expect(md).toMatch(/\| pass rate \| 92\.0% \(23\/25\) \| 88\.0% \(22\/25\) \| −4\.0 pts \(95% CI −\d+\.\d to \+\d+\.\d\) \|/)
    // every case lost exactly 0.1: no spread, the interval is the point
    expect(md).toContain('| mean score | 0.900 | 0.800 | −0.100 (95% CI −0.100 to −0.100) |')
    expect(md).not.toContain('in both runs |')
  })

  it.each([
    { name: '4 judged cases (too few)', n: 4, scores: [1, 0, 1, 0], now: [0, 1, 0, 1], shown: false },
    { name: '9 cases (too few)', n: 9, scores: Array(9).fill(0.9), now: Array(9).fill(0.8), shown: false },
    // 12 cases whose scores swing by ±1: the interval spans more than half the range
    {
      name: '12 cases, an interval over half the range',
      n: 12,
      scores: Array(12)
        .fill(0)
        .map((_, i) => i % 2),
      now: Array(12)
        .fill(0)
        .map((_, i) => (i + 1) % 2),
      shown: false
    },
    {
      name: '12 cases, a narrow interval',
      n: 12,
      scores: Array(12).fill(0.9),
      now: Array(12)
        .fill(0)
        .map((_, i) => 0.7 + (i % 3) * 0.05),
      shown: true
    }
  ])('shows a mean-score interval only where it says something: $name', ({ n, scores, now, shown }) => {
    const baseline = makeBaseline(ids(n).map((id, i) => makeCase(id, true, { score: scores[i] })))
    const current = makeRun(ids(n).map((id, i) => makeCase(id, true, { score: now[i] })))
    const row = report(baseline, current, { maxMeanScoreDrop: 1 })
      .split('\n')
      .find((l) => l.startsWith('| mean score |'))!
    expect(row.includes('95% CI')).toBe(shown)
  })

  it('leaves the pass-rate interval out on a handful of cases', () => {
    const md = report(makeBaseline(makeCases('a', 'b', 'c', 'd')), makeRun(makeCases('a', 'b', '!c', '!d')), { maxRegressions: 5, maxPassRateDrop: 1 })
    expect(md).toContain('| pass rate | 100.0% (4/4) | 50.0% (2/4) | −50.0 pts |')
    expect(md).not.toContain('95% CI')
  })

  it('adds rows over the common cases when cases were added, removed or changed', () => {
    expect(rich).toContain('| pass rate | 75.0% (3/4) | 50.0% (2/4) | −25.0 pts |')
    expect(rich).toContain('| pass rate, 3 cases in both runs | 66.7% | 33.3% | −33.3 pts |')
  })

  it('tables every regressed case: case, tags, first failing check, reason in at most 120 characters', () => {
    const long = `expected output to contain "refund", got: ${JSON.stringify('I am sorry.\nYour order\u0000 is on its way. '.repeat(10))}`
    const baseline = makeBaseline([makeCase('refund-1', true, { tags: ['policy', 'refund'] }), makeCase('judged'), makeCase('down')])
    const current = makeRun([
      makeCase('refund-1', false, { tags: ['policy', 'refund'], assertions: [{ type: 'contains', passed: false, score: 0, reason: long }] }),
      makeCase('judged', false, { assertions: [judged(0.3, 'No refund date given.')] }),
      makeCase('down', false, { output: null, error: 'timeout after 60000 ms' })
    ])
    const rows = report(baseline, current)
      .split('\n')
      .filter((l) => l.startsWith('| <code>'))
    expect(rows[0]).toMatch(
      /^\| <code>refund-1<\/code> \| policy, refund \| <code>contains<\/code> \| expected output to contain "refund", got: I am sorry\. Your order is on its way\. I am sorry\..*… \|$/
    )
    const reason = rows[0]!.split(' | ')[3]!.replace(/ \|$/, '')
    expect(reason.replace(/\\/g, '').length).toBeLessThanOrEqual(121)
    expect(reason).not.toMatch(/\\n|\\u0000|\\"/)
    expect(rows[1]).toBe('| <code>judged</code> |  | <code>llm-rubric</code> | scored 0.300: No refund date given. |')
    expect(rows[2]).toBe('| <code>down</code> |  | target error | timeout after 60000 ms |')
  })

  it('details each regression: input, expected, both outputs, and the reasons as an excerpt', () => {
    const detail = rich.slice(rich.indexOf('<details>'), rich.indexOf('</details>'))
    expect(detail).toContain('**Input**\n\n```\ninput of capital-ireland\n```')
    expect(detail).toContain('**Expected**\n\n```\nDublin\n```')
    expect(detail).toContain('**Baseline output** (passed)\n\n```\nDublin\n```')
    expect(detail).toContain('**Current output** (failed)\n\n````\nAsk @octocat!')
    expect(detail).toContain(
      '- `llm-rubric` (judge gpt-4o-mini scored 0.200): score 0.2 is below the threshold 0.7 — judge: The answer hedges and pings @\u2060octocat'
    )
    expect(rich).toContain('_no output; the target failed:_\n\n```\ntimeout after 60000 ms\n```')
  })

  it('does not repeat the output, JSON-quoted, under the output block', () => {
    const output = 'Line one\nLine two\u0000 with "quotes"'
    const baseline = makeBaseline([makeCase('q')])
    const current = makeRun([
      makeCase('q', false, {
        output,
        assertions: [
          { type: 'icontains', passed: false, score: 0, reason: `expected output to contain "dublin", ignoring case, got: ${JSON.stringify(output)}` }
        ]
      })
    ])
    const why = report(baseline, current).split('**Why it fails**')[1]!
    expect(why).toContain('- `icontains`: expected output to contain "dublin", ignoring case\n')
    expect(why).not.toMatch(/Line one|\\n|\\u0000/)
  })

  it('shows the trials behind a flip of repeated cases', () => {
    const baseline = makeBaseline([makeCase('q', true, { trials: makeTrials(5, 5) })])
    const current = makeRun([makeCase('q', false, { trials: makeTrials(0, 5), assertions: [] })])
    const md = report(baseline, current)
    expect(md).toContain('**Baseline output** (passed, 5 of 5 trials)')
    expect(md).toContain('**Current output** (failed, 0 of 5 trials)')
    expect(md).toContain("- `contains`: expected output to contain 'answer', got: bad")
    expect(md).toContain("| <code>q</code> |  | <code>contains</code> | expected output to contain 'answer', got: bad |")
  })

  it('lists flaky cases and cases an incomplete run did not reach', () => {
    const baseline = makeBaseline([makeCase('q', true, { trials: makeTrials(3, 4) }), makeCase('later')])
    const current = makeRun([makeCase('q', false, { trials: makeTrials(1, 4) })], { complete: false })
    const md = report(baseline, current)
    expect(md).toContain('1 flaky · 0 added · 0 removed')
    expect(md).toContain(
      '#### Flaky (1): flipped, but within chance, not counted\n- `q` failed 3 of 4 trials, against 1 of 4 in the baseline: within chance (p = 0.24)'
    )
    expect(md).toContain('Not reached by this incomplete run: 1 baseline case.')
    expect(md).toContain('> - the run is incomplete: it stopped after 1 case finished')
  })

  it('shows cases that still pass but the judge scored lower, largest drop first', () => {
    const baseline = makeBaseline([
      makeCase('tone', true, { score: 1, assertions: [judged(1, 'Warm.')] }),
      makeCase('steady', true, { score: 0.8 }),
      makeCase('slip', true, { score: 0.9 })
    ])
    const current = makeRun([
      makeCase('tone', true, { score: 0.5, assertions: [judged(0.5, 'Curt, but answers.')] }),
      makeCase('steady', true, { score: 0.8 }),
      makeCase('slip', true, { score: 0.8 })
    ])
    const md = report(baseline, current, { maxMeanScoreDrop: 1 })
    expect(md).toContain(
      "#### Scored lower (2): still passing, the judge's score dropped\n\n| case | score | judge |\n|:--|:--|:--|\n| <code>tone</code> | 1.000 → 0.500 | Curt, but answers. |\n| <code>slip</code> | 0.900 → 0.800 |  |"
    )
    expect(md).not.toContain('<code>steady</code>')
  })

  it('links the baseline run and this run', () => {
    const links = { baselineRun: 'https://github.com/acme/bot/actions/runs/41', currentRun: 'https://github.com/acme/bot/actions/runs/42' }
    const md = markdownOf({ ...richInput, links })
    expect(md).toContain(
      'Baseline: commit `ba5e110` on `main`, 3 hours older than this run, [workflow run 41](https://github.com/acme/bot/actions/runs/41). ' +
        'This run: commit `c0ffee0`, [workflow run 42](https://github.com/acme/bot/actions/runs/42).'
    )
  })

  it.each([
    { name: 'a link that is no URL', url: 'javascript:alert(1)' },
    { name: 'a URL that would end the link', url: 'https://x.test/a) [pwn](https://evil.test' }
  ])('writes no link for $name', ({ url }) => {
    const md = markdownOf({ ...richInput, links: { baselineRun: url } })
    expect(md).toContain('workflow run `41`.')
    expect(md).not.toContain('pwn')
  })

  it('says so when the baseline names no commit', () => {
    const baseline = makeBaseline([makeCase('a')], { git: { sha: null, ref: null, runId: null } })
    expect(report(baseline, makeRun([makeCase('a')]))).toContain('Baseline: a run with no recorded commit, 3 hours older than this run.')
  })

  it('lists the ids of removed, changed and added cases', () => {
    const md = report(makeBaseline(makeCases('a', 'b', 'c', 'gone-1', 'gone-2')), makeRun(makeCases('a', 'b~', 'c~', 'new')), { maxRegressions: 9 })
    expect(md).toContain('- Removed: `gone-1`, `gone-2`\n- Changed: `b`, `c`\n- Added: `new`')
  })

  it('uses the given title', () => {
    expect(markdownOf({ ...input(makeBaseline([]), makeRun([])), title: 'Evals: support bot' })).toMatch(
      /^> \[!TIP\]\n> \*\*Evals: support bot: gate passed: 0 of 0 cases passed, 0 regressions\*\*\n/
    )
  })

  it('omits the judge line when no judge ran', () => {
    expect(report(null, makeRun(makeCases('a')))).toContain('<sub>duration: 2 min 14 s · 1 case · evalgate 0.1.0</sub>')
  })
})

describe('renderReport: the verdict', () => {
  const noBaseline = { comparison: compareRuns(null, makeRun(makeCases('a')), makeGate()), baseline: null, current: makeRun(makeCases('a')) }
  const lookupNotice =
    'no baseline: no run of evals.yml on main has a non-expired artifact "evalgate-demo"; comparison skipped, only the absolute floors are gated'

  it.each<{ name: string; input: () => ReportInput; alerts: string[] }>([
    { name: 'gate failed', input: () => richInput, alerts: ['CAUTION'] },
    { name: 'gate passed', input: () => input(makeBaseline(makeCases('a')), makeRun(makeCases('a'))), alerts: ['TIP'] },
    { name: 'no baseline, passed', input: () => noBaseline, alerts: ['NOTE'] },
    { name: 'no baseline, a floor failed', input: () => input(null, makeRun(makeCases('!a')), { minPassRate: 1 }), alerts: ['CAUTION', 'NOTE'] },
    {
      name: 'accepted by label',
      input: () => ({ ...richInput, verdict: verdictOf(richInput, { acceptLabel: 'evalgate:accept' }) }),
      alerts: ['WARNING']
    },
    {
      name: 'advisory',
      input: () => ({ ...richInput, verdict: verdictOf(richInput, { failOnRegression: false }) }),
      alerts: ['WARNING']
    },
    {
      name: 'could not tell: the baseline could not be read',
      input: () => ({ ...noBaseline, verdict: verdictOf(noBaseline, { baselineStatus: 'error', baselineProblem: 'the baseline artifact is corrupt' }) }),
      alerts: ['CAUTION']
    },
    {
      name: 'baseline error, on-baseline-error: warn',
      input: () => ({
        ...noBaseline,
        verdict: verdictOf(noBaseline, { baselineStatus: 'error', baselineProblem: 'the artifact is corrupt', onBaselineError: 'warn' })
      }),
      alerts: ['WARNING']
    },
    { name: 'incomplete run', input: () => input(makeBaseline(makeCases('a', 'b')), makeRun(makeCases('a'), { complete: false })), alerts: ['CAUTION'] },
    { name: 'incomplete baseline', input: () => input(makeBaseline(makeCases('a'), { complete: false }), makeRun(makeCases('a'))), alerts: ['WARNING'] }
  ])('$name: $alerts', ({ input: make, alerts }) => {
    const md = markdownOf(make())
    expect([...md.matchAll(/^> \[!(\w+)\]$/gm)].map((m) => m[1])).toEqual(alerts)
    expect(md.startsWith(`> [!${alerts[0]}]`)).toBe(true)
  })

  it('renders the verdict given: its status, every reason, the notices', () => {
    const verdict = verdictOf(richInput, {
      problems: [{ code: 'upload-failed', artifact: 'evalgate-x', error: 'quota' }],
      notices: ['baseline: run 41, artifact "evalgate-support-bot"']
    })
    const md = markdownOf({ ...richInput, verdict })
    expect(md).toMatch(
      /^> \[!CAUTION\]\n> \*\*evalgate · support-bot: evalgate could not tell\*\*\n>\n> - the run record could not be uploaded as artifact "evalgate-x": quota\n> - 2 cases regressed/
    )
    expect(md).toContain('> [!NOTE]\n> baseline: run 41, artifact "evalgate-support-bot"')
  })

  it('says once that there is no baseline, in the words of the lookup when it said why', () => {
    const generic = markdownOf(noBaseline)
    expect(generic).toMatch(
      /^> \[!NOTE\]\n> \*\*evalgate · support-bot: gate passed: 1 of 1 case passed; no baseline yet: nothing compared; no floor set \(gate\.minPassRate, gate\.minMeanScore\)\*\*\n\n/
    )
    expect(generic.match(/no baseline/g)).toHaveLength(1)
    // a failing run without a baseline says it beside its reasons
    const failed = input(null, makeRun(makeCases('!a')), { minPassRate: 1 })
    expect(markdownOf(failed)).toContain('> [!NOTE]\n> no baseline: comparison skipped, only absolute floors checked')
    const told = markdownOf({ ...noBaseline, verdict: verdictOf(noBaseline, { notices: [lookupNotice] }) })
    expect(told.match(/no baseline:/g)).toHaveLength(1)
    expect(told).toContain(`> ${escapeInline(lookupNotice, 1_000)}`)
  })

  it.each([
    {
      name: 'failed',
      make: () => input(makeBaseline(makeCases('a', 'b', 'c')), makeRun(makeCases('!a', '!b', 'c')), { maxPassRateDrop: 0 }),
      context: { baselineStatus: 'found' as const },
      lines: [
        '> [!CAUTION]',
        '> **evalgate · support-bot: gate failed**',
        '>',
        '> - 2 cases regressed (limit: maxRegressions 0): a, b',
        expect.stringMatching(/fail now: the 2 cases above$/)
      ]
    },
    {
      name: 'accepted',
      make: () => input(makeBaseline(makeCases('a', 'b')), makeRun(makeCases('!a', 'b'))),
      context: { baselineStatus: 'found' as const, acceptLabel: 'evalgate:accept' },
      lines: [
        '> [!WARNING]',
        '> **evalgate · support-bot: gate failed, accepted by the label "evalgate:accept"**',
        '>',
        '> - 1 case regressed (limit: maxRegressions 0): a',
        '>',
        '> - the check passes because this pull request carries the label "evalgate:accept"; remove the label to let the gate decide again'
      ]
    },
    {
      name: 'incomplete',
      make: () => input(makeBaseline(makeCases('a', 'b')), makeRun(makeCases('a'), { complete: false })),
      context: { baselineStatus: 'found' as const, expected: 2 },
      lines: ['> [!CAUTION]', '> **evalgate · support-bot: evalgate could not tell**', '>', '> - the run is incomplete: 1 of 2 cases finished']
    },
    {
      name: 'advisory',
      make: () => input(makeBaseline(makeCases('a', 'b')), makeRun(makeCases('!a', 'b'))),
      context: { baselineStatus: 'found' as const, failOnRegression: false },
      lines: [
        '> [!WARNING]',
        '> **evalgate · support-bot: gate failed (advisory)**',
        '>',
        '> - 1 case regressed (limit: maxRegressions 0): a',
        '>',
        '> - gate failed, but fail-on-regression is false: the check was left green on purpose, so pull requests are not blocked'
      ]
    },
    {
      name: 'passed without a baseline',
      make: () => input(null, makeRun(makeCases('a'))),
      context: { baselineStatus: 'none' as const, notices: [lookupNotice] },
      lines: [
        '> [!NOTE]',
        '> **evalgate · support-bot: gate passed: 1 of 1 case passed; no baseline yet: nothing compared; no floor set (gate.minPassRate, gate.minMeanScore)**',
        '>',
        `> ${escapeInline(lookupNotice, 1_000)}`
      ]
    }
  ])('renders conclude()’s verdict: $name, each reason and notice once', ({ make, context, lines }) => {
    const i = make()
    const md = markdownOf({ ...i, verdict: conclude(i.comparison, i.current, context) })
    expect(md.split('\n\n')[0]!.split('\n')).toEqual(lines)
    expect(md.match(/no baseline:|the run is incomplete/g)?.length ?? 0).toBeLessThanOrEqual(1)
  })

  it('names each case once in the gate bullets', () => {
    const baseline = makeBaseline(makeCases('a', 'b', 'c', 'd'))
    const current = makeRun(makeCases('!a', '!b', 'c', 'd'))
    const md = report(baseline, current, { maxPassRateDrop: 0.02, minPassRate: 0.9 })
    const bullets = md.split('\n').filter((l) => l.startsWith('> - '))
    expect(bullets).toEqual([
      '> - 2 cases regressed (limit: maxRegressions 0): a, b',
      expect.stringMatching(/; passed before, fail now: the 2 cases above$/),
      expect.stringMatching(/^> - pass rate 50\.0% is below minPassRate 90\.0% .*; failing: the 2 cases above$/)
    ])
  })

  it.each([
    { name: 'all named before', keys: ['a', 'b'], named: ['a', 'b', 'c'], text: 'passed before, fail now: the 2 cases above' },
    { name: 'one named before', keys: ['a'], named: ['a'], text: 'passed before, fail now: the case above' },
    { name: 'some named before', keys: ['a', 'q'], named: ['a'], text: 'passed before, fail now: q and the case above' },
    { name: 'several of each', keys: ['a', 'q', 'b', 'r'], named: ['a', 'b'], text: 'passed before, fail now: q, r and the 2 cases above' },
    {
      name: 'more fresh ones than a sentence names',
      keys: ['a', ...Array.from({ length: 12 }, (_, i) => `q${i}`)],
      named: ['a'],
      text: 'passed before, fail now: q0, q1, q2, q3, q4, q5, q6, q7, q8, q9 and 2 more, and the case above'
    },
    { name: 'none named before', keys: ['q'], named: ['a'], text: 'passed before, fail now: q' }
  ])('withoutNamedKeys: $name', ({ keys, named, text }) => {
    const reason = { keys, message: `passed before, fail now: ${formatKeys(keys)}` }
    expect(withoutNamedKeys(reason, new Set(named))).toBe(text)
  })

  it('lists the config changes to apply after merge', () => {
    const verdict = verdictOf(richInput, {
      configChanges: [
        { key: 'gate.maxRegressions', base: 0, head: 5 },
        { key: 'judge.model', base: 'gpt-4o', head: undefined },
        { key: 'name', base: 'a|b', head: 'c' }
      ]
    })
    const md = markdownOf({ ...richInput, verdict })
    expect(md).toContain(
      '#### Config changes (apply after merge)\n\n' +
        "This pull request changes trusted settings; this run used the base branch's values.\n\n" +
        '| setting | applied (base branch) | this pull request |\n|:--|:--|:--|\n' +
        '| `gate.maxRegressions` | `0` | `5` |\n' +
        '| `judge.model` | `"gpt-4o"` | _not set_ |\n' +
        '| `name` | `"a\\|b"` | `"c"` |'
    )
  })

  it('lists the failing cases the same way without a baseline', () => {
    const current = makeRun([makeCase('ok'), makeCase('bad', false, { tags: ['geo'] })])
    const md = report(null, current, { minPassRate: 1 })
    expect(md).toContain(
      "#### Failing (1)\n\n| case | tags | first failing check | reason |\n|:--|:--|:--|:--|\n| <code>bad</code> | geo | <code>contains</code> | expected output to contain 'answer', got: bad |"
    )
    expect(md).toContain('<details><summary><code>bad</code></summary>')
    expect(md).toContain('**Output** (failed)')
    expect(md).not.toContain('Baseline output')
    expect(md).toContain('|  | current |\n|:--|--:|\n| pass rate | 50.0% (1/2) |')
    expect(md).not.toContain('unchanged')
  })
})

describe('renderReport: untrusted text', () => {
  const hostile = (overrides: Partial<CaseResult>) => {
    const current = makeRun([makeCase('x', false, { output: HOSTILE, ...overrides })])
    return report(makeBaseline([makeCase('x')]), current)
  }

  it.each([
    { name: 'output', overrides: {} },
    { name: 'case name', overrides: { name: HOSTILE } },
    {
      name: 'assertion reason',
      overrides: { assertions: [{ type: 'equals', passed: false, score: 0, reason: HOSTILE }] }
    },
    { name: 'target error', overrides: { output: null, error: HOSTILE } },
    { name: 'tag', overrides: { tags: [HOSTILE] } },
    { name: 'expected', overrides: { expected: HOSTILE } },
    { name: 'input', overrides: { input: { messages: [{ role: 'user', content: HOSTILE }] } } }
  ])('in the $name: no mention, no HTML, no issue link outside code', ({ overrides }) => {
    const text = outsideCode(hostile(overrides))
    expect(text).not.toMatch(/@octocat/)
    expect(text).not.toMatch(/(?<!\\)<script/)
    expect(text).not.toMatch(/(?<!&)#12/)
    expect(text).not.toMatch(/(?<!\\)\*\*bold/)
  })

  it('keeps a hostile output inside its fence', () => {
    const md = hostile({})
    expect(md).toContain('````\nAsk @octocat! <script>alert(1)</script> | see #12 ```\n``` **bold**\n````')
  })

  it('keeps the per-tag table to its columns', () => {
    const row = hostile({ tags: ['a|b'] })
      .split('\n')
      .find((line) => line.startsWith('| a'))!
    expect(row.match(/(?<!\\)\|/g)).toHaveLength(6)
  })

  it('cuts a long output with a note', () => {
    const md = hostile({ output: 'z'.repeat(5_000) })
    expect(md).toContain(`\`\`\`\n${'z'.repeat(1_000)}\n\`\`\`\n\n_(the first 1,000 of 5,000 characters)_`)
  })
})

describe('renderReport: length', () => {
  const hint = 'the job summary and the `evalgate-support-bot` artifact'

  it('keeps every regressed id, whatever config changes, notices and added cases compete for the room', () => {
    // three regressions among many cases the pull request added; hundreds of long config changes and notices
    const baseline = makeBaseline(makeCases('r-1', 'r-2', 'r-3', 'ok'))
    const added = Array.from({ length: 2_000 }, (_, i) => makeCase(`added-${i}-${'a'.repeat(60)}`))
    const current = makeRun([...makeCases('!r-1', '!r-2', '!r-3', 'ok'), ...added])
    const i = input(baseline, current)
    const long = 'k'.repeat(5_000)
    const verdict = conclude(i.comparison, current, {
      baselineStatus: 'found',
      configChanges: Array.from({ length: 400 }, (_, n) => ({ key: `judge.env.${long}${n}`, base: undefined, head: `\${SECRET_${n}}${long}` })),
      notices: Array.from({ length: 400 }, (_, n) => `notice ${n}: ${'n'.repeat(5_000)}`)
    })
    const md = markdownOf({ ...i, verdict })
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_LENGTH)
    for (const id of ['r-1', 'r-2', 'r-3']) expect(md).toContain(`<code>${id}</code>`)
    expect(md).toContain('#### Regressed (3)')
    expect(md).toMatch(/and 380 more \(in the job summary\)/)
    expect(md).toMatch(/and 380 more notices \(in the job summary\)/)
    // the job summary has them all
    const summary = markdownOf({ ...i, verdict }, { maxLength: 10_000_000, details: Infinity })
    expect(summary).not.toContain('in the job summary')
    expect(summary).toContain('notice 399')
  })

  /** n regressions among 4n cases, each with a long output and a long reason. */
  function regressed(n: number, idOf = (i: number) => `case-${i}`) {
    const baseline = makeBaseline(Array.from({ length: 4 * n }, (_, i) => makeCase(idOf(i), true, { tags: ['bulk'], expected: 'the right answer' })))
    const current = makeRun(
      Array.from({ length: 4 * n }, (_, i) =>
        i % 4
          ? makeCase(idOf(i), true, { tags: ['bulk'] })
          : makeCase(idOf(i), false, {
              tags: ['bulk'],
              output: 'o'.repeat(400),
              assertions: [
                { type: 'contains', passed: false, score: 0, reason: `expected output to contain "the right answer", got: ${JSON.stringify('o'.repeat(400))}` }
              ]
            })
      )
    )
    return { comparison: compareRuns(baseline, current, makeGate()), baseline, current }
  }

  it.each([60, 180, 3_000])(`keeps every id of %i regressions within ${DEFAULT_MAX_LENGTH} characters`, (n) => {
    const input = regressed(n)
    const md = markdownOf(input, { fullReportHint: hint })
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_LENGTH)
    const missing = input.comparison.regressed.filter((id) => !new RegExp(`\\b${id}\\b`).test(md))
    expect(missing).toEqual([])
    expect(input.comparison.regressed).toHaveLength(n)
  })

  it('tables as many regressions as fit, then names the others below the table', () => {
    const input = regressed(3_000)
    const md = markdownOf(input, { fullReportHint: hint })
    const rows = md.split('\n').filter((l) => l.startsWith('| <code>case-')).length
    expect(rows).toBeGreaterThan(20)
    expect(rows).toBeLessThan(3_000)
    const rest = md.split('\n').find((l) => l.startsWith('Regressed, not in the table for lack of room'))!
    expect(rest).toMatch(new RegExp(`^Regressed, not in the table for lack of room \\(${(3_000 - rows).toLocaleString('en-US')}\\): \`case-${4 * rows}\`, `))
    expect(rest.endsWith('`case-11996`')).toBe(true)
    // rows past the first 20 fold away, still in the comment
    expect(md).toContain(`<details><summary>${(rows - 20).toLocaleString('en-US')} more cases</summary>`)
  })

  it('details the first 10 regressions and says where the others are', () => {
    const md = markdownOf(regressed(60), { fullReportHint: hint })
    const details = [...md.matchAll(/<details><summary><code>(case-\d+)<\/code>/g)].map((m) => m[1])
    expect(details).toEqual(ids(10).map((_, i) => `case-${4 * i}`))
    expect(md).toContain(`<sub>Details of the first 10 of 60; all are in ${hint}.</sub>`)
    expect(md).not.toContain('did not fit')
  })

  it('details every regression when asked (the job summary)', () => {
    const md = markdownOf(regressed(60), { maxLength: 1e9, details: Infinity })
    expect(md.match(/<details><summary><code>/g)).toHaveLength(60)
    expect(md).not.toContain('Details of the first')
  })

  it('drops the details that do not fit, whole, and says so', () => {
    const md = markdownOf(regressed(60), { maxLength: 15_000, fullReportHint: hint })
    expect(md.length).toBeLessThanOrEqual(15_000)
    const shown = md.match(/<details><summary><code>/g)?.length ?? 0
    expect(shown).toBeLessThan(10)
    expect(md).toContain(`⚠️ ${plural(10 - shown, 'regression detail')} did not fit within 15,000 characters; see ${hint}.`)
    expect(md.split('<details>').length).toBe(md.split('</details>').length)
  })

  it('names as many ids as fit when even the ids overflow, and stays within the limit', () => {
    const input = regressed(3_000, (i) => `a-rather-long-case-identifier-${i}`)
    const md = markdownOf(input, { fullReportHint: hint })
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_LENGTH)
    expect(md).toMatch(/, `a-rather-long-case-identifier-\d+` and [\d,]+ more/)
    expect(md).toContain('<sub>duration:')
  })

  it.each([
    {
      name: 'regression details go first, then the per-tag breakdown, then the fixes list',
      room: (sizes: Sizes) => sizes.full - sizes.detail - sizes.tags + NOTE_ROOM,
      dropped: ['1 regression detail', 'the per-tag breakdown'],
      kept: ['#### Fixed', '#### Errors']
    },
    {
      name: 'the errors list is kept longest',
      room: (sizes: Sizes) => sizes.full - sizes.detail - sizes.tags - sizes.fixes + NOTE_ROOM,
      dropped: ['1 regression detail', 'the fixes list', 'the per-tag breakdown'],
      kept: ['#### Errors']
    }
  ])('$name', ({ room, dropped, kept }) => {
    const { md: full, sizes } = droppable()
    const maxLength = room(sizes)
    const md = markdownOf(droppableInput, { maxLength })
    expect(Math.min(sizes.detail, sizes.tags, sizes.fixes)).toBeGreaterThan(NOTE_ROOM)
    expect(full.length).toBeGreaterThan(maxLength)
    expect(md.length).toBeLessThanOrEqual(maxLength)
    const note = md.split('\n').find((line) => line.startsWith('⚠️'))
    expect(note).toBe(
      `⚠️ ${dropped.length > 1 ? `${dropped.slice(0, -1).join(', ')} and ${dropped.at(-1)}` : dropped[0]} did not fit within ${maxLength.toLocaleString('en-US')} characters.`
    )
    for (const section of kept) expect(md).toContain(section)
  })

  it.each([40, 200, 1_000])('never exceeds a tiny limit of %i', (maxLength) => {
    expect(markdownOf(regressed(100), { maxLength }).length).toBeLessThanOrEqual(maxLength)
  })
})

/** More than the longest note about what was dropped, less than any optional block. */
const NOTE_ROOM = 200

interface Sizes {
  full: number
  detail: number
  tags: number
  fixes: number
}

// One regression with a long output, one fix, one tag, one error: each optional section once.
// Each is much larger than the note saying what was dropped, so that the note's room decides nothing.
const manyTags = ids(12, 'tag')
const droppableBaseline = makeBaseline([makeCase('r', true, { tags: manyTags }), makeCase('f', false)])
const droppableCurrent = makeRun([
  makeCase('r', false, { tags: manyTags, output: 'w'.repeat(900), error: 'boom' }),
  makeCase('f', true, { name: 'a fixed case with a long name '.repeat(15) })
])
const droppableInput = {
  comparison: compareRuns(droppableBaseline, droppableCurrent, makeGate()),
  baseline: droppableBaseline,
  current: droppableCurrent
}

/** The full report and the sizes of its optional blocks (with their separators). */
function droppable(): { md: string; sizes: Sizes } {
  const md = markdownOf(droppableInput, { maxLength: 1e9 })
  const size = (start: string, end: string) => md.indexOf(end) - md.indexOf(start)
  return {
    md,
    sizes: {
      full: md.length,
      detail: size('<details>', '#### Fixed'),
      fixes: size('#### Fixed', '1 flaky') > 0 ? size('#### Fixed', '1 flaky') : size('#### Fixed', '0 flaky'),
      tags: size('#### By tag', '#### Errors')
    }
  }
}

describe('relativeAge', () => {
  it.each([
    { from: '2026-11-30T11:59:30Z', to: '2026-11-30T12:00:00Z', age: 'less than a minute older than this run' },
    { from: '2026-11-30T11:59:00Z', to: '2026-11-30T12:00:00Z', age: '1 minute older than this run' },
    { from: '2026-11-30T09:00:00Z', to: '2026-11-30T12:00:00Z', age: '3 hours older than this run' },
    { from: '2026-11-28T11:00:00Z', to: '2026-11-30T12:00:00Z', age: '2 days older than this run' },
    { from: '2026-11-30T13:00:00Z', to: '2026-11-30T12:00:00Z', age: '1 hour newer than this run' },
    { from: 'not a date', to: '2026-11-30T12:00:00Z', age: null }
  ])('$from → $to: $age', ({ from, to, age }) => {
    expect(relativeAge(from, to)).toBe(age)
  })
})

describe('formatDuration', () => {
  it.each([
    { ms: 12, text: '12 ms' },
    { ms: 1_500, text: '1.5 s' },
    { ms: 134_000, text: '2 min 14 s' },
    { ms: 3_725_000, text: '1 h 2 min' }
  ])('$ms ms → $text', ({ ms, text }) => {
    expect(formatDuration(ms)).toBe(text)
  })
})
