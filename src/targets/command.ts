/**
 * The `command` target with `protocol: stdio`: one process per trial, the input
 * on stdin (and in place of a `{{input}}` argument), the output on stdout.
 *
 * With `target.output: json` stdout must be a result object (SPEC §10),
 * `{"output": "…", "toolCalls": […], "usage": {…}}`; anything else fails the trial.
 * Without its own `latencyMs`, a trial's latency runs from the process having
 * started (its `spawn` event) to its exit.
 *
 * The process never goes through a shell and runs in its own process group, so
 * that a timeout or an interruption can kill everything it started.
 */
import { Timers } from '../util/timers.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs'
import { delimiter, extname, isAbsolute, join, resolve } from 'node:path'
import { distance } from 'fastest-levenshtein'
import type { TargetConfig } from '../config/schema.js'
import { ConfigError, TargetError, errorMessage } from '../errors.js'
import { expandVars, minimalEnv } from '../util/env.js'
import { splitArgv } from '../util/argv.js'
import { exporterEnv, stdioTrialEnv } from '../tracing/env.js'
import { isResultObject, readResult } from './result.js'
import { turnFields, type Target, type TargetContext, type TargetReply, type TrialRequest } from './types.js'

/** The argv element replaced by the trial's input. */
const INPUT_PLACEHOLDER = '{{input}}'

/** How much of stderr is kept for error messages: the end is where the cause usually is. */
export const STDERR_TAIL_BYTES = 2048
/** Time between SIGTERM and SIGKILL when stopping a process group. */
export const KILL_GRACE_MS = 2000
/** After the process exits, how long its pipes may stay open (held by a leftover grandchild). */
export const PIPE_GRACE_MS = 200

/** A command target's settings after `${VAR}` expansion and path resolution. */
export interface CommandSpec {
  argv: string[]
  cwd: string
  env: Record<string, string>
  maxOutputBytes: number
  /** target.output: json — stdout is a result object */
  json: boolean
  /** target.input: json — stdin is a JSON request (the input, the case, a conversation's messages) */
  jsonInput: boolean
}

export function createCommandTarget(config: TargetConfig, ctx: TargetContext): Target {
  const spec = resolveCommandSpec(config, ctx)
  const running = new Set<ProcessRun>()
  const printed = { trials: 0, resultObjects: 0 }
  return {
    async call(request: TrialRequest): Promise<TargetReply> {
      if (request.signal.aborted) throw abortError(request.signal)
      const run = new ProcessRun(spec, request.input, request.traceparent, spec.jsonInput ? jsonRequest(request) : undefined)
      running.add(run)
      const onAbort = (): void => run.stop(abortError(request.signal))
      request.signal.addEventListener('abort', onAbort, { once: true })
      try {
        const stdout = await run.done
        if (!spec.json) {
          printed.trials++
          if (looksLikeResultObject(stdout)) printed.resultObjects++
        }
        const reply = spec.json ? jsonReply(stdout) : { output: stdout }
        reply.latencyMs ??= run.elapsedMs()
        return reply
      } finally {
        request.signal.removeEventListener('abort', onAbort)
        running.delete(run)
      }
    },
    async close(): Promise<void> {
      const runs = [...running]
      for (const run of runs) run.stop(new TargetError('target closed while the command was running'))
      await Promise.allSettled(runs.map((run) => run.done))
      if (printed.resultObjects > 0) ctx.warn?.(resultObjectHint(printed.resultObjects, printed.trials))
    }
  }
}

/** Whether stdout, read as text, is a result object (SPEC §10) that `target.output: json` would have read as one. */
function looksLikeResultObject(stdout: string): boolean {
  const text = stdout.trim()
  if (!text.startsWith('{') || !text.endsWith('}')) return false
  try {
    return isResultObject(JSON.parse(text))
  } catch {
    return false
  }
}

export function resultObjectHint(count: number, trials: number): string {
  return (
    `target.command printed a result object ({"output": …}) on stdout in ${count} of ${trials} trial${trials === 1 ? '' : 's'}, but target.output is not json: ` +
    `that stdout was graded as text, whole, and its toolCalls, usage and latencyMs were not read. Set \`output: json\` under \`target:\` to read it as a result object`
  )
}

/** What execvp searches when the environment has no PATH (the C library's default). */
const DEFAULT_SEARCH_PATH = '/bin:/usr/bin'

