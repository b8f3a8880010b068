import { evaluateAssertion } from '../../src/assertions/index.js'
import type { AssertionContext } from '../../src/assertions/types.js'
import type { Assertion, AssertionResult, EvalCase } from '../../src/types.js'

export function makeCase(overrides: Partial<EvalCase> = {}): EvalCase {
  return { id: 'case-1', name: 'case 1', input: 'What is the capital of Ireland?', tags: [], assert: [], fingerprint: 'fp', index: 0, ...overrides }
}

export function makeContext(output: string, overrides: Partial<AssertionContext> = {}): AssertionContext {
  const c = makeCase()
  return { output, input: c.input, case: c, durationMs: 10, ...overrides }
}

/** Grades `output` against one assertion. */
export function grade(a: Assertion, output: string, overrides: Partial<AssertionContext> = {}): Promise<AssertionResult> {
  return evaluateAssertion(a, makeContext(output, overrides))
}

/** JSON.parse's own message for `text` (which reasons quote); throws if the text parses. */
export function parseError(text: string): string {
  try {
    JSON.parse(text)
  } catch (err) {
    return (err as Error).message
  }
  throw new Error(`${text} parsed`)
}
