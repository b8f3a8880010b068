import { describe, expect, it } from '@jest/globals'
import { baselineCompatibility } from '../../src/compare/index.js'
import { parseRunRecord } from '../../src/config/record.js'
import { FINGERPRINT_VERSION } from '../../src/config/fingerprint.js'
import { makeCases, makeRun } from '../__fixtures__/records.js'

describe('baselineCompatibility', () => {
  const withVersion = (v: number) => ({ ...makeRun(makeCases('a', '!b')), fingerprintVersion: v })

  it.each([
    [2, 2, null],
    [1, 1, null],
    [1, 2, 'the baseline was fingerprinted with version 1, this run with 2: '],
    [3, 2, 'the baseline was fingerprinted with version 3, this run with 2: ']
  ])('baseline version %s, current %s', (baseline, current, reason) => {
    const found = baselineCompatibility(withVersion(baseline), withVersion(current))
    if (reason === null) expect(found).toBeNull()
    else expect(found).toMatch(new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*no case could be compared`))
  })

  it("a record read without fingerprintVersion is of version 1, and so incompatible with this evalgate's", () => {
    const { fingerprintVersion: _dropped, ...old } = { ...makeRun(makeCases('a', '!b')), fingerprintVersion: FINGERPRINT_VERSION }
    const read = parseRunRecord(JSON.stringify(old), 'old.json')
    expect(read.fingerprintVersion).toBe(1)
    expect(baselineCompatibility(read, { ...makeRun(makeCases('a', '!b')), fingerprintVersion: FINGERPRINT_VERSION })).toMatch(/version 1, this run with 2/)
  })
})
