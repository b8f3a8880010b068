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

  it('has no script that makes npm prepare a git install (npm i github:evalgate/evalgate would install every devDependency first)', () => {
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

/**
 * Whether a version satisfies an engines range: the forms locked packages use
 * (`>=22`, `^20.17.0 || >=22.9.0`, `18 || 20 || >=22`, `>= 0.6`).
 */
function admits(range: string, version: string): boolean {
  const wild = (part: string | undefined) => part === undefined || part === 'x' || part === '*'
  const v = version.split('.').map(Number)
  const cmp = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      // ">= 0.6" is one comparator
      .replace(/([<>=^~]+)\s+/g, '$1')
      .split(/\s+(?=[<>^~=\d])/)
      .filter(Boolean)
      .every((comparator) => {
        if (comparator === '*' || comparator === 'x') return true
        const m = /^(>=|>|<=|<|\^|~|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator.trim())
        if (!m) throw new Error(`engines range "${range}": cannot read "${comparator}"`)
        const [, op = '', major, minor, patch] = m
        const at = [Number(major), wild(minor) ? 0 : Number(minor), wild(patch) ? 0 : Number(patch)]
        const c = cmp(v, at)
        if (op === '>=') return c >= 0
        if (op === '>') return c > 0
        if (op === '<=') return c <= 0
        if (op === '<') return c < 0
        if (op === '^') return v[0] === at[0] && c >= 0
        if (op === '~') return v[0] === at[0] && v[1] === at[1] && c >= 0
        // a bare version: 20 is any 20.x, 20.1 any 20.1.x
        return v[0] === at[0] && (wild(minor) || v[1] === at[1]) && (wild(patch) || v[2] === at[2])
      })
  )
}

describe('which Node.js each part needs', () => {
  it('reads engines ranges as npm does', () => {
    expect(admits('>=22', '20.19.0')).toBe(false)
    expect(admits('*', '20.19.0')).toBe(true)
    expect(admits('6.* || 8.* || >= 10.*', '20.19.0')).toBe(true)
    expect(admits('6.* || 8.*', '20.19.0')).toBe(false)
    expect(admits('>= 0.6', '20.19.0')).toBe(true)
    expect(admits('^20.17.0 || >=22.9.0', '20.19.0')).toBe(true)
    expect(admits('^20.17.0 || >=22.9.0', '20.16.0')).toBe(false)
    expect(admits('18 || 20 || >=22', '20.19.0')).toBe(true)
    expect(admits('^18.18.0 || ^20.9.0 || >=21.1.0', '20.19.0')).toBe(true)
  })

  it('every locked package that would make npm ci warn EBADENGINE on Node.js 20 is named in the development docs, with why', () => {
    expect(pkg.engines).toEqual({ node: '>=20' })
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> }
    const stricter = Object.entries(lock.packages)
      .filter(([where, p]) => where !== '' && typeof p.engines?.node === 'string' && !admits(p.engines.node, '20.19.0'))
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length))
    const docs = ['README.md', 'docs/development.md'].filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8'))
    expect(stricter.length).toBeGreaterThan(0) // content-type@3 today; the check must see something to check
    for (const name of new Set(stricter)) {
      expect(
        docs.some((text) =>
          new RegExp(`\`${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}@[^\`]*\`[^\n]*EBADENGINE|EBADENGINE[^\n]*\`${name}@`).test(
            text.replace(/\n(?!\n)/g, ' ')
          )
        )
      ).toBe(true)
    }
  })
})
