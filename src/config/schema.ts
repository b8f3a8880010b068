/**
 * The zod schemas of evalgate.yml and of dataset cases.
 * The JSON Schema in schema/evalgate.schema.json is generated from these.
 */
import { z } from 'zod'
import { providerIdProblem } from '../providers/index.js'
import { promptfooProviderSchema } from './promptfoo/schema.js'

const nonNegative = z.number().min(0)
const fraction = z.number().min(0).max(1)
const positiveInt = z.number().int().min(1)
const REPEAT_PASS_THRESHOLD =
  "repeatPassThreshold must be in (0, 1]: the share of a case's trials that must pass, e.g. 0.5 (0 would pass a case whose every trial failed)"

export const assertionSchema = z
  .object({
    type: z.string().min(1),
    value: z.unknown().optional(),
    threshold: z.number().optional(),
    weight: nonNegative.optional(),
    flags: z.string().optional(),
    tolerance: nonNegative.optional(),
    relTolerance: nonNegative.optional(),
    file: z.string().optional(),
    metric: z.string().optional(),
    /** trajectory-match: strict | unordered | subset | superset */
    mode: z.string().optional(),
    /** trajectory-match: how arguments are compared, exact (default), ignore, subset or superset */
    args: z.string().optional(),
    /** trajectory-match: per tool, an args mode or the argument paths to compare (agentevals' toolArgsMatchOverrides) */
    argsByTool: z.record(z.string(), z.unknown()).optional(),
    /** llm-rubric: show the judge the tool calls too */
    includeToolCalls: z.boolean().optional(),
    /** llm-rubric: show the judge the conversation so far too */
    includeConversation: z.boolean().optional(),
    /** model-graded checks: their own grader (promptfoo's `provider`), an id or {id, config}; else the judge */
    provider: z.union([z.string(), z.object({ id: z.string(), config: z.record(z.string(), z.unknown()).optional() }).strict()]).optional(),
    /** llm-rubric: promptfoo's own grading prompt (a Nunjucks template of output, rubric and the vars), text or chat messages */
    rubricPrompt: z.unknown().optional()
  })
  .strict()

/** One message of a conversation: what the user said, or what the agent answered. */
export const conversationMessageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.string() }).strict()

/** One scripted turn: the user's text, and the checks of the agent's reply to it. */
export const turnSchema = z
  .object({
    user: z.string({ error: (issue) => (issue.input === undefined ? 'a turn needs `user`: what the user says' : 'a turn’s `user` is text') }),
    assert: z.array(assertionSchema).optional()
  })
  .strict()

/**
 * Who plays a simulated user: the judge's shape, defaulting to the
 * judge. No zod defaults here (they are the judge's, applied when a case is
 * read), so that cases keep being read without zod (config/plain-parse.ts).
 */
export const simulatedUserProviderSchema = z
  .object({
    /** openai (an OpenAI-compatible server) or command; the judge's own provider id (docs/providers.md) only as the judge plays it */
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    baseUrl: z.string().min(1).optional(),
    apiKeyEnv: z.string().min(1).optional(),
    command: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
    env: z.record(z.string(), z.string()).optional(),
    timeoutMs: z.number().int().min(1).optional(),
    retries: z.number().int().min(0).max(10).optional()
  })
  .strict()

/** A simulated user: an LLM plays the user from `instructions` until `maxTurns` agent replies or the `stop` phrase. */
export const simulateSchema = z
  .object({
    instructions: z.string().min(1),
    /** agent replies at most; default 5 */
    maxTurns: z.number().int().min(1, 'maxTurns must be between 1 and 50').max(50, 'maxTurns must be between 1 and 50').optional(),
    /** the conversation's opening messages (promptfoo's name) */
    initialMessages: z.array(conversationMessageSchema).optional(),
    /** a user message containing it ends the conversation; default "###STOP###" */
    stop: z.string().min(1).optional(),
    provider: simulatedUserProviderSchema.optional()
  })
  .strict()

export const caseSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    input: z.unknown().optional(),
    /** a scripted conversation instead of one input */
    turns: z.array(turnSchema).min(1, 'turns needs at least one turn ({user: "…"})').optional(),
    /** a simulated user instead of one input */
    simulate: simulateSchema.optional(),
    tags: z.array(z.string()).optional(),
    assert: z.array(assertionSchema).optional(),
    expected: z.unknown().optional(),
    check: z.string().optional(),
    grading_method: z.enum(['exact_match', 'contains', 'json_exact']).optional(),
    task_type: z.string().optional(),
    ideal: z.union([z.string(), z.array(z.string())]).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    /** variables for agents and checks (`case.vars`, as promptfoo tests have them) */
    vars: z.record(z.string(), z.unknown()).optional()
  })
  .strict()

