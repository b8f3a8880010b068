/**
 * The CI-host interface (src/ci/host.ts) as a third host would use it: an
 * in-memory host — a few lines, as a Bitbucket or Azure DevOps module would
 * be — gets the same trusted-config and stale-baseline decisions as GitHub
 * and GitLab, in its own words.
 */
import { describe, expect, it } from '@jest/globals'
import { baselineStaleness, readBaseConfig, type CiHost } from '../../src/ci/host.js'
import { gateSchema } from '../../src/config/schema.js'
import { ConfigError, UsageError } from '../../src/errors.js'
import type { RunRecord } from '../../src/types.js'

const BASE = 'ba5e000000000000000000000000000000000000'
const CONFIG = 'version: 1\nname: demo\ndataset: cases.yaml\ntarget: { command: ["node", "agent.mjs"] }\ngate: { maxRegressions: 2 }\n'

/** A host whose repository is a map of "sha:file" → text; a file named "broken" cannot be read. */
function memoryHost(files: Record<string, string>, dates: Record<string, string> = {}): CiHost<string> & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    words: { change: 'pull request', base: 'destination commit' },
    async fileAt(file, sha) {
      asked.push(`file ${file}@${sha}`)
      if (file === 'broken') throw new Error('HTTP 503: try later')
      return files[`${sha}:${file}`] ?? null
    },
    async commitDate(sha) {
      asked.push(`date ${sha}`)
      return dates[sha] ?? null
    },
    async findBaseline() {
      return { record: null, id: null, status: 'none', problem: null, notices: ['no baseline'] }
    }
  }
}

describe('readBaseConfig', () => {
  it('parses the config at the base commit: its gate is the one the change is held to', async () => {
    const notices: string[] = []
    const config = await readBaseConfig(memoryHost({ [`${BASE}:evalgate.yml`]: CONFIG }), 'evalgate.yml', BASE, notices)
    expect(config?.gate.maxRegressions).toBe(2)
    expect(notices).toEqual([])
  })

  it('none there (first adoption): null, and a notice in the host’s words', async () => {
    const notices: string[] = []
    expect(await readBaseConfig(memoryHost({}), 'evalgate.yml', BASE, notices)).toBeNull()
    expect(notices).toEqual(["evalgate.yml at the destination commit ba5e000 does not exist (first adoption?): this pull request's own gate settings apply"])
  })

  it.each([
    [
      'cannot be read',
      'broken',
      {},
      UsageError,
      'cannot read broken at the destination commit ba5e000, whose gate settings a pull request must use: HTTP 503: try later'
    ],
    [
      'is not valid',
      'evalgate.yml',
      { [`${BASE}:evalgate.yml`]: 'version: 1\nname: demo\ngate: { maxRegressions: lots }\n' },
      ConfigError,
      "the destination commit's config is not valid, so this pull request's gate cannot be trusted"
    ],
    [
      'is not JSON though named so',
      'evalgate.json',
      { [`${BASE}:evalgate.json`]: 'name: demo' },
      ConfigError,
      'evalgate.json at the destination commit ba5e000'
    ]
  ] as const)('a config that %s fails closed (%p)', async (_name, file, files, type, message) => {
    const err = await readBaseConfig(memoryHost(files), file, BASE, []).then(
      () => null,
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(type)
    expect((err as Error).message).toContain(message)
  })
})

describe('baselineStaleness', () => {
  const gate = gateSchema.parse({})
  const record = (createdAt: string, sha: string) => ({ createdAt, git: { sha, ref: 'main', runId: '1' } }) as RunRecord
  const current = record('2026-12-05T12:00:00Z', 'c0ffee')

  it('asks the host when the base commit was made and measures the baseline against it', async () => {
    const host = memoryHost({}, { [BASE]: '2026-12-01T00:00:00Z' })
    const stale = await baselineStaleness(host, record('2026-11-01T00:00:00Z', 'old'), current, BASE, gate)
    expect(stale).toMatchObject({ ageDays: 30, limitDays: 14, against: 'base-commit', fail: false })
    expect(host.asked).toEqual([`date ${BASE}`])
  })

  it('a host that cannot tell the date, or no host: against this run', async () => {
    for (const host of [memoryHost({}), null]) {
      const stale = await baselineStaleness(host, record('2026-11-01T00:00:00Z', 'old'), current, BASE, gate)
      expect(stale).toMatchObject({ ageDays: 34, against: 'run' })
    }
  })

  it('no baseline: nothing asked, nothing said', async () => {
    const host = memoryHost({})
    expect(await baselineStaleness(host, null, current, BASE, gate)).toBeNull()
    expect(host.asked).toEqual([])
  })
})
