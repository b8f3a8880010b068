/**
 * Which credentials a config sends where. Every environment
 * variable a config reads — by `${VAR}` in a target or judge string, by an
 * `apiKeyEnv`, or as a provider's default credential — is a *use*: the
 * variable, the place its value goes, and the host it is sent to. Two rules
 * hold them:
 * - the runner's own credentials (util/env.ts FORBIDDEN) are never used,
 *   whatever the config (refused at load, exit 2);
 * - in a pull-request run, a use the base commit's config does not have (the
 *   same variable to the same place and host) is refused, naming the
 *   difference: the agent gets no variable it did not have, and no credential
 *   goes to a host of the pull request's choosing.
 * Pure: configs in, uses and refusals out. A provider that reads credentials
 * of its own declares them through a CredentialDeclarer.
 */
import { ConfigError } from '../errors.js'
import { credentialFlows } from '../providers/index.js'
import { forbiddenVarMessage, isForbiddenVar, varsIn } from '../util/env.js'
import type { PromptfooProvider } from './promptfoo/schema.js'
import { DEFAULT_JUDGE_BASE_URL, type JudgeConfig, type ParsedConfig, type TargetConfig } from './schema.js'

/** One environment variable a config reads, and where its value goes. */
export interface CredentialUse {
  variable: string
  /**
   * Where the value goes: `target.env.<NAME>`, `target.command`, `target.cwd`,
   * `target.module` (the agent's process), `judge.env.<NAME>`, `judge.command`
   * (a command judge's process), `target.http` (the agent's endpoint), or
   * `provider:<id>` (a model API: openai, …)
   */
  place: string
  /** the host (and port) the value is sent to; null when it is handed to a process */
  host: string | null
  /** the config path that names it, for messages: `target.openai.apiKeyEnv`, `target.env.KEY`, … */
  at: string
}

/** The credentials a kind of provider reads (a target's or a grader's), from the parsed config: for providers of their own. */
export type CredentialDeclarer = (config: ParsedConfig) => CredentialUse[]

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1'

/** `https://api.example.com:8443/v1` → `api.example.com:8443`; a URL whose host is a `${VAR}` keeps the text. */
export function hostOf(url: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(url.trim())
  if (!m) return url.trim()
  const authority = m[2]!.replace(/^[^@]*@/, '')
  try {
    return new URL(`${m[1]}://${authority}`).host
  } catch {
    return authority.toLowerCase()
  }
}

/** Every `${VAR}` in a JSON-like value, with the dotted path of the string that names it. */
function varsDeep(value: unknown, at: string): { variable: string; at: string }[] {
  if (typeof value === 'string') return varsIn(value).map((variable) => ({ variable, at }))
  if (Array.isArray(value)) return value.flatMap((v, i) => varsDeep(v, `${at}[${i}]`))
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => varsDeep(v, `${at}.${k}`))
  return []
}

function uses(found: { variable: string; at: string }[], place: string, host: string | null): CredentialUse[] {
  return found.map(({ variable, at }) => ({ variable, place, host, at }))
}

function openaiUses(settings: { baseUrl: string; apiKeyEnv: string }, strings: Record<string, unknown>, at: string): CredentialUse[] {
  const place = 'provider:openai'
  const host = hostOf(settings.baseUrl)
  return [{ variable: settings.apiKeyEnv, place, host, at: `${at}.apiKeyEnv` }, ...uses(varsDeep(strings, at), place, host)]
}

/**
 * A provider id (`anthropic:messages:…`, `bedrock:…`, …): the
 * credentials it declares (providers/), as uses of `provider:<kind>` toward
 * its host, and the `${VAR}` in its config.
 */
