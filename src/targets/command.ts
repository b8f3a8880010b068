/**
 * The `command` target with `protocol: stdio`: one process per trial, the input
 * on stdin (and in place of a `{{input}}` argument), the output on stdout.
 *
 * With `target.output: json` stdout must be a result object,
 * `{"output": "…", "toolCalls": […], "usage": {…}}`; anything else fails the trial.
 * Without its own `latencyMs`, a trial's latency runs from the process having
 * started (its `spawn` event) to its exit.
 *
 * The process never goes through a shell and runs in its own process group, so
 * that a timeout or an interruption can kill everything it started.
 */
import { Timers } from '../util/timers.js'
import type { ChildProcess } from 'node:child_process'
import type { TargetOf } from '../config/schema.js'
import { TargetError } from '../errors.js'
import { stdioTrialEnv } from '../tracing/env.js'
import {
  abortError,
  appendTail,
  describeSpawnError,
  KILL_GRACE_MS,
  PIPE_GRACE_MS,
  resolveCommandSpec,
  signalGroup,
  spawnInGroup,
  stderrSuffix,
  type CommandSpec
} from './process.js'
import { isResultObject, readResult } from './result.js'
import { turnFields, type Target, type TargetContext, type TargetReply, type TrialRequest } from './types.js'

/** The argv element replaced by the trial's input. */
const INPUT_PLACEHOLDER = '{{input}}'

/**
 * `target:` for a helper command evalgate runs itself (a command judge, a simulated user): text in and
 * out over stdio, one process per request, no retries, the caller's environment additions and bounds.
 */
export function helperCommand(argv: string[], env: Record<string, string>, bounds: { timeoutMs: number; maxOutputBytes: number }): TargetOf<'command'> {
  return { command: argv, protocol: 'stdio', workers: 1, env, ...bounds, retries: 0, output: 'text', input: 'text' }
}

export function createCommandTarget(config: TargetOf<'command'>, ctx: TargetContext): Target {
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

/** Whether stdout, read as text, is a result object that `target.output: json` would have read as one. */
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
