/**
 * Trusted files (SPEC §9): a command judge's program and the modules it
 * imports, read at the base commit through the contents API of the fake
 * GitHub, copied to a folder of their own; the pull request's differences
 * become config changes.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from '@jest/globals'
import { judgeSchema } from '../../src/config/schema.js'
import { sha, tempDir, useFakeGitHub } from './helpers.js'

const gh = useFakeGitHub()
const BASE = sha(0xba5e)
let trustedJudgeFiles: typeof import('../../src/github/trusted-files.js').trustedJudgeFiles

beforeAll(async () => {
  ;({ trustedJudgeFiles } = await import('../../src/github/trusted-files.js'))
})

function source(baseDir: string, configDir = 'evals') {
  const octokit = gh.context.createOctokit('t0ken', { apiUrl: gh.server.url })
  return { octokit, repo: { owner: 'acme', repo: 'bot' }, ref: BASE, configDir, baseDir, tempDir: tempDir() }
}

function checkout(files: Record<string, string>): string {
  const dir = tempDir()
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), text)
  }
  return dir
}

describe('trustedJudgeFiles', () => {
  it('copies the judge program and every module it imports by relative path, as the base commit has them', async () => {
    gh.server.addFile(BASE, 'evals/judge.mjs', "import { score } from './lib/score'\nimport data from '../secret.json'\n")
    gh.server.addFile(BASE, 'evals/lib/score.mjs', "export { x } from './util.js?v=1'\nexport const score = 1\n")
    gh.server.addFile(BASE, 'evals/lib/util.js', 'export const x = 1\n')
    const baseDir = checkout({ 'judge.mjs': 'export default "rewritten by the pull request"\n', 'lib/util.js': 'export const x = 1\n' })
    const judge = judgeSchema.parse({ provider: 'command', command: ['node', '--no-warnings', 'judge.mjs', '${KEY}'] })
    const trusted = (await trustedJudgeFiles(judge, source(baseDir)))!
    expect(trusted.files).toEqual(['judge.mjs', 'lib/score.mjs', 'lib/util.js'])
    expect(readFileSync(path.join(trusted.dir, 'judge.mjs'), 'utf8')).toContain("import { score } from './lib/score'")
    expect(readFileSync(path.join(trusted.dir, 'lib', 'util.js'), 'utf8')).toBe('export const x = 1\n')
    // what the pull request changed (and removed) is listed; what it left alone is not; nothing outside the config's folder is read
    expect(trusted.changes.map((c) => [c.key, c.head === 'missing'])).toEqual([
      ['judge.command file judge.mjs', false],
      ['judge.command file lib/score.mjs', true]
    ])
    expect(trusted.changes[0]!.base).toMatch(/^sha256:[0-9a-f]{12}$/)
    expect(gh.server.requests.some((r) => r.path.endsWith('/contents/secret.json'))).toBe(false)
    // "node" and the flag were looked up (no such files) or skipped; the ${KEY} word never
    expect(gh.server.requests.filter((r) => r.path.includes('/contents/')).map((r) => decodeURIComponent(r.path.split('/contents/')[1]!))).not.toContain(
      'evals/${KEY}'
    )
  })

  it('is nothing for an openai judge, a command naming no file of the repository, or no judge', async () => {
    const baseDir = checkout({})
    expect(await trustedJudgeFiles(judgeSchema.parse({}), source(baseDir))).toBeNull()
    expect(await trustedJudgeFiles(judgeSchema.parse({ provider: 'command', command: ['python3', '-m', 'judge'] }), source(baseDir))).toBeNull()
    expect(await trustedJudgeFiles(undefined, source(baseDir))).toBeNull()
  })

  it('a config at the repository root names files from the root', async () => {
    gh.server.addFile(BASE, 'judge.py', 'print(1)\n')
    const baseDir = checkout({ 'judge.py': 'print(1)\n' })
    const trusted = (await trustedJudgeFiles(judgeSchema.parse({ provider: 'command', command: 'python3 judge.py' }), source(baseDir, '')))!
    expect(trusted.files).toEqual(['judge.py'])
    expect(trusted.changes).toEqual([])
  })

  it('an API failure is an error naming the file, never the pull request’s copy instead', async () => {
    const judge = judgeSchema.parse({ provider: 'command', command: ['node', 'judge.mjs'] })
    const src = { ...source(checkout({ 'judge.mjs': 'x' })), octokit: gh.context.createOctokit('t0ken', { apiUrl: 'http://127.0.0.1:9' }) }
    await expect(trustedJudgeFiles(judge, src)).rejects.toThrow(/cannot read evals\/node at the base commit 0000000/)
  })
})
