/**
 * `{{input}}` templates of the http and openai targets. Only the trial's own
 * values are substituted (`{{input}}`, `{{case.id}}`, `{{case.name}}`); `${VAR}`
 * is expanded earlier, once, so an input can never pull a variable in.
 */
import type { EvalCase } from '../types.js'

export interface TemplateValues {
  input: unknown
  case: Pick<EvalCase, 'id' | 'name'>
}

const PLACEHOLDER = /\{\{\s*(input|case\.id|case\.name)\s*\}\}/g
const WHOLE_INPUT = /^\{\{\s*input\s*\}\}$/

/** Text of a value in a string: strings as they are, anything else as JSON. */
export function inputText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input) ?? '')
}

/** Substitutes placeholders in a string; `encode` applies to the substituted values (URL query parts). */
export function renderText(text: string, values: TemplateValues, encode: (s: string) => string = (s) => s): string {
  return text.replace(PLACEHOLDER, (_m, name: string) => {
    const value = name === 'input' ? inputText(values.input) : name === 'case.id' ? values.case.id : values.case.name
    return encode(value)
  })
}

/**
 * Renders a JSON body template. A string that is exactly `{{input}}` becomes the
 * input itself, keeping its JSON type (an object input stays an object); other
 * strings are interpolated.
 */
export function renderBody(template: unknown, values: TemplateValues): unknown {
  if (typeof template === 'string') return WHOLE_INPUT.test(template) ? values.input : renderText(template, values)
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
