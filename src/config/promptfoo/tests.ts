/**
 * promptfoo `tests:` — inline tests, and `file://` files of tests in YAML,
 * JSON, JSONL or CSV (a glob in place of a name reads every file it matches).
 * A CSV row is a test: its columns are vars, `__expected…` columns are
 * assertions in promptfoo's `type: value` shorthand, `__description`,
 * `__metric`, `__threshold`, `__prefix` and `__suffix` set what they name.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { globSync, isDynamicPattern } from 'tinyglobby'
import { ConfigError, errorMessage } from '../../errors.js'
import { parseJsonl, parseYaml, validate, type Located, type Path } from '../parse.js'
import { promptfooTestSchema, type PromptfooConfig, type PromptfooTest, type RawPromptfooAssertion } from './schema.js'

/** A test with where it was written, for messages. */
export interface LocatedTest {
  test: PromptfooTest
  /** "file:line at tests[2]" */
  where: string
  file: string
  /** the folder its relative paths are resolved against */
  dir: string
}

const FILE = 'file://'

export function readTests(tests: PromptfooConfig['tests'], config: Located, baseDir: string): LocatedTest[] {
  const list = tests === undefined ? [] : typeof tests === 'string' ? [tests] : tests
  return list.flatMap((entry, i) => {
    if (typeof entry !== 'string') return [located(entry, config, ['tests', i], baseDir)]
    return testFiles(entry, baseDir, `${config.file} at tests${typeof tests === 'string' ? '' : `[${i}]`}`).flatMap((file) => readTestFile(file))
  })
}

function located(test: PromptfooTest, source: Omit<Located, 'value'>, at: Path, dir: string): LocatedTest {
  const line = source.lineOf(at)
  const where = `${source.file}${line ? `:${line}` : ''} at ${at
    .map((p) => (typeof p === 'number' ? `[${p}]` : p))
    .join('.')
    .replace(/\.\[/g, '[')}`
  return { test, where, file: source.file, dir }
}

function testFiles(ref: string, baseDir: string, where: string): string[] {
  const name = ref.startsWith(FILE) ? ref.slice(FILE.length) : ref
  if (!isDynamicPattern(name)) return [path.resolve(baseDir, name)]
  const found = globSync(name, { cwd: baseDir, absolute: true, onlyFiles: true }).sort()
  if (found.length === 0) throw new ConfigError(`${where}: "${ref}" matches no file (relative to ${baseDir})`)
  return found
}

function readTestFile(file: string): LocatedTest[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '')
  } catch (err) {
    throw new ConfigError(`${file}: cannot read the tests file: ${errorMessage(err)}`, file)
  }
  const ext = path.extname(file).toLowerCase()
  const dir = path.dirname(file)
  if (ext === '.csv') return csvTests(text, file)
  let source: Located
  if (ext === '.jsonl') source = parseJsonl(text, file)
  else if (ext === '.json' || ext === '.yaml' || ext === '.yml') source = parseYaml(text, file)
  else throw new ConfigError(`${file}: tests files of type "${ext || '(none)'}" are not supported by evalgate; use .yaml, .yml, .json, .jsonl or .csv`, file)
  const value = source.value
  const rows = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value]
  return rows.map((row, i) => {
    const at: Path = Array.isArray(value) ? [i] : []
    return located(validate(promptfooTestSchema, { ...source, value: row }, at, 'test', true), source, at, dir)
  })
}

function csvTests(text: string, file: string): LocatedTest[] {
  let rows: Record<string, string>[]
  try {
    rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[]
  } catch {
    try {
      // promptfoo retries with relaxed quotes: a stray quote inside a field is text
      rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true, relax_quotes: true }) as Record<string, string>[]
    } catch (err) {
      throw new ConfigError(`${file}: not valid CSV: ${errorMessage(err)}`, file)
    }
  }
  const dir = path.dirname(file)
  // the header is line 1; a row's line is only exact without multi-line fields
  return rows.map((row, i) => ({ test: testFromRow(row, i, `${file} row ${i + 1}`), where: `${file}:${i + 2} (row ${i + 1})`, file, dir }))
}

