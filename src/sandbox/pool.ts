/**
 * The one place untrusted code runs: module agents,
 * javascript checks and regular expressions run in a small pool of worker
 * threads with an environment of their own, memory limits and a deadline per
 * task. A worker whose task runs past its deadline while holding the thread
 * (a loop, a backtracking pattern) is terminated and replaced; the other work
 * it held runs again on a fresh worker. Whatever the code does there —
 * process.exit, process.exitCode, 'exit' handlers, timers, patched globals —
 * stays in that worker: the main thread's exit code and verdict are its own.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads'
import { REPLY_ERROR, REPLY_OK, type ItemReply, type SandboxItem, type WorkerReplies, type WorkerRequest } from './protocol.js'
import { SLOT_ITEM, SLOT_LENGTH, SLOT_RUNNING, SLOT_TASK, WORKER_SOURCE } from './worker.js'

export type { SandboxItem } from './protocol.js'

/** An item's outcome; `timedOut` when it ran past the deadline and was given up. */
export type ItemOutcome = ItemReply | { ok: false; error: string; timedOut: true }

export interface SandboxOptions {
  /** the workers' whole environment (process.env inside them) */
  env: Record<string, string>
  /** most workers at once */
  workers: number
  resourceLimits?: ResourceLimits
}

export interface RunOptions {
  /** the deadline, from when the task is handed to a worker */
  timeoutMs?: number
  /** names the deadline in reasons, e.g. "checkTimeoutMs" */
  timeoutName?: string
  /**
   * Subscribes to the caller's abort (a trial's own timeout, the run's
   * interruption), which gives the task up as at its deadline; returns the
   * unsubscribe. A callback, not an AbortSignal: at one per trial, signals and
   * their listeners cost more than an instant agent.
   */
  onAbort?: (giveUp: () => void) => () => void
}

/** How long a worker may take to answer a cancel before it counts as stuck and is replaced. */
const CANCEL_GRACE_MS = 1000
/** How often one item is run again after its worker was replaced for another's sake. */
const MAX_RERUNS = 3
/**
 * How often the pool looks for a worker held by one piece of synchronous code:
 * one seen so on two looks in a row gets no new work, and the work queued
 * behind it moves to another worker, instead of waiting for its deadline.
 */
const WATCH_MS = 250

interface Task {
  id: number
  items: SandboxItem[]
  options: RunOptions
  reruns: number
  resolve: (outcomes: ItemOutcome[]) => void
  slot?: Slot
  timer?: NodeJS.Timeout
  unsubscribe?: () => void
}

interface Slot {
  worker: Worker
  progress: Int32Array
  tasks: Map<number, Task>
  /** tasks started this turn, not yet sent */
  outbox: Task[] | undefined
  /** tasks whose deadline starts when the new worker is up: its start-up is not theirs */
  booting: Task[] | undefined
  /** set once the pool has let go of the worker: its late messages are ignored */
  gone: boolean
  /** the synchronous segment (task:item) the last look found running, and whether it was already running the look before */
  seen: string | undefined
  held: boolean
}

function timeoutError(options: RunOptions): string {
  const limit = options.timeoutMs !== undefined ? ` ${options.timeoutName ?? 'timeout'} (${options.timeoutMs} ms)` : ''
  return `did not finish within${limit || ' its deadline'}`
}

export class Sandbox {
  private readonly slots = new Set<Slot>()
  private nextId = 1
  private closed = false
  private watch: NodeJS.Timeout | undefined

  constructor(private readonly options: SandboxOptions) {}

  /** Runs a batch of items in one worker; outcomes in the items' order. Never rejects. */
  run(items: SandboxItem[], options: RunOptions = {}): Promise<ItemOutcome[]> {
    return this.start(items, options, 0)
  }

