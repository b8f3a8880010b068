/**
 * `{{input}}` templates of the http and openai targets. Only the trial's own
 * values are substituted (`{{input}}`, `{{case.id}}`, `{{case.name}}`, and a
 * conversation's `{{messages}}` and `{{conversationId}}`); `${VAR}` is
 * expanded earlier, once, so an input can never pull a variable in.
 */
import type { EvalCase } from '../types.js'

/** One message of a conversation (config/schema.ts ConversationMessage). */
type ChatMessage = { role: 'user' | 'assistant'; content: string }

export interface TemplateValues {
  input: unknown
  case: Pick<EvalCase, 'id' | 'name'>
  /** a conversation's turn; a single input is a conversation of one user message */
  messages?: ChatMessage[]
  /** a conversation's turn; empty for a single input */
  conversationId?: string
}

const PLACEHOLDER = /\{\{\s*(input|case\.id|case\.name|messages|conversationId)\s*\}\}/g
const WHOLE_INPUT = /^\{\{\s*input\s*\}\}$/
const WHOLE_MESSAGES = /^\{\{\s*messages\s*\}\}$/

/** The conversation so far: a single input is one user message. */
function messagesOf(values: TemplateValues): ChatMessage[] {
  return values.messages ?? [{ role: 'user', content: inputText(values.input) }]
}

/** Text of a value in a string: strings as they are, anything else as JSON. */
export function inputText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input) ?? '')
}

/** Substitutes placeholders in a string; `encode` applies to the substituted values (URL query parts). */
export function renderText(text: string, values: TemplateValues, encode: (s: string) => string = (s) => s): string {
  return text.replace(PLACEHOLDER, (_m, name: string) => encode(placeholderText(name, values)))
}

function placeholderText(name: string, values: TemplateValues): string {
  switch (name) {
    case 'input':
      return inputText(values.input)
    case 'case.id':
      return values.case.id
    case 'case.name':
      return values.case.name
    case 'messages':
      return JSON.stringify(messagesOf(values))
    default:
      return values.conversationId ?? ''
  }
}

/**
 * Renders a JSON body template. A string that is exactly `{{input}}` becomes the
 * input itself, keeping its JSON type (an object input stays an object), one
 * that is exactly `{{messages}}` the list of messages; other strings are interpolated.
 */
export function renderBody(template: unknown, values: TemplateValues): unknown {
  if (typeof template === 'string') {
    if (WHOLE_INPUT.test(template)) return values.input
    return WHOLE_MESSAGES.test(template) ? messagesOf(values) : renderText(template, values)
  }
  if (Array.isArray(template)) return template.map((item) => renderBody(item, values))
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderBody(v, values)]))
  }
  return template
}

/** Whether the template is nothing but `{{input}}`. */
export function isWholeInput(template: string): boolean {
  return WHOLE_INPUT.test(template.trim())
}