function providerUses(id: string, config: Record<string, unknown> | undefined, at: string, env: NodeJS.ProcessEnv): CredentialUse[] {
  const kind = id.split(':')[0]!
  const flows = credentialFlows({ id, config }, env)
  const declared = flows.flatMap((f): CredentialUse[] =>
    f.variable ? [{ variable: f.variable, place: `provider:${kind}`, host: f.host, at: `${at} (${id})` }] : []
  )
  const host = flows[0]?.host ?? null
  return [...declared, ...uses(varsDeep(config ?? {}, `${at}.config`), `provider:${kind}`, host)]
}

function targetUses(target: TargetConfig, env: NodeJS.ProcessEnv): CredentialUse[] {
  const found: CredentialUse[] = []
  for (const [name, value] of Object.entries(target.env)) found.push(...uses(varsDeep(value, `target.env.${name}`), `target.env.${name}`, null))
  if (target.command !== undefined) found.push(...uses(varsDeep(target.command, 'target.command'), 'target.command', null))
  if (target.cwd !== undefined) found.push(...uses(varsDeep(target.cwd, 'target.cwd'), 'target.cwd', null))
  if (target.module !== undefined) found.push(...uses(varsDeep(target.module, 'target.module'), 'target.module', null))
  if (target.http)
    found.push(
      ...uses(varsDeep({ url: target.http.url, headers: target.http.headers, body: target.http.body }, 'target.http'), 'target.http', hostOf(target.http.url))
    )
  if (target.openai) {
    const { baseUrl, model, system, prompt } = target.openai
    found.push(...openaiUses(target.openai, { baseUrl, model, system, prompt }, 'target.openai'))
  }
  target.promptfoo?.providers.forEach((p, i) => found.push(...promptfooUses(p, `providers[${i}]`)))
  if (target.provider !== undefined) found.push(...providerUses(target.provider, target.config, 'target.provider', env))
  return found
}

/** promptfoo providers: `openai:` reads OPENAI_API_KEY (or `apiKeyEnvar`); `exec:` expands `${VAR}` in its command. */
function promptfooUses(p: PromptfooProvider, at: string): CredentialUse[] {
  if (p.id.startsWith('exec:')) return uses(varsDeep(p.id, `${at}.id`), 'target.command', null)
  if (!/^openai:/.test(p.id)) return []
  const config = p.config ?? {}
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  const apiKeyEnv = text(config.apiKeyEnvar) ?? 'OPENAI_API_KEY'
  return [{ variable: apiKeyEnv, place: 'provider:openai', host: hostOf(text(config.apiBaseUrl) ?? OPENAI_DEFAULT_BASE_URL), at: `${at}.config.apiKeyEnvar` }]
}

function judgeUses(judge: JudgeConfig, env: NodeJS.ProcessEnv): CredentialUse[] {
  if (judge.provider === 'command') {
    const found = uses(varsDeep(judge.command, 'judge.command'), 'judge.command', null)
    for (const [name, value] of Object.entries(judge.env)) found.push(...uses(varsDeep(value, `judge.env.${name}`), `judge.env.${name}`, null))
    return found
  }
  if (judge.provider !== 'openai') return providerUses(judge.provider, judge.config, 'judge.provider', env)
  const { model, embeddingModel } = judge
  // an explicit judge.baseUrl wins; else OPENAI_BASE_URL, as the judge reads it
  const baseUrl = judge.baseUrl ?? (env.OPENAI_BASE_URL || DEFAULT_JUDGE_BASE_URL)
  return openaiUses({ baseUrl, apiKeyEnv: judge.apiKeyEnv }, { baseUrl: judge.baseUrl, model, embeddingModel }, 'judge')
}

/**
 * Every credential the config reads, where it sends each (`env` decides the
 * hosts that come from the environment, OPENAI_BASE_URL and the like);
 * `declarers` add uses of anything else that declares its own.
 */
export function credentialUses(config: ParsedConfig, env: NodeJS.ProcessEnv = {}, declarers: readonly CredentialDeclarer[] = []): CredentialUse[] {
  return [...targetUses(config.target, env), ...(config.judge ? judgeUses(config.judge, env) : []), ...declarers.flatMap((declare) => declare(config))]
}

