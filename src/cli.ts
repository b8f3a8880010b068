/**
 * The command line (SPEC §6). Parses argv, calls the engine, and is — with
 * main.ts — the only place that turns errors into exit codes:
 * 0 gate passed, 1 gate failed, 2 bad config/dataset/record/usage, 3 internal error.
 */
import { existsSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { compareRuns } from './compare/index.js'
import type { Comparison } from './compare/types.js'
import { readRunRecord } from './config/record.js'
import { gateSchema } from './config/schema.js'
import { evaluate, loadEvalConfig, parseShard } from './engine.js'
import { errorMessage, isUserError, UsageError } from './errors.js'
import { createProgress, type ProgressStream } from './run/progress.js'
import { renderReport } from './report/index.js'
import type { RunRecord } from './types.js'
import { redact } from './util/env.js'
import { toJson, writeFileAtomic } from './util/files.js'
import { VERSION } from './version.js'

export interface CliIO {
  stdout: ProgressStream
  stderr: ProgressStream
  env: NodeJS.ProcessEnv
  /** where SIGINT/SIGTERM are listened for; tests pass an EventEmitter */
  process?: Pick<NodeJS.Process, 'on' | 'off'>
}

const DEFAULT_CONFIG = 'evalgate.yml'

export const EXIT = { pass: 0, fail: 1, usage: 2, internal: 3 } as const

const USAGE = `Usage: evalgate <command> [options]

Commands:
  run [-c evalgate.yml] [--out run.json] [--baseline run.json] [--report report.md]
      [--json cmp.json] [--shard i/n] [--filter TEXT] [--repeat k] [--quiet]
                          run the dataset; with a baseline, compare and gate
  compare BASELINE CURRENT [-c evalgate.yml] [--report report.md] [--json cmp.json]
                          compare two run records and gate
  validate [-c evalgate.yml]
                          check the config and dataset; runs nothing

Exit codes: 0 gate passed, 1 gate failed, 2 bad config/dataset/record/usage, 3 internal error.`

const common = {
  config: { type: 'string', short: 'c' },
  report: { type: 'string' },
  json: { type: 'string' },
  quiet: { type: 'boolean', short: 'q', default: false },
  help: { type: 'boolean', short: 'h', default: false }
} as const satisfies ParseArgsConfig['options']

function parse<O extends ParseArgsConfig['options']>(args: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true })
  } catch (err) {
    throw new UsageError(`${errorMessage(err)}\n\n${USAGE}`)
  }
}

function colour(io: CliIO, code: string, text: string): string {
  return io.stderr.isTTY && io.env.NO_COLOR === undefined ? `\x1b[${code}m${text}\x1b[0m` : text
}

/** Write the comparison's outputs and return the gate's exit code. */
async function finish(io: CliIO, comparison: Comparison, baseline: RunRecord | null, current: RunRecord, opts: { report?: string; json?: string; quiet: boolean }, secrets: Set<string> = new Set()): Promise<number> {
  const report = redact(renderReport({ comparison, baseline, current }, { fullReportHint: 'the run record' }), secrets)
  const markdown = report.endsWith('\n') ? report : `${report}\n`
  if (opts.report) await writeFileAtomic(opts.report, markdown)
  if (opts.json) await writeFileAtomic(opts.json, toJson(comparison))
  if (!opts.quiet) io.stdout.write(markdown)
  const { passed, failures } = comparison.gate
  const verdict = passed ? colour(io, '32', 'evalgate: gate passed') : colour(io, '31', `evalgate: gate failed: ${failures.length} failure${failures.length === 1 ? '' : 's'}`)
  io.stderr.write(`${verdict}\n`)
  if (!passed) for (const f of failures) io.stderr.write(`  - ${f}\n`)
  return passed ? EXIT.pass : EXIT.fail
}

