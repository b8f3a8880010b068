/**
 * A stdio command that prints a result object without `target.output: json`
 * has its JSON graded as text: the run says to set `output: json` instead of
 * leaving the user with raw JSON in every reason.
 */
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { runCli, tempProject } from '../__fixtures__/cli.js'

const AGENT = `import json, sys
question = sys.stdin.read()
if "plain" in question:
    print("Dublin")
else:
    print(json.dumps({"output": "Dublin", "toolCalls": [{"name": "lookup", "args": {"q": question}}]}))
`

function project(output: string, inputs: string[]): string {
  const cases = inputs.map((input, i) => `- {id: c${i}, input: ${JSON.stringify(input)}, expected: Dublin}`).join('\n')
  return tempProject({
    'agent.py': AGENT,
    'cases.yaml': `${cases}\n`,
    'evalgate.yml': `version: 1\ndataset: cases.yaml\ntarget:\n  command: [python3, agent.py]\n${output}`
  })
}

const HINT =
  /evalgate: warning: target\.command printed a result object \(\{"output": …\}\) on stdout in (\d+) of (\d+) trials?, but target\.output is not json: .*Set `output: json` under `target:`/

describe('a result object printed without target.output: json', () => {
  it('is named after the run, with how many trials printed one, and the fix', async () => {
    const dir = project('', ['capital of Ireland?', 'plain: capital of Ireland?', 'and again?'])
    const res = await runCli(['run', '-c', path.join(dir, 'evalgate.yml'), '--quiet'])
    expect(res.stderr).toMatch(HINT)
    expect(HINT.exec(res.stderr)!.slice(1, 3)).toEqual(['2', '3'])
    // once, not per trial
    expect(res.stderr.match(/printed a result object/g)).toHaveLength(1)
  })

  it('is not said with output: json, nor of an agent that prints text', async () => {
    const json = await runCli(['run', '-c', path.join(project('  output: json\n', ['capital of Ireland?']), 'evalgate.yml'), '--quiet'])
    expect(json.code).toBe(0)
    expect(json.stderr).not.toMatch(/printed a result object/)
    const text = await runCli(['run', '-c', path.join(project('', ['plain: capital?']), 'evalgate.yml'), '--quiet'])
    expect(text.code).toBe(0)
    expect(text.stderr).not.toMatch(/printed a result object/)
  })
})
