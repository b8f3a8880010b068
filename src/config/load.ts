/**
 * Loading evalgate.yml and its dataset into one resolved value.
 */
import path from 'node:path'
import { ConfigError, errorMessage } from '../errors.js'
import { splitArgv } from '../util/argv.js'
import type { AssertionScope, EvalCase } from './case.js'
import type { DatasetFingerprint } from './record-schema.js'
import { CaseNormalizer, parseDatasetText, readDataset, readText, resolveFiles, type AssertionValidator } from './dataset.js'
import { refuseForbiddenCredentials } from './credentials.js'
import { datasetFingerprint } from './fingerprint.js'
import { isJudged } from './judged.js'
import { ranOf } from './ran.js'
import { formatOf, formatPath, parseStructured, validate, type Located, type TextFormat } from './parse.js'
import { Problems } from './problems.js'
import { isPromptfooConfig, promptfooSettings } from './promptfoo/index.js'
import { configSchema, tracingOf, type ParsedConfig } from './schema.js'

export interface LoadedConfig {
  /** absolute path of the config file (or a virtual name for inline configs) */
  file: string
  /** the folder relative paths are resolved against */
  baseDir: string
  config: ParsedConfig
  cases: EvalCase[]
  /** of every case, before any shard or filter: the record carries it, and merge checks shards by it */
  dataset: DatasetFingerprint
  /** where a trusted command judge's files are (LoadOptions.judgeDir), for the judge to run them */
  judgeDir?: string
  /**
   * the files the fingerprints were made from (checks, the modules they import,
   * a command judge's script) with their SHA-256: read again after the run
   */
  gradingFiles?: ReadonlyMap<string, string | null>
}

/** `file` names the config in messages; the format is its extension's unless given (text fetched from elsewhere). */
export function parseConfig(text: string, file: string, format: TextFormat = formatOf(file)): ParsedConfig {
  return configOf(parseStructured(text, file, format))
}

function configOf(located: Located): ParsedConfig {
  const file = located.file
  if (located.value === null || typeof located.value !== 'object' || Array.isArray(located.value)) {
    throw new ConfigError(`${file}: a config is a mapping of keys (version, target, dataset, …); see evalgate init`, file)
  }
  if (isPromptfooConfig(located.value)) {
    const settings = promptfooSettings(located)
    refuseForbiddenCredentials(settings, file, (at) => located.lineOf(at[0] === 'providers' ? at : ['evalgate', ...at]))
    return settings
  }
  const config = validate(configSchema, located, [], 'config')
  refuseForbiddenCredentials(config, file, located.lineOf)
  if (config.target.promptfoo)
    throw new ConfigError(
      `${file}${lineAt(located, ['target', 'promptfoo'])} at target.promptfoo: set only by reading a promptfoo config (one with prompts, providers and tests); give command, http, openai or module`,
      file
    )
  // a command written as one string is split now, so that `validate` finds an unbalanced quote or a pipe
  for (const [at, command] of [
    [['target', 'command'], config.target.command],
    [['judge', 'command'], config.judge?.command]
  ] as const) {
    if (typeof command !== 'string') continue
    try {
      splitArgv(command, formatPath(at))
    } catch (err) {
      const line = located.lineOf(at)
      throw new ConfigError(`${file}${line ? `:${line}` : ''}: ${errorMessage(err)}`, file)
    }
  }
  return config
}

function lineAt(located: Located, at: (string | number)[]): string {
  const line = located.lineOf(at)
  return line ? `:${line}` : ''
}

export interface LoadOptions {
  /**
   * Applied to the parsed config before its cases are built (their fingerprints
   * cover the judge settings): the action puts the trusted settings in here.
   */
  settings?: (config: ParsedConfig) => ParsedConfig
  /** Told the config (with those settings) before its dataset is read: the engine starts the target's worker then. */
  onConfig?: (config: ParsedConfig) => void
  /**
   * The base commit's copies of a command judge's files, laid out as the
   * config's folder (github/trusted-files.ts): fingerprints cover them, and
   * the judge runs them, instead of the pull request's versions.
   */
  judgeDir?: string
}

