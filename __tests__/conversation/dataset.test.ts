/**
 * Conversation cases as a dataset gives them: their keys and
 * fingerprints cover the turns (texts and checks) and the simulation
 * settings, who plays the user included; a case without id is keyed on its
 * turns; a simulated user named by the dataset reads no key it should not.
 */
import { describe, expect, it } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { loadEvalConfig } from '../../src/engine.js'
import { tempDir } from '../__fixtures__/temp.js'

const CONFIG = `name: conv
dataset: cases.yaml
target: { command: [node, agent.js], protocol: jsonl }
judge: { model: judge-a, baseUrl: http://127.0.0.1:9/v1 }
`
const SCRIPTED = `- id: refund
  turns:
    - user: I want a refund
      assert: [{type: icontains, value: order number}]
    - user: It is A18
  assert: [{type: contains, value: A18}]
- turns:
    - user: Where is my parcel?
- id: simulated
  simulate:
    instructions: You want a refund for order A18.
    maxTurns: 4
`

async function load(cases: string, config = CONFIG) {
  const dir = tempDir('evalgate-conv-dataset-')
  writeFileSync(path.join(dir, 'agent.js'), '')
  writeFileSync(path.join(dir, 'evalgate.yml'), config)
  writeFileSync(path.join(dir, 'cases.yaml'), cases)
  return (await loadEvalConfig(path.join(dir, 'evalgate.yml'))).cases
}

const fingerprints = async (cases: string, config?: string) => (await load(cases, config)).map((c) => c.fingerprint)

describe('conversation cases', () => {
  it('are read with their turns, turn checks and simulation, defaults applied (the judge plays the user)', async () => {
    const [scripted, keyed, simulated] = await load(SCRIPTED)
    expect(scripted!.input).toBeUndefined()
    expect(scripted!.turns).toEqual([
      { user: 'I want a refund', assert: [{ type: 'icontains', value: 'order number' }] },
      { user: 'It is A18', assert: [] }
    ])
    expect(scripted!.assert).toEqual([{ type: 'contains', value: 'A18' }])
    expect(keyed!.id).toMatch(/^h[0-9a-f]{12}$/)
    expect(simulated!.simulate).toEqual({
      instructions: 'You want a refund for order A18.',
      maxTurns: 4,
      initialMessages: [],
      stop: '###STOP###',
      provider: expect.objectContaining({ provider: 'openai', model: 'judge-a', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'OPENAI_API_KEY' })
    })
  })

  it('change fingerprint with a turn’s text, a turn’s check, the simulation and who plays the user — and keep it otherwise', async () => {
    const base = await fingerprints(SCRIPTED)
    expect(await fingerprints(SCRIPTED)).toEqual(base)
    const edits: [string, string, number][] = [
      ['It is A18', 'It is A19', 0],
      ['value: order number', 'value: order id', 0],
      ['maxTurns: 4', 'maxTurns: 5', 2],
      ['for order A18.', 'for order A18, politely.', 2],
      ['maxTurns: 4', 'maxTurns: 4\n    stop: DONE', 2]
    ]
    for (const [from, to, at] of edits) {
      const changed = await fingerprints(SCRIPTED.replace(from, to))
      expect(changed[at]).not.toBe(base[at])
      expect(changed.filter((f, i) => f !== base[i])).toHaveLength(1)
    }
    // the judge plays the simulated user: another judge model changes that case (and no other: none is judged)
    const otherJudge = await fingerprints(SCRIPTED, CONFIG.replace('judge-a', 'judge-b'))
    expect(otherJudge.map((f, i) => f === base[i])).toEqual([true, true, false])
  })

  it('a case without id is keyed on its turns: the same turns, the same key; others, another', async () => {
    const [, a] = await load(SCRIPTED)
    const [, b] = await load(SCRIPTED.replace('Where is my parcel?', 'Where is my order?'))
    const [, c] = await load(SCRIPTED)
    expect(a!.id).toBe(c!.id)
    expect(a!.id).not.toBe(b!.id)
  })

  it('a turn’s llm-rubric needs the judge, as a case’s does', async () => {
    const judged = `- turns:\n    - user: hi\n      assert: [{type: llm-rubric, value: Is polite.}]\n`
    await expect(load(judged, CONFIG.replace(/judge:.*\n/, ''))).rejects.toThrow(/some cases use llm-rubric but the config has no `judge:` section/)
  })

  it('a simulated user the dataset names may use a local server (sent no key) or the judge’s own server, and nothing of ${VAR}', async () => {
    const local = `- simulate:\n    instructions: x\n    provider: {baseUrl: "http://127.0.0.1:7/v1", model: tiny}\n`
    expect((await load(local))[0]!.simulate!.provider).toMatchObject({ baseUrl: 'http://127.0.0.1:7/v1', model: 'tiny' })
    const judges = `- simulate:\n    instructions: x\n    provider: {model: judge-b}\n`
    expect((await load(judges))[0]!.simulate!.provider).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', model: 'judge-b' })
    const variable = `- simulate:\n    instructions: x\n    provider: {provider: command, command: [node, user.js], env: {KEY: "\${OPENAI_API_KEY}"}}\n`
    await expect(load(variable)).rejects.toThrow(/at \[0\]\.simulate\.provider\.env: a dataset cannot read environment variables/)
  })
})
