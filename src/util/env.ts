/**
 * `${VAR}` expansion for target and judge settings, and the minimal environment
 * of child processes. Values read through `${VAR}` are secrets: collected so that
 * they can be masked in logs and redacted from every artifact.
 */
import { ConfigError } from '../errors.js'

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * The runner's own credentials and inputs: never in the environment
 * of the code under test, never read by `${VAR}`, never named by an
 * `apiKeyEnv` — one list for the sandbox, the child processes' environment,
 * the expander and the credential checks (config/credentials.ts).
 */
export const FORBIDDEN = {
  prefixes: ['INPUT_', 'ACTIONS_'],
  names: ['GITHUB_TOKEN', 'EVALGATE_GITLAB_TOKEN', 'GITLAB_TOKEN', 'CI_JOB_TOKEN']
} as const

/** One of the runner's credentials or inputs (FORBIDDEN), whatever its case. */
export function isForbiddenVar(name: string): boolean {
  const upper = name.toUpperCase()
  return FORBIDDEN.prefixes.some((p) => upper.startsWith(p)) || (FORBIDDEN.names as readonly string[]).includes(upper)
}

/** Why a forbidden variable is refused, and what to do instead. */
export function forbiddenVarMessage(): string {
  const list = [...FORBIDDEN.prefixes.map((p) => `${p}*`), ...FORBIDDEN.names].join(', ')
  return `the runner's own credentials and inputs (${list}) are never passed to the code under test or sent on its behalf; give it a variable of its own (e.g. a secret in the step's env:)`
}

/** The names `${VAR}` reads in a string, in order. */
export function varsIn(text: string): string[] {
  return [...text.matchAll(VAR)].map((m) => m[1]!)
}

/** Replace `${VAR}` in a string; every value read is added to `secrets`. A forbidden name is a ConfigError whatever its value. */
export function expandVars(text: string, env: NodeJS.ProcessEnv, secrets: Set<string>, where = 'config'): string {
  return text.replace(VAR, (_m, name: string) => {
    if (isForbiddenVar(name)) throw new ConfigError(`${where} reads ${name}: ${forbiddenVarMessage()}`)
    const value = env[name]
    if (value === undefined) throw new ConfigError(`${where}: environment variable ${name} is not set (used as \${${name}})`)
    if (value.length >= 4) secrets.add(value)
    return value
  })
}

/** The value of the variable an `apiKeyEnv` names (undefined when unset or empty); a forbidden name is a ConfigError. */
export function credentialFrom(env: NodeJS.ProcessEnv, name: string, where: string): string | undefined {
  if (isForbiddenVar(name)) throw new ConfigError(`${where} names ${name}: ${forbiddenVarMessage()}`)
  return env[name] || undefined
}

/** Deep `${VAR}` expansion over strings inside JSON-like values. */
export function expandDeep<T>(value: T, env: NodeJS.ProcessEnv, secrets: Set<string>, where = 'config'): T {
  if (typeof value === 'string') return expandVars(value, env, secrets, where) as T
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, env, secrets, where)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, env, secrets, where)])) as T
  }
  return value
}

/**
 * The variable whose value marks the processes of one run's code under test
 * (sandbox/leftovers.ts): the engine sets it in the environment it gives
 * targets, and every child inherits it unless it clears its environment.
 */
export const RUN_MARK = 'EVALGATE_RUN_MARK'

/** Variables a child process may inherit: enough to find programs and behave, nothing of the runner's. */
const PASS_THROUGH = [
  RUN_MARK,
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'TERM',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'WINDIR'
]

/** The environment of code under test: PASS_THROUGH from `source`, then `extra` without any forbidden name. */
export function minimalEnv(source: NodeJS.ProcessEnv, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of PASS_THROUGH) {
    const value = source[name]
    if (value !== undefined) env[name] = value
  }
  for (const [name, value] of Object.entries(extra)) {
    if (!isForbiddenVar(name)) env[name] = value
  }
  return env
}

/** Replace every secret occurrence in text. Longest first so overlapping secrets leave no tail. */
export function redact(text: string, secrets: Iterable<string>): string {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret) out = out.split(secret).join('***')
  }
  return out
}
