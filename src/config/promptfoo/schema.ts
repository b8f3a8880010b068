/**
 * The part of promptfoo's config format evalgate reads, as zod
 * schemas: what is validated here is what is honoured; keys that would change
 * what is run or graded and that evalgate does not honour are refused by name.
 */
import { z } from 'zod'

const nonNegative = z.number().min(0)

/** A grader as promptfoo names one: an id, or {id, config}. */
const graderSpecSchema = z.union([z.string().min(1), z.object({ id: z.string().min(1), config: z.record(z.string(), z.unknown()).optional() }).passthrough()])

/** A check's grader: a spec, or promptfoo's map of them by use (`text` grades; `embedding` would embed). */
const graderSchema = z.union([graderSpecSchema, z.object({ text: graderSpecSchema.optional(), embedding: graderSpecSchema.optional() }).strict()])

export type PromptfooGrader = z.output<typeof graderSchema>

export const promptfooAssertionSchema = z
  .object({
    type: z.string().min(1),
    value: z.unknown().optional(),
    threshold: z.number().optional(),
    weight: nonNegative.optional(),
    metric: z.string().optional(),
    transform: z.string().optional(),
    /** assert-set only; a getter, so that the type of the nested list is inferred too */
    get assert() {
      return z.array(promptfooAssertionSchema).optional()
    },
    config: z.record(z.string(), z.unknown()).optional(),
    /** a model-graded check's own grader: an id, {id, config}, or {text, embedding} */
    provider: graderSchema.optional(),
    rubricPrompt: z.union([z.string(), z.array(z.unknown())]).optional()
  })
  .strict()

export type RawPromptfooAssertion = z.output<typeof promptfooAssertionSchema>

const testOptionsSchema = z
  .object({
    transform: z.string().optional(),
    prefix: z.string().optional(),
    suffix: z.string().optional(),
    disableVarExpansion: z.boolean().optional(),
    disableDefaultAsserts: z.boolean().optional(),
    /** `_conversation` stays empty: the test is no turn of a conversation */
    disableConversationVar: z.boolean().optional(),
    /** the grader of the test's model-graded checks (an assertion's own `provider` wins) */
    provider: graderSchema.optional(),
    rubricPrompt: z.union([z.string(), z.array(z.unknown())]).optional()
  })
  .strict()

/** A test's own provider: evalgate runs only promptfoo's simulated user there. */
const testProviderSchema = z.union([
  z.string().min(1),
  z.object({ id: z.string().min(1), label: z.string().optional(), config: z.record(z.string(), z.unknown()).optional() }).strict()
])

export const promptfooTestSchema = z
  .object({
    description: z.string().optional(),
    vars: z.record(z.string(), z.unknown()).optional(),
    provider: testProviderSchema.optional(),
    assert: z.array(promptfooAssertionSchema).optional(),
    options: testOptionsSchema.optional(),
    threshold: z.number().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    /** the prompts this test runs with (labels or ids; `label*` and `label` match `label:…` too); all when absent */
    prompts: z.array(z.string()).optional()
  })
  .strict()

/** A provider as the target runs it: promptfoo's `id` with its options. */
export const promptfooProviderSchema = z
  .object({
    id: z.string().min(1),
    label: z.string().min(1).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    transform: z.string().optional(),
    delay: nonNegative.optional(),
    /** the prompts this provider runs (labels or ids, matched as a test's `prompts`); all when absent */
    prompts: z.array(z.string()).optional()
  })
  .strict()

const promptObject = z.object({ raw: z.string().optional(), id: z.string().optional(), label: z.string().optional() }).strict()

export const promptfooConfigSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    prompts: z.union([z.string().min(1), z.array(z.union([z.string().min(1), promptObject])).min(1), z.record(z.string(), z.string())]),
    providers: z.union([z.string().min(1), z.array(z.union([z.string().min(1), promptfooProviderSchema])).min(1)]),
    /** promptfoo runs a config without tests once, with no vars */
    tests: z.union([z.string().min(1), z.array(z.union([z.string().min(1), promptfooTestSchema]))]).optional(),
    defaultTest: promptfooTestSchema.optional(),
    /** what `{{ env.NAME }}` reads in templates (never the process environment: see README) */
    env: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    evaluateOptions: z
      .object({ maxConcurrency: z.number().int().min(1).optional(), repeat: z.number().int().min(1).optional() })
      .passthrough()
      .optional(),
    // where promptfoo writes and shares its own results: nothing evalgate reads
    outputPath: z.union([z.string(), z.array(z.string())]).optional(),
    sharing: z.unknown().optional(),
    writeLatestResults: z.boolean().optional(),
    tags: z.record(z.string(), z.string()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    /** promptfoo's OTLP receiver: evalgate's listens on 127.0.0.1, promptfoo's port 4318 unless `port` */
    tracing: z
      .object({
        enabled: z.boolean().optional(),
        otlp: z
          .object({
            http: z
              .object({
                enabled: z.boolean().optional(),
                port: z.number().int().min(1).max(65_535).optional(),
                host: z.enum(['127.0.0.1', 'localhost', '0.0.0.0']).optional()
              })
              .strict()
              .optional()
          })
          .strict()
          .optional()
      })
      .strict()
      .optional(),
    /** evalgate's own settings (name, gate, judge, concurrency, repeat, …), which promptfoo ignores */
    evalgate: z.record(z.string(), z.unknown()).optional()
  })
  .strict()

export type PromptfooProvider = z.output<typeof promptfooProviderSchema>
export type PromptfooTest = z.output<typeof promptfooTestSchema>
export type PromptfooConfig = z.output<typeof promptfooConfigSchema>
