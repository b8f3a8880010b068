/**
 * Nunjucks templates as promptfoo renders them: prompts and assertion values
 * with the test's `vars`, no HTML escaping, an unknown variable renders empty,
 * a `load` filter that parses JSON, and `env` — here only the config's own
 * `env:` block, never the process environment (a template must not be able to
 * put the runner's secrets into a prompt).
 */
import nunjucks from 'nunjucks'

export type Vars = Record<string, unknown>

export class Templates {
  private readonly env: nunjucks.Environment

  constructor(configEnv: Record<string, unknown> = {}) {
    this.env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false })
    this.env.addGlobal('env', configEnv)
    this.env.addFilter('load', (text: string) => JSON.parse(text) as unknown)
  }

  /** One template; throws nunjucks' own error (the caller says where the template was). */
  render(template: string, vars: Vars): string {
    // a lone "{{" or "{%" (code, JSON in prose) is text: promptfoo leaves such a template as it is
    if (/({%[^%]*$|{{[^}]*$|{#[^#]*$)/m.test(template)) return template
    return this.env.renderString(template, vars)
  }

  /**
   * A prompt: a JSON prompt (chat messages) has the strings inside it rendered
   * and is printed again with two-space indents; any other text has its string
   * vars rendered first (a var may use another), then is rendered with them.
   */
  renderPrompt(raw: string, vars: Vars): string {
    let parsed: unknown
    try {
      parsed = JSON.parse(raw)
    } catch {
      const rendered = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, typeof v === 'string' ? this.render(v, vars) : v]))
      return this.render(raw, rendered)
    }
    return JSON.stringify(this.renderDeep(parsed, vars), null, 2)
  }

  private renderDeep(value: unknown, vars: Vars): unknown {
    if (typeof value === 'string') return this.render(value, vars)
    if (Array.isArray(value)) return value.map((v) => this.renderDeep(v, vars))
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.renderDeep(v, vars)]))
    return value
  }
}
