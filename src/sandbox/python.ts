/**
 * Python in the sandbox: promptfoo's `file://provider.py`
 * providers and `python` checks run in long-lived `python3` processes of
 * their own, never in evalgate's. Each call has a deadline: a call that runs
 * past it (a loop, a hung request) fails, and its process is killed and
 * replaced; the next call gets a fresh one. The protocol travels on two
 * pipes of its own (fd 3 in, fd 4 out), so nothing the user's code prints
 * or reads can corrupt it: its stdout goes to stderr, which is shown with a
 * margin, and its stdin is empty. The process's environment is the one it
 * is given (a minimal one, plus what the trusted config passes), never
 * evalgate's own.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'

/** The worker: a loop over requests, one JSON line each, answered with one JSON line. Stdlib only. */
export const PYTHON_WORKER_SOURCE = String.raw`
import asyncio, importlib.util, inspect, json, os, sys, traceback

requests = os.fdopen(3, "r", encoding="utf-8")
replies = os.fdopen(4, "w", encoding="utf-8")
# the protocol has pipes of its own: what the code prints goes to stderr, and it reads nothing
devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(devnull, 0)
os.dup2(2, 1)
sys.stdin = open(os.devnull, "r")
sys.stdout = sys.stderr

modules = {}
snippets = {}

def load(path):
    module = modules.get(path)
    if module is None:
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        name = "evalgate_user_%d" % len(modules)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError("cannot load %s as a Python module" % path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        modules[path] = module
    return module

def snippet(source):
    namespace = snippets.get(source)
    if namespace is None:
        namespace = {"__name__": "evalgate_check"}
        exec(compile(source, "<python check>", "exec"), namespace)
        snippets[source] = namespace
    return namespace

def run(request):
    if "file" in request:
        scope = vars(load(request["file"]))
    else:
        scope = snippet(request["source"])
    name = request["function"]
    fn = scope.get(name)
    if not callable(fn):
        where = request.get("file", "the check")
        raise AttributeError("%s defines no function %s" % (where, name))
    value = fn(*request.get("args", []))
    if inspect.isawaitable(value):
        value = asyncio.run(value)
    return value

for line in requests:
    request = json.loads(line)
    try:
        reply = {"id": request["id"], "ok": True, "value": run(request)}
    except BaseException as error:
        if isinstance(error, (KeyboardInterrupt,)):
            raise
        message = "".join(traceback.format_exception_only(type(error), error)).strip()
        reply = {"id": request["id"], "ok": False, "error": message}
    try:
        text = json.dumps(reply, default=str)
    except (TypeError, ValueError) as error:
        text = json.dumps({"id": request["id"], "ok": False, "error": "the returned value is not JSON: %s" % error})
    replies.write(text + "\n")
    replies.flush()
`

export interface PythonCall {
  /** a module's path, or the source of a check (with `function` in it) */
  file?: string
  source?: string
  function: string
  args: unknown[]
}

export type PythonOutcome = { ok: true; value: unknown } | { ok: false; error: string; timedOut?: boolean }

export interface PythonOptions {
  /** the process's whole environment */
  env: Record<string, string>
  /** the interpreter: `python3` unless the config names another */
  python?: string
  /** processes at once; calls beyond wait their turn */
  workers?: number
  /** where the user's prints go, a line at a time (default: evalgate's stderr, with a margin) */
  log?: (line: string) => void
}

interface Worker {
  child: ChildProcess
  requests: Writable
  busy: boolean
  /** the call in flight */
  pending?: { id: number; resolve: (o: PythonOutcome) => void }
  /** the last lines it wrote to stderr, for the reason it died */
  tail: string[]
  exited: boolean
}

const TAIL_LINES = 20

/** A small pool of Python processes that keep the modules they loaded between calls. */
export class PythonSandbox {
  private readonly workers = new Set<Worker>()
  private readonly waiting: (() => void)[] = []
  private nextId = 1
  private closed = false

  constructor(private readonly options: PythonOptions) {}

