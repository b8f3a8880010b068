// Bundles the action (dist/), the CLI (dist/cli/) and the library (dist/lib/) with ncc,
// and writes dist/licenses.txt for the runtime dependencies they bundle.
// The bundles are committed; CI rebuilds them and fails when they differ.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const bundles = [
  { entry: 'src/index.ts', out: 'dist' },
  { entry: 'src/bin.ts', out: 'dist/cli', executable: true },
  { entry: 'src/lib.ts', out: 'dist/lib' }
]

rmSync('dist', { recursive: true, force: true })
for (const { entry, out, executable } of bundles) {
  execFileSync(process.execPath, ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', entry, '-o', out, '--quiet', '--target', 'es2022'], { stdio: 'inherit' })
  if (executable) {
    const file = `${out}/index.js`
    const code = readFileSync(file, 'utf8')
    if (!code.startsWith('#!')) writeFileSync(file, `#!/usr/bin/env node\n${code}`)
    chmodSync(file, 0o755)
  }
}

// ncc's own --license output depends on which copy of a twice-installed package it
// meets first, so it is not reproducible; this list is: every runtime dependency,
// in path order, with its license file.
const packages = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { encoding: 'utf8' })
  .split('\n')
  .filter((dir) => dir.includes(`${path.sep}node_modules${path.sep}`))
  .sort()
const entries = packages.map((dir) => {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  const licenseFile = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f))
  const text = licenseFile && existsSync(path.join(dir, licenseFile)) ? readFileSync(path.join(dir, licenseFile), 'utf8').trim() : ''
  return `${pkg.name}@${pkg.version}\n${typeof pkg.license === 'string' ? pkg.license : 'see the package'}\n${text}`.trim()
})
writeFileSync('dist/licenses.txt', `${[...new Set(entries)].join('\n\n')}\n`)
