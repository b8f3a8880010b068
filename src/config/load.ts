/**
 * Loading evalgate.yml and its dataset into one resolved value.
 */
import path from 'node:path'
import { ConfigError } from '../errors.js'
import type { Assertion, EvalCase } from '../types.js'
import { normalizeCases, parseDatasetText, readDatasetSources, readText, resolveFiles, type AssertionValidator } from './dataset.js'
import { parseYaml, validate } from './parse.js'
import { configSchema, type ParsedConfig } from './schema.js'

export interface LoadedConfig {
  /** absolute path of the config file (or a virtual name for inline configs) */
  file: string
  /** the folder relative paths are resolved against */
  baseDir: string
  config: ParsedConfig
  cases: EvalCase[]
}

export function parseConfig(text: string, file: string): ParsedConfig {
  const located = parseYaml(text, file)
  if (located.value === null || typeof located.value !== 'object' || Array.isArray(located.value)) {
    throw new ConfigError(`${file}: a config is a mapping of keys (version, target, dataset, …); see evalgate init`, file)
  }
  return validate(configSchema, located, [], 'config')
}

export async function loadConfig(file: string, validateAssertion: AssertionValidator): Promise<LoadedConfig> {
  const absolute = path.resolve(file)
  const config = parseConfig(await readText(absolute), absolute)
  const baseDir = path.dirname(absolute)
  const sources = config.dataset !== undefined ? await readDatasetSources(config.dataset, baseDir) : []
  if (config.cases !== undefined) {
    const inline = parseDatasetText(await readText(absolute), absolute)
    sources.push(inline)
  }
  const cases = normalizeCases(sources, {
    defaults: { assert: resolveFiles(config.defaults.assert as Assertion[], baseDir), tags: config.defaults.tags },
    judge: config.judge,
    validateAssertion
  })
  if (cases.length === 0) throw new ConfigError(`${absolute}: the dataset has no cases`, absolute)
  const needsJudge = cases.some((c) => c.assert.some((a) => a.type === 'llm-rubric'))
  if (needsJudge && !config.judge) {
    throw new ConfigError(`${absolute}: some cases use llm-rubric but the config has no \`judge:\` section (provider, model, …)`, absolute)
  }
  return { file: absolute, baseDir, config, cases }
}
