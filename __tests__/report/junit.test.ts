/**
 * JUnit XML: valid against the common JUnit schema (the Jenkins xUnit
 * plugin's junit-10.xsd, validated by libxml2 compiled to WebAssembly) and
 * read back by a maintained JUnit parser (junit2json), whatever the agent
 * printed: markup, "]]>", control characters, lone surrogates, a megabyte.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from '@jest/globals'
import { parse, type TestCase, type TestSuite } from 'junit2json'
import { validateXML } from 'xmllint-wasm'
import { compareRuns } from '../../src/compare/index.js'
import { conclude } from '../../src/compare/conclude.js'
import { renderJunit, xmlAttribute, xmlText } from '../../src/report/junit.js'
import { buildReport } from '../../src/report/model.js'
import type { CaseResult, RunRecord } from '../../src/types.js'
import { makeBaseline, makeCase, makeGate, makeRun, makeTrials } from '../__fixtures__/records.js'

const XSD = readFileSync(fileURLToPath(new URL('../__fixtures__/junit/junit-10.xsd', import.meta.url)), 'utf8')

async function schemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: 'evalgate-junit.xml', contents: xml }], schema: [{ fileName: 'junit-10.xsd', contents: XSD }] })
  return result.errors.map((e) => e.rawMessage)
}

function junitOf(baseline: RunRecord | null, current: RunRecord, redact?: (text: string) => string): string {
  const comparison = compareRuns(baseline, current, makeGate())
  const verdict = conclude(comparison, current, { baselineStatus: baseline ? 'found' : 'none' })
  return renderJunit(buildReport({ comparison, baseline, current, verdict }), redact ? { redact } : {})
}

async function suiteOf(xml: string): Promise<TestSuite> {
  const parsed = (await parse(xml)) as { testsuite?: TestSuite[] }
  expect(parsed.testsuite).toHaveLength(1)
  return parsed.testsuite![0]!
}

function caseNamed(suite: TestSuite, name: string): TestCase {
  const found = suite.testcase?.find((t) => t.name === name)
  if (!found) throw new Error(`no testcase named ${JSON.stringify(name)} in ${JSON.stringify(suite.testcase?.map((t) => t.name))}`)
  return found
}

function property(suite: TestSuite, name: string): string[] {
  return (suite.properties ?? []).filter((p) => p.name === name).map((p) => String(p.value ?? ''))
}

const LONE_HIGH = '\uD800'
const LONE_LOW = '\uDC00'
/** Everything an agent could print that XML or a test-report tab could choke on. */
const HOSTILE_OUTPUT = [
  'before ]]> after',
  '<![CDATA[ x ]]>',
  '</failure></testcase><testcase name="forged"/>',
  'nul \u0000 bell \u0007 escape \u001b[31mred\u001b[0m vertical-tab \u000b form-feed \u000c',
  `lone ${LONE_HIGH} high and lone ${LONE_LOW} low`,
  'not characters \uFFFE \uFFFF',
  'a pair stays 😀 and so does \u2028',
  '& &amp; "quotes" \'apostrophes\'',
  'tab\there\r\nwindows line'
].join('\n')

