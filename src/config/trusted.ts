/**
 * Trusted settings: in a pull-request run the gate and what decides a
 * verdict come from the config at the PR's base commit, so that the change a
 * gate checks cannot weaken it. The dataset and the target stay the PR's.
 * Pure: two parsed configs in, the config to run with and the differences out.
 */
import type { ParsedConfig } from './schema.js'

/** The settings a pull request cannot change for its own run. */
export const TRUSTED_KEYS = ['name', 'gate', 'repeat', 'repeatPassThreshold', 'rerunFlips', 'judge', 'budget', 'pricing'] as const

/** A trusted setting the pull request changes: shown under "Config changes (apply after merge)". */
export interface ConfigChange {
  /** dotted path, e.g. "gate.maxRegressions" */
  key: string
  /** undefined: not set there */
  base: unknown
  head: unknown
}

export interface TrustedConfig {
  config: ParsedConfig
  changes: ConfigChange[]
}

type Settings = Record<string, unknown>

/** The head config with every trusted setting taken from the base config, and what the head would have changed. */
export function withTrustedSettings(head: ParsedConfig, base: ParsedConfig): TrustedConfig {
  const config: ParsedConfig = { ...head }
  const changes: ConfigChange[] = []
  for (const key of TRUSTED_KEYS) {
    trust(config, base, key)
    changes.push(...differences(key, base[key], head[key]))
  }
  return { config, changes }
}

/** A trusted setting as the base has it: unset there, unset here. */
function trust<K extends (typeof TRUSTED_KEYS)[number]>(config: ParsedConfig, base: ParsedConfig, key: K): void {
  if (base[key] === undefined) delete config[key]
  else config[key] = base[key]
}

function isObject(v: unknown): v is Settings {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Leaf differences between two values, as dotted keys; arrays compare whole. */
function differences(key: string, base: unknown, head: unknown): ConfigChange[] {
  if (isObject(base) && isObject(head)) {
    const keys = [...new Set([...Object.keys(base), ...Object.keys(head)])].sort()
    return keys.flatMap((k) => differences(`${key}.${k}`, base[k], head[k]))
  }
  return JSON.stringify(base) === JSON.stringify(head) ? [] : [{ key, base, head }]
}
