/**
 * The `command` target with `protocol: jsonl`: `workers` long-lived processes
 * that each take one JSON request per line on stdin and write one JSON reply
 * per line on stdout:
 *
 *   request  {"id": "17", "input": <the case input>, "case": {"id", "name", "tags"}}
 *   reply    {"id": "17", "output": "…"}   or   {"id": "17", "error": "…"}
 *
 * A reply may carry the other fields of a result object beside
 * `id`: toolCalls, usage, metadata, finishReason, latencyMs. Without its own
 * latencyMs, a reply's latency is the time from its request being written to
 * its line arriving — but never from before the worker had started: a worker
 * may write `{"ready": true}` once it has (its imports done, its model
 * loaded), and the requests already waiting on it are timed from that line.
 * (Nothing else tells when a process is ready to read: without the line, a
 * worker's first replies include its start-up.)
 *
 * `target.maxOutputBytes` bounds each line in UTF-8 bytes, as it bounds a
 * stdio command's output.
 *
 * Replies are matched by id, so a worker may have several cases in flight and
 * answer them in any order. Each request goes to the worker with the fewest in
 * flight. Workers start on first use and are spawned like stdio commands: no
 * shell, a minimal environment, their own process group.
 *
 * A worker that exits fails the cases it had in flight (there is no telling
 * which of them killed it) and a fresh one starts for the next request. A case
 * that times out can only be stopped by killing its worker; the other cases in
 * flight on that worker did nothing wrong, so they are sent again to a fresh
 * worker, still bounded by their own timeouts.
 *
 * A worker that never writes anything (its stdout block-buffered into a pipe,
 * the usual Python default) would time out every case, one after another: the
 * first case that times out before any worker wrote a byte of stdout is
 * diagnosed once, and every case in flight and to come fails at once with why.
 */
import { Timers } from '../util/timers.js'
import type { ChildProcess } from 'node:child_process'
import type { TargetOf } from '../config/schema.js'
import { ConfigError, TargetError } from '../errors.js'
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
import { readResult } from './result.js'
import { turnFields, type Target, type TargetContext, type TargetReply, type TrialRequest } from './types.js'

/** Stdout lines that are not replies are kept, the last few, to explain a worker that then dies. */
const NOISE_LINES = 5
const NOISE_LINE_CHARS = 200
const NEWLINE = 0x0a

export interface JsonlTiming {
  /** how long a worker may take to exit after its stdin is closed, and after SIGTERM */
  graceMs: number
}

/** One request, from the call until it settles; it may move to another worker when its own is killed. */
interface Pending {
  id: string
  line: string
  signal: AbortSignal
  worker: Worker | null
  /** when the line was written to its (current) worker, or when that worker said it was ready if later */
  sentAt: number
  settle(outcome: { reply: TargetReply } | { error: Error }): void
}

export function createJsonlTarget(config: TargetOf<'command'>, ctx: TargetContext, timing: JsonlTiming = { graceMs: KILL_GRACE_MS }): Target {
  const spec = resolveCommandSpec(config, ctx)
  if (spec.argv.includes('{{input}}')) {
    throw new ConfigError(
      'target.command: {{input}} has no meaning with protocol jsonl (each input arrives as a JSON line on stdin)',
      undefined,
      'target.command'
    )
  }
  return new WorkerPool(spec, config.workers, timing, config.timeoutMs)
}

/** What a pool whose workers never wrote a line is told; every case gets it, so the verdict can name it once. */
export function silentWorkerError(timeoutMs: number): TargetError {
  return new TargetError(
    `no reply line within ${timeoutMs} ms, and no worker wrote anything on stdout: is the worker's stdout flushed after each reply? ` +
      `(Python: print(..., flush=True) or run it with python3 -u; a worker that needs longer to start needs a larger target.timeoutMs)`
  )
}