describe('renderJunit: the outcomes', () => {
  const baseline = makeBaseline([
    makeCase('regressed-case', true, { name: 'Capital of Ireland' }),
    makeCase('still-failing', false),
    makeCase('passing', true),
    makeCase('target-down', true),
    makeCase('not-reached', true, { name: 'Never reached' })
  ])
  const current = makeRun(
    [
      makeCase('regressed-case', false, { name: 'Capital of Ireland', latencyMs: 1234.5678 }),
      makeCase('still-failing', false),
      makeCase('passing', true, { latencyMs: 20 }),
      makeCase('target-down', false, { output: null, error: 'exit code 1: connection refused', assertions: [] })
    ],
    { complete: false, stopReason: 'budget', planned: 5, budget: { maxCostUsd: 1, spentUsd: 1.02 } }
  )

  it('is valid against junit-10.xsd and reads back with one testcase per case, failures, errors and skipped', async () => {
    const xml = junitOf(baseline, current)
    expect(await schemaErrors(xml)).toEqual([])
    const suite = await suiteOf(xml)
    expect(suite.name).toBe('support-bot')
    expect(suite.tests).toBe(5)
    expect(suite.failures).toBe(2)
    expect(suite.errors).toBe(1)
    expect(suite.skipped).toBe(1)
    expect(suite.testcase!.map((t) => t.name)).toEqual(['Capital of Ireland', 'still-failing', 'passing', 'target-down', 'Never reached'])
    for (const t of suite.testcase!) expect(t.classname).toBe('support-bot')
  })

  it('says a regressed case passed on the baseline; a case failing on both sides is a plain failure', async () => {
    const suite = await suiteOf(junitOf(baseline, current))
    const regressed = caseNamed(suite, 'Capital of Ireland')
    expect(regressed.failure![0]!.type).toBe('regressed')
    expect(regressed.failure![0]!.message).toBe("regressed: passed on the baseline, fails now: contains: expected output to contain 'answer', got: bad")
    expect(regressed.failure![0]!.inner).toBe("contains: expected output to contain 'answer', got: bad")
    expect(regressed['system-out']).toEqual(['bad answer to regressed-case'])
    const failing = caseNamed(suite, 'still-failing')
    expect(failing.failure![0]!.type).toBe('contains')
    expect(failing.failure![0]!.message).not.toMatch(/regressed/)
    expect(caseNamed(suite, 'passing').failure).toBeUndefined()
  })

  it('a target error is an <error>, a case the budget never reached is <skipped/>', async () => {
    const suite = await suiteOf(junitOf(baseline, current))
    const down = caseNamed(suite, 'target-down')
    expect(down.error![0]!.message).toBe('regressed: passed on the baseline, fails now: target error: exit code 1: connection refused')
    expect(down.failure).toBeUndefined()
    expect(caseNamed(suite, 'Never reached').skipped![0]!.message).toBe('not run: the run stopped at its budget')
  })

  it('time is the latency in seconds with at most three decimals', async () => {
    const suite = await suiteOf(junitOf(baseline, current))
    expect(caseNamed(suite, 'Capital of Ireland').time).toBe(1.235)
    expect(caseNamed(suite, 'passing').time).toBe(0.02)
    expect(junitOf(baseline, current)).toContain('name="Capital of Ireland" time="1.235"')
  })

  it('the suite carries the verdict, both pass rates and each case key as properties', async () => {
    const suite = await suiteOf(junitOf(baseline, current))
    expect(property(suite, 'verdict')).toEqual(['could-not-tell'])
    expect(property(suite, 'passRate')).toEqual([String(1 / 4)])
    expect(property(suite, 'baselinePassRate')).toEqual([String(4 / 5)])
    expect(property(suite, 'key:Capital of Ireland')).toEqual(['regressed-case'])
    // a case named by its key needs no property to say it
    expect(property(suite, 'key:passing')).toEqual([])
    expect(property(suite, 'reason').some((r) => r.startsWith('incomplete: the run stopped at its budget'))).toBe(true)
    expect(suite['system-out']![0]).toMatch(/^evalgate could not tell: /)
  })

  it("the verdict property is the model's: pass, fail", async () => {
    const pass = await suiteOf(junitOf(makeBaseline([makeCase('a')]), makeRun([makeCase('a')])))
    expect(property(pass, 'verdict')).toEqual(['pass'])
    expect(property(pass, 'gate')).toEqual(['pass'])
    const fail = await suiteOf(junitOf(makeBaseline([makeCase('a')]), makeRun([makeCase('a', false)])))
    expect(property(fail, 'verdict')).toEqual(['fail'])
    expect(property(fail, 'reason')).toEqual(['maxRegressions: 1 case regressed (limit: maxRegressions 0): a'])
  })

  it('without a baseline there is no baseline pass rate and no case is called regressed', async () => {
    const suite = await suiteOf(junitOf(null, makeRun([makeCase('a', false), makeCase('b')])))
    expect(property(suite, 'baselinePassRate')).toEqual([])
    expect(property(suite, 'baselineStatus')).toEqual(['none'])
    expect(caseNamed(suite, 'a').failure![0]!.type).toBe('contains')
  })

  it('a case the judge could not grade is skipped as not graded, not failed', async () => {
    const unavailable: CaseResult = makeCase('judged', false, {
      assertions: [
        {
          type: 'llm-rubric',
          passed: false,
          score: 0,
          reason: 'judge error: HTTP 503',
          error: 'HTTP 503',
          judge: { model: 'gpt-4o-mini', score: 0, reason: 'judge error', error: 'HTTP 503', unavailable: true, key: 'k' }
        }
      ]
    })
    const xml = junitOf(makeBaseline([makeCase('judged'), makeCase('x'), makeCase('y')]), makeRun([unavailable, makeCase('x'), makeCase('y')]))
    expect(await schemaErrors(xml)).toEqual([])
    const t = caseNamed(await suiteOf(xml), 'judged')
    expect(t.skipped![0]!.message).toMatch(/^not graded: /)
    expect(t.failure).toBeUndefined()
  })

  it('a flaky case fails but says it is not counted as a regression', async () => {
    const base = makeBaseline([makeCase('f', true, { passFraction: 0.6, trials: makeTrials(3, 5) })])
    const now = makeRun([makeCase('f', false, { passFraction: 0.4, trials: makeTrials(2, 5) })])
    const t = caseNamed(await suiteOf(junitOf(base, now)), 'f')
    expect(t.failure![0]!.message).toMatch(/^flaky \(its flip is within chance, not counted as a regression\): contains: /)
  })
})