/** Expands `${VAR}` once, at creation, so a missing variable is a config error before any trial runs. */
export function resolveCommandSpec(config: TargetConfig, ctx: TargetContext): CommandSpec {
  if (config.command === undefined) throw new ConfigError('target.command is not set')
  const words = typeof config.command === 'string' ? splitArgv(config.command) : config.command
  const argv = words.map((word) => expandVars(word, ctx.env, ctx.secrets, 'target.command'))
  if (argv.length === 0 || argv[0] === '') throw new ConfigError('target.command: the program name is empty')
  const env = Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, expandVars(value, ctx.env, ctx.secrets, `target.env.${name}`)]))
  const cwd = config.cwd === undefined ? ctx.baseDir : resolve(ctx.baseDir, expandVars(config.cwd, ctx.env, ctx.secrets, 'target.cwd'))
  const traced = ctx.otlpEndpoint === undefined ? env : { ...exporterEnv(ctx.otlpEndpoint, env), ...env }
  const spec = {
    argv,
    cwd,
    env: minimalEnv(ctx.env, traced),
    maxOutputBytes: config.maxOutputBytes,
    json: config.output === 'json',
    jsonInput: config.input === 'json'
  }
  checkProgram(spec)
  return spec
}

/**
 * Finds argv[0] the way spawn will (a path from cwd, else the target's PATH) and
 * checks that it can be run: a typo (`pyhton3`) is one config error before any
 * case runs, not a failure of every case.
 */
function checkProgram(spec: CommandSpec): void {
  const program = spec.argv[0]!
  if (!isDirectory(spec.cwd)) {
    throw new ConfigError(
      `target.cwd: the working directory ${spec.cwd} does not exist: fix target.cwd (it is relative to the config file's folder)`,
      undefined,
      'target.cwd'
    )
  }
  const fail = (what: string): never => {
    throw new ConfigError(`target.command: ${what}`, undefined, 'target.command')
  }
  if (program.includes('/') || (process.platform === 'win32' && program.includes('\\'))) {
    const file = resolve(spec.cwd, program)
    if (!existsSync(file))
      fail(
        `the program ${JSON.stringify(program)} does not exist (looked for ${file}): fix the path in target.command${isAbsolute(program) ? '' : ` (a relative path starts from ${spec.cwd})`}`
      )
    if (!isRunnable(file)) fail(notRunnable(program, file))
    return
  }
  // without PATH, spawn (execvp) searches the C library's default path: so does this check
  const dirs = (spec.env.PATH ?? DEFAULT_SEARCH_PATH).split(delimiter).filter((dir) => dir !== '')
  const found = dirs.flatMap((dir) => executableNames(program).map((name) => join(dir, name))).filter((file) => existsSync(file))
  if (found.some(isRunnable)) return
  if (found.length) fail(notRunnable(program, found[0]!))
  const near = closestProgram(program, dirs)
  fail(
    `the program ${JSON.stringify(program)} is not on the PATH${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}: ` +
      `fix the spelling in target.command, install it, or give its path; PATH=${spec.env.PATH ?? ''}`
  )
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory()
  } catch {
    return false
  }
}

function isRunnable(file: string): boolean {
  try {
    if (statSync(file).isDirectory()) return false
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function notRunnable(program: string, file: string): string {
  const kind = isDirectory(file) ? 'is a folder' : 'is not executable'
  return `the program ${JSON.stringify(program)} (${file}) ${kind}: \`chmod +x\` it, or name its interpreter first in target.command (e.g. ["python3", ${JSON.stringify(program)}])`
}

/** The file names a bare program name stands for: itself, and on Windows with each PATHEXT extension. */
function executableNames(program: string): string[] {
  if (process.platform !== 'win32' || extname(program)) return [program]
  return [
    program,
    ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM')
      .split(';')
      .filter(Boolean)
      .map((ext) => program + ext.toLowerCase())
  ]
}

/** A program on the PATH whose name is one or two edits away, for "did you mean". */
function closestProgram(program: string, dirs: string[]): string | undefined {
  let best: string | undefined
  let bestDistance = 3
  for (const dir of dirs) {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      continue
    }
    for (const name of names) {
      if (Math.abs(name.length - program.length) >= bestDistance) continue
      const d = distance(name, program)
      if (d < bestDistance) {
        best = name
        bestDistance = d
      }
    }
  }
  return best
}

/** stdout under `target.output: json`: a result object, or the trial fails saying what it got instead. */
function jsonReply(stdout: string): TargetReply {
  let value: unknown
  try {
    value = JSON.parse(stdout)
  } catch (err) {
    throw new TargetError(`target.output is json but stdout is not JSON (${(err as Error).message}): ${excerpt(stdout)}`)
  }
  if (!isResultObject(value)) {
    throw new TargetError(`target.output is json but stdout is not a JSON object with an "output" field: ${excerpt(stdout)}`)
  }
  return readResult(value, 'the command', true)
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat === '' ? '(empty)' : flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}

/** stdin under `target.input: json`: the input, the case, and on a conversation's turn its messages and id. */
function jsonRequest(request: TrialRequest): string {
  const c = request.case
  return JSON.stringify({ input: request.input ?? null, case: { id: c.id, name: c.name, tags: c.tags }, ...turnFields(request) })
}

/** Strings are passed as they are; any other JSON value as its JSON text. */
function inputText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input) ?? '')
}

