/**
 * The files the command line's flags name (--report, --html, --json, --junit,
 * --out, …) and the verdict's last lines: written the same by every command
 * that ends in a verdict (run, compare, merge, gitlab).
 */
import { dirname, resolve } from 'node:path'
import { errorMessage, UsageError } from './errors.js'
import { htmlPieces } from './report/html/index.js'
import { renderReport, type ReportModel } from './report/index.js'
import { comparisonJson } from './report/json.js'
import { renderJunit } from './report/junit.js'
import type { ProgressStream } from './run/progress.js'
import { makeDir } from './util/dirs.js'
import { redact } from './util/env.js'
import { toJson, writeFileAtomic } from './util/files.js'
import { writeTextAtomic } from './util/json-writer.js'

/** Where the verdict's lines go, and whether they may be coloured. */
export interface ReportIO {
  stdout: ProgressStream
  stderr: ProgressStream
  env: NodeJS.ProcessEnv
}

function colour(io: ReportIO, code: string, text: string): string {
  return io.stderr.isTTY && io.env.NO_COLOR === undefined ? `\x1b[${code}m${text}\x1b[0m` : text
}

export type Outputs = [flag: string, file: string | undefined][]

/** The folders of the files named by flags, made before anything runs: one that cannot be made stops the run at once (exit 2), not after it. */
export async function prepareOutputs(outputs: Outputs): Promise<void> {
  for (const [flag, file] of outputs) {
    if (file === undefined) continue
    try {
      await makeDir(dirname(resolve(file)))
    } catch (err) {
      throw new UsageError(`${flag} ${file}: cannot make its folder: ${errorMessage(err)}`)
    }
  }
}

/** Writes a file named by a flag; a file system's refusal is the path's fault (exit 2, naming flag and file), not evalgate's. */
export async function writeOutput(flag: string, file: string | undefined, write: (file: string) => Promise<unknown>): Promise<void> {
  if (file === undefined) return
  try {
    await write(file)
  } catch (err) {
    if (typeof (err as NodeJS.ErrnoException).code !== 'string') throw err
    throw new UsageError(`${flag} ${file}: cannot write it: ${errorMessage(err)}`)
  }
}

/** The report files the flags name, and whether the report is printed too. */
export interface ReportFiles {
  report?: string
  json?: string
  html?: string
  junit?: string
  quiet: boolean
}

export async function writeReports(io: ReportIO, model: ReportModel, opts: ReportFiles, secrets: Set<string>): Promise<void> {
  const report = redact(renderReport(model, { fullReportHint: 'the run record' }), secrets)
  const markdown = report.endsWith('\n') ? report : `${report}\n`
  await writeOutput('--report', opts.report, (file) => writeFileAtomic(file, markdown))
  // in pieces: at 100,000 cases the page is ~60 MB
  await writeOutput('--html', opts.html, (file) => writeTextAtomic(file, htmlPieces(model, secrets.size ? { redact: (text) => redact(text, secrets) } : {})))
  await writeOutput('--json', opts.json, (file) => writeFileAtomic(file, redact(toJson(comparisonJson(model)), secrets)))
  await writeOutput('--junit', opts.junit, (file) => writeFileAtomic(file, renderJunit(model, { redact: (text) => redact(text, secrets) })))
  if (!opts.quiet) io.stdout.write(markdown)
  const { verdict, reasons } = model
  const tone = verdict.status === 'pass' ? '32' : verdict.exitCode === 0 ? '33' : '31'
  // one reason is the headline's own; several are listed under the verdict's words, each once
  const line = reasons.length > 1 ? `${model.status} (${reasons.length} reasons):` : model.headline
  io.stderr.write(`${colour(io, tone, redact(`evalgate: ${line}`, secrets))}\n`)
  if (reasons.length > 1) for (const r of reasons) io.stderr.write(`  - ${redact(r.message, secrets)}\n`)
  for (const n of model.notices) io.stderr.write(`  note: ${redact(n, secrets)}\n`)
}

export function reportFiles(values: ReportFiles): ReportFiles {
  return { report: values.report, json: values.json, html: values.html, junit: values.junit, quiet: values.quiet }
}
