import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { AGENT_FILE, CONFIG_FILE, DATASET_FILE, initFiles, SCHEMA_URL, WORKFLOW_FILE } from '../../src/init/index.js'
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
    expect(workflow).toContain('  pull_request:\n  push:\n    branches: [trunk]\n')
    expect(workflow).toMatch(/permissions:\n {2}contents: read .*\n {2}pull-requests: write .*\n {2}actions: read .*\n\n/)
    expect(workflow).toContain('uses: evalgate/evalgate@v1')
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
