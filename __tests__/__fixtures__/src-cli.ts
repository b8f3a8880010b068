/**
 * The CLI as a real process from the sources, without dist/: src/ transpiled
 * (no type-check, as ts-jest does) into a temp folder beside a link to
 * node_modules. For tests of what only a whole process shows: its exit code.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ts from 'typescript'

export interface SourceCli {
  /** the bin entry to run with `node` */
  bin: string
  remove(): void
}

export function sourceCli(): SourceCli {
  const root = path.resolve('src')
  const out = mkdtempSync(path.join(tmpdir(), 'evalgate-src-cli-'))
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (entry.name.endsWith('.ts')) {
        const target = path.join(out, 'src', path.relative(root, file)).replace(/\.ts$/, '.js')
        mkdirSync(path.dirname(target), { recursive: true })
        const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          fileName: file
        })
        writeFileSync(target, outputText)
      }
    }
  }
  walk(root)
  writeFileSync(path.join(out, 'package.json'), JSON.stringify({ type: 'module' }))
  symlinkSync(path.resolve('node_modules'), path.join(out, 'node_modules'), 'dir')
  return { bin: path.join(out, 'src', 'bin.js'), remove: () => rmSync(out, { recursive: true, force: true }) }
}
