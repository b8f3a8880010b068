/**
 * The files `evalgate init` writes: a config, a small dataset, a deterministic
 * stand-in agent so that `npx evalgate run` passes with no edits, and the
 * workflow that gates pull requests and records the baseline on the default branch.
 */
import { SCHEMA_URL } from '../config/json-schema.js'

export { SCHEMA_URL }

export const CONFIG_FILE = 'evalgate.yml'
export const DATASET_FILE = 'evals/cases.yaml'
export const AGENT_FILE = 'evals/agent.mjs'
export const WORKFLOW_FILE = '.github/workflows/evalgate.yml'

export function configTemplate(): string {
  return `# yaml-language-server: $schema=${SCHEMA_URL}
# evalgate runs the dataset against the agent, compares every case with the
# last run on the default branch and fails the pull request on regressions.
version: 1
name: evals                # names the run artifact and the PR comment
dataset: ${DATASET_FILE}

# The agent under test: exactly one of module, command, http or openai.
# This starter runs ${AGENT_FILE}, a stand-in that needs no model. Yours might be:
#   command: ["python", "agent.py"]      # the input on stdin, the answer on stdout
#   http: { url: "http://localhost:8000/chat", body: { question: "{{input}}" }, output: data.answer }
#   openai: { model: gpt-4o-mini, system: "You are a helpful support agent." }
target:
  module: ${AGENT_FILE}
  timeoutMs: 30000

concurrency: 8             # cases in flight at once
repeat: 1                  # trials per case; raise it for a non-deterministic agent

# Needed only when a case uses llm-rubric (any OpenAI-compatible server):
# judge:
#   model: gpt-4o-mini
#   apiKeyEnv: OPENAI_API_KEY

gate:
  maxRegressions: 0        # cases that pass on the default branch and fail in the PR
  # maxPassRateDrop: 0.02  # two points
  # minPassRate: 0.9       # an absolute floor, checked even without a baseline

defaults:                  # added to every case
  assert:
    - type: not-icontains
      value: as an ai language model
`
}

export function datasetTemplate(): string {
  return `# The cases evalgate runs. \`id\` matches a case across runs: keep it when you
# edit a case. All assertions of a case must pass for the case to pass.
- id: greeting
  input: Hello!
  tags: [chat]
  assert:
    - type: icontains
      value: how can i help

- id: capital-france
  input: What is the capital of France?
  tags: [facts]
  expected: Paris          # shorthand for a \`contains\` assertion

- id: multiply
  input: What is 6 times 7?
  tags: [math]
  assert:
    - type: numeric
      value: 42

- id: order-json
  input: Add 3 apples to my basket and answer in JSON.
  tags: [json]
  assert:
    - type: is-json
      value: { type: object, required: [item, quantity] }
    - type: json-subset
      value: { item: apple, quantity: 3 }

- id: refund-policy
  input: Can I get a refund?
  tags: [policy]
  assert:
    - type: contains-all
      value: [refund, 30 days]
    - type: javascript
      value: output.length <= 200

# With a \`judge:\` in evalgate.yml, an LLM grades what rules cannot:
# - id: late-parcel
#   input: My parcel is late and I am annoyed.
#   assert:
#     - type: llm-rubric
#       value: Apologises and offers a concrete next step, in at most three sentences.
`
}

export function agentTemplate(): string {
  return `// A stand-in agent so that \`npx evalgate run\` works right away: deterministic,
// no model, no network. Point \`target\` in evalgate.yml at your own agent, or
// make this module call it: evalgate calls the default export with each case's
// input (and the whole case) and grades the string it returns.
export default async function agent(input) {
  const question = String(input).toLowerCase()
  if (/^(hi|hello|hey)\\b/.test(question)) return 'Hello! How can I help you today?'
  if (question.includes('capital of france')) return 'The capital of France is Paris.'
  const product = question.match(/(\\d+) times (\\d+)/)
  if (product) return \`\${Number(product[1]) * Number(product[2])}\`
  const order = question.match(/add (\\d+) (\\w+?)s? to my basket/)
  if (order) return JSON.stringify({ item: order[2], quantity: Number(order[1]) })
  if (question.includes('refund')) return 'Yes: you can ask for a refund within 30 days of delivery.'
  return "Sorry, I don't know that yet."
}
`
}

/** Branch names that are safe to write unquoted into the workflow. */
export const BRANCH_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/

export function workflowTemplate(branch = 'main'): string {
  return `# Gates pull requests on the evals, and records each run on ${branch} as the
# baseline that later pull requests are compared with.
name: evalgate

on:
  pull_request:
  push:
    branches: [${branch}]
  workflow_dispatch:

permissions:
  contents: read           # check out the code
  pull-requests: write     # the sticky PR comment
  actions: read            # find and download the baseline run's artifact

concurrency:
  group: evalgate-\${{ github.ref }}
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}

jobs:
  evals:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v7
      - uses: evalgate/evalgate@v1
        with:
          config: ${CONFIG_FILE}
        # env:                                     # for a judge or a model-backed target
        #   OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
`
}

/** Every file init writes, relative to the target folder, in the order listed to the user. */
export function initFiles(options: { branch?: string } = {}): Array<{ path: string; content: string }> {
  return [
    { path: CONFIG_FILE, content: configTemplate() },
    { path: DATASET_FILE, content: datasetTemplate() },
    { path: AGENT_FILE, content: agentTemplate() },
    { path: WORKFLOW_FILE, content: workflowTemplate(options.branch) }
  ]
}
