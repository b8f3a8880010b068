/**
 * A promptfoo config read as it is (SPEC §11): its tests × prompts × providers
 * become evalgate cases with stable keys, its providers the target, and an
 * optional `evalgate:` block carries evalgate's own settings (gate, judge, name…).
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ConfigError, errorMessage } from '../../errors.js'
import type { Assertion, EvalCase, PromptfooCase } from '../case.js'
import { contentHash } from '../../util/hash.js'
import type { AssertionValidator } from '../dataset.js'
import { Fingerprinter } from '../fingerprint.js'
import { validate, type Located } from '../parse.js'
import { configSchema, type ParsedConfig } from '../schema.js'
import { readPrompts, type Prompt } from './prompts.js'
import { promptfooConfigSchema, type PromptfooConfig, type PromptfooProvider, type PromptfooTest, type RawPromptfooAssertion } from './schema.js'
import { Templates, type Vars } from './template.js'
import { readTests, type LocatedTest } from './tests.js'

export { promptfooProviderSchema, type PromptfooProvider } from './schema.js'

/** A mapping with `prompts`, `providers` and `tests` and no `version` is a promptfoo config. */
export function isPromptfooConfig(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  return ['prompts', 'providers', 'tests'].every((k) => Object.hasOwn(value, k)) && !Object.hasOwn(value, 'version')
}

/** promptfoo keys that change what runs or how it is graded, and that evalgate does not honour. */
const UNSUPPORTED: Record<string, string> = {
  scenarios: 'write the combinations out as tests',
  extensions: 'evalgate runs no extension hooks',
  nunjucksFilters: 'evalgate templates have only the `load` filter besides Nunjucks’ own',
  derivedMetrics: 'named metrics are reported as they are',
  redteam: 'run red-team suites with promptfoo',
  assertionTemplates: 'write the assertions out where they are used ($ref is not followed)'
}

/** The provider ids evalgate can run, as a user reads them in a message. */
export const SUPPORTED_PROVIDERS = 'echo, exec:<command>, file://provider.js|.mjs|.cjs, openai:chat:<model>, openai:<model>'

export function isSupportedProvider(id: string): boolean {
  return id === 'echo' || id.startsWith('exec:') || /^file:\/\/.+\.(m|c)?js$/.test(id) || /^openai:(chat:)?[^:]+$/.test(id)
}

/** evalgate settings that the promptfoo config itself provides. */
const OWN_KEYS = ['version', 'dataset', 'cases', 'defaults']

export interface PromptfooLoaded {
  config: ParsedConfig
  cases: EvalCase[]
}

/** `settings` may replace evalgate settings (the action's trusted ones) before the cases' fingerprints are made. */
export function loadPromptfooConfig(
  located: Located,
  baseDir: string,
  validateAssertion: AssertionValidator,
  settings: (config: ParsedConfig) => ParsedConfig = (c) => c
): PromptfooLoaded {
  const file = located.file
  const pf = readPromptfooConfig(located)
  const prompts = readPrompts(pf.prompts, baseDir, file)
  let tests = readTests(pf.tests, located, baseDir)
  // promptfoo runs a config without tests once, with no vars and no assertions
  if (tests.length === 0) tests = [{ test: {}, where: `${file} at tests`, file, dir: baseDir }]
  const builder = new CaseBuilder(new Templates(pf.env), validateAssertion, pf.defaultTest, baseDir)
  const providers = providersOf(pf)
  tests.forEach((t, i) => builder.addTest(t, i, prompts, providers))
  const config = settings(settingsOf(located, pf))
  return { config, cases: builder.finish(config) }
}

/** A promptfoo config's evalgate settings without reading its prompts and tests (the settings read from the base commit, the badge). */
export function promptfooSettings(located: Located): ParsedConfig {
  return settingsOf(located, readPromptfooConfig(located))
}