class WorkerPool implements Target {
  /** each slot holds a running worker or null (not started yet, or its worker exited) */
  private readonly slots: (Worker | null)[]
  /** every worker not yet closed, retired ones included: close() waits for them all */
  private readonly alive = new Set<Worker>()
  private nextId = 0
  private closing = false
  /** whether any worker wrote anything on stdout yet */
  private heard = false
  /** set once the workers are found silent: every call fails with it */
  private silence: TargetError | null = null

  constructor(
    private readonly spec: CommandSpec,
    workers: number,
    private readonly timing: JsonlTiming,
    private readonly timeoutMs: number
  ) {
    this.slots = new Array<Worker | null>(workers).fill(null)
  }

  call(request: TrialRequest): Promise<TargetReply> {
    if (request.signal.aborted) return Promise.reject(abortError(request.signal))
    if (this.closing) return Promise.reject(new TargetError('target closed'))
    if (this.silence) return Promise.reject(this.silence)
    const id = String(++this.nextId)
    const { case: c, signal } = request
    const message: Record<string, unknown> = { id, input: request.input ?? null, case: { id: c.id, name: c.name, tags: c.tags }, ...turnFields(request) }
    // the worker continues the trial's trace
    if (request.traceparent !== undefined) message.traceparent = request.traceparent
    const line = `${JSON.stringify(message)}\n`
    return new Promise<TargetReply>((resolvePromise, rejectPromise) => {
      let settled = false
      const pending: Pending = {
        id,
        line,
        signal,
        worker: null,
        sentAt: 0,
        settle(outcome) {
          if (settled) return
          settled = true
          signal.removeEventListener('abort', onAbort)
          if ('reply' in outcome) resolvePromise(outcome.reply)
          else rejectPromise(outcome.error)
        }
      }
      const onAbort = (): void => this.abort(pending)
      signal.addEventListener('abort', onAbort, { once: true })
      this.dispatch(pending)
    })
  }

  async close(): Promise<void> {
    this.closing = true
    for (const worker of this.alive) {
      worker.failAll(new TargetError('target closed while the case was running'))
      worker.endInput()
    }
    await Promise.all([...this.alive].map((worker) => worker.closed))
  }

  private dispatch(pending: Pending): void {
    if (pending.signal.aborted) return pending.settle({ error: abortError(pending.signal) })
    if (this.closing) return pending.settle({ error: new TargetError('target closed while the case was running') })
    const index = this.leastBusy()
    let worker = this.slots[index]
    if (!worker) {
      worker = new Worker(
        this.spec,
        this.timing,
        (exited) => this.onExit(exited),
        () => (this.heard = true)
      )
      this.slots[index] = worker
      this.alive.add(worker)
      const started = worker
      void started.closed.then(() => this.alive.delete(started))
    }
    pending.worker = worker
    worker.send(pending)
  }

  /** The slot with the fewest cases in flight; a running worker before an empty slot, then the first. */
  private leastBusy(): number {
    let best = 0
    let bestLoad = Infinity
    this.slots.forEach((worker, i) => {
      // an empty slot weighs a little more than an idle worker: no process is started while one is free
      const load = worker ? worker.inFlight * 2 : 1
      if (load < bestLoad) {
        best = i
        bestLoad = load
      }
    })
    return best
  }

  /** The trial's timeout or interruption: its worker is killed, the other cases on it go to a fresh one. */
  private abort(pending: Pending): void {
    const worker = pending.worker
    pending.settle({ error: abortError(pending.signal) })
    if (!worker) return
    if (!this.heard) return this.silenced()
    worker.forget(pending)
    const others = worker.takeAll()
    worker.stop(new TargetError('worker stopped'))
    // after the current abort event: when the whole run is interrupted, the others abort too and need no new worker
    if (others.length > 0) setImmediate(() => others.forEach((other) => this.dispatch(other)))
  }

  /**
   * A case ended (timed out, or the run was interrupted, where what follows is
   * dropped anyway) before any worker wrote a byte: the next cases would only
   * wait as long for nothing. Every case in flight fails now, and every later one at once.
   */
  private silenced(): void {
    this.silence = silentWorkerError(this.timeoutMs)
    for (const worker of this.alive) {
      worker.failAll(this.silence)
      worker.stop(new TargetError('worker stopped'))
    }
  }