function testFromRow(row: Record<string, string>, index: number, where: string): PromptfooTest {
  const vars: Record<string, string> = {}
  const assert: RawPromptfooAssertion[] = []
  const options: NonNullable<PromptfooTest['options']> = {}
  let description: string | undefined
  let metric: string | undefined
  let threshold: number | undefined
  const configs: [string, string][] = []
  for (const [rawKey, value] of Object.entries(row)) {
    const key = rawKey.trim()
    if (key.startsWith('__expected')) {
      if (value.trim() !== '') assert.push(assertionFromString(value.trim(), `${where}, column ${key}`))
    } else if (key === '__description') description = value
    else if (key === '__metric') metric = value
    else if (key === '__threshold') threshold = finiteNumber(value)
    else if (key === '__prefix') options.prefix = value
    else if (key === '__suffix') options.suffix = value
    else if (key.startsWith('__metadata')) continue
    else if (key.startsWith('__config:')) configs.push([key, value])
    else if (key.startsWith('__'))
      throw new ConfigError(
        `${where}: the column "${key}" is not supported by evalgate; supported: __expected…, __description, __metric, __threshold, __prefix, __suffix, __metadata:…, __config:__expected<N>:threshold`
      )
    else vars[key] = value
  }
  // `__config:__expected2:threshold` sets the threshold of the second `__expected` assertion
  for (const [key, value] of configs) {
    const m = /^__config:__expected(\d*):threshold$/.exec(key)
    const n = m ? (m[1] === '' ? 0 : Number(m[1]) - 1) : -1
    const number = finiteNumber(value)
    if (!m || n < 0 || number === undefined)
      throw new ConfigError(`${where}: column "${key}" = ${JSON.stringify(value)}: write __config:__expected<N>:threshold with a number`)
    if (assert[n]) assert[n]!.threshold = number
  }
  if (metric) for (const a of assert) a.metric = metric
  const test: PromptfooTest = { vars, assert, options, description: description || `Row #${index + 1}` }
  if (threshold !== undefined) test.threshold = threshold
  return test
}

function finiteNumber(text: string): number | undefined {
  const t = text.trim()
  return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(t) ? Number(t) : undefined
}

/** promptfoo's assertion types, which its `type: value` shorthand recognises. */
const SHORTHAND_TYPES = [
  'agent-rubric',
  'answer-relevance',
  'bleu',
  'classifier',
  'contains',
  'contains-all',
  'contains-any',
  'contains-html',
  'contains-json',
  'contains-sql',
  'contains-xml',
  'context-faithfulness',
  'context-recall',
  'context-relevance',
  'conversation-relevance',
  'cost',
  'equals',
  'factuality',
  'finish-reason',
  'g-eval',
  'gleu',
  'guardrails',
  'icontains',
  'icontains-all',
  'icontains-any',
  'is-html',
  'is-json',
  'is-refusal',
  'is-sql',
  'is-valid-function-call',
  'is-valid-openai-function-call',
  'is-valid-openai-tools-call',
  'is-xml',
  'javascript',
  'latency',
  'levenshtein',
  'llm-rubric',
  'pi',
  'meteor',
  'model-graded-closedqa',
  'model-graded-factuality',
  'moderation',
  'perplexity',
  'perplexity-score',
  'python',
  'regex',
  'rouge-n',
  'ruby',
  'similar',
  'similar:cosine',
  'similar:dot',
  'similar:euclidean',
  'starts-with',
  'tool-call-f1',
  'skill-used',
  'trajectory:goal-success',
  'trajectory:tool-args-match',
  'trajectory:step-count',
  'trajectory:tool-sequence',
  'trajectory:tool-used',
  'trace-error-spans',
  'trace-span-count',
  'trace-span-duration',
  'search-rubric',
  'webhook',
  'word-count'
]
const SHORTHAND = new RegExp(
  `^(not-)?(${SHORTHAND_TYPES.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:\\((\\d+(?:\\.\\d+)?)\\))?(?::([\\s\\S]*))?$`
)
/** types whose shorthand carries a threshold, 0.75 unless written as `type(0.9): value` */
const THRESHOLD_TYPES = new Set([
  'answer-relevance',
  'classifier',
  'context-faithfulness',
  'context-recall',
  'context-relevance',
  'cost',
  'latency',
  'levenshtein',
  'perplexity-score',
  'perplexity',
  'rouge-n',
  'similar',
  'starts-with'
])
const LIST_TYPES = new Set(['contains-all', 'contains-any', 'icontains-all', 'icontains-any'])

