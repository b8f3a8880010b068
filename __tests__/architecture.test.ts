/**
 * Folders depend downward only (STYLE.md rule 9): no folder of src/ imports a
 * folder (or top-level module) that imports it back. Read from the source
 * text, so a new import that closes a loop fails here, naming both sides.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'

const SRC = path.resolve('src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(full)
    return e.name.endsWith('.ts') ? [full] : []
  })
}

/** The unit a file belongs to: its top folder under src/, or the top-level file itself. */
function unitOf(file: string, root = SRC): string {
  const [first, ...rest] = path.relative(root, file).split(path.sep)
  return rest.length ? `${first}/` : first!.replace(/\.ts$/, '')
}

/** Relative imports and re-exports (`import … from`, `export … from`, `import()`), resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!)
  return specifiers.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')))
}

function unitGraph(files: string[], root = SRC): Map<string, Map<string, string>> {
  // unit → unit it imports → one file that does, for the message
  const graph = new Map<string, Map<string, string>>()
  for (const file of files) {
    const from = unitOf(file, root)
    for (const target of importsOf(file)) {
      const to = unitOf(target, root)
      if (to === from) continue
      if (!graph.has(from)) graph.set(from, new Map())
      if (!graph.get(from)!.has(to)) graph.get(from)!.set(to, path.relative(root, file))
    }
  }
  return graph
}

/** Pairs of units that import each other, each named with a file on both sides. */
function twoWayImports(root: string): string[] {
  const graph = unitGraph(sourceFiles(root), root)
  const twoWay: string[] = []
  for (const [a, targets] of graph) {
    for (const [b, via] of targets) {
      const back = graph.get(b)?.get(a)
      if (back && a < b) twoWay.push(`${a} ⇄ ${b} (${via} imports ${b}; ${back} imports ${a})`)
    }
  }
  return twoWay
}

describe('architecture', () => {
  it('no folder imports a folder that imports it back', () => {
    expect(twoWayImports(SRC)).toEqual([])
  })

  it('the check finds a two-way import (so an empty answer means something)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'evalgate-arch-'))
    try {
      for (const [file, text] of [
        ['a/x.ts', "import { y } from '../b/y.js'\nexport const x = y\n"],
        ['b/y.ts', "export const y = 1\nexport { x } from '../a/x.js'\n"],
        ['c/z.ts', "import { y } from '../b/y.js'\nexport const z = y\n"]
      ]) {
        mkdirSync(path.join(root, path.dirname(file)), { recursive: true })
        writeFileSync(path.join(root, file), text)
      }
      expect(twoWayImports(root)).toEqual(['a/ ⇄ b/ (a/x.ts imports b/; b/y.ts imports a/)'])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('compare/ and report/ import nothing from @actions/* (they stay pure)', () => {
    const offenders = sourceFiles(SRC)
      .filter((f) => ['compare/', 'report/'].includes(unitOf(f)))
      .filter((f) => /from\s+['"]@actions\//.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f))
    expect(offenders).toEqual([])
  })
})
