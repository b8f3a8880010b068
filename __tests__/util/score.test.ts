import { expect, it } from '@jest/globals'
import { clampScore } from '../../src/util/score.js'

it.each([
  [1.4, 1],
  [-0.2, 0],
  [0.5, 0.5],
  [0, 0],
  [1, 1],
  [Infinity, 1],
  [-Infinity, 0],
  [NaN, 0]
])('clampScore(%p) = %p', (x, expected) => {
  expect(clampScore(x)).toBe(expected)
})
