/**
 * A promptfoo config's tests × prompts × providers as evalgate cases,
 * loaded on first use (see index.ts).
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ConfigError, errorMessage } from '../../errors.js'
import type { Assertion, AssertionScope, EvalCase, PromptfooCase } from '../case.js'
import { contentHash } from '../../util/hash.js'
import type { AssertionValidator } from '../dataset.js'
import { describeAssertion } from '../expected.js'
import { Fingerprinter } from '../fingerprint.js'
import { MODEL_GRADED_TYPES } from '../judged.js'
import type { Located } from '../parse.js'
import { tracingOf, type JudgeConfig, type ParsedConfig } from '../schema.js'
import { conversationKey, simulatedUser, usesConversation } from './conversation.js'
import { providersOf, readPromptfooConfig, settingsOf } from './index.js'
import { promptAllowed, readPrompts, type Prompt } from './prompts.js'
import type { PromptfooGrader, PromptfooProvider, PromptfooTest, RawPromptfooAssertion } from './schema.js'
import { Templates, type Vars } from '../../llm/nunjucks.js'
import { readTests, type LocatedTest } from './tests.js'

export interface PromptfooLoaded {
  config: ParsedConfig
  cases: EvalCase[]
  /** the files read to fingerprint the cases, with their digests */
  gradingFiles: ReadonlyMap<string, string | null>
}

