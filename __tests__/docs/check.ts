/**
 * What each kind of block is checked against (see blocks.ts): the real
 * schema, loader, readers, CLI parser and actionlint. Each check returns the
 * problems it found, as sentences naming the block; none means it passed.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml, parseDocument, stringify } from 'yaml'
import { main } from '../../src/cli.js'
import { parseConfig } from '../../src/config/load.js'
import { parseRunRecord } from '../../src/config/record.js'
import { loadEvalConfig } from '../../src/engine.js'
import { errorMessage } from '../../src/errors.js'
import { ACTION_REF, PACKAGE_SPEC, PR_EVENT_TYPES } from '../../src/init/index.js'
import { readResult } from '../../src/targets/result.js'
import { tempDir } from '../__fixtures__/temp.js'
import { evalgateCalls, yamlKind, type Block } from './blocks.js'
import { checkGitlabCi } from './gitlab-ci.js'

export type Lint = (yaml: string, file: string) => Promise<string[]>

export interface Checked {
  /** what the block was checked as: "yaml config", "sh (3 evalgate calls)"… */
  as: string
  problems: string[]
}

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

async function attempt(what: string, work: () => unknown): Promise<string[]> {
  try {
    await work()
    return []
  } catch (err) {
    return [`${what}: ${errorMessage(err)}`]
  }
}

/** A config made of the block's keys over a minimal one (a target and a case), validated by the real schema. */
function fragmentConfig(fragment: Record<string, unknown>): string {
  const base: Record<string, unknown> = { version: 1, target: { command: ['node', 'agent.js'] }, cases: [{ input: 'x' }] }
  if ('dataset' in fragment) delete base.cases
  return stringify({ ...base, ...fragment })
}

/** A project with the block as its dataset (or its defaults.assert), loaded by the real loader: every case and assertion validated. */
async function loadWith(files: Record<string, string>): Promise<void> {
  const dir = tempDir('evalgate-docs-load-')
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  await loadEvalConfig(path.join(dir, 'evalgate.yml'))
}

const JUDGE = 'judge:\n  model: gpt-4o-mini\n'

/** The evalgate steps of a workflow value: `uses:` of this repository's action. */
function evalgateSteps(workflow: Record<string, unknown>): Record<string, unknown>[] {
  const jobs = isMapping(workflow.jobs) ? Object.values(workflow.jobs) : []
  return jobs.flatMap((job) => (isMapping(job) && Array.isArray(job.steps) ? job.steps.filter(isMapping) : []))
}

/** One name, one ref, one package spec and the accept label's triggers, the same in every workflow. */
function workflowConventions(workflow: Record<string, unknown>): string[] {
  const problems: string[] = []
  const steps = evalgateSteps(workflow)
  for (const step of steps) {
    if (typeof step.uses === 'string' && step.uses.startsWith('evalgate/evalgate') && step.uses !== ACTION_REF)
      problems.push(`uses ${step.uses}: the docs install ${ACTION_REF} (src/init/templates.ts ACTION_REF)`)
    if (typeof step.run === 'string') problems.push(...packageSpecs(step.run))
  }
  const on = workflow.on
  const pr = isMapping(on) ? on.pull_request : undefined
  const gates = steps.some((s) => s.uses === ACTION_REF && (!isMapping(s.with) || (s.with.mode ?? 'run') !== 'comment'))
  if (gates && isMapping(on) && 'pull_request' in on) {
    const types = isMapping(pr) && Array.isArray(pr.types) ? pr.types : []
    const missing = PR_EVENT_TYPES.filter((t) => !types.includes(t))
    if (missing.length)
      problems.push(`pull_request needs types: [${PR_EVENT_TYPES.join(', ')}] (the accept label re-decides the check); missing ${missing.join(', ')}`)
  }
  return problems
}

