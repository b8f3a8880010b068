/**
 * The wording every rule-based check shares: the excerpt of an output, how an
 * expected value is shown, the three forms of a claim, and the reason of a
 * ruled check each way round.
 */
import { describe, expect, it } from '@jest/globals'
import { claim, excerpt, ruled, shown } from '../../src/assertions/outcome.js'

describe('excerpt', () => {
  it('quotes the text as JSON, so whitespace stays visible', () => {
    expect(excerpt('a\nb\t"c"')).toBe('"a\\nb\\t\\"c\\""')
    expect(excerpt('')).toBe('""')
  })

  it('keeps up to 200 characters whole by default, and cuts one more with an ellipsis', () => {
    const whole = 'x'.repeat(200)
    expect(excerpt(whole)).toBe(`"${whole}"`)
    expect(excerpt(`${whole}y`)).toBe(`"${whole}…"`)
  })

  it('keeps up to `max` characters', () => {
    expect(excerpt('abcde', 5)).toBe('"abcde"')
    expect(excerpt('abcdef', 5)).toBe('"abcde…"')
  })

  it('never leaves half of a surrogate pair at the cut', () => {
    // the cut falls between the two halves of 😀
    expect(excerpt('abcd😀efg', 5)).toBe('"abcd…"')
    // the cut falls after the whole pair: it stays
    expect(excerpt('abc😀efg', 5)).toBe('"abc😀…"')
  })

  it('a pair earlier in the text is kept when the cut is clean', () => {
    expect(excerpt('😀abcdef', 5)).toBe('"😀abc…"')
  })
})

describe('shown', () => {
  it('a string is quoted, and cut past 120 characters', () => {
    expect(shown('Paris')).toBe('"Paris"')
    const whole = 'p'.repeat(120)
    expect(shown(whole)).toBe(`"${whole}"`)
    expect(shown(`${whole}q`)).toBe(`"${whole}…"`)
  })

  it('anything else is its JSON', () => {
    expect(shown(42)).toBe('42')
    expect(shown({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}')
    expect(shown(null)).toBe('null')
  })

  it('what has no JSON is shown as text', () => {
    expect(shown(undefined)).toBe('undefined')
  })

  it('JSON longer than 120 characters is cut with an ellipsis', () => {
    const list = Array.from({ length: 60 }, (_, i) => i % 10)
    const json = JSON.stringify(list)
    expect(json.length).toBe(121)
    expect(shown(list)).toBe(`${json.slice(0, 120)}…`)
    const fits = list.slice(1)
    expect(shown(fits)).toBe(JSON.stringify(fits))
    expect(JSON.stringify(fits).length).toBe(119)
  })

  it('JSON of exactly 120 characters stays whole', () => {
    const value = { k: 'v'.repeat(112) }
    expect(JSON.stringify(value).length).toBe(120)
    expect(shown(value)).toBe(JSON.stringify(value))
  })
})

describe('claim', () => {
  it('be: is and is not', () => {
    expect(claim('be', 'valid JSON')).toEqual({ base: 'be valid JSON', is: 'is valid JSON', isNot: 'is not valid JSON' })
  })

  it('a verb takes -s, or -es after s, x, z, ch and sh', () => {
    expect(claim('contain', '"x"')).toEqual({ base: 'contain "x"', is: 'contains "x"', isNot: 'does not contain "x"' })
    expect(claim('match', '/a/')).toEqual({ base: 'match /a/', is: 'matches /a/', isNot: 'does not match /a/' })
    expect(claim('pass', 'it').is).toBe('passes it')
    expect(claim('fix', 'it').is).toBe('fixes it')
    expect(claim('buzz', 'it').is).toBe('buzzes it')
    expect(claim('wash', 'it').is).toBe('washes it')
  })

  it('only the verb’s last letters decide', () => {
    expect(claim('start', 'with "a"').is).toBe('starts with "a"')
    expect(claim('state', 'a number').is).toBe('states a number')
    expect(claim('sketch', 'it').is).toBe('sketches it')
    expect(claim('show', 'it').is).toBe('shows it')
    expect(claim('equal', 'it').is).toBe('equals it')
  })
})

describe('ruled', () => {
  const what = claim('contain', '"Paris"')

  it('holds: a pass, score 1, the claim as made', () => {
    expect(ruled(true, false, 'Paris', what)).toEqual({ pass: true, score: 1, reason: 'output contains "Paris"' })
  })

  it('does not hold: a failure, score 0, what was expected and the output', () => {
    expect(ruled(false, false, 'Rome', what)).toEqual({ pass: false, score: 0, reason: 'expected output to contain "Paris", got: "Rome"' })
  })

  it('negated and not holding: the negated claim passes', () => {
    expect(ruled(false, true, 'Rome', what)).toEqual({ pass: false, score: 0, reason: 'output does not contain "Paris"' })
  })

  it('negated and holding: expected not to, with the output', () => {
    expect(ruled(true, true, 'Paris', what)).toEqual({ pass: true, score: 1, reason: 'expected output not to contain "Paris", got: "Paris"' })
  })

  it('a detail goes in brackets after the claim, either way', () => {
    expect(ruled(true, false, 'a b', claim('be', '2 words long'), '2 words').reason).toBe('output is 2 words long (2 words)')
    expect(ruled(true, true, 'a b', claim('be', '2 words long'), '2 words').reason).toBe('expected output not to be 2 words long (2 words), got: "a b"')
    expect(ruled(false, false, 'a', claim('be', '2 words long'), '1 words').reason).toBe('expected output to be 2 words long (1 words), got: "a"')
  })

  it('an empty detail adds nothing', () => {
    expect(ruled(true, false, 'Paris', what, '').reason).toBe('output contains "Paris"')
  })

  it('the output is cut to 200 characters in the reason', () => {
    const long = 'r'.repeat(250)
    expect(ruled(false, false, long, what).reason).toBe(`expected output to contain "Paris", got: "${'r'.repeat(200)}…"`)
  })
})
