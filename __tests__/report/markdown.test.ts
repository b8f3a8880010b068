import { describe, expect, it } from '@jest/globals'
import { compareRuns } from '../../src/compare/index.js'
import type { GateConfig } from '../../src/config/schema.js'
import {
  DEFAULT_MAX_LENGTH,
  formatDuration,
  relativeAge,
  renderReport,
  type ReportOptions
} from '../../src/report/index.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { ids, makeBaseline, makeCase, makeCases, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

function report(
  baseline: RunRecord | null,
  current: RunRecord,
  gate: Partial<GateConfig> = {},
  options: ReportOptions = {}
) {
  return renderReport({ comparison: compareRuns(baseline, current, makeGate(gate)), baseline, current }, options)
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
const rich = report(richBaseline, richCurrent, { maxPassRateDrop: 0.02 }, { marker: '<!-- evalgate:support-bot -->' })

describe('renderReport: content', () => {
  it('puts the marker first, then the verdict', () => {
    const lines = rich.split('\n')
    expect(lines[0]).toBe('<!-- evalgate:support-bot -->')
    expect(lines[2]).toBe('### ❌ gate failed: evalgate · support-bot')
    expect(lines[3]).toBe('- 2 cases regressed (limit: maxRegressions 0): capital-ireland, math-2')
    expect(lines[4]).toBe('- 1 baseline case is missing from this run (limit: maxRemoved 0): gone')
    expect(lines[5]).toMatch(/^- pass rate dropped 33\.3 points .* 66\.7% → 33\.3%/)
  })

  it('keeps the sections in the order of SPEC §7', () => {
    const order = [
      '### ❌ gate failed',
      '| pass rate |',
      'Baseline: commit `ba5e110` on `main`, 3 hours older than this run, workflow run `41`.',
      '#### Regressed (2)',
      '<details><summary><code>capital-ireland</code> Capital of Ireland</summary>',
      '<details><summary><code>math-2</code></summary>',
      '#### Fixed (1)\n- `fixed-one`',
      '0 flaky · 1 added · 1 removed · 0 changed (fingerprint differs, not compared) · 0 unchanged',
      '#### By tag',
      '#### Errors (1)\n- `math-2`: timeout after 60000 ms',
      '<sub>judge: 12 calls, 3 reused, 1 error, 45,210 tokens · duration: 2 min 14 s · 4 cases · evalgate 0.1.0</sub>'
    ]
    const positions = order.map((text) => rich.indexOf(text))
    expect(positions.every((p) => p >= 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
  })

  it('shows pass rate and mean score, baseline → current, with the paired CI', () => {
    const baseline = makeBaseline(ids(25).map((id, i) => makeCase(id, i < 23, { score: 0.9 })))
    const current = makeRun(ids(25).map((id, i) => makeCase(id, i < 22, { score: 0.8 })))
    const md = report(baseline, current)
    expect(md).toMatch(
      /\| pass rate \| 92\.0% \(23\/25\) \| 88\.0% \(22\/25\) \| −4\.0 pts \(95% CI −\d+\.\d to \+\d+\.\d\) \|/
    )
    // every case lost exactly 0.1: no spread, the interval is the point
    expect(md).toContain('| mean score | 0.900 | 0.800 | −0.100 (95% CI −0.100 to −0.100) |')
    expect(md).not.toContain('in both runs |')
  })

  it('adds rows over the common cases when cases were added, removed or changed', () => {
    expect(rich).toContain('| pass rate | 75.0% (3/4) | 50.0% (2/4) | −25.0 pts |')
    expect(rich).toMatch(/\| pass rate, 3 cases in both runs \| 66\.7% \| 33\.3% \| −33\.3 pts \(95% CI /)
  })

  it('details each regression: input, expected, both outputs, assertion and judge reasons', () => {
    const detail = rich.slice(rich.indexOf('<details>'), rich.indexOf('</details>'))
    expect(detail).toContain('**Input**\n\n```\ninput of capital-ireland\n```')
    expect(detail).toContain('**Expected**\n\n```\nDublin\n```')
    expect(detail).toContain('**Baseline output** (passed)\n\n```\nDublin\n```')
    expect(detail).toContain('**Current output** (failed)\n\n````\nAsk @octocat!')
    expect(detail).toContain("- `contains`: expected output to contain 'Dublin', got: Ask @\u2060octocat!")
    expect(detail).toContain(
      '- `llm-rubric` (judge gpt-4o-mini scored 0.200): score 0.2 is below the threshold 0.7 — judge: The answer hedges and pings @\u2060octocat'
    )
    expect(rich).toContain('_no output; the target failed:_\n\n```\ntimeout after 60000 ms\n```')
  })

  it('shows the trials behind a flip of repeated cases', () => {
    const baseline = makeBaseline([makeCase('q', true, { trials: makeTrials(5, 5) })])
    const current = makeRun([makeCase('q', false, { trials: makeTrials(0, 5), assertions: [] })])
    const md = report(baseline, current)
    expect(md).toContain('**Baseline output** (passed, 5 of 5 trials)')
    expect(md).toContain('**Current output** (failed, 0 of 5 trials)')
    expect(md).toContain("- `contains`: expected output to contain 'answer', got: bad")
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
    expect(md).toContain('- the run is incomplete: it stopped after 1 case finished')
  })

  it.each([
    { name: 'passed', gate: {}, heading: '### ✅ gate passed: evalgate · support-bot' },
    { name: 'failed', gate: { minPassRate: 1 }, heading: '### ❌ gate failed: evalgate · support-bot' }
  ])('without a baseline: $name, says only the floors were checked', ({ gate, heading }) => {
    const md = report(null, makeRun(makeCases('a', '!b')), gate)
    expect(md.startsWith(heading)).toBe(true)
    expect(md).toContain('> ℹ️ no baseline: comparison skipped, only absolute floors checked')
    expect(md).toContain('|  | current |\n|:--|--:|\n| pass rate | 50.0% (1/2) |')
    expect(md).not.toContain('Baseline:')
    expect(md).not.toContain('unchanged')
  })

  it('uses the given title', () => {
    expect(report(null, makeRun([]), {}, { title: 'Evals: support bot' })).toMatch(
      /^### ✅ gate passed: Evals: support bot\n/
    )
  })

  it('omits the judge line when no judge ran', () => {
    expect(report(null, makeRun(makeCases('a')))).toContain('<sub>duration: 2 min 14 s · 1 case · evalgate 0.1.0</sub>')
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
  const n = 3_000
  const baseline = makeBaseline(
    ids(n).map((id) => makeCase(id, true, { tags: ['bulk'], expected: 'the right answer' }))
  )
  const current = makeRun(ids(n).map((id) => makeCase(id, false, { tags: ['bulk'], output: 'o'.repeat(400) })))
  const comparison = compareRuns(baseline, current, makeGate())
  const hint = 'the job summary and the `evalgate-support-bot` artifact'

  it(`keeps a ${n}-case all-regressed report under ${DEFAULT_MAX_LENGTH} characters and says what was left out`, () => {
    const md = renderReport({ comparison, baseline, current }, { fullReportHint: hint })
    expect(md.length).toBeLessThanOrEqual(DEFAULT_MAX_LENGTH)
    expect(md.startsWith('### ❌ gate failed')).toBe(true)
    expect(md).toContain(`- 3,000 cases regressed (limit: maxRegressions 0): ${ids(10).join(', ')} and 2,990 more`)
    const shown = md.split('<details>').length - 1
    expect(shown).toBeGreaterThan(10)
    expect(md).toContain(
      `⚠️ ${(n - shown).toLocaleString('en-US')} regression details did not fit within 60,000 characters; see ${hint}.`
    )
    // the details kept are the first ones, in dataset order
    expect(md).toContain(`<code>case-${shown - 1}</code>`)
    expect(md).not.toContain(`<code>case-${shown}</code>`)
    expect(md).toContain('#### By tag')
  })

  it('includes everything when the limit allows', () => {
    const md = renderReport({ comparison, baseline, current }, { maxLength: 10_000_000 })
    expect(md.split('<details>').length - 1).toBe(n)
    expect(md).not.toContain('did not fit')
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
    const md = renderReport(droppableInput, { maxLength })
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
    expect(renderReport({ comparison, baseline, current }, { maxLength }).length).toBeLessThanOrEqual(maxLength)
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
  const md = renderReport(droppableInput, { maxLength: 1e9 })
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
