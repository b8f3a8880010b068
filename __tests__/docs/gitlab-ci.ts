/**
 * A .gitlab-ci.yml block, checked against GitLab's documented keywords
 * (https://docs.gitlab.com/ci/yaml/): every key known where it stands, each
 * job with a script, stages and needs that exist, the values of `when` and
 * `parallel` GitLab takes. And the conventions `evalgate gitlab` needs of the
 * job that runs it: the record, JUnit and shard files it writes are the
 * artifacts kept, uploaded even when the gate fails. No GitLab linter runs
 * offline, so this is our reading of the keyword reference, kept small.
 */
import { RECORD_FILE } from '../../src/gitlab/baseline.js'

const GLOBAL_KEYS = new Set(['default', 'include', 'stages', 'variables', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script'])
const JOB_KEYS = new Set([
  'after_script',
  'allow_failure',
  'artifacts',
  'before_script',
  'cache',
  'coverage',
  'dependencies',
  'environment',
  'except',
  'extends',
  'hooks',
  'id_tokens',
  'identity',
  'image',
  'inherit',
  'interruptible',
  'manual_confirmation',
  'needs',
  'only',
  'pages',
  'parallel',
  'release',
  'resource_group',
  'retry',
  'rules',
  'run',
  'script',
  'secrets',
  'services',
  'stage',
  'tags',
  'timeout',
  'trigger',
  'variables',
  'when'
])
const ARTIFACT_KEYS = new Set(['paths', 'exclude', 'expire_in', 'expose_as', 'name', 'public', 'access', 'reports', 'untracked', 'when'])
const RULE_KEYS = new Set(['if', 'changes', 'exists', 'when', 'allow_failure', 'variables', 'needs', 'interruptible'])
const JOB_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed', 'never']
const ARTIFACT_WHEN = ['on_success', 'on_failure', 'always']
const DEFAULT_STAGES = ['.pre', 'build', 'test', 'deploy', '.post']
const DEFAULT_JUNIT = 'evalgate-junit.xml'

type Mapping = Record<string, unknown>
const isMapping = (v: unknown): v is Mapping => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Whether a YAML value looks like a .gitlab-ci.yml: some top-level entry is a job (a mapping with a script or a trigger). */
export function isGitlabCi(value: unknown): boolean {
  return isMapping(value) && Object.values(value).some((v) => isMapping(v) && ('script' in v || 'trigger' in v))
}

/** A script's lines: a string, or a list of strings and lists of them (GitLab flattens one level). */
function scriptLines(script: unknown): string[] | null {
  if (typeof script === 'string') return [script]
  if (!Array.isArray(script)) return null
  const lines = script.flatMap((s: unknown) => (Array.isArray(s) ? s : [s]))
  return lines.every((l) => typeof l === 'string') ? (lines as string[]) : null
}

/** GitLab's artifact globs: `*` within a name, `**` across folders. */
function globMatches(glob: string, file: string): boolean {
  const pattern = glob
    .split(/(\*\*\/?|\*)/)
    .map((part) => (part.startsWith('**') ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${pattern}$`).test(file)
}

/** The value of `--flag VALUE` or `--flag=VALUE` in an evalgate command line. */
function flag(args: string[], name: string): string | undefined {
  const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`))
  if (at === -1) return undefined
  return args[at]!.includes('=') ? args[at]!.slice(name.length + 1) : args[at + 1]
}

/**
 * The problems of a .gitlab-ci.yml value. `calls` gives the evalgate command
 * lines of a script (blocks.ts evalgateCalls), `parses` whether the CLI takes them.
 */
export async function checkGitlabCi(value: unknown, calls: (script: string) => string[][], parses: (args: string[]) => Promise<string[]>): Promise<string[]> {
  if (!isMapping(value)) return ['a .gitlab-ci.yml is a mapping of jobs']
  const problems: string[] = []
  const jobs = Object.entries(value).filter(([name, v]) => !GLOBAL_KEYS.has(name) && isMapping(v)) as [string, Mapping][]
  for (const [name, v] of Object.entries(value)) {
    if (!GLOBAL_KEYS.has(name) && !isMapping(v)) problems.push(`${name}: not a keyword GitLab knows at the top level, nor a job (a mapping)`)
  }
  const stages = Array.isArray(value.stages) ? value.stages.map(String) : DEFAULT_STAGES
  const names = new Set(jobs.map(([name]) => name))
  for (const [name, job] of jobs) {
    const at = (key: string) => `${name}.${key}`
    for (const key of Object.keys(job)) if (!JOB_KEYS.has(key)) problems.push(`${at(key)}: not a job keyword of GitLab CI`)
    const hidden = name.startsWith('.')
    const lines = scriptLines(job.script)
    if (job.script !== undefined && lines === null) problems.push(`${at('script')}: a string or a list of strings`)
    if (job.script === undefined && !hidden && !('trigger' in job) && !('extends' in job) && !('run' in job)) problems.push(`${name}: a job needs a script`)
    const stage = typeof job.stage === 'string' ? job.stage : 'test'
    if (!stages.includes(stage)) problems.push(`${at('stage')}: "${stage}" is not one of the stages (${stages.join(', ')})`)
    if (job.when !== undefined && !JOB_WHEN.includes(String(job.when))) problems.push(`${at('when')}: one of ${JOB_WHEN.join(', ')}`)
    const needs = Array.isArray(job.needs) ? job.needs.map((n: unknown) => (isMapping(n) ? n.job : n)) : []
    for (const need of needs) if (typeof need !== 'string' || !names.has(need)) problems.push(`${at('needs')}: no job "${String(need)}" in this file`)
    const parallel = job.parallel
    if (
      parallel !== undefined &&
      !(Number.isInteger(parallel) && (parallel as number) >= 1 && (parallel as number) <= 200) &&
      !(isMapping(parallel) && 'matrix' in parallel)
    )
      problems.push(`${at('parallel')}: a whole number from 1 to 200, or {matrix: …}`)
    if (job.rules !== undefined) {
      if (!Array.isArray(job.rules) || !job.rules.every(isMapping)) problems.push(`${at('rules')}: a list of rules (mappings)`)
      else
        job.rules.forEach((rule, k) => {
          for (const key of Object.keys(rule)) if (!RULE_KEYS.has(key)) problems.push(`${at(`rules[${k}].${key}`)}: not a rules keyword`)
          if (rule.when !== undefined && !JOB_WHEN.includes(String(rule.when))) problems.push(`${at(`rules[${k}].when`)}: one of ${JOB_WHEN.join(', ')}`)
        })
    }
    const artifacts = isMapping(job.artifacts) ? job.artifacts : undefined
    if (job.artifacts !== undefined && !artifacts) problems.push(`${at('artifacts')}: a mapping`)
    for (const key of Object.keys(artifacts ?? {})) if (!ARTIFACT_KEYS.has(key)) problems.push(`${at(`artifacts.${key}`)}: not an artifacts keyword`)
    if (artifacts?.when !== undefined && !ARTIFACT_WHEN.includes(String(artifacts.when)))
      problems.push(`${at('artifacts.when')}: one of ${ARTIFACT_WHEN.join(', ')}`)

    // evalgate's command lines, as the CLI parses them, and what `evalgate gitlab` needs of its job
    for (const args of (lines ?? []).flatMap(calls)) {
      problems.push(...(await parses(args)).map((p) => `${at('script')}: ${p}`))
      if (args[0] !== 'gitlab') continue
      const paths = Array.isArray(artifacts?.paths) ? artifacts.paths.map(String) : []
      const kept = (file: string) => paths.some((glob) => globMatches(glob, file))
      const merging = args.includes('--merge')
      if (parallel !== undefined && !merging) {
        // a slice writes its part for the job that merges them
        const file = flag(args, '--out') ?? `evalgate-shard-1-of-${typeof parallel === 'number' ? parallel : 2}.json`
        if (!kept(file)) problems.push(`${at('artifacts.paths')}: a slice writes ${file}; keep it for the job that merges the slices`)
        continue
      }
      if (merging && needs.length === 0) problems.push(`${at('needs')}: --merge reads the slices' files: name their job in needs`)
      const record = flag(args, '--out') ?? RECORD_FILE
      if (record !== RECORD_FILE) problems.push(`${at('script')}: --out ${record}: the next pipeline's baseline lookup reads ${RECORD_FILE}`)
      if (!kept(RECORD_FILE)) problems.push(`${at('artifacts.paths')}: keep ${RECORD_FILE}, the record the next pipeline compares with`)
      const junit = flag(args, '--junit') ?? DEFAULT_JUNIT
      const reports = isMapping(artifacts?.reports) ? artifacts.reports : {}
      if (reports.junit !== junit) problems.push(`${at('artifacts.reports.junit')}: ${String(reports.junit ?? 'missing')}; the job writes ${junit}`)
      if (artifacts?.when !== 'always') problems.push(`${at('artifacts.when')}: always, so that a failing gate's record and report are kept`)
    }
  }
  return problems
}
