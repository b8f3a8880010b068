/**
 * The graders of model-graded checks: the judge, or the provider a check (or
 * its test) names, promptfoo's `provider` — made once per distinct spec.
 * A grader named in the config or dataset, which a pull request may have
 * written, gets credentials only as the judge does: every
 * credential it would read from the environment must be one the judge sends,
 * to the same host; otherwise its verdicts are errors that say so.
 */
import type { GraderSpec } from '../assertions/types.js'
import type { JudgeConfig } from '../config/schema.js'
import { createProvider, credentialFlows, type CredentialFlow, type Provider as ModelProvider } from '../providers/index.js'
import { expandDeep } from '../util/env.js'
import { judgeHttp, type Complete, type JudgeDeps, type Provider } from './judge.js'

export interface Grader {
  /** what its verdicts name as their model */
  model: string
  /** the model `pricing` prices */
  priceModel: string
  /** its settings, part of every verdict's reuse key */
  settings: unknown
  unusable?: string
  complete?: Complete
}

/** `{id, config}` of a spec written as an id or an object. */
function normalize(spec: GraderSpec): { id: string; config: Record<string, unknown> } {
  return typeof spec === 'string' ? { id: spec, config: {} } : { id: spec.id, config: spec.config ?? {} }
}

export class Graders {
  private readonly made = new Map<string, Grader>()
  private readonly providers: ModelProvider[] = []
  private readonly closing = new AbortController()
  private readonly judge: Grader

  constructor(
    private readonly provider: Provider,
    private readonly config: JudgeConfig,
    private readonly deps: JudgeDeps
  ) {
    this.judge = {
      model: provider.model,
      priceModel: provider.priceModel ?? provider.model,
      settings: {
        provider: config.provider,
        model: config.provider === 'openai' ? config.model : provider.model,
        ...(config.config ? { config: config.config } : {})
      },
      unusable:
        provider.unusable ??
        (provider.complete
          ? undefined
          : 'model-graded checks need a model to grade: judge.provider command cannot answer their prompts; give the judge a provider, or the check its own `provider`'),
      complete: provider.complete
    }
  }

  /** The grader of a check: its own provider when it names one, else the judge. */
  of(spec: GraderSpec | undefined): Grader {
    if (spec === undefined) return this.judge
    const { id, config } = normalize(spec)
    const name = JSON.stringify([id, config])
    let grader = this.made.get(name)
    if (!grader) {
      grader = this.make(id, config)
      this.made.set(name, grader)
    }
    return grader
  }

  async close(): Promise<void> {
    this.closing.abort(new Error('the judge was closed (run interrupted)'))
    await Promise.all(this.providers.map((p) => p.close()))
  }

  private make(id: string, raw: Record<string, unknown>): Grader {
    const settings = { provider: id, config: raw }
    const refused = (why: string): Grader => ({ model: id, priceModel: id, settings, unusable: why })
    let config: Record<string, unknown>
    try {
      config = expandDeep(raw, this.deps.env, this.deps.secrets, `grader ${id}`)
    } catch (err) {
      return refused((err as Error).message)
    }
    const foreign = this.foreignFlow(credentialFlows({ id, config }, this.deps.env))
    if (foreign)
      return refused(
        `grader ${id} would send ${foreign.variable} to ${foreign.host}, where the judge sends no such credential; a check's grader may only use the judge's credentials toward the judge's host`
      )
    let made: ModelProvider
    try {
      made = createProvider(
        { id, config },
        {
          env: this.deps.env,
          secrets: this.deps.secrets,
          baseDir: this.deps.baseDir ?? process.cwd(),
          where: `grader ${id}`,
          fetchImpl: this.deps.fetchImpl,
          sleep: this.deps.sleep
        }
      )
    } catch (err) {
      return refused((err as Error).message)
    }
    this.providers.push(made)
    const http = judgeHttp(this.config, this.deps, this.closing.signal)
    return {
      model: made.id,
      priceModel: made.model,
      settings,
      unusable: made.unusable,
      complete: async (prompt) => {
        const result = await made.call({ prompt, temperature: 0 }, http)
        return { text: result.output, usage: result.usage }
      }
    }
  }

  /** The first credential set in the environment that the grader would send somewhere the judge does not send it. */
  private foreignFlow(flows: CredentialFlow[]): CredentialFlow | undefined {
    return flows.find(
      (f) =>
        f.variable !== undefined && (this.deps.env[f.variable] ?? '') !== '' && !this.provider.flows.some((j) => j.variable === f.variable && j.host === f.host)
    )
  }
}