  /** Terminates every worker; unfinished tasks end as given up. */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.watch)
    const slots = [...this.slots]
    this.slots.clear()
    for (const slot of slots) {
      slot.gone = true
      for (const task of slot.tasks.values())
        this.finish(
          task,
          task.items.map(() => ({ ok: false, error: 'the sandbox was closed' }))
        )
    }
    await Promise.all(slots.map((s) => s.worker.terminate()))
  }

  private start(items: SandboxItem[], options: RunOptions, reruns: number): Promise<ItemOutcome[]> {
    return new Promise((resolve) => {
      const task: Task = { id: this.nextId++, items, options, reruns, resolve }
      if (this.closed)
        return this.finish(
          task,
          items.map(() => ({ ok: false, error: 'the sandbox was closed' }))
        )
      const slot = this.pick()
      task.slot = slot
      if (slot.tasks.size === 0) slot.worker.ref()
      slot.tasks.set(task.id, task)
      this.watchSlots()
      if (!slot.outbox) {
        slot.outbox = []
        setImmediate(() => this.flush(slot))
      }
      slot.outbox.push(task)
      // pipelined: once this turn's tasks are as many as the worker still holds, they go at once, so that
      // the worker works on them while this thread handles the replies still to come (not in turns)
      if (2 * slot.outbox.length >= slot.tasks.size) this.flush(slot)
      if (slot.booting) slot.booting.push(task)
      else this.arm(task)
      if (options.onAbort) task.unsubscribe = options.onAbort(() => this.expire(task))
    })
  }

  /** Sends the tasks started this turn, or since the last send, in one message (a message per trial would cost more than an instant agent). */
  private flush(slot: Slot): void {
    const tasks = (slot.outbox ?? []).filter((t) => t.slot === slot)
    slot.outbox = undefined
    if (slot.gone || tasks.length === 0) return
    try {
      slot.worker.postMessage({ tasks: tasks.map((t) => ({ id: t.id, items: t.items })) })
    } catch {
      for (const task of tasks) {
        try {
          slot.worker.postMessage({ tasks: [{ id: task.id, items: task.items }] })
        } catch (err) {
          // an input, case or context that cannot be cloned (a function in it) fails its task, not the others
          const error = `cannot be passed to the sandbox: ${(err as Error).message}`
          this.finish(
            task,
            task.items.map(() => ({ ok: false, error }))
          )
        }
      }
    }
  }

  private arm(task: Task): void {
    if (task.options.timeoutMs !== undefined && task.slot) task.timer = setTimeout(() => this.expire(task), task.options.timeoutMs)
  }

  /**
   * The least busy worker that is not held, or a new one while the pool is
   * below its size (held workers not counted) and every worker is busy.
   */
  private pick(): Slot {
    let best: Slot | undefined
    let free = 0
    for (const slot of this.slots) {
      if (slot.held) continue
      free++
      if (!best || slot.tasks.size < best.tasks.size) best = slot
    }
    if (best && (best.tasks.size === 0 || free >= this.options.workers)) return best
    return this.spawn()
  }

  private watchSlots(): void {
    if (this.watch) return
    this.watch = setInterval(() => this.look(), WATCH_MS)
    this.watch.unref()
  }

  private look(): void {
    let busy = false
    for (const slot of [...this.slots]) {
      if (slot.tasks.size === 0) continue
      busy = true
      const { progress } = slot
      const now = Atomics.load(progress, SLOT_RUNNING) === 1 ? `${Atomics.load(progress, SLOT_TASK)}:${Atomics.load(progress, SLOT_ITEM)}` : undefined
      slot.held = now !== undefined && now === slot.seen
      slot.seen = now
      if (!slot.held) continue
      // the worker is held: what waits behind the code holding it starts again elsewhere
      const holder = Atomics.load(progress, SLOT_TASK)
      for (const task of [...slot.tasks.values()]) {
        if (task.id === holder || task.reruns >= MAX_RERUNS) continue
        slot.worker.postMessage({ cancel: task.id })
        this.detach(task)
        void this.start(task.items, task.options, task.reruns + 1).then(task.resolve)
      }
    }
    if (!busy) {
      clearInterval(this.watch)
      this.watch = undefined
    }
  }

  private spawn(): Slot {
    const { worker, progress, online } = claimSpare(this.options.resourceLimits) ?? startWorker(this.options.resourceLimits)
    // the environment goes first, before any task: user code only ever runs with it
    worker.postMessage({ env: this.options.env } satisfies WorkerRequest)
    const slot: Slot = { worker, progress, tasks: new Map(), outbox: undefined, booting: online ? undefined : [], gone: false, seen: undefined, held: false }
    if (slot.booting)
      worker.once('online', () => {
        const waiting = slot.booting ?? []
        slot.booting = undefined
        for (const task of waiting) this.arm(task)
      })
    worker.on('message', (replies: WorkerReplies) => {
      for (let at = 0; at < replies.length; at += 2 + 2 * (replies[at + 1] as number)) this.settle(slot, replies, at)
    })
    let failure = ''
    worker.on('error', (err) => (failure = err.message))
    worker.on('exit', (code) => {
      if (!slot.gone) this.lost(slot, `its worker stopped${failure ? `: ${failure}` : ` (exit code ${code})`}`)
    })
    worker.unref()
    this.slots.add(slot)
    return slot
  }

  /** The task whose answer starts at `at` in the worker's replies is done (or, answering a cancel, given up where unfinished). */
  private settle(slot: Slot, replies: WorkerReplies, at: number): void {
    const task = slot.tasks.get(replies[at] as number)
    if (!task || slot.gone) return
    const outcomes: ItemOutcome[] = new Array(task.items.length)
    for (let i = 0; i < outcomes.length; i++) {
      const status = replies[at + 2 + 2 * i]
      const payload = replies[at + 3 + 2 * i]
      outcomes[i] =
        status === REPLY_OK
          ? { ok: true, value: payload }
          : status === REPLY_ERROR
            ? { ok: false, error: payload as string }
            : { ok: false, error: timeoutError(task.options), timedOut: true }
    }
    this.finish(task, outcomes)
  }

  private finish(task: Task, outcomes: ItemOutcome[]): void {
    this.detach(task)
    task.resolve(outcomes)
  }

  /** The task no longer waits on its worker, its deadline or its caller's abort. */
  private detach(task: Task): void {
    clearTimeout(task.timer)
    task.unsubscribe?.()
    task.unsubscribe = undefined
    const slot = task.slot
    task.slot = undefined
    if (slot?.tasks.delete(task.id) && slot.tasks.size === 0 && !slot.gone) slot.worker.unref()
  }

  /**
   * The task's deadline passed. A worker stuck in this task's synchronous code
   * is replaced at once; otherwise it is asked for what finished, and replaced
   * only if it does not answer.
   */
  private expire(task: Task): void {
    const slot = task.slot
    if (!slot) return
    const { progress } = slot
    if (Atomics.load(progress, SLOT_RUNNING) === 1 && Atomics.load(progress, SLOT_TASK) === task.id) {
      return this.replace(slot, task, Atomics.load(progress, SLOT_ITEM), timeoutError(task.options))
    }
    slot.worker.postMessage({ cancel: task.id })
    clearTimeout(task.timer)
    task.timer = setTimeout(() => {
      if (task.slot === slot) this.replace(slot, task, undefined, timeoutError(task.options))
    }, CANCEL_GRACE_MS)
  }

  /** A worker ended by itself (out of memory, an uncaught error): what it ran synchronously is blamed. */
  private lost(slot: Slot, why: string): void {
    const { progress } = slot
    const culprit = Atomics.load(progress, SLOT_RUNNING) === 1 ? slot.tasks.get(Atomics.load(progress, SLOT_TASK)) : undefined
    this.replace(slot, culprit, culprit && Atomics.load(progress, SLOT_ITEM), why)
  }

  /**
   * Lets go of a worker: the blamed item (or, when it is not known, every item
   * of the blamed task) fails with `why`; all other work the worker held runs
   * again elsewhere, a few times at most.
   */
  private replace(slot: Slot, blamed: Task | undefined, item: number | undefined, why: string): void {
    slot.gone = true
    this.slots.delete(slot)
    void slot.worker.terminate()
    for (const task of [...slot.tasks.values()]) {
      const failed = (i: number) => task === blamed && (item === undefined || item === i)
      const again = task.items.map((_, i) => i).filter((i) => !failed(i))
      const outcomes: ItemOutcome[] = task.items.map(() => ({ ok: false, error: why, timedOut: true }))
      if (again.length === 0 || task.reruns >= MAX_RERUNS) {
        for (const i of again) outcomes[i] = { ok: false, error: `not run: its worker was stopped ${MAX_RERUNS} times for other work` }
        this.finish(task, outcomes)
        continue
      }
      this.detach(task)
      void this.start(
        again.map((i) => task.items[i]!),
        task.options,
        task.reruns + 1
      ).then((rerun) => {
        again.forEach((i, k) => (outcomes[i] = rerun[k]!))
        task.resolve(outcomes)
      })
    }
  }
}

