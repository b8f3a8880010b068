/**
 * The processes of the `command` target, both protocols (stdio: one per trial;
 * jsonl: long-lived workers): the program resolved and checked before any
 * trial, spawned without a shell in a process group of its own with a minimal
 * environment, signalled as a group, and its failures worded in the target's
 * settings (stderr's tail, a program not found, a working directory missing).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs'
import { delimiter, extname, isAbsolute, join, resolve } from 'node:path'
import { distance } from 'fastest-levenshtein'
import type { TargetOf } from '../config/schema.js'
import { ConfigError, TargetError, errorMessage } from '../errors.js'
import { expandVars, minimalEnv } from '../util/env.js'
import { splitArgv } from '../util/argv.js'
import { exporterEnv } from '../tracing/env.js'
import type { TargetContext } from './types.js'

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

/** What execvp searches when the environment has no PATH (the C library's default). */
const DEFAULT_SEARCH_PATH = '/bin:/usr/bin'

/** Expands `${VAR}` once, at creation, so a missing variable is a config error before any trial runs. */
export function resolveCommandSpec(config: TargetOf<'command'>, ctx: TargetContext): CommandSpec {
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
