import { describe, expect, it } from '@jest/globals'
import { baselineCompatibility, compareRuns } from '../../src/compare/index.js'
import { compareIfCompatible } from '../../src/compare/compatibility.js'
import { parseRunRecord } from '../../src/config/record.js'
import { FINGERPRINT_VERSION } from '../../src/config/fingerprint.js'
import { makeCases, makeGate, makeRun } from '../__fixtures__/records.js'

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

  it('gives the whole sentence', () => {
    expect(baselineCompatibility(withVersion(1), withVersion(2))).toBe(
      'the baseline was fingerprinted with version 1, this run with 2: ' +
        'fingerprints of different versions never match, so no case could be compared; ' +
        'the next run on the baseline branch with this evalgate makes a baseline that can'
    )
  })

  it("a record read without fingerprintVersion is of version 1, and so incompatible with this evalgate's", () => {
    const { fingerprintVersion: _dropped, ...old } = { ...makeRun(makeCases('a', '!b')), fingerprintVersion: FINGERPRINT_VERSION }
    const read = parseRunRecord(JSON.stringify(old), 'old.json')
    expect(read.fingerprintVersion).toBe(1)
    expect(baselineCompatibility(read, { ...makeRun(makeCases('a', '!b')), fingerprintVersion: FINGERPRINT_VERSION })).toMatch(/version 1, this run with 2/)
  })
})

describe('compareIfCompatible', () => {
  const withVersion = (v: number) => ({ ...makeRun(makeCases('a', '!b')), fingerprintVersion: v })
  const current = { ...makeRun(makeCases('!a', '!b')), fingerprintVersion: 2 }
  const gate = makeGate()

  it.each([
    ['no baseline', null, null, null],
    ['a compatible baseline', withVersion(2), withVersion(2), null],
    ['an incompatible baseline: compared without it', withVersion(1), null, 'the baseline was fingerprinted with version 1, this run with 2: ']
  ])('%s', (_name, baseline, comparedWith, reason) => {
    const { comparison, incompatible } = compareIfCompatible(baseline, current, gate)
    expect(comparison).toEqual(compareRuns(comparedWith, current, gate))
    if (reason === null) expect(incompatible).toBeNull()
    else expect(incompatible?.startsWith(reason)).toBe(true)
  })

  it('tells a comparison with the baseline from one without it (else the table above could not fail)', () => {
    expect(compareRuns(withVersion(2), current, gate)).not.toEqual(compareRuns(null, current, gate))
  })
})