async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, {
    ...common,
    out: { type: 'string', short: 'o' },
    baseline: { type: 'string', short: 'b' },
    shard: { type: 'string' },
    filter: { type: 'string' },
    repeat: { type: 'string' }
  })
  if (values.help) return help(io)
  const repeat = values.repeat === undefined ? undefined : Number(values.repeat)
  if (repeat !== undefined && !(Number.isInteger(repeat) && repeat >= 1)) throw new UsageError(`--repeat "${values.repeat}": give a whole number ≥ 1`)
  const shard = values.shard === undefined ? undefined : parseShard(values.shard)
  const loaded = await loadEvalConfig(values.config ?? DEFAULT_CONFIG)
  const baseline = values.baseline ? await readRunRecord(values.baseline) : null
  const controller = new AbortController()
  let signals = 0
  const onSignal = (name: string) => {
    signals++
    // a second signal means "now": the record of what finished is not worth waiting for
    if (signals > 1) process.exit(130)
    io.stderr.write(`\nevalgate: ${name} received: stopping; finished cases will be written\n`)
    controller.abort()
  }
  const onInt = () => onSignal('SIGINT')
  const onTerm = () => onSignal('SIGTERM')
  io.process?.on('SIGINT', onInt)
  io.process?.on('SIGTERM', onTerm)
  try {
    const progress = createProgress(loaded.cases.length, io.stderr, { quiet: values.quiet })
    const result = await evaluate(loaded, { baseline, env: io.env, filter: values.filter, shard, repeat, signal: controller.signal, progress })
    if (values.out) await writeFileAtomic(values.out, toJson(result.record))
    if (!result.record.complete) io.stderr.write(`evalgate: run cut short: ${result.record.cases.length} of ${loaded.cases.length} cases finished${values.out ? `, written to ${values.out}` : ''}\n`)
    return await finish(io, result.comparison, baseline, result.record, { report: values.report, json: values.json, quiet: values.quiet }, result.secrets)
  } finally {
    io.process?.off('SIGINT', onInt)
    io.process?.off('SIGTERM', onTerm)
  }
}

async function compareCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, common, true)
  if (values.help) return help(io)
  if (positionals.length !== 2) throw new UsageError(`compare takes two run records: BASELINE CURRENT\n\n${USAGE}`)
  const [baseline, current] = await Promise.all(positionals.map((file) => readRunRecord(file)))
  // comparing two records needs only the gate: the config's when there is one, else the default gate
  const configFile = values.config ?? (existsSync(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined)
  const gate = configFile ? (await loadEvalConfig(configFile)).config.gate : gateSchema.parse({})
  const comparison = compareRuns(baseline!, current!, gate)
  return finish(io, comparison, baseline!, current!, { report: values.report, json: values.json, quiet: values.quiet })
}

async function validateCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, common)
  if (values.help) return help(io)
  const loaded = await loadEvalConfig(values.config ?? DEFAULT_CONFIG)
  const judged = loaded.cases.filter((c) => c.assert.some((a) => a.type === 'llm-rubric')).length
  io.stdout.write(`${loaded.file}: valid: ${loaded.cases.length} cases${judged ? ` (${judged} use the LLM judge)` : ''}, target ${Object.keys(loaded.config.target).find((k) => ['command', 'http', 'openai', 'module'].includes(k) && loaded.config.target[k as 'command'] !== undefined)}\n`)
  return EXIT.pass
}

function help(io: CliIO): number {
  io.stdout.write(`${USAGE}\n`)
  return EXIT.pass
}

const COMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  run: runCommand,
  compare: compareCommand,
  validate: validateCommand
}

/** Run the CLI; resolves with the exit code and never throws. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const [command, ...args] = argv
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') return help(io)
    if (command === '--version' || command === '-v') {
      io.stdout.write(`${VERSION}\n`)
      return EXIT.pass
    }
    const handler = COMMANDS[command]
    if (!handler) throw new UsageError(`unknown command "${command}"\n\n${USAGE}`)
    return await handler(args, io)
  } catch (err) {
    if (isUserError(err)) {
      io.stderr.write(`evalgate: ${err.message}\n`)
      return EXIT.usage
    }
    io.stderr.write(`evalgate: internal error (please report it): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    return EXIT.internal
  }
}