interface Started {
  worker: Worker
  progress: Int32Array
  /** whether it has come up (its 'online' event is past) */
  online: boolean
  /** settles when it has come up, or ended before it did */
  up: Promise<void>
}

/**
 * A worker with no environment at all: the pool that takes it sends the
 * environment its code may see as the first message.
 */
function startWorker(resourceLimits: ResourceLimits | undefined): Started {
  const shared = new SharedArrayBuffer(SLOT_LENGTH * Int32Array.BYTES_PER_ELEMENT)
  const worker = new Worker(WORKER_SOURCE, { eval: true, env: {}, resourceLimits, workerData: { progress: shared } })
  const started: Started = {
    worker,
    progress: new Int32Array(shared),
    online: false,
    up: new Promise<void>((resolve) => {
      worker.once('online', () => {
        started.online = true
        resolve()
      })
      worker.once('exit', () => resolve())
    })
  }
  return started
}

/** How long a worker started ahead waits to be taken before it is let go. */
const SPARE_MS = 60_000

/** Workers started ahead of need, by their resource limits: one each at most. */
const spares = new Map<string, Started & { timer: NodeJS.Timeout; drop: () => void }>()

const limitsKey = (limits: ResourceLimits | undefined) => JSON.stringify(limits ?? {})

/**
 * Starts a worker now for a sandbox that will be made soon with these limits
 * (a run's agent, while its dataset is read): a worker takes tens of
 * milliseconds to come up, which then overlap other work. It holds no
 * environment and runs nothing until a sandbox takes it; one not taken within
 * a minute is let go. It never keeps the process alive. Resolves when the
 * worker is up (callers need not wait).
 */
export function warmWorker(resourceLimits?: ResourceLimits): Promise<void> {
  const key = limitsKey(resourceLimits)
  const known = spares.get(key)
  if (known) return known.up
  const started = startWorker(resourceLimits)
  started.worker.unref()
  // never called once a sandbox has taken it: claimSpare clears the timer and removes the listener
  const drop = () => {
    spares.delete(key)
    void started.worker.terminate()
  }
  started.worker.once('exit', drop)
  const timer = setTimeout(drop, SPARE_MS)
  timer.unref()
  spares.set(key, Object.assign(started, { timer, drop }))
  return started.up
}

function claimSpare(resourceLimits: ResourceLimits | undefined): Started | undefined {
  const key = limitsKey(resourceLimits)
  const spare = spares.get(key)
  if (!spare) return undefined
  spares.delete(key)
  clearTimeout(spare.timer)
  spare.worker.off('exit', spare.drop)
  return spare
}
