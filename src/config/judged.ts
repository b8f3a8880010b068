/**
 * The checks a grader model grades: the judge, unless the
 * check names a `provider` of its own. One list for loading (a config that
 * needs a judge), fingerprints (they cover the judge settings) and the
 * checks themselves.
 */
import type { Assertion } from './case.js'

export const MODEL_GRADED_TYPES: ReadonlySet<string> = new Set([
  'llm-rubric',
  'factuality',
  'model-graded-factuality',
  'model-graded-closedqa',
  'g-eval',
  'answer-relevance',
  'context-faithfulness',
  'context-relevance',
  'context-recall'
])

/** Whether the judge grades this assertion (a model-graded check without a grader of its own). */
export function isJudged(a: Assertion): boolean {
  return MODEL_GRADED_TYPES.has(a.type) && a.provider === undefined
}
