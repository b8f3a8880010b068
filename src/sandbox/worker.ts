/**
 * The code every sandbox worker runs. It is sent to the worker as source text
 * (`new Worker(source, {eval: true})`), so that the same file works from the
 * TypeScript sources, the tests and the ncc bundles alike: the function below
 * must therefore be self-contained — no imports, no helpers from this module
 * but the one passed in as source too — and reach Node's modules through the
 * worker's own `require`.
 */
import { gradable } from './gradable.js'
import { promptfooAgent, type PromptfooAgent, type PromptfooProviderOptions } from './promptfoo-provider.js'
import type { SandboxItem, WorkerReplies, WorkerRequest } from './protocol.js'

/** Layout of the shared progress slot (an Int32Array): which item runs synchronously right now. */
export const SLOT_RUNNING = 0
export const SLOT_TASK = 1
export const SLOT_ITEM = 2
export const SLOT_LENGTH = 3

export function workerMain(
  gradable: (value: unknown) => unknown,
  promptfooAgent: (exported: unknown, options: PromptfooProviderOptions) => PromptfooAgent | string
): void {
  type Port = import('node:worker_threads').MessagePort
  const require = (globalThis as unknown as { require: NodeJS.Require }).require
  const threads = require('node:worker_threads') as typeof import('node:worker_threads')
  const { pathToFileURL } = require('node:url') as typeof import('node:url')
  const port = threads.parentPort as Port
  const slot = new Int32Array(threads.workerData.progress as SharedArrayBuffer)
  const [RUNNING, TASK, ITEM] = [0, 1, 2]
  // the reply statuses of protocol.ts
  const [UNFINISHED, OK, ERROR] = [0, 1, 2]

  // The worker's own process object: exiting ends only this thread, but an
  // explicit error names the culprit instead of a lost worker.
  process.exit = ((code?: number) => {
    throw new Error(`process.exit(${code ?? ''}) is not available here`)
  }) as typeof process.exit
  // what user code prints goes to the log indented, so that none of its lines is a workflow command
  // (not with the Worker's `stdout: true` option: its streams keep an idle pool from letting the process exit)
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write((typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString()).replace(/^(?=.)/gm, '  | '), ...rest)) as typeof stream.write
  }
  // an error thrown later by a timer a check left behind must not take its neighbours down
  process.on('uncaughtException', () => {})
  process.on('unhandledRejection', () => {})

  const AsyncFunction = (async () => {}).constructor as new (...params: string[]) => (...args: unknown[]) => Promise<unknown>
  const scripts = new Map<string, (...args: unknown[]) => Promise<unknown>>()
  const modules = new Map<string, Promise<Record<string, unknown>>>()
  /** default exports found so far: a warm agent is called without waiting a turn for its module */
  const defaults = new Map<string, (...args: unknown[]) => unknown>()
  /** promptfoo providers built so far, adapted to agents (a worker runs one module target's agent) */
  const providers = new Map<string, Promise<PromptfooAgent>>()
  /** each running task's answers so far, as sent: status and payload per item */
  const running = new Map<number, unknown[]>()

  function load(file: string): Promise<Record<string, unknown>> {
    let mod = modules.get(file)
    if (!mod) {
      mod = import(/* webpackIgnore: true */ pathToFileURL(file).href) as Promise<Record<string, unknown>>
      modules.set(file, mod)
    }
    return mod
  }

  async function defaultExport(file: string, shape: string): Promise<(...args: unknown[]) => unknown> {
    const known = defaults.get(file)
    if (known) return known
    const mod = await load(file)
    if (typeof mod.default === 'function') {
      defaults.set(file, mod.default as (...args: unknown[]) => unknown)
      return mod.default as (...args: unknown[]) => unknown
    }
    throw new Error(`${file} must export a function as default, ${shape}; it exports ${exportsOf(mod)}`)
  }

  /** What a module exports instead of what was asked, for the reason it is refused. */
  function exportsOf(mod: Record<string, unknown>): string {
    if (mod.default !== undefined) return `a default of type ${mod.default === null ? 'null' : typeof mod.default}`
    const names = Object.keys(mod).filter((name) => name !== 'default')
    return names.length > 0 ? `no default, only ${names.join(', ')}` : 'nothing'
  }

  /** A promptfoo provider module, built once with its options and adapted to an agent. */
  function provider(file: string, options: PromptfooProviderOptions): Promise<PromptfooAgent> {
    let agent = providers.get(file)
    if (!agent) {
      agent = load(file).then((mod) => {
        const adapted = promptfooAgent(mod.default, options)
        if (typeof adapted !== 'string') return adapted
        throw new Error(`${file} ${adapted}; it exports ${exportsOf(mod)}`)
      })
      providers.set(file, agent)
    }
    return agent
  }

  function compiled(body: string): (...args: unknown[]) => Promise<unknown> {
    let fn = scripts.get(body)
    if (!fn) {
      fn = new AsyncFunction('output', 'input', 'context', body)
      scripts.set(body, fn)
    }
    return fn
  }

  /** Calls user code, marking the slot while it runs synchronously: a worker held there is seen as held. */
  function held<T>(task: number, index: number, call: () => T): T {
    Atomics.store(slot, TASK, task)
    Atomics.store(slot, ITEM, index)
    Atomics.store(slot, RUNNING, 1)
    try {
      return call()
    } finally {
      Atomics.store(slot, RUNNING, 0)
    }
  }

  async function start(task: number, index: number, item: SandboxItem): Promise<unknown> {
    const user = <T>(call: () => T) => held(task, index, call)
    switch (item.kind) {
      case 'match': {
        const match = user(() => new RegExp(item.source, item.flags).exec(item.text))
        return match === null ? null : match[0]
      }
      case 'test':
        return user(() => new RegExp(item.source, item.flags).test(item.text))
      case 'script': {
        const check = compiled(item.body)
        return gradable(await user(() => check(item.output, item.input, item.context)))
      }
      case 'transform': {
        let returned: unknown
        if ('file' in item) {
          const mod = await load(item.file)
          const fn = item.name !== undefined ? mod[item.name] : mod.default
          if (typeof fn !== 'function') throw new Error(`${item.file} exports no function ${item.name !== undefined ? `"${item.name}"` : 'as default'}`)
          const call = fn as (...args: unknown[]) => unknown
          returned = await user(() => (item.text === undefined ? call(item.output, item.context) : call(item.output, item.text, item.context)))
        } else {
          const transform = compiled(item.body)
          returned = await user(() => transform(item.output, item.input, item.context))
        }
        if (returned === undefined || returned === null) throw new Error(`transform returned ${returned}; return the new output`)
        return returned
      }
      case 'module': {
        const fn = await defaultExport(item.file, '(output, context, value) => boolean | number | {pass, score, reason}')
        return gradable(await user(() => fn(item.output, item.context, item.value)))
      }
      case 'load':
        await (item.promptfoo ? provider(item.file, item.promptfoo) : defaultExport(item.file, '(input, case) => string'))
        return null
      case 'agent': {
        const fn = item.promptfoo
          ? await provider(item.file, item.promptfoo)
          : (defaults.get(item.file) ?? (await defaultExport(item.file, '(input, case) => string')))
        // the agent's own time: the module is loaded and the worker warm before the clock starts
        const input = 'input' in item ? item.input : item.case.input
        const t0 = performance.now()
        const value = await user(() => fn(input, item.case as { name: string }))
        const latencyMs = performance.now() - t0
        // a result object travels as its JSON text, made here, off the pool's thread: cloning its many small
        // objects costs the pool's thread more than parsing them (what cannot be JSON travels as it is)
        if (typeof value === 'object' && value !== null && typeof (value as { output?: unknown }).output === 'string') {
          try {
            const json = JSON.stringify(value)
            if (json !== undefined) return { json, latencyMs }
          } catch {
            // a cycle, a BigInt, a throwing getter: cloned as before
          }
        }
        return { value, latencyMs }
      }
    }
  }

  /** Replies of one turn travel together: a message per finished trial would cost more than most agents. */
  let outbox: WorkerReplies | undefined

  function send(id: number, answers: unknown[]): void {
    if (!outbox) {
      outbox = []
      setImmediate(flush)
    }
    outbox.push(id, answers.length / 2)
    for (const x of answers) outbox.push(x)
  }

  function flush(): void {
    const replies = outbox ?? []
    outbox = undefined
    try {
      port.postMessage(replies)
    } catch {
      for (let at = 0; at < replies.length;) {
        const count = replies[at + 1] as number
        const one = replies.slice(at, at + 2 + 2 * count)
        at += one.length
        try {
          port.postMessage(one)
        } catch (err) {
          // a value that cannot be cloned (a function, a symbol) fails its own items, not the others
          const message = `returned a value that cannot be passed back: ${(err as Error).message}`
          for (let i = 2; i < one.length; i += 2) if (one[i] === OK) [one[i], one[i + 1]] = [ERROR, message]
          port.postMessage(one)
        }
      }
    }
  }

  port.on('message', (request: WorkerRequest) => {
    if ('env' in request) {
      // the worker was started with an empty environment: this is the only one its user code sees
      for (const name of Object.keys(process.env)) delete process.env[name]
      Object.assign(process.env, request.env)
      return
    }
    if ('cancel' in request) {
      const answers = running.get(request.cancel) ?? []
      running.delete(request.cancel)
      port.postMessage([request.cancel, answers.length / 2, ...answers] satisfies WorkerReplies)
      return
    }
    for (const { id, items } of request.tasks) {
      const answers: unknown[] = new Array(2 * items.length)
      for (let i = 0; i < answers.length; i += 2) [answers[i], answers[i + 1]] = [UNFINISHED, null]
      running.set(id, answers)
    }
    // started after the messages already queued are read: a task the pool moved elsewhere
    // while this worker was held is cancelled by the next message, and never runs here
    setImmediate(() => {
      for (const { id, items } of request.tasks) {
        const answers = running.get(id)
        if (answers) run(id, items, answers)
      }
    })
  })

  function run(id: number, items: SandboxItem[], answers: unknown[]): void {
    let left = items.length
    if (left === 0) {
      running.delete(id)
      return send(id, answers)
    }
    const answer = (index: number, status: number, payload: unknown) => {
      answers[2 * index] = status
      answers[2 * index + 1] = payload
      if (--left > 0 || !running.has(id)) return
      running.delete(id)
      send(id, answers)
    }
    for (let index = 0; index < items.length; index++) {
      start(id, index, items[index]!).then(
        (value) => answer(index, OK, value),
        (err: unknown) => answer(index, ERROR, err instanceof Error ? err.message : String(err))
      )
    }
  }
}

/** The worker's source text: the function above, called with the self-contained helpers it is given as source too. */
export const WORKER_SOURCE = `(${workerMain.toString()})(${gradable.toString()}, ${promptfooAgent.toString()})`
