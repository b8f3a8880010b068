// Writes schema/evalgate.schema.json from the zod schema (src/config/json-schema.ts).
// ncc compiles the TypeScript module into a temporary folder, as build.mjs does for the bundles.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const out = mkdtempSync(path.join(tmpdir(), 'evalgate-schema-'))
try {
  execFileSync(
    process.execPath,
    ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', 'src/config/json-schema.ts', '-o', out, '--quiet', '--target', 'es2022'],
    { stdio: 'inherit' }
  )
  const { configJsonSchemaText } = await import(pathToFileURL(path.join(out, 'index.js')).href)
  mkdirSync('schema', { recursive: true })
  writeFileSync('schema/evalgate.schema.json', configJsonSchemaText())
  console.log('wrote schema/evalgate.schema.json')
} finally {
  rmSync(out, { recursive: true, force: true })
}
