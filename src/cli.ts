/**
 * The command line. Parses argv, calls the engine, and is — with
 * main.ts — the only place that turns errors into exit codes:
 * 0 gate passed, 1 gate failed, 2 bad config/dataset/record/usage, 3 internal error.
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { badgeFor, badgeSvg, shieldsEndpoint } from './badge/index.js'
import { BASELINE_USAGE, baselineCommand } from './baseline/command.js'
import { compareIfCompatible } from './compare/compatibility.js'
import { formatKeys } from './report/format.js'
import type { Comparison } from './compare/types.js'
import { readText } from './config/dataset.js'
import { parseConfig, type LoadedConfig } from './config/load.js'
import { readRunRecord } from './config/record.js'
import { gateSchema, type GateConfig } from './config/schema.js'
import { evaluate, loadEvalConfig, parseShard, selectCases, type Evaluation, type Shard } from './engine.js'
import { errorMessage, isUserError, RecordError, UsageError } from './errors.js'
import { gitlabCommand, GITLAB_USAGE } from './gitlab/command.js'
import { initProject } from './init/index.js'
import { mergeRecords } from './run/merge.js'
import { planResume, type ResumePlan, type ResumeRequest } from './run/resume.js'
import { createProgress, type ProgressStream } from './run/progress.js'
import { datasetSharer } from './run/share.js'
import { finishRun } from './finish.js'
import { prepareOutputs, reportFiles, writeOutput, writeReports, type ReportFiles } from './outputs.js'
import { renderTrendHtml, renderTrendMarkdown, trendRow, type TrendRow } from './report/trends/index.js'
import type { ReportLinks } from './report/model.js'
import type { RunRecord } from './types.js'
import { toJson, writeFileAtomic } from './util/files.js'
import { writeJsonAtomic } from './util/json-writer.js'
import { gitInfo } from './util/git.js'
import { collectGarbage } from './util/memory.js'
import { pauseWorkflowCommands } from './util/workflow-commands.js'
import { VERSION } from './version.js'

export interface CliIO {
  stdout: ProgressStream
  stderr: ProgressStream
  env: NodeJS.ProcessEnv
  /** where SIGINT/SIGTERM are listened for; tests pass an EventEmitter */
  process?: Pick<NodeJS.Process, 'on' | 'off'>
  /** the folder `baseline pull` looks for the repository in; default the process's */
  cwd?: string
}

const DEFAULT_CONFIG = 'evalgate.yml'

