/**
 * llm-rubric: the judge grades the output against a rubric written in plain
 * language; with `includeToolCalls: true` it sees the trial's tool calls too,
 * with `includeConversation: true` the conversation so far.
 */
import { modelGraded, rubricCheck } from './model-graded.js'
import type { AssertionHandler, CheckOutcome, JudgeRequest } from './types.js'
import { numberOptionProblem } from './values.js'
import { reportedToolCalls } from './trajectory.js'
import { inputText } from '../llm/template.js'

/** The pass threshold when neither the assertion nor the judge config sets one. */
const DEFAULT_THRESHOLD = 0.5

const NO_JUDGE = 'no judge configured: add a `judge:` section to the config to grade llm-rubric assertions'

const ownGrader = modelGraded('llm-rubric', rubricCheck())

const llmRubric: AssertionHandler = {
  // a judge's verdict is not a rule that can be inverted: write the rubric the other way round
  negatable: false,
  usesJudge: true,
  validate: (a) =>
    // with its own grading prompt the rubric may be empty (promptfoo's `rubricPrompt` holds the criteria)
    (typeof a.value !== 'string' || a.value.trim() === '') && !(a.rubricPrompt !== undefined && (a.value === undefined || typeof a.value === 'string'))
      ? 'llm-rubric needs a `value`: the rubric the judge grades the output against'
      : a.includeToolCalls !== undefined && typeof a.includeToolCalls !== 'boolean'
        ? 'llm-rubric `includeToolCalls` is true or false'
        : a.includeConversation !== undefined && typeof a.includeConversation !== 'boolean'
          ? 'llm-rubric `includeConversation` is true or false'
          : numberOptionProblem(a, 'threshold', { min: 0, max: 1 }),
  async run(a, ctx): Promise<CheckOutcome> {
    // with its own grader or grading prompt, the check is promptfoo's (pass, score, reason) through that grader
    if (a.provider !== undefined || a.rubricPrompt !== undefined) return ownGrader.run(a, ctx, false)
    if (!ctx.judge) return { pass: false, score: 0, reason: NO_JUDGE, error: NO_JUDGE }
    const threshold = a.threshold ?? ctx.defaultJudgeThreshold ?? DEFAULT_THRESHOLD
    const request: JudgeRequest = { input: ctx.input, output: ctx.output, rubric: a.value as string, threshold }
    // an empty list shows the judge "called nothing", part of what it grades; a target that reported no
    // calls at all cannot be shown, and the rubric cannot be checked (before any judge call)
    if (a.includeToolCalls === true) request.toolCalls = reportedToolCalls(ctx)
    // a single reply is a conversation of one exchange
    if (a.includeConversation === true)
      request.conversation = ctx.conversation ?? [
        { role: 'user', content: inputText(ctx.input) },
        { role: 'assistant', content: ctx.output }
      ]
    const verdict = await ctx.judge(request)
    return {
      pass: verdict.error === undefined && verdict.score >= threshold,
      score: verdict.score,
      reason: verdict.reason,
      ...(verdict.error !== undefined ? { error: verdict.error } : {}),
      judge: verdict
    }
  }
}

export const rubricAssertions: Record<string, AssertionHandler> = { 'llm-rubric': llmRubric }
