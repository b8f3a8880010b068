/**
 * The markdown report: the sticky PR comment, the job summary and `--report`
 * share it. Pure: the report model in, markdown out, never longer than
 * maxLength (fit.ts).
 */
import { namedScoresTable } from './named-scores.js'
import type { ReportModel } from '../model.js'
import { failingCases, tooFewTrials } from './cases.js'
import { table } from './cells.js'
import { configChanges, figuresTable, runIdentity, sensitivityLine } from './figures.js'
import { fit, type Block } from './fit.js'
import { errors, fixes, flakyList, judgeSpread, otherOutcomes, rerunLine, runFooter, scoredLower, tagsTable } from './outcomes.js'
import { verdictAlerts } from './verdict.js'

/** GitHub refuses comments over 65,536 characters; this leaves room for what callers add. */
export const DEFAULT_MAX_LENGTH = 60_000

/** Regressions (or failing cases) shown in full below their table, unless told otherwise. */
export const DEFAULT_DETAILS = 10

export interface ReportOptions {
  /** default 60,000 characters */
  maxLength?: number
  /** a hidden HTML comment placed first, by which the sticky comment is found again */
  marker?: string
  /** where the full report is, for the line saying what did not fit (markdown, trusted) */
  fullReportHint?: string
  /** regressions detailed below their table; default 10 (the job summary shows them all) */
  details?: number
}

export function renderReport(model: ReportModel, options: ReportOptions = {}): string {
  const { comparison: c, current } = model
  const details = options.details ?? DEFAULT_DETAILS
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH
  // the job summary (every regression detailed) lists the notices and config changes whole too
  const whole = details === Infinity
  const body: Block[] = [
    ...(options.marker ? [{ text: options.marker }] : []),
    ...verdictAlerts(model, whole),
    { text: figuresTable(model) },
    ...runIdentity(model),
    ...sensitivityLine(model),
    ...configChanges(model, whole),
    ...failingCases(model, details, options.fullReportHint, maxLength),
    ...scoredLower(model),
    ...fixes(c, current),
    ...tooFewTrials(model, 'fixed'),
    ...otherOutcomes(c),
    ...rerunLine(c, current),
    ...flakyList(c, model.baseline),
    ...tagsTable(c),
    ...namedScoresTable(model.baseline, current, table),
    ...errors(current),
    ...judgeSpread(current)
  ]
  const footer: Block[] = [{ text: runFooter(current) }]
  return fit(body, footer, maxLength, options.fullReportHint)
}
