/**
 * A dataset case's conversation (SPEC §13): scripted `turns`, or a `simulate`d
 * user, read into what the runner runs. Which of `input`, `turns` and
 * `simulate` a case has is checked here, and where a simulated user may send
 * a credential: the dataset is the pull request's, so a simulated user it
 * names gets the judge's key only toward the judge's own server (SPEC §9).
 */
import { isLocalUrl } from '../llm/chat.js'
import type { Assertion, Simulation, SimulatedUserProvider, Turn } from './case.js'
import type { Path } from './parse.js'
import type { JudgeConfig, RawCase, SimulatedUserProviderConfig } from './schema.js'

/** SPEC §13's defaults. */
export const DEFAULT_MAX_TURNS = 5
export const DEFAULT_STOP = '###STOP###'

/** The judge's settings a simulated user is played with when the case names none. */
const PROVIDER_DEFAULTS: SimulatedUserProvider = {
  provider: 'openai',
  model: 'gpt-4o-mini',
  baseUrl: 'https://api.openai.com/v1',
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
  const provider: SimulatedUserProvider = { ...base, ...own, env: own.env ?? {} }
  if (provider.provider === 'command') {
    if (provider.command === undefined) throw new ConversationProblem(['simulate', 'provider', 'command'], 'provider "command" needs `command` (an argv list)')
    return provider
  }
  // the judge's own server and key, or a local server without one (see simulated-user.ts)
  const judgeOrigin = judge && judge.provider === 'openai' ? origin(judge.baseUrl) : undefined
  if (!isLocalUrl(provider.baseUrl) && (origin(provider.baseUrl) !== judgeOrigin || provider.apiKeyEnv !== judge?.apiKeyEnv)) {
    throw new ConversationProblem(
      ['simulate', 'provider'],
      `would send ${provider.apiKeyEnv} to ${origin(provider.baseUrl) ?? provider.baseUrl}: a simulated user named by the dataset reads a key only where the judge does` +
        (judge ? ` (${judge.apiKeyEnv} toward ${judge.baseUrl})` : ' (the config has no judge)') +
        '; leave `provider` out to play the user with the judge, or point it at a local server'
    )
  }
  return provider
}

/** Whether the simulated user may be sent `apiKeyEnv`'s value: only toward the judge's own server with the judge's variable. */
export function mayUseJudgeKey(provider: SimulatedUserProvider, judge: JudgeConfig | undefined): boolean {
  return judge !== undefined && judge.provider === 'openai' && provider.apiKeyEnv === judge.apiKeyEnv && origin(provider.baseUrl) === origin(judge.baseUrl)
}

function pick(judge: JudgeConfig): SimulatedUserProvider {
  const { provider, model, baseUrl, apiKeyEnv, command, env, timeoutMs, retries } = judge
  return { provider, model, baseUrl, apiKeyEnv, env, timeoutMs, retries, ...(command !== undefined ? { command } : {}) }
}

function origin(url: string): string | undefined {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}
