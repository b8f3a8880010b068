import { describe, expect, it } from '@jest/globals'
import { ConfigError } from '../../src/errors.js'
import { createTarget } from '../../src/targets/index.js'
import { agentCommand, context, request, targetConfig } from './helpers.js'

describe('createTarget', () => {
  it.each([
    ['command with protocol jsonl', { command: agentCommand('upper'), protocol: 'jsonl' }, 'protocol jsonl is not supported yet'],
    ['http', { http: { url: 'http://127.0.0.1:1/' } }, 'target.http is not supported yet'],
    ['openai', { openai: { model: 'gpt-4o-mini' } }, 'target.openai is not supported yet']
  ])('refuses %s for now', async (_label, raw, message) => {
    const attempt = createTarget(targetConfig(raw), context())
    await expect(attempt).rejects.toThrow(ConfigError)
    await expect(attempt).rejects.toThrow(message)
  })

  it('builds a command target (stdio by default) and a module target', async () => {
    const command = await createTarget(targetConfig({ command: agentCommand('upper') }), context())
    const module = await createTarget(targetConfig({ module: './module-agent.mjs' }), context())
    expect((await command.call(request('a'))).output).toBe('A')
    expect((await module.call(request('b'))).output).toBe('B')
    await Promise.all([command.close(), module.close()])
  })
})