/** "target.openai.apiKeyEnv names X", "target.env.KEY reads X" */
function reads(u: CredentialUse): string {
  return `${u.at} ${/\.apiKeyEnv(ar)?$/.test(u.at) ? 'names' : 'reads'} ${u.variable}`
}

/** `providers[0].config.apiKeyEnvar` → ['providers', 0, 'config', 'apiKeyEnvar'] */
export function configPath(at: string): (string | number)[] {
  return at
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part))
}

/**
 * Refuses, at load, a config that reads one of the runner's own credentials
 * anywhere; `lineOf` finds the line of a config path where the parser knows it.
 */
export function refuseForbiddenCredentials(
  config: ParsedConfig,
  file: string,
  lineOf: (path: (string | number)[]) => number | undefined = () => undefined,
  declarers: readonly CredentialDeclarer[] = []
): void {
  const forbidden = credentialUses(config, {}, declarers).filter((u) => isForbiddenVar(u.variable))
  if (forbidden.length === 0) return
  const line = lineOf(configPath(forbidden[0]!.at))
  throw new ConfigError(`${file}${line ? `:${line}` : ''}: ${forbidden.map(reads).join('; ')}: ${forbiddenVarMessage()}`, file)
}

const key = (u: CredentialUse) => `${u.variable}\0${u.place}\0${u.host ?? ''}`

/** Where a use sends its value, as a person reads it. */
export function describePlace(u: CredentialUse): string {
  if (u.place.startsWith('provider:')) return `${u.place.slice('provider:'.length)} at ${u.host}`
  if (u.place === 'target.http') return `the agent's endpoint at ${u.host}`
  if (u.place.startsWith('target.')) return `the agent's process (${u.place})`
  return `the judge's process (${u.place})`
}

/**
 * The uses of `run` (the config this pull request runs with) that `base` (the
 * base commit's) does not have, among the variables set in `env`: one that is
 * not set carries nothing. Each is a sentence naming the difference.
 */
export function credentialDifferences(run: ParsedConfig, base: ParsedConfig, env: NodeJS.ProcessEnv, declarers: readonly CredentialDeclarer[] = []): string[] {
  const baseUses = credentialUses(base, env, declarers)
  const allowed = new Set(baseUses.map(key))
  const seen = new Set<string>()
  const differences: string[] = []
  for (const u of credentialUses(run, env, declarers)) {
    if (allowed.has(key(u)) || seen.has(key(u)) || !env[u.variable]) continue
    seen.add(key(u))
    const there = baseUses.filter((b) => b.variable === u.variable).map(describePlace)
    const elsewhere = there.length ? `it sends ${u.variable} only to ${[...new Set(there)].join(', ')}` : `it does not read ${u.variable} at all`
    differences.push(`${reads(u)} for ${describePlace(u)}, which the base commit's config does not (${elsewhere})`)
  }
  return differences
}

/**
 * Which credentials go where is a trusted setting: a credential the
 * change's config (`run`) sends somewhere the base's does not is refused
 * before anything runs, naming each difference. `where` names the base
 * ("evalgate.yml at the base commit abc1234"), `change` the change ("pull request").
 */
export function refuseNewCredentialFlows(
  run: ParsedConfig,
  base: ParsedConfig,
  env: NodeJS.ProcessEnv,
  message: { file: string; where: string; change: string; optOut?: string }
): void {
  const differences = credentialDifferences(run, base, env)
  if (differences.length === 0) return
  const { file, where, change, optOut } = message
  throw new ConfigError(
    `${file}: this ${change} sends credentials where ${where} does not, and which credentials go where is a trusted setting: ${differences.join('; ')}. Make that change on the default branch first${optOut ? ` (or ${optOut})` : ''}`,
    file
  )
}
