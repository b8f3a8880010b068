/**
 * A promptfoo config read as it is: its tests × prompts × providers
 * become evalgate cases with stable keys, its providers the target, and an
 * optional `evalgate:` block carries evalgate's own settings (gate, judge, name…).
 * Here: recognising one and reading its settings. Its tests become cases in
 * cases.ts, loaded only when a promptfoo config is run: the templating and CSV
 * libraries it needs stay out of the start-up of every other run.
 */
import { ConfigError } from '../../errors.js'
import { isProviderId, PROVIDER_IDS } from '../../providers/index.js'
import { validate, type Located } from '../parse.js'
import { configSchema, type ParsedConfig } from '../schema.js'
import { promptfooConfigSchema, type PromptfooConfig, type PromptfooProvider } from './schema.js'

export { promptfooProviderSchema, type PromptfooProvider } from './schema.js'

/** A mapping with `prompts` and `providers` (and usually `tests`) and no `version` is a promptfoo config. */
export function isPromptfooConfig(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  return ['prompts', 'providers'].every((k) => Object.hasOwn(value, k)) && !Object.hasOwn(value, 'version')
}

/** promptfoo keys that change what runs or how it is graded, and that evalgate does not honour. */
const UNSUPPORTED: Record<string, string> = {
  scenarios: 'write the combinations out as tests',
  extensions: 'evalgate runs no extension hooks',
  nunjucksFilters: 'evalgate templates have only the `load` filter besides Nunjucks’ own',
  derivedMetrics:
    'remove it; evalgate reports each named metric (`metric`) as its mean over the run, beside the baseline’s, and computes no formulas over them',
  redteam: 'run red-team suites with promptfoo',
  assertionTemplates: 'write the assertions out where they are used ($ref is not followed)'
}

/** The provider ids evalgate can run, as a user reads them in a message. */
const SUPPORTED_PROVIDERS = `echo, exec:<command>, file://provider.js|.mjs|.cjs, ${PROVIDER_IDS}`

function isSupportedProvider(id: string): boolean {
  return id === 'echo' || id.startsWith('exec:') || /^file:\/\/.+\.(m|c)?js$/.test(id) || isProviderId(id)
}

/** evalgate settings that the promptfoo config itself provides. */
const OWN_KEYS = ['version', 'dataset', 'cases', 'defaults']

/** A promptfoo config's evalgate settings without reading its prompts and tests (the settings read from the base commit, the badge). */
export function promptfooSettings(located: Located): ParsedConfig {
  return settingsOf(located, readPromptfooConfig(located))
}

export function readPromptfooConfig(located: Located): PromptfooConfig {
  const file = located.file
  for (const key of Object.keys(located.value as object)) {
    if (Object.hasOwn(UNSUPPORTED, key))
      throw new ConfigError(`${file}${lineOf(located, [key])} at ${key}: not supported by evalgate: ${UNSUPPORTED[key]}`, file)
  }
  const pf = validate(promptfooConfigSchema, located, [], 'promptfoo config', true)
  providersOf(pf).forEach((p, i) => {
    if (!isSupportedProvider(p.id))
      throw new ConfigError(
        `${file}${lineOf(located, ['providers', i])} at providers[${i}]: provider "${p.id}" is not supported by evalgate; supported: ${SUPPORTED_PROVIDERS}`,
        file
      )
  })
  for (const key of OWN_KEYS) {
    if (pf.evalgate && Object.hasOwn(pf.evalgate, key))
      throw new ConfigError(
        `${file}${lineOf(located, ['evalgate', key])} at evalgate.${key}: not used in a promptfoo config (its prompts, providers and tests say what runs)`,
        file
      )
  }
  return pf
}

export function providersOf(pf: PromptfooConfig): PromptfooProvider[] {
  return (typeof pf.providers === 'string' ? [pf.providers] : pf.providers).map((p) => (typeof p === 'string' ? { id: p } : p))
}

/**
 * evalgate's config: the `evalgate:` block, promptfoo's concurrency and repeat,
 * the providers as the target. There is always a judge (by default OpenAI's
 * gpt-4o-mini), as promptfoo always has a grader: whether a test needs it is
 * only known once the tests are read, and the base commit's settings are read without them.
 */
export function settingsOf(located: Located, pf: PromptfooConfig): ParsedConfig {
  const own = pf.evalgate ?? {}
  const target = { ...((own.target as object | undefined) ?? {}), promptfoo: { providers: providersOf(pf) } }
  const settings: Record<string, unknown> = { concurrency: pf.evaluateOptions?.maxConcurrency, repeat: pf.evaluateOptions?.repeat, ...own, target, cases: [] }
  settings.judge ??= {}
  // promptfoo's receiver, on its default port, unless the evalgate: block says otherwise
  if (settings.tracing === undefined && pf.tracing?.enabled && pf.tracing.otlp?.http?.enabled) settings.tracing = { port: pf.tracing.otlp.http.port ?? 4318 }
  for (const key of Object.keys(settings)) if (settings[key] === undefined) delete settings[key]
  return validate(configSchema, { value: settings, file: located.file, lineOf: (p) => located.lineOf(['evalgate', ...p]) }, ['evalgate'], 'evalgate settings')
}

function lineOf(located: Located, at: (string | number)[]): string {
  const line = located.lineOf(at)
  return line ? `:${line}` : ''
}
