/**
 * JUnit XML, read off the one report model: one <testsuite> per
 * run with the verdict in its <properties>, one <testcase> per case — a
 * failing case a <failure> with its reasons (a regressed one says it passed
 * on the baseline), a target error an <error>, a case not run or not graded
 * <skipped/>. Every CI's test-report tab reads it.
 *
 * What a case shows is written by the agent, the dataset and the judge: any
 * text at all. Everything goes through one escaper that leaves no markup
 * (`<`, `&`, `]]>`), keeps whitespace in attributes, and replaces what XML
 * 1.0 cannot carry at all (control characters, lone surrogates, U+FFFE/FFFF)
 * with a visible `\uXXXX`; long text is cut, so a megabyte output is a few
 * kilobytes here. Valid against the Jenkins xUnit junit-10.xsd (the common
 * schema; __tests__/__fixtures__/junit/junit-10.xsd). That schema has no
 * <properties> inside a <testcase>, so the key of a case whose name is not
 * its key is a suite property `key:<case name>`. Pure.
 */
import type { CaseResult } from '../types.js'
import { caseError, caseFailure, failedAssertions } from './failure.js'
import { formatScore } from './format.js'
import type { ReportModel } from './model.js'
import { truncate } from './escape.js'

/** A message attribute: the first line a test-report tab shows. */
const MESSAGE_CHARS = 500
/** The body of a failure or error: every reason. */
const BODY_CHARS = 4_000
/** What the agent said, in <system-out>. */
const OUTPUT_CHARS = 4_000
/** A property value (a reason, a notice, the headline). */
const PROPERTY_CHARS = 1_000

/** What XML 1.0 allows (§2.2 Char); everything else, lone surrogates included, is shown as \uXXXX. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

function visible(ch: string): string {
  return `\\u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/** At most `max` characters, saying how many more there were. */
function bounded(text: string, max: number): string {
  const { text: shown, truncated } = truncate(text, max)
  return truncated ? `${shown}… (${text.length - shown.length} more characters)` : shown
}

const TEXT_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' }
/** In an attribute, tabs and line breaks too: a parser would otherwise turn them into spaces. */
const ATTRIBUTE_ENTITIES: Readonly<Record<string, string>> = { ...TEXT_ENTITIES, '"': '&quot;', '\n': '&#10;', '\t': '&#9;' }

/** Element content: no markup can start or end in it (">" escaped, so no "]]>" either). */
export function xmlText(text: string, max = Infinity): string {
  return bounded(text, max)
    .replace(NOT_XML, visible)
    .replace(/[&<>\r]/g, (ch) => TEXT_ENTITIES[ch]!)
}

/** A double-quoted attribute value. */
export function xmlAttribute(text: string, max = Infinity): string {
  return bounded(text, max)
    .replace(NOT_XML, visible)
    .replace(/[&<>"\r\n\t]/g, (ch) => ATTRIBUTE_ENTITIES[ch]!)
}

function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${xmlAttribute(String(value), PROPERTY_CHARS)}"`)
    .join('')
}

/** Seconds with at most three decimals. */
function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3)
}

export interface JunitOptions {
  /** applied to every text taken from the runs before it is escaped (secrets read by ${VAR}) */
  redact?: (text: string) => string
}

type Outcome = { kind: 'passed' } | { kind: 'failure' | 'error' | 'skipped'; type: string; message: string; body: string }

/** The reasons a case fails, one per line, plainly. */
function reasonsText(k: CaseResult): string {
  const lines = failedAssertions(k).map((a) => {
    const judge = a.judge
    if (!judge) return `${a.type}: ${a.reason}`
    const extra = judge.error ? ` (judge error: ${judge.error})` : judge.reason && judge.reason !== a.reason ? ` (judge: ${judge.reason})` : ''
    return `${a.type} (judge ${judge.model} scored ${formatScore(judge.score)}): ${a.reason}${extra}`
  })
  const error = caseError(k)
  if (error !== null) lines.unshift(`target error: ${error}`)
  return lines.join('\n') || 'no failing assertion was recorded'
}

/** The first reason, as a test-report tab's one line. */
function firstReason(k: CaseResult): { type: string; reason: string } {
  const failure = caseFailure(k)
  if (failure.kind === 'error') return { type: 'target error', reason: failure.error }
  if (failure.kind === 'unknown') return { type: 'failed', reason: 'no failing assertion was recorded' }
  const a = failure.assertion
  if (a.judge) return { type: a.type, reason: `scored ${formatScore(a.judge.score)}: ${a.judge.error ?? (a.judge.reason || a.reason)}` }
  return { type: a.type, reason: a.reason }
}

function outcomeOf(k: CaseResult, sets: { regressed: Set<string>; flaky: Set<string>; notGraded: Set<string> }): Outcome {
  if (k.passed) return { kind: 'passed' }
  if (sets.notGraded.has(k.id))
    return {
      kind: 'skipped',
      type: 'not graded',
      message: 'not graded: the judge could not give a verdict, so the case is left out of the comparison',
      body: ''
    }
  const { type, reason } = firstReason(k)
  const body = reasonsText(k)
  const errored = k.output === null && caseError(k) !== null
  if (sets.regressed.has(k.id))
    return { kind: errored ? 'error' : 'failure', type: 'regressed', message: `regressed: passed on the baseline, fails now: ${type}: ${reason}`, body }
  const flaky = sets.flaky.has(k.id) ? 'flaky (its flip is within chance, not counted as a regression): ' : ''
  return { kind: errored ? 'error' : 'failure', type, message: `${flaky}${type}: ${reason}`, body }
}

