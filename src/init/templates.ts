/**
 * The files `evalgate init` writes: a config, a small dataset, a deterministic
 * stand-in agent so that `npx evalgate run` passes with no edits, the
 * workflow that gates pull requests and records the baseline on the default
 * branch, and with `--fork-safe` the workflow that comments on fork PRs.
 */
import { SCHEMA_URL } from '../config/json-schema.js'

export { SCHEMA_URL }

export const CONFIG_FILE = 'evalgate.yml'
export const DATASET_FILE = 'evals/cases.yaml'
export const AGENT_FILE = 'evals/agent.mjs'
export const WORKFLOW_FILE = '.github/workflows/evalgate.yml'
export const COMMENT_WORKFLOW_FILE = '.github/workflows/evalgate-comment.yml'

/**
 * One name for the gating workflow everywhere (init, the docs, the comment
 * workflow's `workflow_run` trigger): the comment workflow finds the runs it
 * comments on by this name.
 */
export const WORKFLOW_NAME = 'evalgate'

/**
 * Where evalgate comes from until a release is tagged: the repository's
 * default branch, which carries the built bundles (dist/ is committed). The
 * docs test holds every install line and `uses:` of the docs to these.
 */
export const ACTION_REF = 'evalgate/evalgate@main'
export const PACKAGE_SPEC = 'github:evalgate/evalgate'

/** The pull-request events that re-decide the check: the accept label's `labeled`/`unlabeled` among them. */
export const PR_EVENT_TYPES = ['opened', 'synchronize', 'reopened', 'labeled', 'unlabeled'] as const

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
  minPassRate: 0.8         # an absolute floor, checked with or without a baseline:
                           # the first run, which has none, is gated on it
  # maxPassRateDrop: 0.02  # two points

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

export interface WorkflowOptions {
  branch?: string
  /** a fork's PR is commented on by the comment workflow, so its own run does not try */
  forkSafe?: boolean
}

export function workflowTemplate(options: WorkflowOptions = {}): string {
  const branch = options.branch ?? 'main'
  const comment = options.forkSafe
    ? `
          # a fork's run has a read-only token: ${COMMENT_WORKFLOW_FILE} comments for it
          comment: \${{ github.event.pull_request.head.repo.full_name == github.repository && 'always' || 'never' }}`
    : ''
  return `# Gates pull requests on the evals, and records each run on ${branch} as the
# baseline that later pull requests are compared with.
name: ${WORKFLOW_NAME}

on:
  pull_request:
    # labeled/unlabeled: adding or removing the accept label (evalgate:accept) re-decides the check
    types: [${PR_EVENT_TYPES.join(', ')}]
  push:
    branches: [${branch}]
  workflow_dispatch:

permissions:
  contents: read           # check out the code
  pull-requests: write     # the sticky PR comment
  actions: read            # find and download the baseline run's artifact

concurrency:
  group: ${WORKFLOW_NAME}-\${{ github.ref }}
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}

jobs:
  evals:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v7
      - uses: ${ACTION_REF}
        with:
          config: ${CONFIG_FILE}${comment}
        # env:                                     # for a judge or a model-backed target
        #   OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
`
}

/**
 * The fork-safe comment workflow: runs in the base repository after
 * the gating workflow completes, with a write token, and reads that run's
 * record as untrusted data; it never checks out or runs the PR's code.
 */
export function commentWorkflowTemplate(): string {
  return `# Comments on pull requests from forks, whose own run has a read-only token:
# runs here, with a write token, once the "${WORKFLOW_NAME}" workflow completes,
# and reads that run's record as untrusted data. It never checks out or runs
# the pull request's code.
name: ${WORKFLOW_NAME} comment

on:
  workflow_run:
    workflows: [${WORKFLOW_NAME}]
    types: [completed]

permissions:
  contents: read
  actions: read            # the pull request run's artifact, and the baseline
  pull-requests: write     # the sticky PR comment

jobs:
  comment:
    if: github.event.workflow_run.event == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7   # the default branch: the trusted config
      - uses: ${ACTION_REF}
        with:
          config: ${CONFIG_FILE}
          mode: comment
`
}

/** Every file init writes, relative to the target folder, in the order listed to the user. */
export function initFiles(options: WorkflowOptions = {}): Array<{ path: string; content: string }> {
  return [
    { path: CONFIG_FILE, content: configTemplate() },
    { path: DATASET_FILE, content: datasetTemplate() },
    { path: AGENT_FILE, content: agentTemplate() },
    { path: WORKFLOW_FILE, content: workflowTemplate(options) },
    ...(options.forkSafe ? [{ path: COMMENT_WORKFLOW_FILE, content: commentWorkflowTemplate() }] : [])
  ]
}
