/**
 * promptfoo's own example configs on the model APIs (Anthropic, Gemini,
 * Bedrock, Azure, Ollama, OpenAI, http) and its model-graded and python
 * checks, run by evalgate against a server on 127.0.0.1 that speaks each
 * API (__fixtures__/promptfoo-provider-examples/model-server.mjs), reached by
 * promptfoo's own variables: the same results, per-result verdicts and
 * outputs as promptfoo 0.121.20 gave against the same server, as recorded by
 * `scripts/promptfoo-parity.mjs --write` in verdicts.json there.
 */
import { afterEach, describe, expect, it } from '@jest/globals'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { evaluate, loadEvalConfig } from '../../../src/engine.js'
import { tempDir } from '../../__fixtures__/temp.js'

const EXAMPLES = path.resolve('__tests__/__fixtures__/promptfoo-provider-examples')
/** the port the examples' own `endpoint`s and URLs name (the parity script serves there) */
const FIXED = '127.0.0.1:48123'
const recorded = JSON.parse(readFileSync(path.join(EXAMPLES, 'verdicts.json'), 'utf8')) as {
  promptfoo: string
  examples: Record<string, { passed: boolean[]; outputs: (string | null)[] }>
}
const names = Object.keys(recorded.examples)

interface ModelServer {
  url: string
  close(): Promise<void>
}
// plain JavaScript shared with the parity script, loaded as it is
const { startModelServer, promptfooEnv } = (await import(path.join(EXAMPLES, 'model-server.mjs'))) as {
  startModelServer(rules: unknown[], port?: number): Promise<ModelServer>
  promptfooEnv(url: string): Record<string, string>
}

let server: ModelServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe(`promptfoo's provider example configs, against promptfoo ${recorded.promptfoo}`, () => {
  it("covers at least 12 of promptfoo's own examples, on every model API", () => {
    expect(names.length).toBeGreaterThanOrEqual(12)
    const configs = names.map((n) => readFileSync(path.join(EXAMPLES, n, 'promptfooconfig.yaml'), 'utf8')).join('\n')
    for (const id of [
      'anthropic:messages:',
      'google:',
      'bedrock:',
      'bedrock:converse:',
      'azure:chat:',
      'ollama:chat:',
      'openai:',
      'http://',
      'type: python',
      'g-eval',
      'llm-rubric'
    ])
      expect(configs).toContain(id)
  })

  it.each(names)('%s: the same results, verdicts and outputs', async (name) => {
    // a copy served on a free port: the examples name the parity script's fixed one
    const dir = path.join(tempDir('evalgate-provider-examples-'), name)
    cpSync(path.join(EXAMPLES, name), dir, { recursive: true })
    server = await startModelServer(JSON.parse(readFileSync(path.join(dir, 'replies.json'), 'utf8')) as unknown[])
    const config = path.join(dir, 'promptfooconfig.yaml')
    writeFileSync(config, readFileSync(config, 'utf8').replaceAll(FIXED, server.url.replace('http://', '')))
    const env = { PATH: process.env.PATH, ...promptfooEnv(server.url) }
    const { record } = await evaluate(await loadEvalConfig(config), { env })
    const theirs = recorded.examples[name]!
    expect(record.cases).toHaveLength(theirs.passed.length)
    expect(record.cases.map((c) => [c.id, c.passed, c.output])).toEqual(record.cases.map((c, i) => [c.id, theirs.passed[i], theirs.outputs[i]]))
  })
})