/** The config named with -c, else evalgate.yml when there is one: compare, merge and badge work without a config. */
function configIfAny(named: string | undefined): string | undefined {
  return named ?? (existsSync(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined)
}

export const EXIT = { pass: 0, fail: 1, usage: 2, internal: 3 } as const

export const USAGE = `Usage: evalgate <command> [options]

Commands:
  run [-c evalgate.yml] [--out run.json] [--baseline run.json] [--report report.md]
      [--json cmp.json] [--html report.html] [--junit junit.xml] [--shard i/n] [--filter TEXT]
      [--repeat k] [--quiet] [--resume PARTIAL.json]
                          run the dataset; with a baseline, compare and gate
                          (--resume: run only what a cut-short run did not finish, and write
                          the whole run to --out, else over PARTIAL.json)
  compare BASELINE CURRENT [-c evalgate.yml] [--report report.md] [--json cmp.json] [--html report.html]
      [--junit junit.xml]
                          compare two run records and gate
  merge SHARD.json… --out run.json [-c evalgate.yml] [--baseline run.json] [--report report.md]
      [--json cmp.json] [--html report.html] [--junit junit.xml] [--quiet]
                          join the records of a sharded run (--shard i/n); fails if shards are
                          missing or overlap; then compares and gates like run
  validate [-c evalgate.yml]
                          check the config and dataset; runs nothing
  badge RUN.json [--svg badge.svg] [--endpoint badge.json] [-c evalgate.yml]
                          pass-rate badge: SVG and shields.io endpoint JSON
${BASELINE_USAGE}
${GITLAB_USAGE}
  trend RECORD… [--html trend.html] [--markdown trend.md]
                          pass rate, mean score, cost and p95 latency over runs, in the order given:
                          an HTML page with inline charts and a markdown table with sparklines
                          (without a flag, the markdown is printed)
  init [--dir .] [--branch main] [--fork-safe]
                          write a starter evalgate.yml, dataset, example agent and workflow
                          (--fork-safe: also the workflow that comments on fork PRs)

Exit codes: 0 gate passed, 1 gate failed, 2 bad config/dataset/record/usage, 3 internal error.`

const common = {
  config: { type: 'string', short: 'c' },
  report: { type: 'string' },
  json: { type: 'string' },
  junit: { type: 'string' },
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

/** The report's links to this run's and the baseline's pages, when the CLI runs inside a workflow (GITHUB_* set). */
function workflowLinks(env: NodeJS.ProcessEnv, baseline: RunRecord | null, current: RunRecord): ReportLinks {
  const server = env.GITHUB_SERVER_URL
  const repository = env.GITHUB_REPOSITORY
  if (!server || !repository) return {}
  const page = (runId: string | null) => (runId && /^\d+$/.test(runId) ? `${server.replace(/\/+$/, '')}/${repository}/actions/runs/${runId}` : null)
  return { baselineRun: page(baseline?.git.runId ?? null), currentRun: page(current.git.runId) }
}

/** The tail (finish.ts) for the command line: conclude, then write the report files and the verdict's lines; the exit code. */
async function finish(
  io: CliIO,
  comparison: Comparison,
  baseline: RunRecord | null,
  current: RunRecord,
  opts: ReportFiles & { expected?: number; incompatible?: string | null; gate: GateConfig },
  secrets: Set<string> = new Set()
): Promise<number> {
  const baselineStatus = opts.incompatible ? 'incompatible' : baseline ? 'found' : 'none'
  const model = await finishRun(
    {
      record: current,
      comparison,
      baseline,
      context: { baselineStatus, baselineProblem: opts.incompatible, expected: opts.expected },
      report: { gate: opts.gate, links: workflowLinks(io.env, baseline, current) }
    },
    {
      // --out was written before: a local run keeps its record where the user said
      keep: async () => null,
      publish: (model) => writeReports(io, model, opts, secrets)
    }
  )
  return model.verdict.exitCode === 0 ? EXIT.pass : EXIT.fail
}

async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, {
    ...common,
    out: { type: 'string', short: 'o' },
    baseline: { type: 'string', short: 'b' },
    shard: { type: 'string' },
    filter: { type: 'string' },
    repeat: { type: 'string' },
    html: { type: 'string' },
    resume: { type: 'string' }
  })
  if (values.help) return help(io)
  // a resumed run is written whole, over the file it resumed unless told where
  const out = values.out ?? values.resume
  const repeat = values.repeat === undefined ? undefined : Number(values.repeat)
  if (repeat !== undefined && !(Number.isInteger(repeat) && repeat >= 1)) throw new UsageError(`--repeat "${values.repeat}": give a whole number ≥ 1`)
  const shard = values.shard === undefined ? undefined : parseShard(values.shard)
  await prepareOutputs([
    ['--out', out],
    ['--report', values.report],
    ['--json', values.json],
    ['--html', values.html],
    ['--junit', values.junit]
  ])
  const interruption = interruptions(io)
  try {
    const { result, baseline, total, gate } = await runFromConfig(
      values.config ?? DEFAULT_CONFIG,
      { baselineFile: values.baseline, filter: values.filter, shard, repeat, quiet: values.quiet, resumeFile: values.resume },
      io,
      interruption
    )
    // the dataset and the run's temporaries are garbage now: freed before the record is written
    collectGarbage()
    // streamed: the text of a 100,000-case record is never held whole
    await writeOutput(values.out ? '--out' : '--resume', out, (file) => writeJsonAtomic(file, result.record))
    for (const warning of result.warnings) io.stderr.write(`evalgate: warning: ${warning}\n`)
    if (!result.record.complete) {
      io.stderr.write(`evalgate: run cut short: ${result.record.cases.length} of ${total} cases finished${out ? `, written to ${out}` : ''}\n`)
      if (out) io.stderr.write(`evalgate: to go on from there: evalgate run${values.config ? ` -c ${values.config}` : ''} --resume ${out}\n`)
    }
    return await finish(
      io,
      result.comparison,
      baseline,
      result.record,
      { ...reportFiles(values), expected: total, incompatible: result.incompatible, gate },
      result.secrets
    )
  } finally {
    interruption.stop()
  }
}