  /** A worker that exited or is being stopped takes no more requests; its slot starts a fresh one on demand. */
  private onExit(worker: Worker): void {
    const index = this.slots.indexOf(worker)
    if (index !== -1) this.slots[index] = null
  }
}

/** One long-lived process and the requests it has in flight. */
class Worker {
  readonly closed: Promise<void>
  private readonly child: ChildProcess
  private readonly pending = new Map<string, Pending>()
  /** the bytes of the line not yet ended: lines are cut and measured as bytes, then decoded */
  private partial: Buffer[] = []
  private partialBytes = 0
  /** when the worker wrote `{"ready": true}`: requests are not timed from before it */
  private readyAt: number | undefined
  private stderrTail: Buffer = Buffer.alloc(0)
  private readonly noise: string[] = []
  /** set when we end the worker; wins over how it then exited */
  private failure: TargetError | null = null
  private spawnError: NodeJS.ErrnoException | null = null
  private exited = false
  private readonly timers = new Timers()

  constructor(
    private readonly spec: CommandSpec,
    private readonly timing: JsonlTiming,
    private readonly onExit: (worker: Worker) => void,
    private readonly onStdout: () => void
  ) {
    this.child = spawnInGroup(spec, spec.argv.slice(1))
    this.closed = new Promise<void>((resolvePromise) => {
      this.child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        this.timers.clear()
        // a failed spawn closes without an exit
        this.exited = true
        this.onExit(this)
        // sweep whatever the worker left behind in its group
        signalGroup(this.child, 'SIGKILL')
        // a last reply without its newline still counts
        if (!this.failure && this.partialBytes > 0) this.onLine(Buffer.concat(this.partial).toString('utf8'), this.partialBytes)
        this.partial = []
        this.partialBytes = 0
        this.failAll(this.exitError(code, signal))
        resolvePromise()
      })
    })
    this.child.once('error', (err: NodeJS.ErrnoException) => {
      // only a failed spawn has no pid; `close` still follows it
      if (this.child.pid === undefined) this.spawnError = err
    })
    this.child.once('exit', () => {
      this.exited = true
      this.onExit(this)
      // a grandchild may hold stdout open after the worker exited; do not wait for it forever
      this.timers.later(PIPE_GRACE_MS, () => this.forceClose())
    })
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.onStdout()
      this.onStdoutBytes(chunk)
    })
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = appendTail(this.stderrTail, chunk)
    })
    // a worker that died closes its stdin (EPIPE): its exit decides what happens to its cases
    this.child.stdin?.on('error', () => {})
  }

  get inFlight(): number {
    return this.pending.size
  }

  send(pending: Pending): void {
    this.pending.set(pending.id, pending)
    pending.sentAt = performance.now()
    this.child.stdin?.write(pending.line)
  }

  forget(pending: Pending): void {
    this.pending.delete(pending.id)
  }

  /** Removes and returns every request in flight (to send them elsewhere). */
  takeAll(): Pending[] {
    const all = [...this.pending.values()]
    this.pending.clear()
    for (const p of all) p.worker = null
    return all
  }

  failAll(error: Error): void {
    for (const p of this.takeAll()) p.settle({ error })
  }

  /** Asks the worker to finish: EOF on stdin, then SIGTERM and SIGKILL if it does not. */
  endInput(): void {
    this.child.stdin?.end()
    if (!this.exited) this.timers.later(this.timing.graceMs, () => this.stop(new TargetError('worker stopped')))
  }

  /** Ends the process group: SIGTERM, then SIGKILL if it is still there after the grace period. */
  stop(reason: TargetError): void {
    if (this.failure) return
    this.failure = reason
    // from now on it takes no request, and what it still writes is not trusted
    this.onExit(this)
    if (this.exited) return
    signalGroup(this.child, 'SIGTERM')
    this.timers.later(this.timing.graceMs, () => this.forceClose())
  }

  /** Cuts stdout into lines at the newline byte (never inside a UTF-8 sequence), counting each line's bytes. */
  private onStdoutBytes(chunk: Buffer): void {
    let start = 0
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1 && !this.failure; nl = chunk.indexOf(NEWLINE, start)) {
      const end = chunk.subarray(start, nl)
      const bytes = this.partialBytes + end.length
      const line = this.partialBytes === 0 ? end : Buffer.concat([...this.partial, end])
      this.partial = []
      this.partialBytes = 0
      this.onLine(line.toString('utf8'), bytes)
      start = nl + 1
    }
    if (this.failure || start === chunk.length) return
    this.partial.push(chunk.subarray(start))
    this.partialBytes += chunk.length - start
    if (this.partialBytes > this.spec.maxOutputBytes) {
      this.partial = []
      this.partialBytes = 0
      // no telling whose reply this is, and the rest of the stream cannot be trusted
      const error = new TargetError(`the worker wrote a line of more than ${this.spec.maxOutputBytes} bytes (target.maxOutputBytes) while handling this case`)
      this.failAll(error)
      this.stop(error)
    }
  }

  private onLine(raw: string, bytes: number): void {
    const line = raw.trim()
    if (line === '') return
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      return this.note(line)
    }
    if (isReadyLine(message)) return this.ready()
    const id = replyId(message)
    const pending = id === undefined ? undefined : this.pending.get(id)
    if (!pending) return this.note(line)
    this.pending.delete(pending.id)
    pending.worker = null
    if (bytes > this.spec.maxOutputBytes) {
      return pending.settle({ error: new TargetError(`the reply exceeded ${this.spec.maxOutputBytes} bytes (target.maxOutputBytes)`) })
    }
    pending.settle(parseReply(message as Record<string, unknown>, performance.now() - pending.sentAt))
  }

  /** The worker has started: what waits on it is timed from now, its start-up left out. */
  private ready(): void {
    if (this.readyAt !== undefined) return
    this.readyAt = performance.now()
    for (const p of this.pending.values()) p.sentAt = Math.max(p.sentAt, this.readyAt)
  }

  private note(line: string): void {
    this.noise.push(line.length > NOISE_LINE_CHARS ? `${line.slice(0, NOISE_LINE_CHARS)}…` : line)
    if (this.noise.length > NOISE_LINES) this.noise.shift()
  }

  private exitError(code: number | null, signal: NodeJS.Signals | null): Error {
    if (this.failure) return this.failure
    if (this.spawnError) return describeSpawnError(this.spawnError, this.spec)
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
    const noise = this.noise.length ? `; its last stdout lines that were not replies: ${this.noise.map((l) => JSON.stringify(l)).join(', ')}` : ''
    return new TargetError(`worker ${how} while handling this case${stderrSuffix(this.stderrTail)}${noise}`)
  }

  /** Kills the group; if something outside it still holds the pipes, drops our ends a little later. */
  private forceClose(): void {
    signalGroup(this.child, 'SIGKILL')
    this.timers.later(PIPE_GRACE_MS, () => {
      this.child.stdout?.destroy()
      this.child.stderr?.destroy()
    })
  }
}

/** `{"ready": true}`, a worker saying it has started; it carries no id. */
function isReadyLine(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { ready?: unknown }).ready === true && !('id' in message)
}

/** A reply's id as sent: requests carry string ids, but a number is accepted for them too. */
function replyId(message: unknown): string | undefined {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined
  const id = (message as { id?: unknown }).id
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined
}

function parseReply(message: Record<string, unknown>, elapsedMs: number): { reply: TargetReply } | { error: Error } {
  const { error } = message
  if (error !== undefined && error !== null && error !== false) {
    const text = typeof error === 'string' ? error : JSON.stringify(error)
    return { error: new TargetError(text || 'the worker replied with an empty error') }
  }
  if (!('output' in message)) return { error: new TargetError('the worker replied with neither "output" nor "error"') }
  try {
    const reply = readResult(message, 'the worker', true)
    reply.latencyMs ??= elapsedMs
    return { reply }
  } catch (err) {
    return { error: err as Error }
  }
}
