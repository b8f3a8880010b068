/**
 * Cost without a `pricing` table (SPEC §10, §11a): a model API's tokens are
 * priced from the maintained price list (@pydantic/genai-prices), as promptfoo
 * prices the models it knows; `pricing` overrides it; a target's own cost wins;
 * local models and unknown ones stay unpriced, so a cost check says so.
 */
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals'
import { evaluate, loadEvalConfig } from '../../src/engine.js'
import { listedCost, pricedUsage } from '../../src/targets/pricing.js'
import { tempProject } from '../__fixtures__/cli.js'
import { FakeServer, startServer } from '../__fixtures__/openai-server.js'

describe('the maintained price list', () => {
  it.each([
    // USD per million tokens, input + output, as the list has them
    ['anthropic', 'claude-3-5-sonnet-20241022', 3 + 15],
    ['openai', 'gpt-4o', 2.5 + 10],
    ['aws', 'anthropic.claude-3-5-sonnet-20241022-v2:0', 3 + 15],
    ['google', 'gemini-2.5-flash', 0.3 + 2.5]
  ])('%s %s', async (provider, model, perMillion) => {
    expect(await listedCost({ inputTokens: 1e6, outputTokens: 1e6 }, model, provider)).toBeCloseTo(perMillion, 6)
  })

  it('knows no local or made-up model', async () => {
    expect(await listedCost({ inputTokens: 10, outputTokens: 10 }, 'llama3.1', 'ollama')).toBeUndefined()
    expect(await listedCost({ inputTokens: 10, outputTokens: 10 }, 'no-such-model-9000', 'openai')).toBeUndefined()
  })

  it('a target’s own cost wins, then pricing, then the list; without a model API the usage stays unpriced', async () => {
    const usage = { inputTokens: 1000, outputTokens: 2000 }
    expect(await pricedUsage({ ...usage, costUsd: 0.5 }, 'gpt-4o', { 'gpt-4o': { input: 1, output: 1 } }, 'openai')).toMatchObject({ costUsd: 0.5 })
    expect((await pricedUsage(usage, 'gpt-4o', { 'gpt-4o': { input: 1, output: 1 } }, 'openai')).costUsd).toBeCloseTo(0.003, 9)
    expect((await pricedUsage(usage, 'gpt-4o', undefined, 'openai')).costUsd).toBeCloseTo((1000 * 2.5 + 2000 * 10) / 1e6, 9)
    expect((await pricedUsage(usage, 'gpt-4o', undefined, undefined)).costUsd).toBeUndefined()
  })
})

describe('a cost check on a model API without pricing', () => {
  let server: FakeServer
  beforeEach(async () => {
    server = await startServer()
  })
  afterEach(() => server.close())

  const config = (pricing = '') =>
    tempProject({
      'promptfooconfig.yaml': `prompts: ["{{q}}"]\nproviders: [anthropic:messages:claude-3-5-sonnet-20241022]\n${pricing}tests:\n  - vars: { q: short }\n    assert: [{ type: cost, threshold: 0.01 }]\n  - vars: { q: long }\n    assert: [{ type: cost, threshold: 0.01 }]\n`
    })

  it('is priced as promptfoo prices the model, and `pricing` overrides the list', async () => {
    server.respond((req) => {
      const long = JSON.stringify(req.body).includes('long')
      return { body: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 100, output_tokens: long ? 5000 : 100 }, stop_reason: 'end_turn' } }
    })
    const env = { ANTHROPIC_BASE_URL: server.baseUrl.replace(/\/v1$/, ''), ANTHROPIC_API_KEY: 'sk-ant-1', PATH: process.env.PATH }
    const listed = await evaluate(await loadEvalConfig(path.join(config(), 'promptfooconfig.yaml')), { env })
    expect(listed.record.cases.map((c) => c.passed)).toEqual([true, false])
    expect(listed.record.cases[0]!.usage?.costUsd).toBeCloseTo((100 * 3 + 100 * 15) / 1e6, 12)
    expect(listed.record.cases[1]!.usage?.costUsd).toBeCloseTo((100 * 3 + 5000 * 15) / 1e6, 12)
    expect(listed.record.cases[1]!.assertions[0]!.reason).toBe('expected the trial to cost at most $0.0100, it cost $0.0753')
    const own = await evaluate(
      await loadEvalConfig(path.join(config('evalgate:\n  pricing: { claude-3-5-sonnet-20241022: { input: 0, output: 1 } }\n'), 'promptfooconfig.yaml')),
      { env }
    )
    expect(own.record.cases.map((c) => c.passed)).toEqual([true, true])
    expect(own.record.cases.map((c) => c.usage?.costUsd)).toEqual([100 / 1e6, 5000 / 1e6])
  })
})
