/**
 * A case as the engine runs it: made by loading (dataset.ts, promptfoo/), not
 * parsed, so its types are built from the schemas of what it is made from
 * (the assertion a user writes) and what it becomes (the record's case).
 */
import type { z } from 'zod'
import type { CaseResult } from './record-schema.js'
import type { assertionSchema } from './schema.js'

/**
 * One assertion as the engine runs it (after shorthands are expanded): what
 * evalgate.yml accepts (`file` resolved to an absolute path), plus what only
 * a promptfoo config gives.
 */
export interface Assertion extends z.output<typeof assertionSchema> {
  /** promptfoo configs: JavaScript run on the output before this assertion grades it */
  transform?: string
  /** promptfoo configs: the index of the assert-set (EvalCase.promptfoo.sets) this assertion belongs to */
  set?: number
}

/** How a case read from a promptfoo config is run and graded. */
export interface PromptfooCase {
  /** the index of its provider in `target.promptfoo.providers` */
  provider: number
  /** the test's `options.transform`: JavaScript run on the provider's output before any assertion sees it */
  transform?: string
  /** the test's `threshold`: the case passes when the weighted mean of its assertion scores reaches it */
  threshold?: number
  /** its assert-sets; their assertions are in `assert`, each with `set` naming its set */
  sets?: { threshold?: number; weight?: number; metric?: string }[]
}

/**
 * A case ready to run: defaults merged, shorthands expanded, key and
 * fingerprint computed. The fields it hands on to its record unchanged are
 * the record's own.
 */
export interface EvalCase extends Pick<CaseResult, 'id' | 'name' | 'tags' | 'fingerprint' | 'expected' | 'source'> {
  input: unknown
  assert: Assertion[]
  /** Position in the dataset (zero-based). */
  index: number
  /** the variables the case was rendered from (promptfoo `vars`) */
  vars?: Record<string, unknown>
  /** set for cases read from a promptfoo config (SPEC §11) */
  promptfoo?: PromptfooCase
}
