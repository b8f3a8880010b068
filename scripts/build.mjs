// Bundles the action (dist/), the CLI (dist/cli/) and the library (dist/lib/) with ncc,
// and writes dist/licenses.txt for the packages they bundle.
// The bundles are committed; CI rebuilds them and fails when they differ.
// Everything the bundles need is inside them: the package has no runtime dependencies
// (package.json lists them all as devDependencies), so installing it installs nothing else.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const bundles = [
  { entry: 'src/index.ts', out: 'dist' },
  { entry: 'src/bin.ts', out: 'dist/cli', executable: true },
  { entry: 'src/lib.ts', out: 'dist/lib' }
]

// the HTML report's stylesheet and page script, inlined into src/report/html/assets.ts
execFileSync(process.execPath, ['scripts/report-assets.mjs'], { stdio: 'inherit' })
rmSync('dist', { recursive: true, force: true })
const statsDir = mkdtempSync(path.join(tmpdir(), 'evalgate-build-'))
/** node_modules/<package> folders whose files went into some bundle. */
const bundled = new Set()
try {
  bundles.forEach(({ entry, out, executable }, i) => {
    const stats = path.join(statsDir, `stats-${i}.json`)
    execFileSync(
      process.execPath,
      ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', entry, '-o', out, '--quiet', '--target', 'es2022', '--stats-out', stats],
      { stdio: 'inherit' }
    )
    for (const dir of packageDirs(JSON.parse(readFileSync(stats, 'utf8')))) bundled.add(dir)
    if (executable) {
      const file = `${out}/index.js`
      const code = readFileSync(file, 'utf8')
      if (!code.startsWith('#!')) writeFileSync(file, `#!/usr/bin/env node\n${code}`)
      chmodSync(file, 0o755)
    }
  })
} finally {
  rmSync(statsDir, { recursive: true, force: true })
}

/** The package folders (`node_modules/a/node_modules/@b/c`) of every module in webpack's stats. */
function packageDirs(stats) {
  const dirs = new Set()
  const visit = (modules = []) => {
    for (const m of modules) {
      const dir = packageRoot(String(m.nameForCondition ?? m.name ?? ''))
      if (dir) dirs.add(dir)
      visit(m.modules)
    }
  }
  visit(stats.modules)
  for (const chunk of stats.chunks ?? []) visit(chunk.modules)
  return dirs
}

/** The innermost node_modules/<package> folder of a module path, relative to the repository. */
function packageRoot(name) {
  const parts = path.relative(process.cwd(), path.resolve(name.replace(/^\.[\\/]/, ''))).split(/[\\/]/)
  const last = parts.lastIndexOf('node_modules')
  if (last === -1) return null
  const length = parts[last + 1]?.startsWith('@') ? last + 3 : last + 2
  return parts.slice(0, length).join('/')
}

// ncc's own --license output depends on which copy of a twice-installed package it
// meets first, so it is not reproducible; this list is: every bundled package,
// in path order, with its license file.
const entries = [...bundled]
  .filter((dir) => existsSync(path.join(dir, 'package.json')))
  .sort()
  .map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
    const licenseFile = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f))
    const text = licenseFile && existsSync(path.join(dir, licenseFile)) ? readFileSync(path.join(dir, licenseFile), 'utf8').trim() : ''
    return `${pkg.name}@${pkg.version}\n${typeof pkg.license === 'string' ? pkg.license : 'see the package'}\n${text}`.trim()
  })
writeFileSync('dist/licenses.txt', `${[...new Set(entries)].join('\n\n')}\n`)
