/**
 * `${VAR}` expansion for target and judge settings, and the minimal environment
 * of child processes. Values read through `${VAR}` are secrets: collected so that
 * they can be masked in logs and redacted from every artifact.
 */
import { ConfigError } from '../errors.js'

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** Replace `${VAR}` in a string; every value read is added to `secrets`. */
export function expandVars(text: string, env: NodeJS.ProcessEnv, secrets: Set<string>, where = 'config'): string {
  return text.replace(VAR, (_m, name: string) => {
    const value = env[name]
    if (value === undefined) throw new ConfigError(`${where}: environment variable ${name} is not set (used as \${${name}})`)
    if (value.length >= 4) secrets.add(value)
    return value
  })
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

/** Variables a child process may inherit: enough to find programs and behave, nothing of the runner's. */
const PASS_THROUGH = [
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

/** Never passed to the agent or the judge, even when named in `env`: the runner's credentials and inputs. */
export function isForbiddenVar(name: string): boolean {
  const upper = name.toUpperCase()
  return upper.startsWith('INPUT_') || upper.startsWith('ACTIONS_') || upper === 'GITHUB_TOKEN'
}

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
