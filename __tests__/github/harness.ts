/**
 * Running the action end to end in-process: a workspace with a config, a tiny
 * dataset and a `module` agent, the runner's environment (inputs, event
 * payload, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, the artifact
 * runtime) pointed at the fake GitHub, and what the run printed and wrote.
 */
import { jest } from '@jest/globals'
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { runtimeToken, type GitHubServer, type LoggedRequest } from '../__fixtures__/github-server.js'
import { setEnv, sha, tempDir } from './helpers.js'

export const CASES = `# three cases; the agent answers all of them right unless told otherwise
- id: capital
  input: What is the capital of Ireland?
  expected: Dublin
- id: math
  input: What is 2 + 2?
  expected: "4"
- id: greet
  input: Say hello
  expected: hello
`

/**
 * Right answers, except for the case ids listed in agent-control.json's
 * `broken` (read per call); the case `hang.id` never answers (after touching
 * `hang.file`, so that the test knows when to cancel).
 */
export const AGENT = `import { readFileSync, writeFileSync } from 'node:fs'
const answers = {
  'What is the capital of Ireland?': 'Dublin, of course',
  'What is 2 + 2?': 'It is 4',
  'Say hello': 'hello @octocat'
}
export default async function agent(input, evalCase) {
  // told by the test through a file beside it: the agent's environment is its own (the sandbox's)
  const { broken, hang } = JSON.parse(readFileSync(new URL('agent-control.json', import.meta.url), 'utf8'))
  if (hang?.id === evalCase.id) {
    writeFileSync(hang.file, 'hanging')
    return new Promise(() => {})
  }
  // a model's output may hold workflow commands; the action must not let them run
  if (broken.includes(evalCase.id)) return 'I cannot answer that\\n::warning::injected'
  return answers[input] ?? 'unknown'
}
`

export interface Workspace {
  dir: string
  config: string
}

export function workspace(name = 'demo', extraConfig = ''): Workspace {
  const dir = tempDir('evalgate-ws-')
  writeFileSync(path.join(dir, 'cases.yaml'), CASES)
  writeFileSync(path.join(dir, 'agent.mjs'), AGENT)
  const config = path.join(dir, 'evalgate.yml')
  writeFileSync(config, `version: 1\nname: ${name}\ndataset: cases.yaml\ntarget:\n  module: ./agent.mjs\n${extraConfig}`)
  return { dir, config }
}

/** One summary and one output file per test file: @actions/core caches the summary's path. */
export interface RunnerFiles {
  summary: string
  output: string
  temp: string
}

export function runnerFiles(): RunnerFiles {
  const dir = tempDir('evalgate-runner-')
  const files = { summary: path.join(dir, 'summary.md'), output: path.join(dir, 'output.txt'), temp: path.join(dir, 'temp') }
  mkdirSync(files.temp)
  return files
}

export interface RunOptions {
  server: GitHubServer
  files: RunnerFiles
  ws: Workspace
  event: 'pull_request' | 'push' | 'workflow_run'
  runId: number
  /** the commit under test */
  sha?: string
  payload?: Record<string, unknown>
  inputs?: Record<string, string>
  /** case ids the agent answers wrongly */
  broken?: string[]
  /** a case id the agent never answers; the file it touches when it starts hanging */
  hang?: { id: string; file: string }
  attempt?: number
  /** more of the runner's environment (undefined: unset) */
  env?: Record<string, string | undefined>
}

export interface RunResult {
  /** everything written to stdout, workflow commands included */
  stdout: string
  /** stdout lines and server requests, in the order they happened */
  timeline: string[]
  outputs: Record<string, string>
  summary: string
  exitCode: number | undefined
}

export function prPayload(server: GitHubServer, number: number, headSha: string, baseSha: string): Record<string, unknown> {
  return {
    action: 'synchronize',
    number,
    pull_request: { number, head: { sha: headSha, ref: 'feature' }, base: { sha: baseSha, ref: 'main' } },
    repository: { full_name: server.repository, default_branch: server.defaultBranch }
  }
}

export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const re = /^([^\n<]+)<<(ghadelimiter_[0-9a-f-]+)\n([\s\S]*?)\n\2$/gm
  for (const m of text.matchAll(re)) outputs[m[1]!] = m[3]!
  return outputs
}

