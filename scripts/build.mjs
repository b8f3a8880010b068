// Bundles the action (dist/), the CLI (dist/cli/) and the library (dist/lib/) with ncc.
// The bundles are committed; CI rebuilds them and fails when they differ.
import { execFileSync } from 'node:child_process'
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'

const bundles = [
  { entry: 'src/index.ts', out: 'dist' },
  { entry: 'src/bin.ts', out: 'dist/cli', executable: true },
  { entry: 'src/lib.ts', out: 'dist/lib' }
]

rmSync('dist', { recursive: true, force: true })
for (const { entry, out, executable } of bundles) {
  execFileSync(process.execPath, ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', entry, '-o', out, '--license', 'licenses.txt', '--quiet', '--target', 'es2022'], { stdio: 'inherit' })
  if (executable) {
    const file = `${out}/index.js`
    const code = readFileSync(file, 'utf8')
    if (!code.startsWith('#!')) writeFileSync(file, `#!/usr/bin/env node\n${code}`)
    chmodSync(file, 0o755)
  }
}