describe('renderJunit: whatever the agent printed', () => {
  const hostile = makeCase('hostile', false, {
    name: `name with "quotes" <tags> & a\nnewline\tand tab ${LONE_HIGH}`,
    output: HOSTILE_OUTPUT,
    assertions: [{ type: 'contains', passed: false, score: 0, reason: `expected ]]> but got ${HOSTILE_OUTPUT}` }]
  })
  const current = makeRun([hostile, makeCase('fine')], { name: 'support-bot' })

  it('stays valid against the schema, with no markup of its own', async () => {
    const xml = junitOf(null, current)
    expect(await schemaErrors(xml)).toEqual([])
    // nothing the agent wrote opened markup: one testcase per case, none forged
    expect(xml.match(/<testcase /g)).toHaveLength(2)
    expect(xml).not.toContain('<![CDATA[')
    expect(xml).not.toContain(']]>')
  })

  it('reads back with the text intact, and what XML cannot carry shown as \\uXXXX', async () => {
    const suite = await suiteOf(junitOf(null, current))
    const names = suite.testcase!.map((t) => t.name)
    expect(names).toEqual([`name with "quotes" <tags> & a\nnewline\tand tab \\uD800`, 'fine'])
    const out = suite.testcase![0]!['system-out']![0]!
    expect(out).toContain('before ]]> after')
    expect(out).toContain('</failure></testcase><testcase name="forged"/>')
    expect(out).toContain('nul \\u0000 bell \\u0007 escape \\u001B[31mred\\u001B[0m vertical-tab \\u000B form-feed \\u000C')
    expect(out).toContain('lone \\uD800 high and lone \\uDC00 low')
    expect(out).toContain('not characters \\uFFFE \\uFFFF')
    expect(out).toContain('a pair stays 😀 and so does \u2028')
    expect(out).toContain(`& &amp; "quotes" 'apostrophes'`)
    expect(out).toContain('tab\there\r\nwindows line')
    const failure = suite.testcase![0]!.failure![0]!
    expect(failure.message).toContain('expected ]]> but got before ]]> after\n<![CDATA[ x ]]>')
  })

  it('a megabyte output is bounded: a few kilobytes per case, saying how much was left out', async () => {
    const huge = 'x'.repeat(1_000_000) + LONE_HIGH + '<'.repeat(1000)
    const big = makeRun([makeCase('big', false, { output: huge, assertions: [{ type: 'contains', passed: false, score: 0, reason: huge }] })])
    const xml = junitOf(null, big)
    expect(xml.length).toBeLessThan(30_000)
    expect(await schemaErrors(xml)).toEqual([])
    const t = (await suiteOf(xml)).testcase![0]!
    expect(t['system-out']![0]).toMatch(/… \(996,?000 more characters\)$|… \(\d+ more characters\)$/)
    expect(t.failure![0]!.message!.length).toBeLessThan(600)
  })

  it('a cut never splits a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀tail`
    expect(xmlText(text, 10)).toBe(`${'a'.repeat(9)}… (6 more characters)`)
    expect(xmlAttribute(text, 11)).toBe(`${'a'.repeat(9)}😀… (4 more characters)`)
  })

  it('secrets are redacted before escaping', async () => {
    const leaky = makeRun([makeCase('leak', false, { output: 'token sk-SECRET-1 & more', error: null })])
    const xml = junitOf(null, leaky, (text) => text.replaceAll('sk-SECRET-1', '***'))
    expect(xml).not.toContain('sk-SECRET-1')
    expect(xml).toContain('token *** &amp; more')
  })
})
