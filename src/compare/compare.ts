/**
 * Case-by-case comparison of a current run with its baseline.
 * Pure: records in, figures and case keys out.
 */
import type { GateConfig } from '../config/schema.js'
import type { CaseResult, RunRecord } from '../types.js'
import { evaluateGate } from './gate.js'
import { isKnownFlaky, nextHistory, recentCounts } from './history.js'
import { isNotGraded } from './judged.js'
import { comparedMetrics, unreportedMetrics } from './metrics.js'
import { isSelected, shardFromText, type Selection } from './selection.js'
import { flipTest } from './flip-test.js'
import { sensitivity, type Sensitivity } from './sensitivity.js'
import { pairedDifferenceCI, pairedMeanCI, type PairedCounts } from './stats.js'
import type { CommonFigures, Comparison, FlakyCase, RunFigures, TagFigures, TrialCounts } from './types.js'

/** What happened to a case present in both runs. */
export type CaseOutcome = 'regressed' | 'fixed' | 'flaky' | 'changed' | 'unchanged'

export function compareRuns(baseline: RunRecord | null, current: RunRecord, gate: GateConfig): Comparison {
  const withoutGate = baseline ? compareCases(baseline, current, gate.alpha) : noBaseline(current)
  return { ...withoutGate, gate: evaluateGate(withoutGate, gate, current), sensitivity: sensitivityOf(withoutGate, baseline, current, gate) }
}

/**
 * What the gate could have caught at this run's counts: over the
 * compared cases, at the trials each side ran; without a baseline, over this
 * run's cases as the next run would compare them.
 */
function sensitivityOf(c: Omit<Comparison, 'gate'>, baseline: RunRecord | null, current: RunRecord, gate: GateConfig): Sensitivity | null {
  const repeat = current.config?.repeat ?? 1
  const compared = baseline ? (c.common?.total ?? 0) : current.cases.length
  const passed = baseline ? Math.round((c.common?.baselinePassRate ?? 0) * compared) : c.current.passed
  return sensitivity({
    cases: compared,
    baselinePassed: passed,
    trials: { baseline: baseline ? (baseline.config?.repeat ?? 1) : repeat, current: repeat },
    repeatPassThreshold: current.config?.repeatPassThreshold ?? 0.5,
    // flips are re-run only against a baseline
    rerunFlips: baseline ? (current.config?.rerunFlips ?? 0) : 0,
    gate
  })
}

