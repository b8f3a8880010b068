/**
 * Which regular expressions may run in-process. Matching a text with a
 * backtracking engine costs, at worst, about n^(k+1) steps for k unbounded
 * quantifiers (times the alternatives tried at each point); a quantified group
 * (`(a+)+`, `(a|aa)*`) or a backreference can cost 2^n. Patterns whose worst
 * case on this text is small run in-process, where they cost nothing extra;
 * the rest go to the sandbox, under the deadline.
 */

/** Worst-case steps allowed in-process: well under 100 ms. */
const IN_PROCESS_STEPS = 1e7

interface Shape {
  /** a group with a quantifier, or a backreference: exponential at worst */
  exponential: boolean
  unbounded: number
  /** product of the alternatives of each alternation */
  branching: number
}

/** The index after a bounded `{n}` / `{n,m}` quantifier starting at `i`, and whether it counts as unbounded. */
function braces(source: string, i: number): { end: number; unbounded: boolean } | undefined {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24))
  if (!m) return undefined
  const unbounded = m[2] !== undefined && (m[3] === '' || Number(m[3]) - Number(m[1]) > 8)
  return { end: i + m[0].length, unbounded }
}

function shapeOf(source: string): Shape {
  const shape: Shape = { exponential: false, unbounded: 0, branching: 1 }
  const alternatives: number[] = [1]
  let afterGroup = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    const wasGroup = afterGroup
    afterGroup = false
    if (c === '\\') {
      const next = source[i + 1] ?? ''
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) shape.exponential = true
      i++
    } else if (c === '[') {
      // a class: its quantifier characters are literals; classes nest only under the v flag, counted alike
      let depth = 1
      for (i++; i < source.length && depth > 0; i++) {
        if (source[i] === '\\') i++
        else if (source[i] === '[') depth++
        else if (source[i] === ']') depth--
      }
      i--
    } else if (c === '(') {
      alternatives.push(1)
    } else if (c === ')') {
      shape.branching *= alternatives.pop() ?? 1
      afterGroup = true
    } else if (c === '|') {
      alternatives[alternatives.length - 1]!++
    } else if (c === '*' || c === '+' || c === '{') {
      const bound = c === '{' ? braces(source, i) : { end: i + 1, unbounded: true }
      if (!bound) continue
      if (wasGroup && bound.unbounded) shape.exponential = true
      else if (bound.unbounded) shape.unbounded++
      i = bound.end - 1
      if (source[i + 1] === '?') i++
    } else if (c === '?' && source[i + 1] === '?') {
      i++
    }
  }
  shape.branching *= alternatives[0] ?? 1
  return shape
}

const shapes = new Map<string, Shape>()

/** Whether matching `source` against a text of `length` characters could take long enough to need the deadline. */
export function canBacktrack(source: string, length: number): boolean {
  let shape = shapes.get(source)
  if (!shape) {
    shape = shapeOf(source)
    shapes.set(source, shape)
  }
  if (shape.exponential) return true
  return Math.pow(length + 1, shape.unbounded + 1) * shape.branching > IN_PROCESS_STEPS
}
