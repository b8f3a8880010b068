import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../src/errors.js'
import { createTarget } from '../../src/targets/index.js'
import { join } from 'node:path'
import { AGENTS, agentCommand, context, request, targetConfig } from './helpers.js'

describe('createTarget', () => {
  it('builds a jsonl command target for protocol jsonl (the protocol is tested in jsonl tests)', async () => {
    const target = await createTarget(targetConfig({ command: [process.execPath, join(AGENTS, 'jsonl-agent.mjs')], protocol: 'jsonl', workers: 2 }), context())
    expect((await target.call(request('upper:a'))).output).toBe('A')
    await target.close()
  })

  it('refuses {{input}} in a jsonl command', async () => {
    const attempt = createTarget(targetConfig({ command: agentCommand('{{input}}'), protocol: 'jsonl' }), context())
    await expect(attempt).rejects.toThrow(ConfigError)
    await expect(attempt).rejects.toThrow('{{input}} has no meaning with protocol jsonl')
  })

  it('builds http and openai targets (their protocols are tested against a local server in http/openai tests)', async () => {
    const http = await createTarget(targetConfig({ http: { url: 'http://127.0.0.1:1/' } }), context())
    const openai = await createTarget(targetConfig({ openai: { model: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:1/v1' } }), context())
    expect(typeof http.call).toBe('function')
    expect(typeof openai.call).toBe('function')
    await Promise.all([http.close(), openai.close()])
  })

  it('a remote openai target without its API key is a config error naming the variable', async () => {
    const attempt = createTarget(targetConfig({ openai: { model: 'gpt-4o-mini', apiKeyEnv: 'MY_KEY' } }), context())
    await expect(attempt).rejects.toThrow(/MY_KEY/)
  })

  it('builds a command target (stdio by default) and a module target', async () => {
    const command = await createTarget(targetConfig({ command: agentCommand('upper') }), context())
    const module = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    expect((await command.call(request('a'))).output).toBe('A')
    expect((await module.call(request('b'))).output).toBe('B')
    await Promise.all([command.close(), module.close()])
  })
})
