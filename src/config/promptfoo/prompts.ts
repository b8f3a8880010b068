/**
 * promptfoo `prompts:` — a string, a list of strings and `{label, raw}`
 * objects, or a map of prompt → label; `file://` prompts read from .txt/.md
 * (split at lines of `---`), .json/.yaml (one prompt each: the content as
 * JSON) and .jsonl (one prompt per line). Each prompt has the label that is
 * part of its cases' keys.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ConfigError, errorMessage } from '../../errors.js'
import type { PromptfooConfig } from './schema.js'

export interface Prompt {
  raw: string
  /** explicit label, else the relative file path (with its position when the file has several), else the text */
  label: string
  /** the prompt object's `id`, as written */
  id?: string
}

/**
 * promptfoo's reading of a `prompts:` filter on a provider or a test: a
 * reference names a prompt by its label or id, `ref*` any whose label or id
 * starts with `ref`, and `ref` also the prompts `ref: 1`, `ref: 2`… of one file.
 */
export function promptAllowed(prompt: Prompt, refs: readonly string[] | undefined): boolean {
  if (refs === undefined) return true
  return refs.some((ref) => {
    const names = [prompt.label, ...(prompt.id !== undefined ? [prompt.id] : [])]
    if (names.includes(ref)) return true
    if (ref.endsWith('*') && names.some((n) => n.startsWith(ref.slice(0, -1)))) return true
    return names.some((n) => n.startsWith(`${ref}:`))
  })
}

const FILE = 'file://'
/** promptfoo's prompt separator in text files */
const DELIMITER = '---'

export function readPrompts(prompts: PromptfooConfig['prompts'], baseDir: string, where: string): Prompt[] {
  const entries: { raw: string; label?: string; id?: string }[] =
    typeof prompts === 'string'
      ? [{ raw: prompts }]
      : Array.isArray(prompts)
        ? prompts.map((p) => (typeof p === 'string' ? { raw: p } : { raw: p.raw ?? p.id ?? '', label: p.label, ...(p.id !== undefined ? { id: p.id } : {}) }))
        : Object.entries(prompts).map(([raw, label]) => ({ raw, label }))
  return entries.flatMap((p, i) => {
    const at = `${where} at prompts[${i}]`
    if (p.raw === '') throw new ConfigError(`${at}: a prompt object needs \`raw\` (the prompt text or file://path)`, where)
    const id = p.id !== undefined ? { id: p.id } : {}
    if (!p.raw.startsWith(FILE)) return [{ raw: p.raw, label: p.label ?? p.raw, ...id }]
    const found = readPromptFile(path.resolve(baseDir, p.raw.slice(FILE.length)), at)
    const rel = path.relative(baseDir, path.resolve(baseDir, p.raw.slice(FILE.length)))
    return found.map((raw, k) => ({
      raw,
      ...id,
      label: p.label !== undefined ? (found.length > 1 ? `${p.label}: ${k + 1}` : p.label) : found.length > 1 ? `${rel}: ${k + 1}` : rel
    }))
  })
}

function readPromptFile(file: string, at: string): string[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`${at}: cannot read the prompt file ${file}: ${errorMessage(err)}`, file)
  }
  const ext = path.extname(file).toLowerCase()
  let prompts: string[]
  if (ext === '.txt' || ext === '.md' || ext === '') prompts = splitText(text)
  else if (ext === '.json') prompts = [jsonText(() => JSON.parse(text), text)]
  else if (ext === '.yaml' || ext === '.yml') prompts = [jsonText(() => parseYaml(text), text)]
  else if (ext === '.jsonl') prompts = text.split(/\r?\n/).filter((line) => line.length > 0)
  else throw new ConfigError(`${at}: prompt files of type "${ext}" are not supported by evalgate; use .txt, .md, .json, .yaml or .jsonl`, file)
  if (prompts.length === 0) throw new ConfigError(`${at}: ${file} has no prompt`, file)
  return prompts
}

function splitText(text: string): string[] {
  const prompts: string[] = []
  let lines: string[] = []
  const flush = () => {
    const raw = lines.join('\n').trim()
    if (raw) prompts.push(raw)
    lines = []
  }
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === DELIMITER) flush()
    else lines.push(line)
  }
  flush()
  return prompts
}

/** A structured prompt file as the JSON text promptfoo sends; unparsable content is sent as it is. */
function jsonText(parse: () => unknown, text: string): string {
  try {
    return JSON.stringify(parse())
  } catch {
    return text
  }
}