/**
 * One `__expected` cell as an assertion: `javascript:`/`fn:`/`eval:` code or a
 * `file://check.js`, `grade:`/`llm-rubric:` rubrics, `[not-]type[(threshold)][: value]`,
 * and anything else as `equals`.
 */
export function assertionFromString(expected: string, where: string): RawPromptfooAssertion {
  const code = /^(javascript|fn|eval):/.exec(expected)
  if (code) return { type: 'javascript', value: expected.slice(code[0].length).trim() }
  if (expected.startsWith(FILE) && /\.(m|c)?[jt]s(:|$)/.test(expected)) return { type: 'javascript', value: expected }
  if (expected.startsWith('grade:')) return { type: 'llm-rubric', value: expected.slice('grade:'.length) }
  if (expected.startsWith('llm-rubric:')) return { type: 'llm-rubric', value: expected.slice('llm-rubric:'.length) }
  if (expected.startsWith('python:')) return { type: 'python', value: expected.slice('python:'.length).trim() }
  if (expected.startsWith(FILE) && /\.py(:|$)/.test(expected)) return { type: 'python', value: expected }
  const m = SHORTHAND.exec(expected)
  if (!m) return { type: 'equals', value: expected }
  const [, not, base, thresholdText, value] = m as unknown as [string, string | undefined, string, string | undefined, string | undefined]
  const type = `${not ?? ''}${base}`
  if (LIST_TYPES.has(base)) return { type, value: value ? splitTerms(value, where) : value }
  if (base === 'contains-json' || base === 'is-json') return value === undefined ? { type } : { type, value }
  const trimmed = value?.trim()
  const out: RawPromptfooAssertion = trimmed === undefined ? { type } : { type, value: trimmed }
  if (THRESHOLD_TYPES.has(base)) out.threshold = thresholdText !== undefined ? Number(thresholdText) : base === 'similar' ? 0.8 : 0.75
  return out
}

/** A comma-separated list of terms; a term in double quotes may hold commas (`""` or `\"` is a quote inside it). */
function splitTerms(text: string, where: string): string[] {
  const terms: string[] = []
  let i = 0
  while (i < text.length) {
    while (i < text.length && (text[i] === ',' || /\s/.test(text[i]!))) i++
    if (i >= text.length) break
    if (text[i] === '"') {
      let term = ''
      let closed = false
      i++
      while (i < text.length) {
        const ch = text[i]!
        if ((ch === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) || (ch === '"' && text[i + 1] === '"')) {
          term += text[i + 1]
          i += 2
        } else if (ch === '"') {
          closed = true
          i++
          break
        } else {
          term += ch
          i++
        }
      }
      if (!closed) throw new ConfigError(`${where}: a quoted term is not closed in ${JSON.stringify(text)}`)
      while (i < text.length && /\s/.test(text[i]!)) i++
      if (i < text.length && text[i] !== ',') throw new ConfigError(`${where}: expected a comma after the quoted term in ${JSON.stringify(text)}`)
      terms.push(term)
    } else {
      const end = text.indexOf(',', i)
      terms.push(text.slice(i, end < 0 ? text.length : end).trim())
      i = end < 0 ? text.length : end
    }
  }
  return terms
}