function testcase(name: string, className: string, time: string, inner: string): string {
  const head = `    <testcase${attributes({ classname: className, name, time })}`
  return inner ? `${head}>\n${inner}    </testcase>` : `${head}/>`
}

/** The JUnit XML of a run, from its report model. */
export function renderJunit(model: ReportModel, options: JunitOptions = {}): string {
  const redact = options.redact ?? ((text: string) => text)
  const { comparison: c, current, baseline, verdict } = model
  const className = current.name
  const sets = { regressed: new Set(c.regressed), flaky: new Set(c.flaky), notGraded: new Set(c.notGraded) }
  const counts = { failures: 0, errors: 0, skipped: 0 }
  const cases: string[] = []
  for (const k of current.cases) {
    const outcome = outcomeOf(k, sets)
    let inner = ''
    if (outcome.kind !== 'passed') {
      counts[outcome.kind === 'failure' ? 'failures' : outcome.kind === 'error' ? 'errors' : 'skipped']++
      const attrs = attributes({ message: bounded(redact(outcome.message), MESSAGE_CHARS), type: outcome.type })
      inner = outcome.body
        ? `      <${outcome.kind}${attrs}>${xmlText(redact(outcome.body), BODY_CHARS)}</${outcome.kind}>\n`
        : `      <${outcome.kind}${attrs}/>\n`
      if (k.output !== null && outcome.kind !== 'skipped') inner += `      <system-out>${xmlText(redact(k.output), OUTPUT_CHARS)}</system-out>\n`
    }
    cases.push(testcase(redact(k.name), className, seconds(k.latencyMs ?? k.durationMs), inner))
  }
  // cases the run set out to run and never reached (cut short, or stopped at its budget)
  const notRun = current.complete ? '' : current.stopReason === 'budget' ? 'the run stopped at its budget' : 'the run was cut short'
  const baselineCases = new Map((baseline?.cases ?? []).map((k) => [k.id, k]))
  for (const key of c.unfinished) {
    counts.skipped++
    const skipped = `      <skipped${attributes({ message: `not run: ${notRun || 'the run did not reach it'}` })}/>\n`
    cases.push(testcase(redact(baselineCases.get(key)?.name ?? key), className, seconds(0), skipped))
  }
  const unnamed = Math.max(0, (current.planned ?? 0) - current.cases.length - c.unfinished.length)
  if (unnamed > 0) {
    counts.skipped++
    const skipped = `      <skipped${attributes({ message: `not run: ${notRun || 'the run did not reach them'}` })}/>\n`
    cases.push(testcase(`${unnamed} more ${unnamed === 1 ? 'case' : 'cases'} not run`, className, seconds(0), skipped))
  }

  const properties: [string, string][] = [
    ['verdict', verdict.status],
    ['gate', model.gate],
    ['headline', model.headline],
    ['passRate', String(c.current.passRate)],
    ...(c.baseline ? ([['baselinePassRate', String(c.baseline.passRate)]] as [string, string][]) : []),
    ...(c.current.meanScore !== null ? ([['meanScore', String(c.current.meanScore)]] as [string, string][]) : []),
    ...(c.baseline?.meanScore != null ? ([['baselineMeanScore', String(c.baseline.meanScore)]] as [string, string][]) : []),
    ['baselineStatus', verdict.baselineStatus],
    ['regressed', String(c.regressed.length)],
    ['fixed', String(c.fixed.length)],
    ...(current.git.sha ? ([['sha', current.git.sha]] as [string, string][]) : []),
    ...(baseline?.git.sha ? ([['baselineSha', baseline.git.sha]] as [string, string][]) : []),
    ...model.reasons.map((r): [string, string] => ['reason', `${r.code}: ${r.message}`]),
    ...model.notices.map((n): [string, string] => ['notice', n]),
    // a case's key where its name is not the key itself
    ...current.cases.filter((k) => k.name !== k.id).map((k): [string, string] => [`key:${k.name}`, k.id])
  ]
  const tests = cases.length
  const suite = attributes({
    name: className,
    tests,
    failures: counts.failures,
    errors: counts.errors,
    skipped: counts.skipped,
    time: seconds(current.summary.durationMs),
    timestamp: current.createdAt
  })
  const summary = [model.headline, ...model.reasons.map((r) => `- ${r.message}`), ...model.notices.map((n) => `note: ${n}`)].join('\n')
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: model.title, tests, failures: counts.failures, errors: counts.errors, time: seconds(current.summary.durationMs) })}>`,
    `  <testsuite${suite}>`,
    '    <properties>',
    ...properties.map(([name, value]) => `      <property${attributes({ name: redact(name), value: redact(value) })}/>`),
    '    </properties>',
    ...cases,
    `    <system-out>${xmlText(redact(summary), BODY_CHARS * 4)}</system-out>`,
    '  </testsuite>',
    '</testsuites>',
    ''
  ].join('\n')
}