const argv = z.union([z.string().min(1), z.array(z.string()).min(1)])

const TARGET_KINDS = 'command, http, openai, module, provider'
/** The fields that name a target's kind (`promptfoo` is set by reading a promptfoo config): exactly one is given. */
const TARGET_KIND_NAMES = ['command', 'http', 'openai', 'module', 'provider', 'promptfoo'] as const
type TargetKind = (typeof TARGET_KIND_NAMES)[number]

const httpSchema = z
  .object({
    url: z.string().min(1),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH']).default('POST'),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    /** dot paths into the JSON reply */
    output: z.string().optional(),
    toolCalls: z.string().optional(),
    usage: z.string().optional()
  })
  .strict()

const openaiTargetSchema = z
  .object({
    model: z.string().min(1),
    baseUrl: z.string().default('https://api.openai.com/v1'),
    apiKeyEnv: z.string().default('OPENAI_API_KEY'),
    system: z.string().optional(),
    prompt: z.string().default('{{input}}'),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: positiveInt.optional()
  })
  .strict()

export const targetSchema = z
  .object({
    command: argv.optional(),
    protocol: z.enum(['stdio', 'jsonl']).default('stdio'),
    workers: positiveInt.max(256).default(1),
    http: httpSchema.optional(),
    openai: openaiTargetSchema.optional(),
    module: z.string().min(1).optional(),
    /** a provider id as promptfoo names it (`anthropic:messages:claude-sonnet-4`), with its `config` as promptfoo spells it */
    provider: z.string().min(1).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    /** set by reading a promptfoo config: its providers; each case names the one it runs on */
    promptfoo: z
      .object({ providers: z.array(promptfooProviderSchema).min(1) })
      .strict()
      .optional(),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    timeoutMs: positiveInt.default(60_000),
    maxOutputBytes: positiveInt.default(4 * 1024 * 1024),
    retries: z.number().int().min(0).max(10).default(2),
    /** command stdio: `json` = stdout is a result object {output, toolCalls, usage, metadata} */
    output: z.enum(['text', 'json']).default('text'),
    /** command stdio: `json` = stdin is a JSON request {input, case, messages?, conversationId?} */
    input: z.enum(['text', 'json']).default('text'),
    /** the OpenAI tools array: sent by the openai target, the schemas of is-valid-openai-tools-call */
    tools: z.array(z.record(z.string(), z.unknown())).optional()
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.input === 'json' && (t.command === undefined || t.protocol !== 'stdio')) {
      ctx.addIssue({
        code: 'custom',
        path: ['input'],
        message: 'target.input: json is for a command with protocol stdio; jsonl, http, openai and module targets already get messages and conversationId'
      })
    }
    const kinds = TARGET_KIND_NAMES.filter((k) => t[k] !== undefined)
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: kinds.length === 0 ? `target needs exactly one of: ${TARGET_KINDS}` : `target has ${kinds.join(' and ')}; give exactly one of: ${TARGET_KINDS}`
      })
    }
    if (t.config !== undefined && t.provider === undefined)
      ctx.addIssue({ code: 'custom', path: ['config'], message: 'target.config is the settings of a `provider` target; give target.provider too' })
    const problem = t.provider === undefined ? undefined : providerIdProblem(t.provider)
    if (problem) ctx.addIssue({ code: 'custom', path: ['provider'], message: problem })
  })

