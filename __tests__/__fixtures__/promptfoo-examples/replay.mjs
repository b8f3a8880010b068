// A deterministic promptfoo provider for the parity fixtures: it answers with
// the output of the first rule whose `when` strings all occur in the prompt,
// else with the prompt itself. The rules file is named by `config.outputs`,
// relative to this file, so that promptfoo and evalgate read the same one.
import { readFileSync } from 'node:fs'

export default class Replay {
  constructor(options = {}) {
    this.providerId = options.id ?? 'replay'
    const file = new URL(options.config?.outputs ?? 'outputs.json', import.meta.url)
    this.rules = JSON.parse(readFileSync(file, 'utf8'))
  }

  id() {
    return this.providerId
  }

  async callApi(prompt) {
    const rule = this.rules.find((r) => [].concat(r.when).every((w) => prompt.includes(w)))
    return { output: rule ? rule.output : prompt, tokenUsage: { total: 0, prompt: 0, completion: 0 } }
  }
}
