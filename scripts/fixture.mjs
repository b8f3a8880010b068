/**
 * A TypeScript fixture of the tests, imported by a script: the benchmarks use
 * the same fake GitHub and the same seeded generator as the tests rather than
 * copies. Transpiled with the project's TypeScript into node_modules/.cache,
 * where the packages it imports resolve; it must not import files by relative
 * path (the copy sits elsewhere).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')

/** `file` relative to the repository, e.g. `__tests__/__fixtures__/github-server.ts`. */
export async function importFixture(file) {
  const { default: ts } = await import('typescript')
  const source = readFileSync(path.join(ROOT, file), 'utf8')
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
  const dir = path.join(ROOT, 'node_modules/.cache/evalgate-scripts')
  mkdirSync(dir, { recursive: true })
  const out = path.join(dir, `${path.basename(file, '.ts')}.mjs`)
  writeFileSync(out, outputText)
  return import(pathToFileURL(out).href)
}