export const judgeSchema = z
  .object({
    /** `openai` (an OpenAI-compatible server: model, baseUrl, apiKeyEnv), `command`, or any provider id (docs/providers.md) with `config` */
    provider: z.string().min(1).default('openai'),
    /** the settings of a provider id, as promptfoo spells them */
    config: z.record(z.string(), z.unknown()).optional(),
    model: z.string().default('gpt-4o-mini'),
    /** the model behind `similar` (embeddings from judge.baseUrl) */
    embeddingModel: z.string().default('text-embedding-3-small'),
    /** default: OPENAI_BASE_URL when set (as promptfoo's grader reads it), else OpenAI's */
    baseUrl: z.string().optional(),
    apiKeyEnv: z.string().default('OPENAI_API_KEY'),
    command: argv.optional(),
    threshold: fraction.default(0.5),
    concurrency: positiveInt.max(256).default(4),
    reuse: z.boolean().default(true),
    samples: positiveInt.max(15).default(1),
    timeoutMs: positiveInt.default(60_000),
    retries: z.number().int().min(0).max(10).default(4),
    env: z.record(z.string(), z.string()).default({})
  })
  .strict()
  .superRefine((j, ctx) => {
    if (j.provider === 'command' && j.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'judge.provider "command" needs judge.command (an argv list)' })
    }
    const named = j.provider !== 'openai' && j.provider !== 'command'
    const problem = named ? providerIdProblem(j.provider) : undefined
    if (problem) ctx.addIssue({ code: 'custom', path: ['provider'], message: `${problem}; or openai (an OpenAI-compatible server) or command` })
    if (j.config !== undefined && !named)
      ctx.addIssue({
        code: 'custom',
        path: ['config'],
        message: 'judge.config is the settings of a provider id (e.g. provider: anthropic:messages:claude-sonnet-4)'
      })
  })

export const gateSchema = z
  .object({
    maxRegressions: z.number().int().min(0).default(0),
    maxPassRateDrop: fraction.optional(),
    maxMeanScoreDrop: fraction.optional(),
    minPassRate: fraction.default(0),
    minMeanScore: fraction.default(0),
    failOnMissingBaseline: z.boolean().default(false),
    /** a baseline made this many days before the pull request's base commit is stale: a warning */
    maxBaselineAgeDays: z.number().positive().default(14),
    /** a stale baseline fails the gate instead of warning */
    failOnStaleBaseline: z.boolean().default(false),
    alpha: z.number().gt(0).lt(1).default(0.05),
    /** baseline cases missing from this run (left out by --filter or a shard: not counted) */
    maxRemoved: z.number().int().min(0).default(0),
    /** cases whose fingerprint differs from the baseline's; no limit when unset */
    maxChanged: z.number().int().min(0).optional(),
    /** the share of the baseline's cases that must be compared (same key, same fingerprint) */
    minComparable: fraction.default(0.5),
    useConfidenceBound: z.boolean().default(false),
    /** relative increases allowed over the compared cases (0.2 = +20%); latency on its p95 */
    maxCostIncrease: nonNegative.optional(),
    maxTokensIncrease: nonNegative.optional(),
    maxLatencyIncrease: nonNegative.optional()
  })
  .strict()

/** Named shields.io colours (and their aliases), or a hex colour with or without "#". */
export const BADGE_COLOR_NAMES = [
  'brightgreen',
  'green',
  'yellowgreen',
  'yellow',
  'orange',
  'red',
  'blue',
  'grey',
  'gray',
  'lightgrey',
  'lightgray',
  'success',
  'important',
  'critical',
  'informational',
  'inactive'
] as const
const badgeColor = z.union([
  z.enum(BADGE_COLOR_NAMES),
  z
    .string()
    .regex(
      /^#?([0-9a-fA-F]{3}){1,2}$/,
      'a named colour (brightgreen, green, yellowgreen, yellow, orange, red, blue, grey, lightgrey) or a hex colour such as "#4c1"'
    )
])

export const badgeSchema = z
  .object({
    /** default: "evals", or "<name> evals" for a config named otherwise */
    label: z.string().min(1).max(100).optional(),
    /** the colour of the highest band whose `min` the pass rate reaches; below every band: red */
    bands: z
      .array(z.object({ min: fraction, color: badgeColor }).strict())
      .min(1)
      .optional(),
    style: z.enum(['flat', 'flat-square', 'plastic', 'for-the-badge']).default('flat')
  })
  .strict()

/** USD per million tokens, by model name */
export const pricingSchema = z.record(z.string(), z.object({ input: nonNegative, output: nonNegative }).strict())

/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the agent's spans. `true`
 * for the defaults; `port` when the target is a server evalgate does not start
 * (http, openai), so that it knows where to export.
 */
export const tracingSchema = z.union([
  z.boolean(),
  z
    .object({
      /** the receiver's port; absent: an ephemeral one */
      port: z.number().int().min(1).max(65_535).optional(),
      /** the longest a trial waits for its spans after the reply */
      waitMs: z.number().int().min(0).max(60_000).default(2000),
      /** spans kept per trial; the rest are counted as dropped */
      maxSpansPerTrial: z.number().int().min(1).max(1_000_000).default(10_000)
    })
    .strict()
])

