import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../src/errors.js'
import { createTarget } from '../../src/targets/index.js'
import { agentCommand, context, request, targetConfig } from './helpers.js'

describe('createTarget', () => {
  it('refuses protocol jsonl for now', async () => {
    const attempt = createTarget(targetConfig({ command: agentCommand('upper'), protocol: 'jsonl' }), context())
    await expect(attempt).rejects.toThrow(ConfigError)
    await expect(attempt).rejects.toThrow('protocol jsonl is not supported yet')
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
