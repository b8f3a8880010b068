/**
 * `repeatPassThreshold` is in (0, 1] (SPEC §9, issue 12 row 2): at 0 a case
 * whose trials all failed would pass, turning the gate off from the config.
 */
import { describe, expect, it } from '@jest/globals'
import { parseConfig } from '../../src/config/load.js'
import { ConfigError } from '../../src/errors.js'

const config = (threshold: unknown) =>
  `target: { command: [node, agent.js] }\ndataset: cases.yaml\nrepeat: 5\nrepeatPassThreshold: ${JSON.stringify(threshold)}\n`

describe('repeatPassThreshold', () => {
  it.each([0, -0.1, 1.5])('%s is refused, saying what is valid', (threshold) => {
    expect(() => parseConfig(config(threshold), 'evalgate.yml')).toThrow(ConfigError)
    expect(() => parseConfig(config(threshold), 'evalgate.yml')).toThrow(
      /evalgate\.yml:4 at repeatPassThreshold: repeatPassThreshold must be in \(0, 1\]: the share of a case's trials that must pass, e\.g\. 0\.5/
    )
  })

  it('0 is refused because a case none of whose trials passed would pass', () => {
    expect(() => parseConfig(config(0), 'evalgate.yml')).toThrow(/0 would pass a case whose every trial failed/)
  })

  it.each([0.01, 0.5, 1])('%s is accepted', (threshold) => {
    expect(parseConfig(config(threshold), 'evalgate.yml').repeatPassThreshold).toBe(threshold)
  })

  it('defaults to 0.5', () => {
    expect(parseConfig('target: { command: [node, agent.js] }\ndataset: cases.yaml\n', 'evalgate.yml').repeatPassThreshold).toBe(0.5)
  })
})
