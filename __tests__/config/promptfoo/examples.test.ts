/**
 * promptfoo's own example configs (copied into __fixtures__/promptfoo-examples,
 * provider swapped for a deterministic replay provider) run by evalgate: the
 * same number of results, verdicts and named metrics as promptfoo 0.121.20 gave on
 * the same outputs, as recorded by scripts/promptfoo-parity.mjs in verdicts.json.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { evaluate, loadEvalConfig } from '../../../src/engine.js'
import { startUserServer, type UserServer } from '../../__fixtures__/simulated-user-server.js'

const EXAMPLES = path.resolve('__tests__/__fixtures__/promptfoo-examples')
const recorded = JSON.parse(readFileSync(path.join(EXAMPLES, 'verdicts.json'), 'utf8')) as {
  promptfoo: string
  examples: Record<string, { results: number; passed: boolean[]; namedScores: Record<string, number>[] }>
}
const names = Object.keys(recorded.examples)

describe(`promptfoo example configs, against promptfoo ${recorded.promptfoo}`, () => {
  // the scripted user of simulated-user/, whom evalgate's judge asks (promptfoo asked its remote task)
  let user: UserServer
  beforeAll(async () => {
    user = await startUserServer()
  })
  afterAll(() => user.close())

  it("covers at least 8 of promptfoo's own examples", () => {
    // evalgate-features, conversation-features and simulated-user are ours: what the examples do not use
    expect(names.filter((n) => !['evalgate-features', 'conversation-features', 'simulated-user'].includes(n)).length).toBeGreaterThanOrEqual(9)
  })

  it.each(names)('%s: same results, verdicts and named metrics', async (name) => {
    const loaded = await loadEvalConfig(path.join(EXAMPLES, name, 'promptfooconfig.yaml'))
    const { record } = await evaluate(loaded, { env: { EVALGATE_USER_BASE_URL: user.baseUrl } })
    const theirs = recorded.examples[name]!
    expect(record.cases).toHaveLength(theirs.results)
    expect(record.cases.map((c) => [c.id, c.passed, c.namedScores ?? {}])).toEqual(record.cases.map((c, i) => [c.id, theirs.passed[i], theirs.namedScores[i]]))
  })
})