function compareCases(baseline: RunRecord, current: RunRecord, alpha: number): Omit<Comparison, 'gate'> {
  // Keys are unique within a run (the loader refuses duplicates); id-less cases carry a content hash as key.
  const baselineCases = new Map(baseline.cases.map((c) => [c.id, c]))
  const currentKeys = new Set(current.cases.map((c) => c.id))
  const lists = { regressed: [] as string[], fixed: [] as string[], flaky: [] as string[], changed: [] as string[] }
  const notTestable: string[] = []
  const tooFewTrials: string[] = []
  const changedRegressed: string[] = []
  const added: string[] = []
  const flakyCases: FlakyCase[] = []
  const pairs: [CaseResult, CaseResult][] = []
  const notGraded: string[] = []
  // baseline cases left uncompared because a verdict could not be given: not the dataset's doing, so not coverage's
  let ungradedPairs = 0
  let unchanged = 0
  for (const c of current.cases) {
    const b = baselineCases.get(c.id)
    if (!b) {
      added.push(c.id)
      if (isNotGraded(c)) notGraded.push(c.id)
      continue
    }
    // a verdict the judge could not give, on either side, says nothing about the target: not compared
    if (b.fingerprint === c.fingerprint && (isNotGraded(c) || isNotGraded(b))) {
      notGraded.push(c.id)
      ungradedPairs++
      continue
    }
    const { outcome, flaky, notTestable: untested, tooFewTrials: untestable, asBaseline } = assess(b, c, alpha)
    if (outcome === 'unchanged') unchanged++
    else lists[outcome].push(c.id)
    if (untested) notTestable.push(c.id)
    if (untestable) tooFewTrials.push(c.id)
    if (asBaseline) changedRegressed.push(c.id)
    if (flaky) flakyCases.push({ key: c.id, ...flaky })
    // compared: the same fingerprint (a case regressed as the baseline ran it is not, for the figures)
    if (outcome !== 'changed' && !asBaseline) pairs.push([b, c])
  }
  // a baseline case this run's --filter or shard left out was not run, not removed
  const selection: Selection = { filter: current.config?.filter, shard: shardFromText(current.config?.shard) }
  const inScope = baseline.cases.filter((b) => isSelected(b, selection))
  const missing = inScope.filter((b) => !currentKeys.has(b.id)).map((b) => b.id)
  // A run cut short lacks cases because it stopped, not because the dataset dropped them.
  const complete = current.complete !== false
  const baselineFigures = runFigures(baseline)
  const currentFigures = runFigures(current)
  const flakyKeys = new Set(lists.flaky)
  const unreported = unreportedMetrics(pairs)
  return {
    baseline: baselineFigures,
    current: currentFigures,
    passRateDelta: currentFigures.passRate - baselineFigures.passRate,
    meanScoreDelta: difference(currentFigures.meanScore, baselineFigures.meanScore),
    common: commonFigures(pairs, flakyKeys),
    passRateDeltaCI: pairedDifferenceCI(pairedCounts(pairs)),
    gatedPassRateDeltaCI: pairedDifferenceCI(pairedCounts(pairs, flakyKeys)),
    meanScoreDeltaCI: pairedMeanCI(scoredPairs(pairs).map((s) => s.current - s.baseline)),
    metrics: comparedMetrics(pairs),
    ...(unreported.length ? { unreported } : {}),
    ...lists,
    notGraded,
    notTestable,
    ...(tooFewTrials.length ? { tooFewTrials } : {}),
    ...(changedRegressed.length ? { changedRegressed } : {}),
    flakyCases,
    added,
    removed: complete ? missing : [],
    unfinished: complete ? [] : missing,
    unchanged,
    coverage: { baseline: inScope.length - ungradedPairs, compared: pairs.length },
    tags: tagFigures(baseline, current, new Set(lists.regressed))
  }
}

function noBaseline(current: RunRecord): Omit<Comparison, 'gate'> {
  return {
    baseline: null,
    current: runFigures(current),
    passRateDelta: null,
    meanScoreDelta: null,
    common: null,
    passRateDeltaCI: null,
    gatedPassRateDeltaCI: null,
    meanScoreDeltaCI: null,
    metrics: null,
    regressed: [],
    fixed: [],
    flaky: [],
    notGraded: current.cases.filter(isNotGraded).map((c) => c.id),
    notTestable: [],
    flakyCases: [],
    added: [],
    removed: [],
    changed: [],
    unfinished: [],
    unchanged: 0,
    coverage: null,
    tags: tagFigures(null, current, new Set())
  }
}

/** The outcome of a case present in both runs and, when it is flaky, why. */
export interface Assessment {
  outcome: CaseOutcome
  flaky?: Omit<FlakyCase, 'key'>
  /** a flip with trials on this side only, against one baseline trial: counted, but no test could be made */
  notTestable?: true
  /** all → none with trials on both sides too few for any test to reach alpha: counted without the test (flip-test.ts) */
  tooFewTrials?: true
  /** regressed as the baseline ran it: the case changed in this run, and failed when run with the baseline's input and assertions */
  asBaseline?: true
}

/**
 * The outcome of one case present in both runs. A flip counts (regressed or
 * fixed) unless the evidence says it is within chance, then it is flaky:
 * - re-run (rerunFlips) and its verdict over all trials no longer flips;
 * - repeated trials on both sides and a pass fraction that did not move
 *   significantly (one-sided Fisher exact test at alpha) — unless the counts
 *   are too few for any test and it went from every trial passing to none
 *   (flip-test.ts);
 * - known flaky (history.ts): a single trial now never counts; repeated trials
 *   now against a single baseline trial are tested against its recent runs.
 * Otherwise, with a single trial on either side, every flip counts.
 */
