import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { parse as parseYaml } from 'yaml'
import {
  ACTION_REF,
  AGENT_FILE,
  COMMENT_WORKFLOW_FILE,
  CONFIG_FILE,
  DATASET_FILE,
  initFiles,
  PR_EVENT_TYPES,
  SCHEMA_URL,
  WORKFLOW_FILE,
  WORKFLOW_NAME
} from '../../src/init/index.js'
import { runCli, tempProject } from '../__fixtures__/cli.js'

const ALL = [CONFIG_FILE, DATASET_FILE, AGENT_FILE, WORKFLOW_FILE]

/** Every file under dir, relative, sorted. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)]))
    .sort()
}

describe('evalgate init', () => {
  it('writes the config, dataset, example agent and workflow, and `run` passes on them with no edits', async () => {
    const dir = tempProject({})
    const res = await runCli(['init', '--dir', dir])
    expect(res.code).toBe(0)
    expect(listFiles(dir)).toEqual([...ALL].sort())
    for (const f of ALL) expect(res.stdout).toContain(path.join(dir, f))
    expect(res.stdout).toContain(`npx evalgate run -c ${path.join(dir, 'evalgate.yml')}`)

    const out = path.join(dir, 'run.json')
    const run = await runCli(['run', '-c', path.join(dir, CONFIG_FILE), '--out', out, '--quiet'])
    expect(run.stderr).toContain('gate passed')
    expect(run.code).toBe(0)
    const record = JSON.parse(readFileSync(out, 'utf8'))
    expect(record.summary.total).toBe(5)
    expect(record.summary.passed).toBe(5)

    const validate = await runCli(['validate', '-c', path.join(dir, CONFIG_FILE)])
    expect(validate.code).toBe(0)
    expect(validate.stdout).toContain('5 cases')
  })

  it('points editors at the published JSON Schema', () => {
    const config = initFiles().find((f) => f.path === CONFIG_FILE)!.content
    expect(config.split('\n')[0]).toBe(`# yaml-language-server: $schema=${SCHEMA_URL}`)
    expect(SCHEMA_URL).toMatch(/^https:\/\/raw\.githubusercontent\.com\/evalgate\/evalgate\/main\/schema\/evalgate\.schema\.json$/)
  })

  it('writes a workflow that gates PRs and records the baseline on the default branch, with minimal permissions', () => {
    const workflow = initFiles({ branch: 'trunk' }).find((f) => f.path === WORKFLOW_FILE)!.content
    const parsed = parseYaml(workflow)
    expect(parsed.name).toBe(WORKFLOW_NAME)
    // the accept label re-decides the check only if adding or removing it runs the workflow
    expect(parsed.on.pull_request.types).toEqual(['opened', 'synchronize', 'reopened', 'labeled', 'unlabeled'])
    expect(parsed.on.push).toEqual({ branches: ['trunk'] })
    expect(parsed.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', actions: 'read' })
    expect(parsed.jobs.evals.steps[1]).toEqual({ uses: ACTION_REF, with: { config: CONFIG_FILE } })
  })

  it('sets a pass-rate floor, so that the first run, which has no baseline, is gated on something', () => {
    const config = parseYaml(initFiles().find((f) => f.path === CONFIG_FILE)!.content)
    expect(config.gate).toEqual({ maxRegressions: 0, minPassRate: 0.8 })
  })

  it('--fork-safe also writes the workflow_run comment workflow, listening to the gating workflow by its name', async () => {
    const dir = tempProject({})
    const res = await runCli(['init', '--dir', dir, '--fork-safe'])
    expect(res.code).toBe(0)
    expect(listFiles(dir)).toEqual([...ALL, COMMENT_WORKFLOW_FILE].sort())
    const gating = parseYaml(readFileSync(path.join(dir, WORKFLOW_FILE), 'utf8'))
    const commenting = parseYaml(readFileSync(path.join(dir, COMMENT_WORKFLOW_FILE), 'utf8'))
    expect(commenting.on.workflow_run).toEqual({ workflows: [gating.name], types: ['completed'] })
    expect(commenting.jobs.comment.if).toBe("github.event.workflow_run.event == 'pull_request'")
    expect(commenting.jobs.comment.steps[1]).toEqual({ uses: ACTION_REF, with: { config: CONFIG_FILE, mode: 'comment' } })
    // the gating run of a fork PR leaves the comment to it
    expect(gating.jobs.evals.steps[1].with.comment).toBe("${{ github.event.pull_request.head.repo.full_name == github.repository && 'always' || 'never' }}")
    // without --fork-safe: no comment workflow, and the action's own comment setting
    expect(initFiles().map((f) => f.path)).not.toContain(COMMENT_WORKFLOW_FILE)
    expect(parseYaml(initFiles().find((f) => f.path === WORKFLOW_FILE)!.content).jobs.evals.steps[1].with.comment).toBeUndefined()
  })

  it('names a ref of this repository as the place to get evalgate from', () => {
    // `uses: evalgate/evalgate@<ref>` and `github:evalgate/evalgate#<ref>` fail on a tag that does not exist
    const ref = ACTION_REF.split('@')[1]!
    const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)'], { encoding: 'utf8' }).split('\n')
    expect(refs.some((r) => r === `refs/heads/${ref}` || r === `refs/tags/${ref}` || r === `refs/remotes/origin/${ref}`)).toBe(true)
    expect(PR_EVENT_TYPES).toContain('labeled')
  })

  it('refuses to overwrite: names the existing files and writes nothing', async () => {
    const dir = tempProject({ 'evalgate.yml': 'mine\n', [WORKFLOW_FILE]: 'mine too\n' })
    const res = await runCli(['init', '--dir', dir])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('evalgate.yml')
    expect(res.stderr).toContain(WORKFLOW_FILE)
    expect(res.stderr).not.toContain(DATASET_FILE)
    expect(existsSync(path.join(dir, DATASET_FILE))).toBe(false)
    expect(existsSync(path.join(dir, AGENT_FILE))).toBe(false)
    expect(readFileSync(path.join(dir, 'evalgate.yml'), 'utf8')).toBe('mine\n')
  })

  it('creates the folder given by --dir', async () => {
    const parent = tempProject({})
    const dir = path.join(parent, 'new', 'project')
    const res = await runCli(['init', '-d', dir, '--branch', 'release/2.x'])
    expect(res.code).toBe(0)
    expect(readFileSync(path.join(dir, WORKFLOW_FILE), 'utf8')).toContain('branches: [release/2.x]')
  })

  it.each([
    { name: 'a branch that would inject YAML', args: ['--branch', 'main]\n  x: ['], message: '--branch' },
    { name: 'a positional argument', args: ['somewhere'], message: 'somewhere' }
  ])('exits 2 on $name', async ({ args, message }) => {
    const dir = tempProject({})
    const res = await runCli(['init', '--dir', dir, ...args])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(message)
    expect(listFiles(dir)).toEqual([])
  })

  it('writes into an existing folder with other files', async () => {
    const dir = tempProject({ 'package.json': '{}\n' })
    mkdirSync(path.join(dir, 'evals'))
    writeFileSync(path.join(dir, 'evals', 'other.yaml'), '[]\n')
    expect((await runCli(['init', '--dir', dir])).code).toBe(0)
    expect(listFiles(dir)).toEqual([...ALL, 'evals/other.yaml', 'package.json'].sort())
  })
})
