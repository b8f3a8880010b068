/**
 * What the action leaves in the job: the step summary, annotations on the
 * regressed cases, the action's outputs, and the report in the log.
 */
import path from 'node:path'
import * as core from '@actions/core'
import type { BaselineStatus, Comparison, VerdictStatus } from '../compare/types.js'
import type { ReportModel } from '../report/index.js'
import type { CaseResult, RunRecord } from '../types.js'
import type { Badge } from '../badge/index.js'
import { writeUntrusted } from '../util/workflow-commands.js'

/** GitHub keeps at most 1 MiB of a step's summary; leave room for other steps' sections. */
export const MAX_SUMMARY_BYTES = 1_000_000
export const MAX_ANNOTATIONS = 10

/**
 * Render text that must fit a byte budget: `render(maxLength)` keeps within a
 * number of characters, and characters outside ASCII take more than one byte.
 */
export function fitBytes(render: (maxLength: number) => string, maxBytes: number): string {
  let maxLength = maxBytes
  for (let i = 0; i < 5; i++) {
    const text = render(maxLength)
    const bytes = Buffer.byteLength(text)
    if (bytes <= maxBytes) return text
    maxLength = Math.floor((maxLength * maxBytes * 0.95) / bytes)
  }
  return render(Math.floor(maxBytes / 4))
}

export async function writeJobSummary(markdown: string): Promise<void> {
  await core.summary.addRaw(markdown, true).write()
}

/** Print text the run does not control (model output, reasons) in a group of the log, so that it cannot issue workflow commands. */
export function logUntrusted(title: string, text: string, write: (line: string) => void = core.info): void {
  core.startGroup(title)
  try {
    writeUntrusted(write, text)
  } finally {
    core.endGroup()
  }
}

/**
 * A record's dataset path (relative to the working directory of the run that
 * wrote it, config/dataset.ts) as GitHub wants it: relative to the workspace.
 * Resolved from that working directory, not from the workspace: the two differ
 * when evalgate runs in a subfolder or the checkout sits elsewhere.
 */
function relativeToWorkspace(file: string, workspace: string, cwd: string): string | undefined {
  const relative = path.relative(path.resolve(workspace), path.resolve(cwd, file))
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined
  return relative.split(path.sep).join('/')
}

function failureReason(c: CaseResult): string {
  if (c.error) return c.error
  const failed = c.assertions.filter((a) => !a.passed).map((a) => `${a.type}: ${a.reason}`)
  return failed.join('; ') || 'failed'
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

export interface Annotation {
  level: 'error' | 'warning'
  message: string
  properties: core.AnnotationProperties
}

/**
 * Annotations for the first regressions, at the dataset line of each case:
 * errors only when the check fails, warnings when the verdict let them
 * through (an accepted or advisory verdict, a gate that allows them).
 */
export function regressionAnnotations(
  model: Pick<ReportModel, 'comparison' | 'current' | 'annotationLevel'>,
  workspace: string,
  redactText: (s: string) => string = (s) => s,
  /** where the record's relative dataset paths start: the working directory of the run */
  cwd: string = process.cwd()
): Annotation[] {
  const { comparison, current } = model
  const byId = new Map(current.cases.map((c) => [c.id, c]))
  const level = model.annotationLevel
  const list: Annotation[] = []
  for (const id of comparison.regressed.slice(0, MAX_ANNOTATIONS)) {
    const c = byId.get(id)
    if (!c) continue
    const file = c.source ? relativeToWorkspace(c.source.file, workspace, cwd) : undefined
    const properties: core.AnnotationProperties = { title: clip(`evalgate: regressed: ${c.name}`, 200) }
    if (file) {
      properties.file = file
      if (c.source?.line) properties.startLine = c.source.line
    }
    list.push({ level, message: clip(redactText(`case "${c.name}" passed on the baseline and fails now: ${failureReason(c)}`), 1000), properties })
  }
  return list
}

export function annotate(annotations: Annotation[]): void {
  for (const a of annotations) (a.level === 'error' ? core.error : core.warning)(a.message, a.properties)
}

export interface OutputValues {
  'pass-rate': string
  'mean-score': string
  total: string
  passed: string
  regressed: string
  fixed: string
  gate: 'pass' | 'fail' | 'accepted'
  /** the verdict itself, could-not-tell included (`gate` says fail for it) */
  verdict: VerdictStatus
  'baseline-status': BaselineStatus
  'results-path': string
  'report-path': string
  'html-path': string
  'json-path': string
  'baseline-run-id': string
  'badge-message': string
  'badge-color': string
}

export function outputValues(input: {
  model: ReportModel
  resultsPath: string
  reportPath: string
  htmlPath: string
  jsonPath: string
  baselineRunId: number | null
  badge: Badge
}): OutputValues {
  const { model } = input
  return {
    ...shardOutputValues({ ...input, current: model.current, comparison: model.comparison }),
    gate: model.gate,
    verdict: model.verdict.status,
    'baseline-status': model.verdict.baselineStatus,
    'report-path': input.reportPath,
    'html-path': input.htmlPath,
    'json-path': input.jsonPath,
    'badge-message': input.badge.message,
    'badge-color': input.badge.color
  }
}

type ShardOutputs = Omit<OutputValues, 'gate' | 'verdict' | 'baseline-status' | 'report-path' | 'html-path' | 'json-path' | 'badge-message' | 'badge-color'>

/** A shard's outputs: its figures and where its record is; the gate, report and badge are the merge job's. */
export function shardOutputValues(input: { current: RunRecord; comparison: Comparison; resultsPath: string; baselineRunId: number | null }): ShardOutputs {
  const { summary } = input.current
  return {
    'pass-rate': String(summary.passRate),
    'mean-score': summary.meanScore === null ? '' : String(summary.meanScore),
    total: String(summary.total),
    passed: String(summary.passed),
    regressed: String(input.comparison.regressed.length),
    fixed: String(input.comparison.fixed.length),
    'results-path': input.resultsPath,
    'baseline-run-id': input.baselineRunId === null ? '' : String(input.baselineRunId)
  }
}

export function setOutputs(values: Partial<OutputValues>): void {
  for (const [name, value] of Object.entries(values)) core.setOutput(name, value)
}