/** SIGINT/SIGTERM, once listened to, cut the run short; a second one exits at once. */
function interruptions(io: CliIO): { signal: AbortSignal; listen(): void; stop(): void } {
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
  return {
    signal: controller.signal,
    listen() {
      io.process?.on('SIGINT', onInt)
      io.process?.on('SIGTERM', onTerm)
    },
    stop() {
      io.process?.off('SIGINT', onInt)
      io.process?.off('SIGTERM', onTerm)
    }
  }
}

/**
 * Load the config and dataset, read the baseline, run. Only the run's outcome
 * comes back: the dataset is let go before the record is written and reported
 * (at 100,000 cases it is ~40 MB).
 */
async function runFromConfig(
  configFile: string,
  options: { baselineFile?: string; filter?: string; shard?: Shard; repeat?: number; quiet?: boolean; resumeFile?: string },
  io: CliIO,
  interruption: ReturnType<typeof interruptions>
): Promise<{ result: Evaluation; baseline: RunRecord | null; total: number; gate: GateConfig }> {
  const loaded = await loadEvalConfig(configFile)
  // on a laptop the commit comes from git, in the folder of the config
  const git = gitInfo(io.env, dirname(resolve(configFile)))
  const resume = options.resumeFile ? await resumePlan(options.resumeFile, loaded, { ...options, sha: git.sha }, io) : undefined
  // its cases share equal values with the dataset's as they are read (run/share.ts)
  const baseline = options.baselineFile ? await readRunRecord(options.baselineFile, { onCase: datasetSharer(loaded.cases) }) : null
  if (baseline && baseline.name !== loaded.config.name) {
    // cases are matched by key: a run of another config compares cases that merely share ids
    io.stderr.write(
      `evalgate: warning: the baseline ${options.baselineFile} is a run of "${baseline.name}", but ${loaded.file} is the config of "${loaded.config.name}": ` +
        `is it the right baseline?\n`
    )
  }
  interruption.listen()
  // what this run will do: a shard or a filter is a part of the dataset; a resumed run, what is left of it
  const { filter, shard, repeat } = resume ?? options
  const total = filter || shard ? selectCases(loaded.cases, { filter, shard }).length : loaded.cases.length
  const progress = createProgress(total - (resume?.done.length ?? 0), io.stderr, { quiet: options.quiet })
  const log = options.quiet ? undefined : (line: string) => void io.stderr.write(`${line}\n`)
  const result = await evaluate(loaded, { baseline, env: io.env, filter, shard, repeat, signal: interruption.signal, progress, git, resume, log })
  return { result, baseline, total, gate: loaded.config.gate }
}

/** The earlier run's finished cases to take over, said on stderr. */
async function resumePlan(file: string, loaded: LoadedConfig, request: ResumeRequest, io: CliIO): Promise<ResumePlan> {
  const plan = planResume(await readRunRecord(file, { onCase: datasetSharer(loaded.cases) }), file, loaded, request)
  const changed = plan.changed.length
    ? `; ${plan.changed.length} finished case${plan.changed.length === 1 ? '' : 's'} changed since and run again (${formatKeys(plan.changed)})`
    : ''
  io.stderr.write(`evalgate: resuming ${file}: ${plan.done.length} finished case${plan.done.length === 1 ? '' : 's'} taken over${changed}\n`)
  return plan
}