/**
 * The runner aborts with a TargetError ("timed out after N ms") or on interruption;
 * keep that message whatever the reason's type, so the trial records why it stopped.
 */
export function abortError(signal: AbortSignal): TargetError {
  const reason: unknown = signal.reason
  if (reason instanceof TargetError) return reason
  return new TargetError(reason === undefined ? 'aborted' : errorMessage(reason))
}

/** Starts argv[0] with `args`: never through a shell, in its own process group, with the spec's minimal env (and `env` besides). */
export function spawnInGroup(spec: CommandSpec, args: string[], env?: Record<string, string>): ChildProcess {
  return spawn(spec.argv[0], args, {
    cwd: spec.cwd,
    env: env ? { ...spec.env, ...env } : spec.env,
    shell: false,
    // own process group: the whole tree can be signalled at once
    detached: true,
    windowsHide: true,
    stdio: ['pipe', 'pipe', 'pipe']
  })
}

/** Signals the child's whole process group (the child alone on Windows, which has no groups to signal). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid
  if (pid === undefined) return
  try {
    if (process.platform === 'win32') child.kill(signal)
    else process.kill(-pid, signal)
  } catch {
    // ESRCH: the group is already gone
  }
}

/** The last STDERR_TAIL_BYTES of a stream, with `chunk` appended. */
export function appendTail(tail: Buffer, chunk: Buffer): Buffer {
  const joined = Buffer.concat([tail, chunk])
  return joined.subarray(Math.max(0, joined.length - STDERR_TAIL_BYTES))
}

/**
 * `: <stderr's last line>` and then the tail for an error message, or a note that
 * there was none. The last line leads because it is the one that says what went
 * wrong (a Python traceback's `ValueError: …`) and reports show a message's start.
 */
export function stderrSuffix(tail: Buffer): string {
  let text = tail.toString('utf8').trim()
  if (!text) return ' (no stderr)'
  const cut = tail.length >= STDERR_TAIL_BYTES
  // a tail cut mid-line starts at the next whole line
  if (cut && text.includes('\n')) text = text.slice(text.indexOf('\n') + 1)
  const lines = text.split(/\r?\n/)
  if (lines.length === 1) return `: ${cut ? '…' : ''}${text}`
  return `: ${lines.at(-1)!.trim()}\n\n${cut ? `stderr, its last ${STDERR_TAIL_BYTES} bytes` : 'stderr'}:\n${text}`
}

/** Why a process could not be started, in terms of the target's settings. */
export function describeSpawnError(err: NodeJS.ErrnoException, spec: CommandSpec): TargetError {
  const program = spec.argv[0]
  if (err.code === 'ENOENT' && !existsSync(spec.cwd)) {
    return new TargetError(`working directory does not exist: ${spec.cwd} (target.cwd)`)
  }
  if (err.code === 'ENOENT') {
    const where = program.includes('/') || program.includes('\\') ? `cwd=${spec.cwd}` : `PATH=${spec.env.PATH ?? ''}`
    return new TargetError(`command not found: ${program} (${where})`)
  }
  if (err.code === 'EACCES') return new TargetError(`command is not executable: ${program} (permission denied)`)
  return new TargetError(`cannot start ${program}: ${err.message}`)
}