export const budgetSchema = z
  .object({
    /** target plus judge: once spent, no new trial starts */
    maxCostUsd: z.number().positive()
  })
  .strict()

export const configSchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1).default(1),
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, ".", "_" or "-" (it names the artifact)')
      .default('evals'),
    dataset: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    cases: z.array(z.unknown()).optional(),
    target: targetSchema,
    concurrency: positiveInt.max(1024).default(8),
    repeat: positiveInt.max(1000).default(1),
    // 0 would pass a case whose trials all failed: the gate turned off from the config
    repeatPassThreshold: z.number().gt(0, REPEAT_PASS_THRESHOLD).max(1, REPEAT_PASS_THRESHOLD).default(0.5),
    rerunFlips: z.number().int().min(0).max(100).default(0),
    /** the deadline of each trial's sandboxed checks (javascript, backtracking patterns) */
    checkTimeoutMs: positiveInt.default(10_000),
    judge: judgeSchema.optional(),
    gate: gateSchema.default(() => gateSchema.parse({})),
    pricing: pricingSchema.optional(),
    budget: budgetSchema.optional(),
    tracing: tracingSchema.optional(),
    defaults: z
      .object({ assert: z.array(assertionSchema).default([]), tags: z.array(z.string()).default([]) })
      .strict()
      .default(() => ({ assert: [], tags: [] })),
    badge: badgeSchema.optional()
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.dataset === undefined && c.cases === undefined) {
      ctx.addIssue({ code: 'custom', message: 'give the cases: `dataset: path/or/glob` or inline `cases: [...]`' })
    }
    // a server evalgate does not start cannot be told an ephemeral port
    const kind = TARGET_KIND_NAMES.find((k) => c.target[k] !== undefined)
    const server = kind === 'http' || kind === 'openai' ? kind : undefined
    if (server && (c.tracing === true || (typeof c.tracing === 'object' && c.tracing.port === undefined))) {
      ctx.addIssue({
        code: 'custom',
        path: ['tracing'],
        message: `an ${server} target is a server evalgate does not start, so it cannot be told where to export: give tracing.port (e.g. tracing: {port: 4318}) and point its exporter at http://127.0.0.1:<port>`
      })
    }
  })

export type ParsedConfig = z.output<typeof configSchema>
export type TargetConfig = z.output<typeof targetSchema>

/** `target:` whose kind is K: that kind's field is set (the schema allows exactly one). */
export type TargetOf<K extends TargetKind> = TargetConfig & { [P in K]-?: NonNullable<TargetConfig[P]> }

/** `target:` told apart by its kind, for the code that builds or inspects one. */
export type TargetVariant = { [K in TargetKind]: { kind: K; config: TargetOf<K> } }[TargetKind]

/** The kind of a validated `target:`. */
export function targetVariant(config: TargetConfig): TargetVariant {
  const kind = TARGET_KIND_NAMES.find((k) => config[k] !== undefined)
  if (kind === undefined) throw new Error(`target needs exactly one of: ${TARGET_KINDS}`)
  return { kind, config } as TargetVariant
}
export type JudgeConfig = z.output<typeof judgeSchema>

/** OpenAI's API: the judge's base URL when neither judge.baseUrl nor OPENAI_BASE_URL says otherwise. */
export const DEFAULT_JUDGE_BASE_URL = 'https://api.openai.com/v1'
export type GateConfig = z.output<typeof gateSchema>
export type RawCase = z.output<typeof caseSchema>
export type ConversationMessage = z.output<typeof conversationMessageSchema>
export type SimulatedUserProviderConfig = z.output<typeof simulatedUserProviderSchema>
export type Pricing = z.output<typeof pricingSchema>
/** `tracing:` as the engine runs it: on, with its settings. */
export interface TracingConfig {
  port?: number
  waitMs: number
  maxSpansPerTrial: number
}

/** The config's tracing settings, or undefined when tracing is off. */
export function tracingOf(value: z.output<typeof tracingSchema> | undefined): TracingConfig | undefined {
  if (value === undefined || value === false) return undefined
  return value === true ? { waitMs: 2000, maxSpansPerTrial: 10_000 } : value
}
export type BadgeConfig = z.input<typeof badgeSchema>