export function assess(baseline: CaseResult, current: CaseResult, alpha: number): Assessment {
  if (baseline.fingerprint !== current.fingerprint) return assessChanged(baseline, current, alpha)
  const flip = baseline.passed ? 'failed' : 'passed'
  const now = countTrials(current)
  const reruns = rerunCounts(current)
  if (baseline.passed === current.passed) {
    // a re-run case flipped at first: its re-runs took the flip back
    return reruns ? { outcome: 'flaky', flaky: { flip, because: 'reruns', current: now, baseline: countTrials(baseline), reruns } } : { outcome: 'unchanged' }
  }
  const outcome = baseline.passed ? 'regressed' : 'fixed'
  const history = nextHistory(baseline)
  const knownFlaky = isKnownFlaky(history)
  if (!hasTrials(current)) {
    return knownFlaky ? { outcome: 'flaky', flaky: { flip, because: 'history', current: now, baseline: recentCounts(history) } } : { outcome }
  }
  const because = hasTrials(baseline) ? 'trials' : 'history'
  const before = hasTrials(baseline) ? countTrials(baseline) : knownFlaky ? recentCounts(history) : null
  // one baseline trial against several now: even 1/1 → 0/5 has p = 1/6, so no result could be significant
  if (!before) return { outcome, notTestable: true }
  const extra = reruns ? { reruns } : {}
  const { counts, p, tooFewTrials } = baseline.passed ? flipTest(before, now, alpha) : flipTest(now, before, alpha)
  if (counts) return tooFewTrials ? { outcome, tooFewTrials } : { outcome }
  return { outcome: 'flaky', flaky: { flip, because, current: now, baseline: before, p, ...extra } }
}

/**
 * A changed case is compared as the baseline ran it: when
 * it passed there and was run again with the baseline's input and assertions
 * (run/as-baseline.ts), a drop there is a regression like any other; else
 * it is only changed.
 */
function assessChanged(baseline: CaseResult, current: CaseResult, alpha: number): Assessment {
  const again = current.asBaseline
  if (!again || !baseline.passed) return { outcome: 'changed' }
  const asRun: CaseResult = { ...current, ...again, fingerprint: baseline.fingerprint, reruns: undefined }
  if (!again.trials) delete asRun.trials
  const { outcome, tooFewTrials } = assess(baseline, asRun, alpha)
  if (outcome !== 'regressed') return { outcome: 'changed' }
  return { outcome, asBaseline: true, ...(tooFewTrials ? { tooFewTrials } : {}) }
}

function hasTrials(c: CaseResult): boolean {
  return (c.trials?.length ?? 0) >= 2
}

/** Passed and total trials; a case of one trial counts as one. */
function countTrials(c: CaseResult): TrialCounts {
  if (!c.trials?.length) return { passed: c.passed ? 1 : 0, total: 1 }
  return { passed: c.trials.filter((t) => t.passed).length, total: c.trials.length }
}

/** The re-run trials of a case (the last `reruns` of its trials). */
function rerunCounts(c: CaseResult): TrialCounts | null {
  const n = c.reruns ?? 0
  if (n <= 0 || !c.trials || c.trials.length < n) return null
  return { passed: c.trials.slice(-n).filter((t) => t.passed).length, total: n }
}

/** A run's figures over its graded cases: a case the judge could not grade is left out of them. */
export function runFigures(run: RunRecord): RunFigures {
  const graded = run.cases.filter((c) => !isNotGraded(c))
  const passed = graded.filter((c) => c.passed).length
  return {
    name: run.name,
    createdAt: run.createdAt,
    sha: run.git.sha,
    complete: run.complete !== false,
    total: graded.length,
    passed,
    passRate: graded.length ? passed / graded.length : 0,
    meanScore: meanScore(graded)
  }
}

function passRate(cases: readonly CaseResult[]): number {
  return cases.length ? cases.filter((c) => c.passed).length / cases.length : 0
}

function meanScore(cases: readonly CaseResult[]): number | null {
  return mean(cases.map((c) => c.score).filter((s): s is number => s !== null))
}