/** The runner's environment for one run of the action (undefined: unset). */
export function actionEnv(options: RunOptions): Record<string, string | undefined> {
  const { server, files, ws } = options
  writeFileSync(files.summary, '')
  writeFileSync(files.output, '')
  writeFileSync(path.join(ws.dir, 'agent-control.json'), JSON.stringify({ broken: options.broken ?? [], hang: options.hang ?? null }))
  const eventFile = path.join(tempDir('evalgate-event-'), 'event.json')
  writeFileSync(eventFile, JSON.stringify(options.payload ?? {}))
  const ref = options.event === 'pull_request' ? `refs/pull/${(options.payload?.number as number | undefined) ?? 1}/merge` : 'refs/heads/main'
  const env: Record<string, string | undefined> = {
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: server.url,
    ACTIONS_RESULTS_URL: `${server.url}/`,
    GITHUB_REPOSITORY: server.repository,
    GITHUB_EVENT_NAME: options.event,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_WORKFLOW: 'evals',
    GITHUB_WORKFLOW_REF: `${server.repository}/.github/workflows/${options.event === 'workflow_run' ? 'comment' : 'evals'}.yml@${ref}`,
    GITHUB_RUN_ID: String(options.runId),
    GITHUB_RUN_ATTEMPT: String(options.attempt ?? 1),
    GITHUB_SHA: options.sha ?? sha(options.runId),
    GITHUB_REF: ref,
    GITHUB_WORKSPACE: ws.dir,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    RUNNER_TEMP: files.temp,
    ACTIONS_RUNTIME_TOKEN: runtimeToken(options.runId),
    INPUT_CONFIG: ws.config,
    'INPUT_GITHUB-TOKEN': 'ghs_faketoken'
  }
  for (const name of [
    'MODE',
    'COMMENT',
    'FAIL-ON-REGRESSION',
    'MAX-REGRESSIONS',
    'MAX-PASS-RATE-DROP',
    'MIN-PASS-RATE',
    'BASELINE',
    'BASELINE-BRANCH',
    'ARTIFACT-NAME',
    'BADGE-PATH',
    'JUNIT',
    'SHARD',
    'GATE-FROM',
    'ACCEPT-LABEL',
    'ON-BASELINE-ERROR'
  ])
    env[`INPUT_${name}`] = undefined
  for (const [name, value] of Object.entries(options.inputs ?? {})) env[`INPUT_${name.toUpperCase()}`] = value
  return { ...env, ...options.env }
}

function collect(files: RunnerFiles, stdout: string, timeline: string[], exitCode: number | undefined): RunResult {
  return { stdout, timeline, outputs: parseOutputs(readFileSync(files.output, 'utf8')), summary: readFileSync(files.summary, 'utf8'), exitCode }
}

/** Set the runner's environment for one run of the action, run it in-process, and collect what it left. */
export async function runAction(run: () => Promise<void>, options: RunOptions): Promise<RunResult> {
  const { server, files } = options
  for (const [name, value] of Object.entries(actionEnv(options))) setEnv(name, value)
  const timeline: string[] = []
  let stdout = ''
  server.onRequest = (r: LoggedRequest) => timeline.push(`${r.method} ${r.path}`)
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()
    stdout += text
    timeline.push(...text.split('\n').filter(Boolean))
    return true
  })
  const before = process.exitCode
  process.exitCode = undefined
  try {
    await run()
  } finally {
    spy.mockRestore()
    server.onRequest = null
  }
  const exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode)
  process.exitCode = before
  return collect(files, stdout, timeline, exitCode)
}

/**
 * Run the bundled action (dist/index.js) as the runner does: a node process with the runner's
 * environment; EVALGATE_NODE names that node (CI runs these under Node 24, the action's runtime).
 */
export async function runBundle(script: string, options: RunOptions): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME }
  for (const [name, value] of Object.entries(actionEnv(options))) if (value !== undefined) env[name] = value
  const timeline: string[] = []
  options.server.onRequest = (r: LoggedRequest) => timeline.push(`${r.method} ${r.path}`)
  const child = spawn(process.env.EVALGATE_NODE ?? process.execPath, [script], { env, cwd: options.ws.dir, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    timeline.push(...chunk.toString().split('\n').filter(Boolean))
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  options.server.onRequest = null
  return collect(options.files, stdout, timeline, code === 0 ? undefined : (code ?? -1))
}
