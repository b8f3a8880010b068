/**
 * The package as npm installs it: dist/ holds everything the CLI, the library
 * and the action run, so the package declares no runtime dependencies and an
 * install of it brings nothing else. Checked by running the bundles from a
 * folder where no other package can be found (EVALGATE_NODE picks the node that
 * runs them: CI runs this under Node 24 too, as the action's runtime).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { tempDir } from './__fixtures__/temp.js'

const node = process.env.EVALGATE_NODE ?? process.execPath
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, unknown>

describe('package.json', () => {
  it('declares no runtime dependencies: the bundles in dist/ carry them', () => {
    expect(pkg.dependencies).toBeUndefined()
    expect(pkg.peerDependencies).toBeUndefined()
    expect(pkg.optionalDependencies).toBeUndefined()
    expect(pkg.bin).toEqual({ evalgate: 'dist/cli/index.js' })
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'action.yml']))
  })

  it('has no script that makes npm prepare a git install (npm i github:evalgate/evalgate#v1 would install every devDependency first)', () => {
    // pacote prepares a git dependency, devDependencies and all, when it has any of these
    const scripts = Object.keys((pkg.scripts ?? {}) as Record<string, string>)
    expect(scripts.filter((name) => ['build', 'prepare', 'prepack', 'preinstall', 'install', 'postinstall'].includes(name))).toEqual([])
  })
})

describe('the installed package (dist/ alone, no node_modules to fall back on)', () => {
  /** An app folder with evalgate in node_modules as npm lays out the packed files, and nothing else. */
  function installed(): string {
    const app = tempDir('evalgate-install-')
    for (let dir = app; dir !== path.dirname(dir); dir = path.dirname(dir)) expect(existsSync(path.join(dir, 'node_modules'))).toBe(false)
    const into = path.join(app, 'node_modules', 'evalgate')
    mkdirSync(into, { recursive: true })
    for (const entry of ['package.json', 'dist', 'schema', 'action.yml']) cpSync(entry, path.join(into, entry), { recursive: true })
    return app
  }

  const run = (app: string, args: string[]) =>
    execFileSync(node, [path.join(app, 'node_modules', 'evalgate', 'dist', 'cli', 'index.js'), ...args], {
      cwd: app,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME }
    })

  it('the CLI (dist/cli): evalgate init, then evalgate run, gate passed', () => {
    const app = installed()
    expect(run(app, ['init'])).toContain('evalgate: wrote evalgate.yml')
    expect(run(app, ['run', '--quiet', '--out', 'run.json'])).toBe('')
    expect(JSON.parse(readFileSync(path.join(app, 'run.json'), 'utf8')).summary).toMatchObject({ total: 5, passed: 5 })
  })

  it("the library (dist/lib): import 'evalgate' and runEval", () => {
    const app = installed()
    const script =
      "const { runEval } = await import('evalgate'); process.stdout.write(JSON.stringify(await runEval((q) => q.toUpperCase(), [{ input: 'hi', expected: 'HI' }])))"
    const out = execFileSync(node, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' })
    expect(JSON.parse(out)).toMatchObject({ passed: 1, total: 1, passRate: 1 })
  })
})