function mean(values: readonly number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null
}

function difference(current: number | null, baseline: number | null): number | null {
  return current === null || baseline === null ? null : current - baseline
}

/** Whether the current side of a pair counts as passed for the gate: a flaky case as it was in the baseline. */
function gatedPassed([b, c]: readonly [CaseResult, CaseResult], flaky: ReadonlySet<string>): boolean {
  return flaky.has(c.id) ? b.passed : c.passed
}

/** Figures over [baseline, current] pairs of the same case and fingerprint. */
function commonFigures(pairs: readonly [CaseResult, CaseResult][], flaky: ReadonlySet<string>): CommonFigures | null {
  if (!pairs.length) return null
  const baselinePassRate = passRate(pairs.map(([b]) => b))
  const currentPassRate = passRate(pairs.map(([, c]) => c))
  const gatedCurrentPassRate = pairs.filter((pair) => gatedPassed(pair, flaky)).length / pairs.length
  const scored = scoredPairs(pairs)
  const baselineMeanScore = mean(scored.map((s) => s.baseline))
  const currentMeanScore = mean(scored.map((s) => s.current))
  return {
    total: pairs.length,
    baselinePassRate,
    currentPassRate,
    passRateDelta: currentPassRate - baselinePassRate,
    gatedCurrentPassRate,
    gatedPassRateDelta: gatedCurrentPassRate - baselinePassRate,
    flakyFlips: pairs.filter(([, c]) => flaky.has(c.id)).length,
    baselineMeanScore,
    currentMeanScore,
    meanScoreDelta: difference(currentMeanScore, baselineMeanScore),
    newlyFailing: pairs.filter(([b, c]) => b.passed && !c.passed).map(([, c]) => c.id),
    scoredLower: scored
      .filter((s) => s.current < s.baseline)
      .sort((x, y) => x.current - x.baseline - (y.current - y.baseline))
      .map((s) => s.key)
  }
}

/**
 * Scores are compared on cases scored on both sides, so that a newly unscored
 * case cannot move the mean.
 */
function scoredPairs(pairs: readonly [CaseResult, CaseResult][]): { key: string; baseline: number; current: number }[] {
  return pairs.flatMap(([b, c]) => (b.score !== null && c.score !== null ? [{ key: c.id, baseline: b.score, current: c.score }] : []))
}

/** The 2×2 table of the pairs; with `flaky`, those cases count as they were in the baseline (the gated figures). */
function pairedCounts(pairs: readonly [CaseResult, CaseResult][], flaky: ReadonlySet<string> = new Set()): PairedCounts {
  const counts: PairedCounts = { bothPassed: 0, onlyCurrentPassed: 0, onlyBaselinePassed: 0, bothFailed: 0 }
  for (const pair of pairs) {
    const b = pair[0]
    const passedNow = gatedPassed(pair, flaky)
    if (b.passed && passedNow) counts.bothPassed++
    else if (passedNow) counts.onlyCurrentPassed++
    else if (b.passed) counts.onlyBaselinePassed++
    else counts.bothFailed++
  }
  return counts
}

/** Per-tag figures for every tag of the current run, alphabetically. */
function tagFigures(baseline: RunRecord | null, current: RunRecord, regressed: ReadonlySet<string>): TagFigures[] {
  const tags = [...new Set(current.cases.flatMap((c) => c.tags))].sort()
  const graded = (run: RunRecord | null) => run?.cases.filter((c) => !isNotGraded(c)) ?? []
  const [currentCases, baselineCases] = [graded(current), graded(baseline)]
  return tags.map((tag) => {
    const tagged = currentCases.filter((c) => c.tags.includes(tag))
    const baselineTagged = baselineCases.filter((c) => c.tags.includes(tag))
    return {
      tag,
      baselinePassRate: baselineTagged.length ? passRate(baselineTagged) : null,
      currentPassRate: passRate(tagged),
      total: tagged.length,
      regressed: tagged.filter((c) => regressed.has(c.id)).length
    }
  })
}
