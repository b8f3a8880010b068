import { describe, expect, it } from '@jest/globals'
import { errorShape, sharedFailure, sharedTargetError } from '../../src/compare/shared-failure.js'
import { makeCase, makeRun } from '../__fixtures__/records.js'

const failing = (id: string, error: string) => makeCase(id, false, { output: null, error })

describe('errorShape', () => {
  it.each([
    [
      "exited with code 1: ValueError: invalid literal for int() with base 10: 'abc'",
      'exited with code <n>: ValueError: invalid literal for int() with base <n>: <text>'
    ],
    ['exited with code 1: FileNotFoundError: /home/me/agent/data/q17.json', 'exited with code <n>: FileNotFoundError: <path>'],
    ['HTTP 503 from http://127.0.0.1:8080/v1/chat after 3 attempts: overloaded', 'HTTP <n> from <url> after <n> attempts: overloaded'],
    ['request 3f2a9c1e-77aa-4b1c failed', 'request <id> failed'],
    ['timed out after 60000 ms\nstack line 1', 'timed out after <n> ms'],
    ['took 1.25 s', 'took <n> s'],
    ['failed:  twice,\tin a row', 'failed: twice, in a row'],
    ['cannot open C:\\Users\\me\\data.json', 'cannot open <path>'],
    ['cannot open data/q17.json', 'cannot open <path>'],
    // only the first 500 characters of the headline count
    [`${'x'.repeat(500)} and whatever follows`, 'x'.repeat(500)],
    // cut after a blank: the blank is trimmed off too
    [`${'x'.repeat(499)} and whatever follows`, 'x'.repeat(499)]
  ])('%p → %p', (message, shape) => {
    expect(errorShape(message)).toBe(shape)
  })

  it('is linear on a long word with no separator', () => {
    const before = process.cpuUsage()
    errorShape('a'.repeat(100_000))
    const used = process.cpuUsage(before)
    expect((used.user + used.system) / 1000).toBeLessThan(5_000)
  })
})

describe('sharedTargetError', () => {
  it('names the error most cases failed with, however their details differ', () => {
    const cases = Array.from({ length: 25 }, (_, i) => failing(`c${i}`, `exited with code 1: ValueError: bad value '${i}'\n\nstderr:\nTraceback …`))
    expect(sharedTargetError(makeRun(cases))).toEqual({ failed: 25, total: 25, message: "exited with code 1: ValueError: bad value '0'" })
  })

  it('counts every failed case, and names the error of the largest group', () => {
    const cases = [
      failing('x', 'exited with code 2: other'),
      ...Array.from({ length: 6 }, (_, i) => failing(`t${i}`, `timed out after 60000 ms`)),
      // the largest group neither first nor last
      failing('y', 'killed by SIGSEGV'),
      makeCase('ok1'),
      makeCase('ok3')
    ]
    expect(sharedTargetError(makeRun(cases))).toEqual({ failed: 8, total: 10, message: 'timed out after 60000 ms' })
  })

  it('gives the first line of the error, trimmed, as its message', () => {
    const cases = [failing('a', '  boom  \nstack'), failing('b', 'boom\nother stack')]
    expect(sharedTargetError(makeRun(cases))).toEqual({ failed: 2, total: 2, message: 'boom' })
  })

  it.each([
    ['half the cases, not most', [failing('a', 'boom'), makeCase('b')]],
    ['a single case', [failing('a', 'boom')]],
    ['failures without target errors', [makeCase('a', false), makeCase('b', false)]],
    // an empty error is no error: not a shared one of ''
    ['empty errors', [failing('a', ''), failing('b', ''), failing('c', '')]],
    ['no cases', []]
  ])('is null for %s', (_what, cases) => {
    expect(sharedTargetError(makeRun(cases))).toBeNull()
  })

  it('a target failing most cases with different errors failed all the same: the first of the largest group is named', () => {
    const cases = [failing('a', 'exited with code 1: KeyError: x'), failing('b', 'killed by SIGSEGV'), failing('c', 'HTTP 401 from https://api/x')]
    expect(sharedTargetError(makeRun(cases))).toEqual({ failed: 3, total: 3, message: 'exited with code 1: KeyError: x' })
  })
})

describe('sharedFailure', () => {
  it.each([
    { errors: [], total: 0, expected: null },
    { errors: ['x'], total: 1, expected: null },
    { errors: ['x', 'x'], total: 4, expected: null },
    { errors: ['HTTP 429 a', 'HTTP 429 b'], total: 3, expected: { failed: 2, total: 3, message: 'HTTP 429 a' } },
    { errors: ['timed out', 'connection refused', 'connection refused'], total: 3, expected: { failed: 3, total: 3, message: 'connection refused' } }
  ])('$errors of $total', ({ errors, total, expected }) => {
    expect(sharedFailure(errors, total)).toEqual(expected)
  })
})