function readPromptfooConfig(located: Located): PromptfooConfig {
  const file = located.file
  for (const key of Object.keys(located.value as object)) {
    if (Object.hasOwn(UNSUPPORTED, key))
      throw new ConfigError(`${file}${lineOf(located, [key])} at ${key}: not supported by evalgate: ${UNSUPPORTED[key]}`, file)
  }
  const pf = validate(promptfooConfigSchema, located, [], 'promptfoo config')
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

function providersOf(pf: PromptfooConfig): PromptfooProvider[] {
  return (typeof pf.providers === 'string' ? [pf.providers] : pf.providers).map((p) => (typeof p === 'string' ? { id: p } : p))
}

/**
 * evalgate's config: the `evalgate:` block, promptfoo's concurrency and repeat,
 * the providers as the target. There is always a judge (by default OpenAI's
 * gpt-4o-mini), as promptfoo always has a grader: whether a test needs it is
 * only known once the tests are read, and the base commit's settings are read without them.
 */
function settingsOf(located: Located, pf: PromptfooConfig): ParsedConfig {
  const own = pf.evalgate ?? {}
  const target = { ...((own.target as object | undefined) ?? {}), promptfoo: { providers: providersOf(pf) } }
  const settings: Record<string, unknown> = { concurrency: pf.evaluateOptions?.maxConcurrency, repeat: pf.evaluateOptions?.repeat, ...own, target, cases: [] }
  settings.judge ??= {}
  for (const key of Object.keys(settings)) if (settings[key] === undefined) delete settings[key]
  return validate(configSchema, { value: settings, file: located.file, lineOf: (p) => located.lineOf(['evalgate', ...p]) }, ['evalgate'], 'evalgate settings')
}

function lineOf(located: Located, at: (string | number)[]): string {
  const line = located.lineOf(at)
  return line ? `:${line}` : ''
}

/** A label as it appears in a key: one line, and long texts cut and told apart by a hash. */
function keyPart(label: string): string {
  const line = label.replace(/\s+/g, ' ').trim()
  return line.length <= 80 ? line : `${line.slice(0, 60)}… ${contentHash(label, 6)}`
}

/**
 * promptfoo's var expansion: a var whose value is a list of strings makes one
 * test per element (every combination, for several); a list of anything else stays one value.
 */
function varCombinations(vars: Vars): Vars[] {
  let combos: Vars[] = [{}]
  for (const [key, value] of Object.entries(vars)) {
    const values = Array.isArray(value) && typeof value[0] === 'string' ? value : [value]
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [key]: v })))
  }
  return combos
}

const FILE = 'file://'
const JS_FILE = /\.(m|c)?js$/

class CaseBuilder {
  private readonly keys = new Map<string, number>()
  private readonly pending: { c: Omit<EvalCase, 'fingerprint'> }[] = []

  constructor(
    private readonly templates: Templates,
    private readonly validateAssertion: AssertionValidator,
    private readonly defaultTest: PromptfooTest | undefined,
    private readonly baseDir: string
  ) {}