/** One child process, from spawn to `close`; `done` settles only once its stdio is closed and it has exited. */
class ProcessRun {
  readonly done: Promise<string>
  private readonly child: ChildProcess
  private readonly stdout: Buffer[] = []
  private stdoutBytes = 0
  private stderrTail: Buffer = Buffer.alloc(0)
  /** Set when we decided to end the process (abort, output cap); wins over how it then exited. */
  private failure: TargetError | null = null
  private closed = false
  private spawnError: NodeJS.ErrnoException | null = null
  private readonly timers = new Timers()
  private spawnedAt = performance.now()
  private closedAt: number | undefined

  /** `stdin`: what the process reads, when it is not the input's text (target.input: json) */
  constructor(
    private readonly spec: CommandSpec,
    input: unknown,
    traceparent: string | undefined,
    stdin?: string
  ) {
    const text = inputText(input)
    const args = spec.argv.slice(1).map((arg) => (arg === INPUT_PLACEHOLDER ? text : arg))
    this.child = spawnInGroup(spec, args, traceparent === undefined ? undefined : stdioTrialEnv(traceparent, spec.env.OTEL_RESOURCE_ATTRIBUTES))
    this.done = new Promise<string>((resolvePromise, rejectPromise) => {
      this.child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        this.closed = true
        this.closedAt = performance.now()
        this.timers.clear()
        // sweep whatever the process left behind in its group
        signalGroup(this.child, 'SIGKILL')
        try {
          resolvePromise(this.outcome(code, signal))
        } catch (err) {
          rejectPromise(err)
        }
      })
    })
    this.child.once('error', (err: NodeJS.ErrnoException) => {
      // only a failed spawn has no pid; `close` still follows it
      if (this.child.pid === undefined) this.spawnError = err
    })
    this.child.once('spawn', () => {
      this.spawnedAt = performance.now()
    })
    this.child.once('exit', () => this.afterExit())
    this.child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk))
    this.child.stderr?.on('data', (chunk: Buffer) => this.onStderr(chunk))
    // a child that never reads its input closes the pipe (EPIPE): not an error, its exit status decides
    this.child.stdin?.on('error', () => {})
    this.child.stdin?.end(stdin ?? text)
  }

  /** From the process having started to its stdio closing. */
  elapsedMs(): number {
    return (this.closedAt ?? performance.now()) - this.spawnedAt
  }

  /** Ends the process group: SIGTERM, then SIGKILL if it is still there after the grace period. */
  stop(reason: TargetError): void {
    // once closed the pid may belong to someone else; a second stop has nothing to add
    if (this.closed || this.failure) return
    this.failure = reason
    signalGroup(this.child, 'SIGTERM')
    this.timers.later(KILL_GRACE_MS, () => this.forceClose())
  }

  private onStdout(chunk: Buffer): void {
    if (this.failure) return
    this.stdoutBytes += chunk.length
    if (this.stdoutBytes > this.spec.maxOutputBytes) {
      this.stop(new TargetError(`output exceeded ${this.spec.maxOutputBytes} bytes (target.maxOutputBytes)`))
      return
    }
    this.stdout.push(chunk)
  }

  private onStderr(chunk: Buffer): void {
    this.stderrTail = appendTail(this.stderrTail, chunk)
  }

  /** A grandchild may hold stdout open after the process exited; do not wait for it forever. */
  private afterExit(): void {
    this.timers.later(PIPE_GRACE_MS, () => this.forceClose())
  }

  /**
   * Kills the group, which closes the pipes without losing what is still buffered in
   * them; only if something outside the group holds them too are our ends dropped.
   */
  private forceClose(): void {
    signalGroup(this.child, 'SIGKILL')
    this.timers.later(PIPE_GRACE_MS, () => {
      this.child.stdout?.destroy()
      this.child.stderr?.destroy()
    })
  }

  private outcome(code: number | null, signal: NodeJS.Signals | null): string {
    if (this.failure) throw this.failure
    if (this.spawnError) throw describeSpawnError(this.spawnError, this.spec)
    if (signal) throw new TargetError(`killed by ${signal}${stderrSuffix(this.stderrTail)}`)
    if (code !== 0) throw new TargetError(`exited with code ${code}${stderrSuffix(this.stderrTail)}`)
    // stdout exactly as printed, minus the one line ending that `print`/`console.log` add;
    // invalid UTF-8 becomes U+FFFD
    return Buffer.concat(this.stdout)
      .toString('utf8')
      .replace(/\r?\n$/, '')
  }
}