export async function loadConfig(file: string, validateAssertion: AssertionValidator, options: LoadOptions = {}): Promise<LoadedConfig> {
  const absolute = path.resolve(file)
  const located = parseStructured(await readText(absolute), absolute)
  const settings = options.settings ?? ((config: ParsedConfig) => config)
  const baseDir = path.dirname(absolute)
  if (isPromptfooConfig(located.value)) {
    const { loadPromptfooConfig } = await import('./promptfoo/cases.js')
    const { config, cases, gradingFiles } = loadPromptfooConfig(located, baseDir, validateAssertion, settings, options.judgeDir)
    for (const c of cases) {
      const ran = ranOf(c, baseDir)
      if (ran) c.ran = ran
    }
    refuseForbiddenCredentials(config, absolute, (at) => located.lineOf(at[0] === 'providers' ? at : ['evalgate', ...at]))
    return { file: absolute, baseDir, config, cases, dataset: datasetFingerprint(config.name, cases), gradingFiles, ...judgeDirOf(options) }
  }
  // every problem of the config and the dataset in one message, not one per run
  const problems = new Problems(absolute)
  const config = problems.attempt(() => settings(configOf(located)))
  if (config) options.onConfig?.(config)
  // a config that did not validate has no scope: nothing is checked against it
  const scope: AssertionScope | undefined = config && { tools: config.target.tools ?? null, tracing: tracingOf(config.tracing) !== undefined }
  const validateInScope: AssertionValidator = (a, more) => validateAssertion(a, more ? { ...scope, ...more } : scope)
  const defaults = resolveFiles(config?.defaults.assert ?? [], baseDir)
  // checked here, so that the message names the config rather than the first case they apply to
  defaults.forEach((a, k) => {
    const problem = validateInScope(a)
    if (problem) problems.add(new ConfigError(`${absolute} at defaults.assert[${k}]: ${problem}`, absolute))
  })
  const normalizer = new CaseNormalizer({
    defaults: { assert: defaults, tags: config?.defaults.tags ?? [] },
    baseDir,
    judge: config?.judge,
    judgeDir: options.judgeDir,
    validateAssertion: validateInScope,
    problems
  })
  // with a config that is not valid, its dataset is still read for problems of its own
  const dataset = config ? config.dataset : datasetOf(located.value)
  const files = dataset !== undefined ? await readDataset(dataset, baseDir, normalizer) : []
  if (config ? config.cases !== undefined : hasInlineCases(located.value)) normalizer.addSource(parseDatasetText(await readText(absolute), absolute))
  const cases = normalizer.finish()
  problems.throwIfAny()
  if (cases.length === 0) {
    const what = files.length ? `the dataset (${files.join(', ')}) has no cases` : 'the config has `cases: []`'
    throw new ConfigError(`${absolute}: ${what}; add at least one case, e.g. \`- {input: "2+2", expected: "4"}\``, files[0] ?? absolute)
  }
  for (const c of cases) {
    const ran = ranOf(c, baseDir)
    if (ran) c.ran = ran
  }
  const judged = cases.flatMap((c) => [...c.assert, ...(c.turns ?? []).flatMap((t) => t.assert)]).find(isJudged)
  if (judged && !config!.judge) {
    throw new ConfigError(`${absolute}: some cases use ${judged.type} but the config has no \`judge:\` section (provider, model, …)`, absolute)
  }
  return {
    file: absolute,
    baseDir,
    config: config!,
    cases,
    dataset: datasetFingerprint(config!.name, cases),
    gradingFiles: normalizer.gradingFiles(),
    ...judgeDirOf(options)
  }
}

function judgeDirOf(options: LoadOptions): Pick<LoadedConfig, 'judgeDir'> {
  return options.judgeDir ? { judgeDir: options.judgeDir } : {}
}

/** The `dataset` of a config that did not validate, when it is still a path or a list of them. */
function datasetOf(value: unknown): string | string[] | undefined {
  const dataset = isMapping(value) ? value.dataset : undefined
  if (typeof dataset === 'string') return dataset
  if (Array.isArray(dataset) && dataset.every((d) => typeof d === 'string')) return dataset
  return undefined
}

function hasInlineCases(value: unknown): boolean {
  return isMapping(value) && Array.isArray(value.cases)
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