  addTest(t: LocatedTest, index: number, prompts: Prompt[], providers: PromptfooProvider[]): void {
    const d = this.defaultTest
    const test = t.test
    const options = { ...d?.options, ...test.options }
    const rawAsserts = [...(options.disableDefaultAsserts ? [] : (d?.assert ?? [])), ...(test.assert ?? [])]
    const threshold = test.threshold ?? d?.threshold
    const vars = { ...d?.vars, ...test.vars }
    const combos = options.disableVarExpansion ? [vars] : varCombinations(vars)
    const testKey = keyPart(test.description ?? `test ${index + 1}`)
    combos.forEach((combo, k) => {
      const resolved = this.loadFileVars(combo, t)
      const grading = this.grading(rawAsserts, resolved, t, threshold, options.transform)
      const testPart = combos.length > 1 ? `${testKey} [${k + 1}]` : testKey
      providers.forEach((provider, p) => {
        for (const prompt of prompts) {
          let input: string
          try {
            input = this.templates.renderPrompt(`${options.prefix ?? ''}${prompt.raw}${options.suffix ?? ''}`, resolved)
          } catch (err) {
            throw new ConfigError(`${t.where}: cannot render the prompt "${keyPart(prompt.label)}" with this test's vars: ${errorMessage(err)}`, t.file)
          }
          const key = [testPart, keyPart(prompt.label), keyPart(provider.label ?? provider.id)].join(' · ')
          const seen = this.keys.get(key) ?? 0
          this.keys.set(key, seen + 1)
          const id = seen === 0 ? key : `${key} ~${seen + 1}`
          const promptfoo: PromptfooCase = { provider: p, ...grading.promptfoo }
          const line = /:(\d+)/.exec(t.where)?.[1]
          this.pending.push({
            c: {
              id,
              name: id,
              input,
              tags: [],
              assert: grading.assert,
              expected: grading.assert.length
                ? grading.assert.map((a) => `${a.type}: ${JSON.stringify(a.file !== undefined ? { file: path.basename(a.file) } : a.value)}`).join('; ')
                : undefined,
              source: { file: path.relative(process.cwd(), t.file) || t.file, ...(line ? { line: Number(line) } : {}) },
              index: this.pending.length,
              vars: resolved,
              promptfoo
            }
          })
        }
      })
    })
  }

  /**
   * Cases with fingerprints, which depend on the judge settings the config ends
   * up with. Besides input and assertions they cover how the test is graded
   * (threshold, sets, transforms), with transform files by relative path and content.
   */
  finish(config: ParsedConfig): EvalCase[] {
    const fingerprints = new Fingerprinter(this.baseDir, config.judge)
    const portable = (source: string) => (source.startsWith(FILE) ? `${FILE}${path.relative(this.baseDir, source.slice(FILE.length))}` : source)
    return this.pending.map(({ c }) => {
      const { provider: _provider, ...grading } = c.promptfoo!
      const graded: Assertion[] = [
        ...c.assert.flatMap((a, i) => (a.transform === undefined ? [] : [{ type: 'transform', value: { of: i, source: portable(a.transform) } }])),
        ...(Object.keys(grading).length
          ? [{ type: 'grading', value: { ...grading, ...(grading.transform !== undefined ? { transform: portable(grading.transform) } : {}) } }]
          : [])
      ]
      const assert = graded.length ? [...c.assert.map(({ transform: _t, ...a }) => a), ...graded] : c.assert
      return { ...c, fingerprint: fingerprints.ofCase(c.input, assert) }
    })
  }

  /** `file://` vars read as promptfoo reads them: YAML as JSON text, anything else as its trimmed text. */
  private loadFileVars(vars: Vars, t: LocatedTest): Vars {
    const out: Vars = {}
    for (const [name, value] of Object.entries(vars)) {
      if (typeof value !== 'string' || !value.startsWith(FILE)) {
        // promptfoo drops one trailing newline of every string var
        out[name] = typeof value === 'string' ? value.replace(/\n$/, '') : value
        continue
      }
      const file = path.resolve(this.baseDir, value.slice(FILE.length))
      if (/\.(m|c)?[jt]s$|\.py$/.test(file))
        throw new ConfigError(`${t.where}: vars.${name}: vars computed by scripts are not supported by evalgate; use a text, JSON or YAML file`, t.file)
      out[name] = readFileText(file, `${t.where}: vars.${name}`, (text) => (/\.ya?ml$/i.test(file) ? JSON.stringify(parseYaml(text)) : text.trim()))
    }
    return out
  }

