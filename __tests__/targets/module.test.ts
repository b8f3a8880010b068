import { describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, TargetError } from '../../src/errors.js'
import { createTarget } from '../../src/targets/index.js'
import { AGENTS, context, request, targetConfig, tempDir } from './helpers.js'

async function call(module: string, input: unknown, signal?: AbortSignal): Promise<string> {
  const target = await createTarget(targetConfig({ module }), context())
  return (await target.call(request(input, signal))).output
}

/** The rejection of a call that must fail (a resolved call gives an error that fails the instanceof checks). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => new Error('expected a rejection'),
    (err: unknown) => err as Error
  )
}

describe('module target', () => {
  it('returns a string result as the output', async () => {
    expect(await call('./module-agent.mjs', 'hello')).toBe('HELLO')
  })

  it('JSON-encodes any other result, and passes the case', async () => {
    expect(await call('./module-agent.mjs', 'object')).toBe('{"answer":42,"caseId":"case-1"}')
  })

  it('gives the agent the case as the dataset wrote it, not evalgate’s grading of it (SPEC §1, §10)', async () => {
    const file = join(tempDir(), 'echo-case.mjs')
    writeFileSync(file, 'export default (input, c) => JSON.stringify(c)\n')
    const target = await createTarget(targetConfig({ module: file }), context())
    const evalCase = {
      ...request('hi').case,
      tags: ['refunds'],
      expected: 'contains: "A18"',
      metadata: { forbidden: 'refund' },
      vars: { order: 'A18' },
      assert: [{ type: 'contains', value: 'A18' }],
      source: { file: 'evals/cases.yaml', line: 3 }
    }
    const reply = await target.call({ input: 'hi', case: evalCase, signal: new AbortController().signal })
    await target.close()
    expect(JSON.parse(reply.output)).toEqual({
      id: 'case-1',
      name: 'case 1',
      input: 'hi',
      tags: ['refunds'],
      index: 0,
      vars: { order: 'A18' },
      metadata: { forbidden: 'refund' }
    })
  })

  it('does not hand the agent what its case expects: an agent returning it would pass on the answers', async () => {
    const file = join(tempDir(), 'cheat.mjs')
    writeFileSync(file, "export default (input, c) => String(c.expected ?? 'no answer key')\n")
    const target = await createTarget(targetConfig({ module: file }), context())
    const evalCase = { ...request('What is 2 + 2?').case, expected: '4', assert: [{ type: 'contains', value: '4' }] }
    const reply = await target.call({ input: 'What is 2 + 2?', case: evalCase, signal: new AbortController().signal })
    await target.close()
    expect(reply.output).toBe('no answer key')
  })

  it('rejects with the message of a thrown error', async () => {
    const error = await failure(call('./module-agent.mjs', 'throw'))
    expect(error.message).toBe('upstream model returned 500')
  })

  it('rejects a result of undefined', async () => {
    await expect(call('./module-agent.mjs', 'undefined')).rejects.toThrow(/returned undefined/)
  })

  it('gives up on a hanging function when the trial is aborted', async () => {
    const controller = new AbortController()
    const pending = call('./module-agent.mjs', 'hang', controller.signal)
    setTimeout(() => controller.abort(new TargetError('timed out after 20 ms')), 20)
    const error = await failure(pending)
    expect(error).toBeInstanceOf(TargetError)
    expect(error.message).toBe('timed out after 20 ms')
  })

  it('imports the module once and reuses it', async () => {
    const target = await createTarget(targetConfig({ module: join(AGENTS, 'module-agent.mjs') }), context())
    const outputs = await Promise.all(['a', 'b', 'c'].map(async (input) => (await target.call(request(input))).output))
    expect(outputs).toEqual(['A', 'B', 'C'])
  })

  it.each([
    [
      'a default export that is not a function',
      './module-not-function.mjs',
      /module-not-function\.mjs must export a function as default.*a default of type object/
    ],
    ['no default export', './module-named-only.mjs', /module-named-only\.mjs must export a function as default.*no default, only agent/],
    ['a missing file', './no-such-agent.mjs', /cannot load .*no-such-agent\.mjs/]
  ])('is a config error naming the file for %s', async (_label, module, message) => {
    const error = await failure(call(module, 'x'))
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toMatch(message)
  })

  it('is a config error naming the file for a syntax error', async () => {
    const file = join(tempDir(), 'broken-agent.mjs')
    writeFileSync(file, 'export default function (input) { return input +\n')
    const error = await failure(call(file, 'x'))
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message).toContain(`cannot load ${file}`)
  })

  it('reads a result object field by field: its output as the output, tool calls, usage, metadata and the time spent in the agent', async () => {
    const target = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    const reply = await target.call(request('result'))
    expect(reply).toStrictEqual({
      output: 'Refund of $20.50 issued for A18.',
      toolCalls: [{ name: 'refund', args: { order_id: 'A18', amount: 20.5 } }],
      usage: { inputTokens: 812, outputTokens: 95, totalTokens: 907, costUsd: 0.00021 },
      metadata: { model: 'support-mini' },
      latencyMs: expect.any(Number)
    })
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0)
    await target.close()
  })

  it('keeps the latencyMs the agent reports itself over the time measured around the call', async () => {
    const target = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    expect(await target.call(request('timed'))).toStrictEqual({ output: 'done', latencyMs: 1234.5 })
    await target.close()
  })

  it('normalises OpenAI-style tool calls a module returns', async () => {
    const target = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    expect((await target.call(request('openai-calls'))).toolCalls).toEqual([{ name: 'search_kb', args: { query: 'returns' } }])
    await target.close()
  })

  it('reads a result object that JSON cannot carry as it did before (a BigInt, a cycle: cloned, not stringified)', async () => {
    const file = join(tempDir(), 'unjsonable.mjs')
    writeFileSync(
      file,
      'export default (input) => {\n' +
        "  if (input === 'bigint') return { output: 'ok', metadata: { big: 10n } }\n" +
        "  const args = { order_id: 'A18' }\n" +
        '  args.self = args\n' +
        "  return { output: 'ok', toolCalls: [{ name: 'refund', args }] }\n" +
        '}\n'
    )
    const target = await createTarget(targetConfig({ module: file }), context())
    expect((await target.call(request('bigint'))).metadata).toEqual({ big: 10n })
    const cyclic = (await target.call(request('cycle'))).toolCalls![0]!.args as Record<string, unknown>
    expect(cyclic.order_id).toBe('A18')
    expect(cyclic.self).toBe(cyclic)
    await target.close()
  })

  it('fails the trial, naming the module, when the JSON of a result cannot be read (an agent that patches JSON.stringify)', async () => {
    const file = join(tempDir(), 'patched-json.mjs')
    writeFileSync(file, "JSON.stringify = () => '{not json'\nexport default () => ({ output: 'ok', toolCalls: [] })\n")
    const target = await createTarget(targetConfig({ module: file }), context())
    const error = await failure(target.call(request('x')))
    expect(error).toBeInstanceOf(TargetError)
    expect(error.message).toContain(`${file} returned a result that could not be read`)
    await target.close()
  })

  it('bounds the reply by target.maxOutputBytes, in UTF-8 bytes, as a command’s stdout is: a string, a result object (tool calls too), a cloned one', async () => {
    const file = join(tempDir(), 'sized.mjs')
    writeFileSync(
      file,
      'export default (input) => {\n' +
        '  const [kind, n] = input.split(":")\n' +
        "  if (kind === 'text') return 'x'.repeat(Number(n))\n" +
        "  if (kind === 'accents') return 'é'.repeat(Number(n))\n" +
        "  if (kind === 'calls') return { output: 'ok', toolCalls: Array.from({ length: Number(n) }, (_, i) => ({ name: 'search_kb', args: { q: i } })) }\n" +
        "  return { output: 'y'.repeat(Number(n)), metadata: { big: 1n } }\n" +
        '}\n'
    )
    const target = await createTarget(targetConfig({ module: file, maxOutputBytes: 1000 }), context())
    expect((await target.call(request('text:1000'))).output).toHaveLength(1000)
    const tooLong = await failure(target.call(request('text:1001')))
    expect(tooLong).toBeInstanceOf(TargetError)
    expect(tooLong.message).toBe('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    // 500 characters of two bytes each are at the limit; 501 are over it, though fewer characters than it
    expect((await target.call(request('accents:500'))).output).toHaveLength(500)
    expect((await failure(target.call(request('accents:501')))).message).toBe('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    // a short output with many tool calls: the whole result counts
    expect((await target.call(request('calls:3'))).toolCalls).toHaveLength(3)
    expect((await failure(target.call(request('calls:100')))).message).toBe('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    // a result JSON cannot carry travels cloned: its output is still bounded
    expect((await target.call(request('cloned:10'))).output).toBe('yyyyyyyyyy')
    expect((await failure(target.call(request('cloned:1001')))).message).toBe('the reply exceeded 1000 bytes (target.maxOutputBytes)')
    await target.close()
  })

  it('does not count the module’s start-up as the agent’s latency', async () => {
    const file = join(tempDir(), 'slow-start.mjs')
    // 1.5 s of synchronous start-up at import; the agent itself answers at once
    writeFileSync(file, 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500)\nexport default (input) => input\n')
    const target = await createTarget(targetConfig({ module: file }), context())
    const reply = await target.call(request('x'))
    expect(reply.latencyMs).toBeLessThan(1500)
    await target.close()
  })

  it('fails a trial that loops forever when it is aborted, and goes on with the next', async () => {
    const target = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    const controller = new AbortController()
    const looping = target.call(request('loop', controller.signal))
    setTimeout(() => controller.abort(new TargetError('timed out after 200 ms')), 200)
    const error = await failure(looping)
    expect(error.message).toBe('timed out after 200 ms')
    expect((await target.call(request('after'))).output).toBe('AFTER')
    await target.close()
  })

  it('fails the trial of an agent that calls process.exit, and the process lives on', async () => {
    const target = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    const error = await failure(target.call(request('exit')))
    expect(error.message).toContain('process.exit(0) is not available')
    expect(process.exitCode).toBeUndefined()
    expect((await target.call(request('next'))).output).toBe('NEXT')
    await target.close()
  })
})
