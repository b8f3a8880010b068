/**
 * The code blocks of README.md and docs/: found with their file, line, language
 * and the `<!-- docs-test: … -->` directive written above them, and checked as
 * what they are — configs against the real schema, datasets and assertions by
 * the real loader, workflows with actionlint, records and result objects by
 * the real readers, JSON as strict JSON, shell with bash -n and every evalgate
 * command line against the CLI's own argument parser, JavaScript and Python by
 * their own parsers — so the docs cannot rot.
 * Shell blocks marked `run` are run for real (docs-run.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml } from 'yaml'
import { isGitlabCi } from './gitlab-ci.js'

export interface Block {
  file: string
  /** the line of the opening fence */
  line: number
  lang: 'yaml' | 'json' | 'sh' | 'js' | 'python'
  text: string
  /** what `<!-- docs-test: … -->` above the block says, trimmed; '' when nothing */
  directive: string
}

const LANGS: Record<string, Block['lang']> = {
  yaml: 'yaml',
  yml: 'yaml',
  json: 'json',
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
  js: 'js',
  javascript: 'js',
  mjs: 'js',
  python: 'python',
  py: 'python'
}
const DIRECTIVE = /^<!--\s*docs-test:\s*(.*?)\s*-->$/

/** The markdown files whose blocks are checked: README.md, and every page under docs/. */
export function docFiles(root: string): string[] {
  const pages: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name)
      if (e.isDirectory()) walk(rel)
      else if (e.name.endsWith('.md')) pages.push(rel)
    }
  }
  walk('docs')
  return ['README.md', ...pages.sort()]
}

/** Every fenced block of a yaml/json/shell language in the markdown, with the directive on the line(s) above it. */
export function blocksOf(markdown: string, file: string): Block[] {
  const lines = markdown.split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!)
    if (!open) continue
    const [, indent, fence, info] = open
    const end = lines.findIndex((l, k) => k > i && l.trim().startsWith(fence!) && l.trim().replace(/[`~]/g, '') === '')
    if (end === -1) throw new Error(`${file}:${i + 1}: a code block that is never closed`)
    const lang = LANGS[info!.toLowerCase()]
    if (lang) {
      let k = i - 1
      while (k >= 0 && lines[k]!.trim() === '') k--
      const directive = DIRECTIVE.exec(lines[k]?.trim() ?? '')?.[1] ?? ''
      const text = lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent!) ? l.slice(indent!.length) : l))
        .join('\n')
      blocks.push({ file, line: i + 1, lang, text: `${text}\n`, directive })
    }
    i = end
  }
  return blocks
}

export function readBlocks(root: string): Block[] {
  return docFiles(root).flatMap((file) => blocksOf(readFileSync(path.join(root, file), 'utf8'), file))
}

/** What a YAML block is, from its directive, else from its shape. */
export type YamlKind =
  'workflow' | 'workflow-on' | 'steps' | 'config' | 'promptfoo' | 'fragment' | 'dataset' | 'assertions' | 'promptfoo-settings' | 'gitlab-ci' | 'unknown'

const CONFIG_KEYS = new Set([
  'version',
  'name',
  'dataset',
  'cases',
  'target',
  'concurrency',
  'repeat',
  'repeatPassThreshold',
  'rerunFlips',
  'judge',
  'gate',
  'defaults',
  'pricing',
  'budget',
  'badge',
  'checkTimeoutMs',
  'tracing'
])

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

export function yamlKind(block: Block): YamlKind {
  const named = /^(workflow-on|workflow|steps|config|promptfoo-settings|promptfoo|fragment|dataset|assertions|gitlab-ci)\b/.exec(block.directive)?.[1]
  if (named) return named as YamlKind
  let value: unknown
  try {
    value = parseYaml(block.text)
  } catch {
    return 'unknown'
  }
  if (isMapping(value)) {
    const keys = Object.keys(value)
    if (keys.includes('jobs')) return 'workflow'
    if (keys.length === 1 && keys[0] === 'on') return 'workflow-on'
    if (keys.includes('prompts') || keys.includes('providers') || keys.includes('tests')) return 'promptfoo'
    if (keys.length === 1 && keys[0] === 'evalgate') return 'promptfoo-settings'
    if (keys.includes('version') || (keys.includes('target') && (keys.includes('dataset') || keys.includes('cases')))) return 'config'
    if (keys.length > 0 && keys.every((k) => CONFIG_KEYS.has(k))) return 'fragment'
    if (isGitlabCi(value)) return 'gitlab-ci'
    return 'unknown'
  }
  if (Array.isArray(value) && value.length > 0 && value.every(isMapping)) {
    const items = value as Record<string, unknown>[]
    if (items.every((i) => 'uses' in i || 'run' in i)) return 'steps'
    if (items.every((i) => 'type' in i)) return 'assertions'
    if (items.every((i) => 'input' in i || 'turns' in i || 'simulate' in i || 'expected' in i)) return 'dataset'
  }
  return 'unknown'
}

/** Split one shell line into words as a POSIX shell would (quotes, backslashes); operators are their own words. */
export function shellWords(line: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === "'") {
      const end = line.indexOf("'", i + 1)
      word += line.slice(i + 1, end === -1 ? undefined : end)
      i = end === -1 ? line.length : end
      inWord = true
    } else if (c === '"') {
      let j = i + 1
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) j++
        word += line[j]
      }
      i = j
      inWord = true
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else if (c === '#' && !inWord) {
      break
    } else if ('|&;<>()'.includes(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
      let op = c
      while (i + 1 < line.length && '|&;<>'.includes(line[i + 1]!) && op.length < 2) op += line[++i]
      words.push(op)
    } else {
      word += c
      inWord = true
    }
  }
  if (inWord) words.push(word)
  return words
}

const OPERATORS = new Set(['|', '||', '&', '&&', ';', '(', ')', '<', '>', '>>', '2>', '<<'])

/** The arguments of every evalgate invocation in a shell text (npx evalgate, npx github:evalgate/evalgate, evalgate, node dist/cli/index.js). */
export function evalgateCalls(script: string): string[][] {
  const calls: string[][] = []
  // a line continued with a backslash is one line; a heredoc's body is data
  const lines = script.replace(/\\\n/g, ' ').split('\n')
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!
    const heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(line)
    const words = shellWords(line)
    for (let i = 0; i < words.length; i++) {
      let at = -1
      if (words[i] === 'npx') {
        let j = i + 1
        while (words[j]?.startsWith('-')) j++
        if (words[j] === 'evalgate' || /^github:evalgate\/evalgate(#.*)?$/.test(words[j] ?? '')) at = j + 1
      } else if (words[i] === 'evalgate' && (i === 0 || OPERATORS.has(words[i - 1]!))) at = i + 1
      else if (words[i] === 'node' && /(^|\/)dist\/cli\/index\.js$/.test(words[i + 1] ?? '')) at = i + 2
      if (at === -1) continue
      let end = at
      while (end < words.length && !OPERATORS.has(words[end]!)) end++
      calls.push(words.slice(at, end))
      i = end
    }
    if (heredoc) {
      const close = lines.findIndex((l, k) => k > n && l.trim() === heredoc[1])
      if (close !== -1) n = close
    }
  }
  return calls
}
