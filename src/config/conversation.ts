/**
 * A dataset case's conversation: scripted `turns`, or a `simulate`d
 * user, read into what the runner runs. Which of `input`, `turns` and
 * `simulate` a case has is checked here, and where a simulated user may send
 * a credential: the dataset is the pull request's, so a simulated user it
 * names gets the judge's key only toward the judge's own server.
 */
import { isLocalUrl } from '../providers/openai.js'
import type { Assertion, Simulation, SimulatedUserProvider, Turn } from './case.js'
import type { Path } from './parse.js'
import { DEFAULT_JUDGE_BASE_URL, type JudgeConfig, type RawCase, type SimulatedUserProviderConfig } from './schema.js'

/** The defaults of a simulated user (docs/conversations.md). */
export const DEFAULT_MAX_TURNS = 5
export const DEFAULT_STOP = '###STOP###'

/** The judge's settings a simulated user is played with when the case names none. */
const PROVIDER_DEFAULTS: SimulatedUserProvider = {
  provider: 'openai',
  model: 'gpt-4o-mini',
  apiKeyEnv: 'OPENAI_API_KEY',
  env: {},
  timeoutMs: 60_000,
  retries: 4
}

/** A problem with the case, and where in it (a path below the case, e.g. `['turns', 2]`). */
export class ConversationProblem extends Error {
  constructor(
    readonly at: Path,
    message: string
  ) {
    super(message)
  }
}

export interface ReadConversation {
  turns?: Turn[]
  simulate?: Simulation
}

/**
 * The case's conversation, or nothing for a single-input case. `assertions`
 * resolves and validates a list of checks written at `at` (files relative to
 * the dataset, problems named there).
 */
export function readConversation(raw: RawCase, judge: JudgeConfig | undefined, assertions: (list: Assertion[], at: Path) => Assertion[]): ReadConversation {
  const given = (['input', 'turns', 'simulate'] as const).filter((k) => raw[k] !== undefined)
  if (given.length > 1) {
    throw new ConversationProblem([given[1]!], `a case has one of \`input\`, \`turns\` and \`simulate\`, not ${given.map((k) => `\`${k}\``).join(' and ')}`)
  }
  if (raw.turns !== undefined) {
    return { turns: raw.turns.map((t, i) => ({ user: t.user, assert: assertions(t.assert ?? [], ['turns', i, 'assert']) })) }
  }
  if (raw.simulate !== undefined) {
    const s = raw.simulate
    return {
      simulate: {
        instructions: s.instructions,
        maxTurns: s.maxTurns ?? DEFAULT_MAX_TURNS,
        initialMessages: s.initialMessages ?? [],
        stop: s.stop ?? DEFAULT_STOP,
        provider: simulatedUserProvider(s.provider, judge)
      }
    }
  }
  return {}
}

/**
 * The simulated user's provider: the judge unless the case names one. A case
 * is the pull request's to write; what it names may read a credential only
 * where the (trusted) judge does — the same variable toward the same server —
 * and never through `${VAR}` or a forbidden variable.
 */
export function simulatedUserProvider(own: SimulatedUserProviderConfig | undefined, judge: JudgeConfig | undefined): SimulatedUserProvider {
  if (own === undefined) {
    if (!judge)
      throw new ConversationProblem(['simulate'], 'a simulated user is played by the judge: add a `judge:` section to the config, or give `simulate.provider`')
    return pick(judge)
  }
  for (const [key, value] of Object.entries(own)) {
    if (JSON.stringify(value).includes('${'))
      throw new ConversationProblem(
        ['simulate', 'provider', key],
        'a dataset cannot read environment variables (`${VAR}`): name them in the config’s judge instead'
      )
  }
  const base = judge ? pick(judge) : PROVIDER_DEFAULTS
  // a provider id (docs/providers.md) plays the user only as the judge: its credentials and hosts are the trusted config's to say
  if (
    own.provider !== undefined &&
    own.provider !== 'openai' &&
    own.provider !== 'command' &&
    (own.provider !== judge?.provider || Object.keys(own).length > 1)
  )
    throw new ConversationProblem(
      ['simulate', 'provider', 'provider'],
      `a dataset can name provider openai or command; to play the user with ${own.provider}, make it the config's judge and leave \`provider\` out`
    )
  const provider: SimulatedUserProvider = { ...base, ...own, env: own.env ?? {} }
  if (provider.provider === 'command') {
    if (provider.command === undefined) throw new ConversationProblem(['simulate', 'provider', 'command'], 'provider "command" needs `command` (an argv list)')
    return provider
  }
  if (provider.provider !== 'openai') return provider
  // the judge's own server and key, or a local server without one (see run/simulated-user.ts)
  const judgeUrl = judge && judge.provider === 'openai' ? (judge.baseUrl ?? DEFAULT_JUDGE_BASE_URL) : undefined
  const url = provider.baseUrl ?? DEFAULT_JUDGE_BASE_URL
  if (!isLocalUrl(url) && (judgeUrl === undefined || origin(url) !== origin(judgeUrl) || provider.apiKeyEnv !== judge?.apiKeyEnv)) {
    throw new ConversationProblem(
      ['simulate', 'provider'],
      `would send ${provider.apiKeyEnv} to ${origin(url) ?? url}: a simulated user named by the dataset reads a key only where the judge does` +
        (judge ? ` (${judge.apiKeyEnv} toward ${judgeUrl ?? judge.provider})` : ' (the config has no judge)') +
        '; leave `provider` out to play the user with the judge, or point it at a local server'
    )
  }
  return provider
}

/** Whether the simulated user may be sent `apiKeyEnv`'s value: only toward the judge's own server with the judge's variable. */
export function mayUseJudgeKey(provider: SimulatedUserProvider, judge: JudgeConfig | undefined, env: NodeJS.ProcessEnv): boolean {
  if (judge === undefined || judge.provider !== 'openai' || provider.apiKeyEnv !== judge.apiKeyEnv) return false
  return origin(openaiUrl(provider.baseUrl, env)) === origin(openaiUrl(judge.baseUrl, env))
}

/** Where an OpenAI-compatible grader is: its base URL, else OPENAI_BASE_URL, else OpenAI's (as the judge reads it). */
export function openaiUrl(baseUrl: string | undefined, env: NodeJS.ProcessEnv): string {
  return baseUrl ?? (env.OPENAI_BASE_URL || DEFAULT_JUDGE_BASE_URL)
}

function pick(judge: JudgeConfig): SimulatedUserProvider {
  const { provider, config, model, baseUrl, apiKeyEnv, command, env, timeoutMs, retries } = judge
  return {
    provider,
    model,
    apiKeyEnv,
    env,
    timeoutMs,
    retries,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(config !== undefined ? { config } : {}),
    ...(command !== undefined ? { command } : {})
  }
}

function origin(url: string): string | undefined {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}