  /**
   * Runs one call, under `timeoutMs` from when a process takes it; `signal`
   * (a trial's end) gives it up the same way. Never rejects.
   */
  async call(call: PythonCall, timeoutMs: number, signal?: AbortSignal, timeoutName = 'timeout'): Promise<PythonOutcome> {
    if (this.closed) return { ok: false, error: 'the Python sandbox was closed' }
    const worker = await this.take()
    if (!worker) return { ok: false, error: 'the Python sandbox was closed' }
    const id = this.nextId++
    return new Promise<PythonOutcome>((resolve) => {
      let done = false
      const finish = (outcome: PythonOutcome, kill: boolean) => {
        if (done) return
        done = true
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        worker.pending = undefined
        if (kill) this.kill(worker)
        else this.release(worker)
        resolve(outcome)
      }
      const timer = setTimeout(() => finish({ ok: false, error: `did not finish within ${timeoutName} (${timeoutMs} ms)`, timedOut: true }, true), timeoutMs)
      const onAbort = () => finish({ ok: false, error: 'the trial was stopped', timedOut: true }, true)
      if (signal?.aborted) return onAbort()
      signal?.addEventListener('abort', onAbort, { once: true })
      worker.pending = { id, resolve: (outcome) => finish(outcome, worker.exited) }
      worker.requests.write(`${JSON.stringify({ id, ...call })}\n`)
    })
  }

  /** Kills every process. */
  async close(): Promise<void> {
    this.closed = true
    for (const w of [...this.workers]) this.kill(w)
    for (const wake of this.waiting.splice(0)) wake()
  }

  /** A process free for a call: an idle one, a new one while below the pool's size, else the next to be freed. */
  private async take(): Promise<Worker | undefined> {
    for (;;) {
      if (this.closed) return undefined
      const idle = [...this.workers].find((w) => !w.busy && !w.exited)
      const worker = idle ?? (this.workers.size < (this.options.workers ?? 1) ? this.spawn() : undefined)
      if (worker) {
        worker.busy = true
        return worker
      }
      await new Promise<void>((wake) => this.waiting.push(wake))
    }
  }

  private release(worker: Worker): void {
    worker.busy = false
    this.waiting.shift()?.()
  }

  private kill(worker: Worker): void {
    worker.exited = true
    this.workers.delete(worker)
    try {
      // its own process group: what the code started dies with it
      if (worker.child.pid !== undefined) process.kill(-worker.child.pid, 'SIGKILL')
    } catch {
      worker.child.kill('SIGKILL')
    }
    this.waiting.shift()?.()
  }

  private spawn(): Worker {
    const child = spawn(this.options.python ?? 'python3', ['-u', '-c', PYTHON_WORKER_SOURCE], {
      env: { ...this.options.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8', PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
      detached: true
    })
    const worker: Worker = { child, requests: child.stdio[3] as Writable, busy: false, tail: [], exited: false }
    this.workers.add(worker)
    const log = this.options.log ?? ((line: string) => process.stderr.write(`  | ${line}\n`))
    createInterface({ input: child.stderr as Readable }).on('line', (line) => {
      worker.tail.push(line)
      if (worker.tail.length > TAIL_LINES) worker.tail.shift()
      log(line)
    })
    createInterface({ input: child.stdio[4] as Readable }).on('line', (line) => {
      let reply: { id?: unknown; ok?: unknown; value?: unknown; error?: unknown }
      try {
        reply = JSON.parse(line) as typeof reply
      } catch {
        return
      }
      const pending = worker.pending
      if (!pending || reply.id !== pending.id) return
      pending.resolve(reply.ok === true ? { ok: true, value: reply.value } : { ok: false, error: String(reply.error) })
    })
    // a request written to a process that is gone is reported by 'exit', not as an unhandled error
    ;(child.stdio[3] as Writable).on('error', () => {})
    child.on('error', (err) => this.died(worker, `could not start ${this.options.python ?? 'python3'}: ${err.message}`))
    child.on('exit', (code, signal) => this.died(worker, `the Python process ended (${signal ?? `exit code ${code}`})`))
    child.unref()
    for (const stream of [child.stderr, child.stdio[3], child.stdio[4]]) (stream as unknown as { unref?: () => void })?.unref?.()
    return worker
  }

  private died(worker: Worker, why: string): void {
    const wasExited = worker.exited
    worker.exited = true
    this.workers.delete(worker)
    const pending = worker.pending
    if (pending) {
      const said = worker.tail.slice(-5).join('\n')
      pending.resolve({ ok: false, error: said ? `${why}:\n${said}` : why })
    }
    if (!wasExited) this.waiting.shift()?.()
  }
}
