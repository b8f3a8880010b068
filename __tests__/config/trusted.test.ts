import { describe, expect, it } from '@jest/globals'
import { configSchema } from '../../src/config/schema.js'
import { withTrustedSettings } from '../../src/config/trusted.js'

const parse = (extra: Record<string, unknown>) => configSchema.parse({ target: { command: ['node', 'agent.js'] }, dataset: 'cases.yaml', ...extra })

describe('withTrustedSettings (SPEC §9)', () => {
  it('takes gate, repeat, repeatPassThreshold, rerunFlips, judge and name from the base, dataset and target from the head', () => {
    const base = parse({
      name: 'bot',
      gate: { maxRegressions: 0 },
      repeat: 3,
      repeatPassThreshold: 0.6,
      judge: { model: 'judge-a', baseUrl: 'http://trusted/v1' }
    })
    const head = parse({
      name: 'other',
      dataset: 'new-cases.yaml',
      target: { command: ['node', 'agent-v2.js'] },
      gate: { maxRegressions: 100 },
      repeat: 1,
      repeatPassThreshold: 0.01,
      rerunFlips: 5,
      judge: { model: 'judge-a', baseUrl: 'http://attacker/v1' }
    })
    const { config, changes } = withTrustedSettings(head, base)
    expect(config.gate.maxRegressions).toBe(0)
    expect(config.repeat).toBe(3)
    expect(config.repeatPassThreshold).toBe(0.6)
    expect(config.rerunFlips).toBe(0)
    expect(config.name).toBe('bot')
    expect(config.judge?.baseUrl).toBe('http://trusted/v1')
    expect(config.dataset).toBe('new-cases.yaml')
    expect(config.target.command).toEqual(['node', 'agent-v2.js'])
    expect(changes).toEqual([
      { key: 'name', base: 'bot', head: 'other' },
      { key: 'gate.maxRegressions', base: 0, head: 100 },
      { key: 'repeat', base: 3, head: 1 },
      { key: 'repeatPassThreshold', base: 0.6, head: 0.01 },
      { key: 'rerunFlips', base: 0, head: 5 },
      { key: 'judge.baseUrl', base: 'http://trusted/v1', head: 'http://attacker/v1' }
    ])
  })

  it('a judge the head adds is not used, and is listed', () => {
    const { config, changes } = withTrustedSettings(parse({ judge: { model: 'x' } }), parse({}))
    expect(config.judge).toBeUndefined()
    expect(changes.map((c) => c.key)).toContain('judge')
    expect(changes.find((c) => c.key === 'judge')).toMatchObject({ base: undefined })
  })

  it('no differences when the head keeps the trusted settings', () => {
    const same = { gate: { maxRegressions: 2, minPassRate: 0.9 }, repeat: 2 }
    expect(withTrustedSettings(parse({ ...same, dataset: 'x.yaml' }), parse(same)).changes).toEqual([])
  })
})