/** One after another: the first bad file in the order given is the one reported, and only one is being parsed at a time. */
async function readRecords(files: string[]): Promise<RunRecord[]> {
  const records: RunRecord[] = []
  for (const file of files) records.push(await readRunRecord(file))
  return records
}

async function compareCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { ...common, html: { type: 'string' } }, true)
  if (values.help) return help(io)
  if (positionals.length !== 2) throw new UsageError(`compare takes two run records: BASELINE CURRENT\n\n${USAGE}`)
  const [baseline, current] = await readRecords(positionals)
  // comparing two records needs only the gate: the config's when there is one, else the default gate
  const configFile = configIfAny(values.config)
  const gate = configFile ? (await loadEvalConfig(configFile)).config.gate : gateSchema.parse({})
  const { comparison, incompatible } = compareIfCompatible(baseline!, current!, gate)
  return finish(io, comparison, baseline!, current!, { ...reportFiles(values), incompatible, gate })
}

async function mergeCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...common, out: { type: 'string', short: 'o' }, baseline: { type: 'string', short: 'b' }, html: { type: 'string' } },
    true
  )
  if (values.help) return help(io)
  if (positionals.length === 0) throw new UsageError(`merge takes the shard records: SHARD.json… --out run.json\n\n${USAGE}`)
  if (!values.out) throw new UsageError(`merge needs --out run.json, where the merged record goes\n\n${USAGE}`)
  const shards = (await readRecords(positionals)).map((record, i) => ({ file: positionals[i]!, record }))
  const baseline = values.baseline ? await readRunRecord(values.baseline) : null
  // the gate comes from the config, as for compare; one named with -c must also be the shards' config
  const configFile = configIfAny(values.config)
  const loaded = configFile ? await loadEvalConfig(configFile) : undefined
  const config = loaded?.config
  const merged = mergeRecords(shards, { baseline, dataset: values.config && loaded ? { fingerprint: loaded.dataset, file: values.config } : undefined })
  if (values.config && config && config.name !== merged.name) {
    throw new RecordError(`the shards are of "${merged.name}" but ${values.config} is the config of "${config.name}"`)
  }
  await writeOutput('--out', values.out, (file) => writeJsonAtomic(file, merged))
  io.stderr.write(
    `evalgate: merged ${shards.length} shard${shards.length === 1 ? '' : 's'}: ${merged.cases.length} cases written to ${values.out}${merged.complete ? '' : ' (some shards were cut short)'}\n`
  )
  const gate = config?.gate ?? gateSchema.parse({})
  const { comparison, incompatible } = compareIfCompatible(baseline, merged, gate)
  return finish(io, comparison, baseline, merged, { ...reportFiles(values), incompatible, gate })
}

async function validateCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, common)
  if (values.help) return help(io)
  const loaded = await loadEvalConfig(values.config ?? DEFAULT_CONFIG)
  const judged = loaded.cases.filter((c) => c.assert.some((a) => a.type === 'llm-rubric')).length
  io.stdout.write(
    `${loaded.file}: valid: ${loaded.cases.length} cases${judged ? ` (${judged} use the LLM judge)` : ''}, target ${Object.keys(loaded.config.target).find((k) => ['command', 'http', 'openai', 'module', 'provider', 'promptfoo'].includes(k) && loaded.config.target[k as 'command'] !== undefined)}\n`
  )
  return EXIT.pass
}