  private grading(
    raw: RawPromptfooAssertion[],
    vars: Vars,
    t: LocatedTest,
    threshold: number | undefined,
    transform: string | undefined
  ): { assert: Assertion[]; promptfoo: Omit<PromptfooCase, 'provider'> } {
    const assert: Assertion[] = []
    const sets: NonNullable<PromptfooCase['sets']> = []
    raw.forEach((a, i) => {
      const at = `${t.where}.assert[${i}]`
      if (a.type !== 'assert-set') return assert.push(this.assertion(a, vars, at, t, undefined))
      if (!a.assert?.length) throw new ConfigError(`${at}: an assert-set needs \`assert\`, a list of assertions`, t.file)
      const set =
        sets.push({
          ...(a.threshold !== undefined ? { threshold: a.threshold } : {}),
          ...(a.weight !== undefined ? { weight: a.weight } : {}),
          ...(a.metric !== undefined ? { metric: this.render(a.metric, vars, `${at}.metric`, t) } : {})
        }) - 1
      a.assert.forEach((child, j) => {
        if (child.type === 'assert-set') throw new ConfigError(`${at}.assert[${j}]: assert-sets cannot be nested`, t.file)
        assert.push(this.assertion(child, vars, `${at}.assert[${j}]`, t, set))
      })
    })
    const promptfoo: Omit<PromptfooCase, 'provider'> = {}
    if (transform !== undefined) promptfoo.transform = this.transformSource(transform)
    if (threshold !== undefined) promptfoo.threshold = threshold
    if (sets.length) promptfoo.sets = sets
    return { assert, promptfoo }
  }

  private assertion(a: RawPromptfooAssertion, vars: Vars, at: string, t: LocatedTest, set: number | undefined): Assertion {
    if (a.config !== undefined) throw new ConfigError(`${at}: assertion \`config\` is not supported by evalgate; remove it`, t.file)
    const out: Assertion = { type: a.type }
    const isJavascript = a.type === 'javascript' || a.type === 'not-javascript'
    if (typeof a.value === 'string' && a.value.startsWith(FILE)) {
      const ref = a.value.slice(FILE.length)
      if (isJavascript) {
        if (!JS_FILE.test(ref))
          throw new ConfigError(`${at}: ${a.value}: evalgate runs a check file's default export; name a .js/.mjs/.cjs file without ":function"`, t.file)
        out.file = path.resolve(t.dir, ref)
      } else {
        const file = path.resolve(t.dir, ref)
        out.value = readFileText(file, `${at}.value`, (text) => (/\.json$/i.test(file) ? JSON.parse(text) : /\.ya?ml$/i.test(file) ? parseYaml(text) : text))
      }
    } else if (typeof a.value === 'string') out.value = this.render(a.value, vars, `${at}.value`, t)
    else if (Array.isArray(a.value)) out.value = a.value.map((v, k) => (typeof v === 'string' ? this.render(v, vars, `${at}.value[${k}]`, t) : v))
    else if (a.value !== undefined) out.value = a.value
    if (a.threshold !== undefined) out.threshold = a.threshold
    if (a.weight !== undefined) out.weight = a.weight
    if (a.metric !== undefined) out.metric = this.render(a.metric, vars, `${at}.metric`, t)
    if (a.transform !== undefined) out.transform = this.transformSource(a.transform)
    if (set !== undefined) out.set = set
    const problem = this.validateAssertion(out)
    if (problem) throw new ConfigError(`${at}: ${problem}`, t.file)
    return out
  }

  /** A `file://` transform names its module relative to the config; the check runs it by absolute path. */
  private transformSource(source: string): string {
    return source.startsWith(FILE) ? `${FILE}${path.resolve(this.baseDir, source.slice(FILE.length))}` : source
  }

  private render(template: string, vars: Vars, at: string, t: LocatedTest): string {
    try {
      return this.templates.render(template, vars)
    } catch (err) {
      throw new ConfigError(`${at}: cannot render the template ${JSON.stringify(template.slice(0, 80))}: ${errorMessage(err)}`, t.file)
    }
  }
}

function readFileText<T>(file: string, at: string, read: (text: string) => T): T {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`${at}: cannot read ${file}: ${errorMessage(err)}`, file)
  }
  try {
    return read(text)
  } catch (err) {
    throw new ConfigError(`${at}: cannot parse ${file}: ${errorMessage(err)}`, file)
  }
}