/** Every github:evalgate/evalgate in the text is the install the docs name. */
export function packageSpecs(text: string): string[] {
  return [...text.matchAll(/github:evalgate\/evalgate(#[^\s"'`]*)?/g)]
    .filter((m) => m[1] !== undefined && !/^#[0-9a-f]{40}$/.test(m[1]))
    .map((m) => `${m[0]}: the docs install ${PACKAGE_SPEC} (a commit: #<40 hex>)`)
}

async function checkYaml(block: Block, lint: Lint): Promise<Checked> {
  const kind = yamlKind(block)
  const doc = parseDocument(block.text, { uniqueKeys: true })
  if (doc.errors.length) return { as: `yaml ${kind}`, problems: doc.errors.map((e) => `not valid YAML: ${e.message.split('\n')[0]}`) }
  const value = doc.toJS() as unknown
  const where = `${block.file}:${block.line}`
  switch (kind) {
    case 'workflow':
      return { as: 'yaml workflow (actionlint)', problems: [...(await lint(block.text, where)), ...workflowConventions(value as Record<string, unknown>)] }
    case 'workflow-on': {
      const wrapped = stringify({ ...(value as object), jobs: { check: { 'runs-on': 'ubuntu-latest', steps: [{ run: 'true' }] } } })
      return { as: 'yaml workflow trigger (actionlint)', problems: await lint(wrapped, where) }
    }
    case 'steps': {
      const workflow = { on: 'push', jobs: { check: { 'runs-on': 'ubuntu-latest', steps: value } } }
      return { as: 'yaml workflow steps (actionlint)', problems: [...(await lint(stringify(workflow), where)), ...workflowConventions(workflow)] }
    }
    case 'config': {
      const config = value as Record<string, unknown>
      const problems = await attempt('the config', () => parseConfig(block.text, `${where}.yaml`))
      // inline cases and defaults are loaded too: every case and assertion through the real loader
      if (!problems.length && ('cases' in config || 'defaults' in config) && !('dataset' in config))
        problems.push(...(await attempt('the config loaded', () => loadWith({ 'evalgate.yml': block.text }))))
      return { as: 'yaml config (schema)', problems }
    }
    case 'promptfoo':
      return { as: 'yaml promptfoo config (schema)', problems: await attempt('the promptfoo config', () => parseConfig(block.text, `${where}.yaml`)) }
    case 'promptfoo-settings': {
      const wrapped = stringify({ prompts: ['{{q}}'], providers: ['echo'], tests: [{ vars: { q: 'x' } }], ...(value as object) })
      return {
        as: 'yaml evalgate: block of a promptfoo config (schema)',
        problems: await attempt('the evalgate: block', () => parseConfig(wrapped, `${where}.yaml`))
      }
    }
    case 'fragment':
      return {
        as: 'yaml config keys (schema)',
        problems: await attempt('merged into a config', () => parseConfig(fragmentConfig(value as Record<string, unknown>), `${where}.yaml`))
      }
    case 'dataset':
      return {
        as: 'yaml dataset (loader)',
        problems: await attempt('the dataset', () =>
          loadWith({ 'evalgate.yml': `version: 1\ndataset: cases.yaml\ntarget:\n  command: [node, agent.js]\n${JUDGE}`, 'cases.yaml': block.text })
        )
      }
    case 'assertions':
      return {
        as: 'yaml assertions (loader)',
        problems: await attempt('the assertions', () =>
          loadWith({
            'evalgate.yml': stringify({
              version: 1,
              // tools for is-valid-openai-tools-call to check calls against
              target: {
                command: ['node', 'agent.js'],
                tools: ['lookup_order', 'refund'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }))
              },
              judge: { model: 'gpt-4o-mini' },
              defaults: { assert: value },
              cases: [{ input: 'x' }]
            })
          })
        )
      }
    case 'gitlab-ci':
      return { as: 'yaml .gitlab-ci.yml (keywords, evalgate gitlab conventions)', problems: await checkGitlabCi(value, evalgateCalls, cliParses) }
    default:
      return {
        as: 'yaml (unknown)',
        problems: [
          'cannot tell what this yaml block is: put <!-- docs-test: config | fragment | dataset | assertions | workflow | workflow-on | steps | promptfoo | promptfoo-settings | gitlab-ci --> above it, or <!-- docs-test: skip, why --> (docs/development.md, "The docs test")'
        ]
      }
  }
}

function checkJson(block: Block): Checked {
  let value: unknown
  try {
    value = JSON.parse(block.text)
  } catch (err) {
    return { as: 'json', problems: [`not valid JSON: ${errorMessage(err)}`] }
  }
  const where = `${block.file}:${block.line}`
  const problems: string[] = []
  const check = (what: string, work: () => unknown) => {
    try {
      work()
    } catch (err) {
      problems.push(`${what}: ${errorMessage(err)}`)
    }
  }
  if (isMapping(value) && 'schemaVersion' in value && 'cases' in value) {
    check('the run record', () => parseRunRecord(block.text, where))
    return { as: 'json run record (reader)', problems }
  }
  if (isMapping(value) && 'output' in value) {
    check('the result object', () => readResult(value, where))
    return { as: 'json result object (reader)', problems }
  }
  if (isMapping(value) && ('version' in value || 'target' in value)) {
    check('the config', () => parseConfig(block.text, `${where}.json`, 'json'))
    return { as: 'json config (schema)', problems }
  }
  return { as: 'json (strict)', problems }
}

/** bash -n, and every evalgate command line parsed by the CLI itself (with --help appended: parsed, nothing run). */
async function checkShell(block: Block): Promise<Checked> {
  const problems: string[] = []
  const syntax = spawnSync('bash', ['-n', '-c', block.text], { encoding: 'utf8' })
  if (syntax.status !== 0) problems.push(`bash -n: ${syntax.stderr.trim()}`)
  const calls = evalgateCalls(block.text)
  for (const args of calls) problems.push(...(await cliParses(args)))
  problems.push(...packageSpecs(block.text))
  return { as: `sh (bash -n, ${calls.length} evalgate command line${calls.length === 1 ? '' : 's'} parsed)`, problems }
}

/** Whether the CLI's own parser takes the arguments: with --help appended it parses them, then prints its usage (exit 0) instead of running. */
export async function cliParses(args: string[]): Promise<string[]> {
  let stderr = ''
  const io = { stdout: { write: () => true }, stderr: { write: (t: string) => ((stderr += t), true) }, env: {} }
  const code = await main([...args, '--help'], io)
  return code === 0 ? [] : [`evalgate ${args.join(' ')}: ${stderr.split('\n')[0]}`]
}

/** JavaScript as an ES module (node --check), Python by its own parser: snippets call functions of yours, so only their syntax is checked. */
function checkSyntax(block: Block): Checked {
  const dir = tempDir('evalgate-docs-syntax-')
  const file = path.join(dir, block.lang === 'js' ? 'snippet.mjs' : 'snippet.py')
  writeFileSync(file, block.text)
  const res =
    block.lang === 'js'
      ? spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' })
      : spawnSync('python3', ['-c', 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])', file], { encoding: 'utf8' })
  return {
    as: `${block.lang} (syntax)`,
    problems: res.status === 0 ? [] : [`${block.lang === 'js' ? 'node --check' : 'python3 ast.parse'}: ${res.stderr.trim().split('\n').slice(-3).join(' ')}`]
  }
}

export async function checkBlock(block: Block, lint: Lint): Promise<Checked> {
  if (block.lang === 'yaml') return checkYaml(block, lint)
  if (block.lang === 'json') return checkJson(block)
  if (block.lang === 'sh') return checkShell(block)
  return checkSyntax(block)
}

/** The names of the workflows in the docs' workflow blocks. */
export function workflowName(block: Block): string | null {
  try {
    const value = parseYaml(block.text) as unknown
    return isMapping(value) && typeof value.name === 'string' ? value.name : null
  } catch {
    return null
  }
}

/** The workflows a workflow_run trigger listens to. */
export function listensTo(block: Block): string[] {
  try {
    const value = parseYaml(block.text) as unknown
    const on = isMapping(value) ? value.on : undefined
    const run = isMapping(on) ? on.workflow_run : undefined
    return isMapping(run) && Array.isArray(run.workflows) ? run.workflows.map(String) : []
  } catch {
    return []
  }
}