async function badgeCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { config: common.config, help: common.help, svg: { type: 'string' }, endpoint: { type: 'string' } }, true)
  if (values.help) return help(io)
  if (positionals.length !== 1) throw new UsageError(`badge takes one run record: RUN.json\n\n${USAGE}`)
  const record = await readRunRecord(positionals[0]!)
  // the colour bands and label come from the config's \`badge:\` when there is a config
  const configFile = configIfAny(values.config)
  const config = configFile ? parseConfig(await readText(configFile), configFile).badge : undefined
  const badge = badgeFor(record, config)
  const svg = values.svg === undefined ? '' : await badgeSvg(badge)
  await writeOutput('--svg', values.svg, (file) => writeFileAtomic(file, svg))
  await writeOutput('--endpoint', values.endpoint, (file) => writeFileAtomic(file, toJson(shieldsEndpoint(badge))))
  io.stdout.write(`${badge.label}: ${badge.message} (${badge.color})\n`)
  return EXIT.pass
}

async function trendCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { html: { type: 'string' }, markdown: { type: 'string' }, help: common.help }, true)
  if (values.help) return help(io)
  if (positionals.length === 0) throw new UsageError(`trend takes the run records, oldest first: RECORD…\n\n${USAGE}`)
  await prepareOutputs([
    ['--html', values.html],
    ['--markdown', values.markdown]
  ])
  // one record at a time: only its row is kept
  const rows: TrendRow[] = []
  for (const file of positionals) rows.push(trendRow(file, await readRunRecord(file)))
  const markdown = renderTrendMarkdown(rows)
  await writeOutput('--html', values.html, (file) => writeFileAtomic(file, renderTrendHtml(rows)))
  await writeOutput('--markdown', values.markdown, (file) => writeFileAtomic(file, markdown))
  if (values.html === undefined && values.markdown === undefined) io.stdout.write(markdown)
  else
    io.stderr.write(
      `evalgate: trend of ${rows.length} run${rows.length === 1 ? '' : 's'} written to ${[values.html, values.markdown].filter(Boolean).join(' and ')}\n`
    )
  return EXIT.pass
}

async function initCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, {
    dir: { type: 'string', short: 'd' },
    branch: { type: 'string' },
    'fork-safe': { type: 'boolean', default: false },
    help: common.help
  })
  if (values.help) return help(io)
  const dir = values.dir ?? '.'
  const written = await initProject(dir, { branch: values.branch, forkSafe: values['fork-safe'] })
  const config = dir === '.' ? '' : ` -c ${join(dir, 'evalgate.yml')}`
  io.stdout.write(
    `evalgate: wrote ${written.map((f) => join(dir, f)).join(', ')}\n\n` +
      `Next:\n` +
      `  npx evalgate run${config}     runs the example cases against the example agent\n` +
      `  then point \`target\` in evalgate.yml at your agent and write your cases in evals/cases.yaml;\n` +
      `  once committed, pull requests are gated and runs on ${values.branch ?? 'main'} become the baseline.\n`
  )
  return EXIT.pass
}

function help(io: CliIO): number {
  io.stdout.write(`${USAGE}\n`)
  return EXIT.pass
}

const COMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  run: runCommand,
  compare: compareCommand,
  merge: mergeCommand,
  validate: validateCommand,
  badge: badgeCommand,
  trend: trendCommand,
  gitlab: (args, io) => gitlabCommand(args, io),
  init: initCommand,
  baseline: (args, io) => baselineCommand(args, io)
}

/** Run the CLI; resolves with the exit code and never throws. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  // under Actions, nothing printed (the report's model output, reasons, errors quoting them) may act as a workflow command
  const paused = io.env.GITHUB_ACTIONS === 'true' ? pauseWorkflowCommands(io) : undefined
  try {
    return await dispatch(argv, paused?.io ?? io)
  } finally {
    paused?.resume()
  }
}

async function dispatch(argv: string[], io: CliIO): Promise<number> {
  const [command, ...args] = argv
  try {
    // asked for, help is an answer (0); a call with no command at all is a usage error (2), so a script missing its command fails
    if (command === undefined) throw new UsageError(`no command given\n\n${USAGE}`)
    if (command === '--help' || command === '-h' || command === 'help') return help(io)
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