/** `settings` may replace evalgate settings (the action's trusted ones) before the cases' fingerprints are made. */
export function loadPromptfooConfig(
  located: Located,
  baseDir: string,
  validateAssertion: AssertionValidator,
  settings: (config: ParsedConfig) => ParsedConfig = (c) => c,
  judgeDir?: string
): PromptfooLoaded {
  const file = located.file
  const pf = readPromptfooConfig(located)
  const prompts = readPrompts(pf.prompts, baseDir, file)
  let tests = readTests(pf.tests, located, baseDir)
  // promptfoo runs a config without tests once, with no vars and no assertions
  if (tests.length === 0) tests = [{ test: {}, where: `${file} at tests`, file, dir: baseDir }]
  // the settings first: a simulated user is played by the judge they name
  const config = settings(settingsOf(located, pf))
  // what the assertions may rely on: the trace assertions need the receiver (a promptfoo config's tools are its providers')
  const scope: AssertionScope = { tracing: tracingOf(config.tracing) !== undefined }
  const builder = new CaseBuilder(new Templates(pf.env), (a) => validateAssertion(a, scope), pf.defaultTest, baseDir, config.judge, pf.env)
  const providers = providersOf(pf)
  tests.forEach((t, i) => builder.addTest(t, i, prompts, providers))
  return { config, ...builder.finish(config, judgeDir) }
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
/** checks that embed texts: an embedding provider of their own would change their verdicts */
const EMBEDDING_TYPES = new Set(['similar', 'answer-relevance'])
const JS_FILE = /\.(m|c)?js$/

type Grader = Pick<NonNullable<PromptfooTest['options']>, 'provider' | 'rubricPrompt'>
/** promptfoo's graders by use, `{text, embedding}` */
type ByUse = Extract<PromptfooGrader, { text?: unknown }>
type GraderSpec = Exclude<PromptfooGrader, ByUse>

class CaseBuilder {
  private readonly keys = new Map<string, number>()
  private readonly pending: { c: Omit<EvalCase, 'fingerprint'> }[] = []

  constructor(
    private readonly templates: Templates,
    private readonly validateAssertion: AssertionValidator,
    private readonly defaultTest: PromptfooTest | undefined,
    private readonly baseDir: string,
    private readonly judge: JudgeConfig | undefined,
    /** the config's `env:`, which a prompt rendered at run time (`_conversation`) reads too */
    private readonly env: Record<string, unknown> | undefined
  ) {}

  addTest(t: LocatedTest, index: number, prompts: Prompt[], providers: PromptfooProvider[]): void {
    const d = this.defaultTest
    const test = t.test
    const options = { ...d?.options, ...test.options }
    const rawAsserts = [...(options.disableDefaultAsserts ? [] : (d?.assert ?? [])), ...(test.assert ?? [])]
    const threshold = test.threshold ?? d?.threshold
    const vars = { ...d?.vars, ...test.vars }
    const metadata = d?.metadata || test.metadata ? { ...d?.metadata, ...test.metadata } : undefined
    const combos = options.disableVarExpansion ? [vars] : varCombinations(vars)
    const testKey = keyPart(test.description ?? `test ${index + 1}`)
    const userProvider = test.provider ?? d?.provider
    combos.forEach((combo, k) => {
      const resolved = this.loadFileVars(combo, t)
      const grading = this.grading(rawAsserts, resolved, t, threshold, options.transform, { provider: options.provider, rubricPrompt: options.rubricPrompt })
      const testPart = combos.length > 1 ? `${testKey} [${k + 1}]` : testKey
      const user = userProvider === undefined ? undefined : simulatedUser(userProvider, resolved, this.templates, this.judge, t.where, t.file, this.baseDir)
      providers.forEach((provider, p) => {
        for (const [promptIndex, prompt] of prompts.entries()) {
          // promptfoo runs a provider with the prompts it names, a test with those it names
          if (!promptAllowed(prompt, provider.prompts) || !promptAllowed(prompt, test.prompts)) continue
          const template = `${options.prefix ?? ''}${prompt.raw}${options.suffix ?? ''}`
          // a prompt that reads `_conversation` is rendered again when it runs, with the conversation so far
          const conversation = !user && usesConversation(template)
          let input: string
          try {
            input = user
              ? this.templates.render(template, resolved)
              : this.templates.renderPrompt(template, conversation ? { ...resolved, _conversation: [] } : resolved)
          } catch (err) {
            throw new ConfigError(`${t.where}: cannot render the prompt "${keyPart(prompt.label)}" with this test's vars: ${errorMessage(err)}`, t.file)
          }
          const key = [testPart, keyPart(prompt.label), keyPart(provider.label ?? provider.id)].join(' · ')
          const seen = this.keys.get(key) ?? 0
          this.keys.set(key, seen + 1)
          const id = seen === 0 ? key : `${key} ~${seen + 1}`
          const promptfoo: PromptfooCase = { provider: p, ...grading.promptfoo }
          if (test.description !== undefined) promptfoo.description = test.description
          // disableConversationVar: its own _conversation stays empty, but its answer joins the conversation (as in promptfoo)
          if (conversation)
            promptfoo.conversation = {
              key: conversationKey(p, promptIndex, metadata),
              template,
              ...(this.env ? { env: this.env } : {}),
              ...(options.disableConversationVar ? { blind: true } : {})
            }
          const line = /:(\d+)/.exec(t.where)?.[1]
          this.pending.push({
            c: {
              id,
              name: id,
              input,
              tags: [],
              assert: grading.assert,
              expected: grading.assert.length ? grading.assert.map(describeAssertion).join('\n') : undefined,
              source: { file: path.relative(process.cwd(), t.file) || t.file, ...(line ? { line: Number(line) } : {}) },
              index: this.pending.length,
              vars: resolved,
              ...(metadata !== undefined ? { metadata } : {}),
              promptfoo,
              // the agent is sent the prompt as a system message before the conversation so far
              ...(user ? { simulate: { ...user, promptfoo: { system: input } } } : {})
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
  finish(config: ParsedConfig, judgeDir?: string): { cases: EvalCase[]; gradingFiles: ReadonlyMap<string, string | null> } {
    const fingerprints = new Fingerprinter(this.baseDir, config.judge, judgeDir)
    const portable = (source: string) => (source.startsWith(FILE) ? `${FILE}${path.relative(this.baseDir, source.slice(FILE.length))}` : source)
    // a `_conversation` turn depends on every turn before it: its fingerprint covers the one before's
    const lastOf = new Map<string, string>()
    const cases = this.pending.map(({ c }) => {
      const { provider: _provider, description: _description, conversation, ...grading } = c.promptfoo!
      const graded: Assertion[] = [
        ...c.assert.flatMap((a, i) => (a.transform === undefined ? [] : [{ type: 'transform', value: { of: i, source: portable(a.transform) } }])),
        ...(Object.keys(grading).length
          ? [{ type: 'grading', value: { ...grading, ...(grading.transform !== undefined ? { transform: portable(grading.transform) } : {}) } }]
          : []),
        ...(conversation ? [{ type: 'conversation', value: { ...conversation, after: lastOf.get(conversation.key) ?? null } }] : [])
      ]
      const assert = graded.length ? [...c.assert.map(({ transform: _t, ...a }) => a), ...graded] : c.assert
      const fingerprint = fingerprints.ofCase(c.input, assert, c.metadata, undefined, c.simulate ? { simulate: c.simulate } : {})
      if (conversation) lastOf.set(conversation.key, fingerprint)
      return { ...c, fingerprint }
    })
    return { cases, gradingFiles: fingerprints.readFiles() }
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
    transform: string | undefined,
    grader: Grader
  ): { assert: Assertion[]; promptfoo: Omit<PromptfooCase, 'provider'> } {
    const assert: Assertion[] = []
    const sets: NonNullable<PromptfooCase['sets']> = []
    raw.forEach((a, i) => {
      const at = `${t.where}.assert[${i}]`
      if (a.type !== 'assert-set') return assert.push(this.assertion(a, vars, at, t, undefined, grader))
      if (!a.assert?.length) throw new ConfigError(`${at}: an assert-set needs \`assert\`, a list of assertions`, t.file)
      const set =
        sets.push({
          ...(a.threshold !== undefined ? { threshold: a.threshold } : {}),
          ...(a.weight !== undefined ? { weight: a.weight } : {}),
          ...(a.metric !== undefined ? { metric: this.render(a.metric, vars, `${at}.metric`, t) } : {})
        }) - 1
      a.assert.forEach((child, j) => {
        if (child.type === 'assert-set') throw new ConfigError(`${at}.assert[${j}]: assert-sets cannot be nested`, t.file)
        assert.push(this.assertion(child, vars, `${at}.assert[${j}]`, t, set, grader))
      })
    })
    const promptfoo: Omit<PromptfooCase, 'provider'> = {}
    if (transform !== undefined) promptfoo.transform = this.transformSource(transform)
    if (threshold !== undefined) promptfoo.threshold = threshold
    if (sets.length) promptfoo.sets = sets
    return { assert, promptfoo }
  }

  private assertion(a: RawPromptfooAssertion, vars: Vars, at: string, t: LocatedTest, set: number | undefined, grader: Grader): Assertion {
    if (a.config !== undefined) throw new ConfigError(`${at}: assertion \`config\` is not supported by evalgate; remove it`, t.file)
    const out: Assertion = { type: a.type }
    const isJavascript = a.type === 'javascript' || a.type === 'not-javascript'
    const isPython = a.type === 'python' || a.type === 'not-python'
    if (typeof a.value === 'string' && a.value.startsWith(FILE)) {
      const ref = a.value.slice(FILE.length)
      // a python check's file stays a reference, relative to the file that names it (`:function` kept)
      if (isPython) out.value = `${FILE}${path.resolve(t.dir, ref)}`
      else if (isJavascript) {
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
    // promptfoo's order for a model-graded check's grader: its own provider, else the test's options (merged over defaultTest's)
    if (MODEL_GRADED_TYPES.has(a.type) || a.type === 'select-best' || a.type === 'similar') {
      const named = a.provider ?? grader.provider
      const byUse = named !== undefined && typeof named === 'object' && !('id' in named) ? (named as ByUse) : undefined
      if (byUse?.embedding !== undefined && EMBEDDING_TYPES.has(a.type))
        throw new ConfigError(
          `${at}: ${a.type} with an embedding provider of its own is not supported by evalgate: embeddings come from the judge (evalgate.judge.embeddingModel); remove \`embedding\``,
          t.file
        )
      // promptfoo's {text, embedding}: the text grader grades, as there
      const provider = byUse ? byUse.text : (named as GraderSpec | undefined)
      const rubricPrompt = a.rubricPrompt ?? grader.rubricPrompt
      if (a.type === 'similar') {
        if (a.provider !== undefined && !byUse)
          throw new ConfigError(
            `${at}: similar with a \`provider\` of its own is not supported by evalgate: embeddings come from the judge (evalgate.judge.embeddingModel); remove \`provider\``,
            t.file
          )
      } else if (provider !== undefined)
        out.provider = typeof provider === 'string' ? provider : { id: provider.id, ...(provider.config ? { config: provider.config } : {}) }
      if (rubricPrompt !== undefined && a.type === 'llm-rubric') out.rubricPrompt = rubricPrompt
    }
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
