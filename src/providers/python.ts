/**
 * promptfoo's Python providers (`file://provider.py`, `file://provider.py:my_function`,
 * or `python:provider.py[:my_function]`):
 * `call_api(prompt, options, context)` of the pull request's file, run in a
 * long-lived Python process of the sandbox (never in evalgate's), with the
 * trial's deadline; `options` is `{id, config}`, `context` the test's `vars`
 * and the prompt; the function returns promptfoo's provider response
 * `{output, error, tokenUsage, cost, metadata}` (or a coroutine of it).
 */
import path from 'node:path'
import { PythonSandbox } from '../sandbox/python.js'
import { minimalEnv } from '../util/env.js'
import type { CredentialFlow, Provider, ProviderContext, ProviderResult } from './types.js'
import { ProviderError, text, usageOf, type Config } from './wire.js'

const DEFAULT_FUNCTION = 'call_api'
const DEFAULT_WORKERS = 4

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined
}

/** `file://path.py[:function]` (or `python:path.py[:function]`) → the absolute file and the function's name. */
export function pythonTarget(id: string, baseDir: string): { file: string; fn: string } | undefined {
  const m = /^(?:file:\/\/|python:)(.+?\.py)(?::([A-Za-z_]\w*))?$/.exec(id)
  return m ? { file: path.resolve(baseDir, m[1]!), fn: m[2] ?? DEFAULT_FUNCTION } : undefined
}

export function pythonProvider(id: string, config: Config, ctx: ProviderContext, label?: string): Provider {
  const target = pythonTarget(id, ctx.baseDir)!
  const sandbox = new PythonSandbox({
    env: ctx.codeEnv ?? minimalEnv(ctx.env, {}),
    python: text(config.pythonExecutable) ?? text(ctx.env.PROMPTFOO_PYTHON),
    // promptfoo's config.workers, else PROMPTFOO_PYTHON_WORKERS; else a few, so that one call stuck until its deadline holds up no other
    workers: positive(config.workers) ?? positive(Number(ctx.env.PROMPTFOO_PYTHON_WORKERS)) ?? DEFAULT_WORKERS
  })
  const options = { id, ...(label ? { label } : {}), config }
  return {
    id,
    model: id,
    async call(call, http) {
      const prompt = typeof call.prompt === 'string' ? call.prompt : JSON.stringify(call.prompt)
      const context = { vars: call.vars ?? {}, prompt: { raw: prompt, label: label ?? id } }
      const timeoutMs = number(config.timeout) ?? http.timeoutMs ?? 60_000
      const outcome = await sandbox.call(
        { file: target.file, function: target.fn, args: [prompt, options, context] },
        timeoutMs,
        http.signal,
        'target.timeoutMs'
      )
      if (!outcome.ok) throw new ProviderError(`${id}: ${outcome.timedOut ? outcome.error : `${target.fn} raised: ${outcome.error}`}`)
      return responseOf(id, target.fn, outcome.value)
    },
    close: () => sandbox.close()
  }
}

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined
}

/** promptfoo's provider response as the result: an error fails the call, the output is text, tokenUsage and cost are usage. */
function responseOf(id: string, fn: string, value: unknown): ProviderResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ProviderError(
      `${id}: ${fn} returned ${value === null ? 'None' : Array.isArray(value) ? 'a list' : typeof value}; return a dict with "output" (or "error")`
    )
  const response = value as {
    output?: unknown
    error?: unknown
    tokenUsage?: Record<string, unknown>
    token_usage?: Record<string, unknown>
    cost?: unknown
    metadata?: unknown
  }
  if (response.error !== undefined && response.error !== null && response.error !== '') throw new ProviderError(`${id}: ${String(response.error)}`)
  if (response.output === undefined || response.output === null) throw new ProviderError(`${id}: ${fn} returned no "output"`)
  const result: ProviderResult = { output: typeof response.output === 'string' ? response.output : JSON.stringify(response.output), model: id }
  const tokens = response.tokenUsage ?? response.token_usage
  const usage = usageOf(tokens?.prompt, tokens?.completion, tokens?.total)
  const cost = typeof response.cost === 'number' && Number.isFinite(response.cost) && response.cost >= 0 ? response.cost : undefined
  if (usage || cost !== undefined) result.usage = { ...usage, ...(cost !== undefined ? { costUsd: cost } : {}) }
  if (response.metadata && typeof response.metadata === 'object' && !Array.isArray(response.metadata))
    result.metadata = response.metadata as Record<string, unknown>
  return result
}

/** A Python provider sends nothing of evalgate's: what it reads is what the trusted config passes it in target.env. */
export function pythonCredentials(): CredentialFlow[] {
  return []
}
