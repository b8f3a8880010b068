/**
 * The bundle keeps modules imported on demand in chunk files beside it
 * (dist/<n>.index.js), read from disk when first imported. A process of the
 * runner's user — the code under test, or one it left running — can rewrite
 * one, and the import would run it inside evalgate's process. So every
 * on-demand import is either done before any code under test runs, or
 * preloaded then (SECURITY.md). This test names each and where it is loaded;
 * a new one must be added here with the reason it is safe.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'

/** specifier → why it is never read from disk after code under test starts */
const LOADED_IN_TIME: Record<string, string> = {
  './promptfoo/cases.js': 'config/load.ts, while the config is read, before the target is made',
  tinyglobby: 'config/dataset.ts, while the dataset is read',
  parse5: 'preloaded by assertions/index.ts preloadGrading() in engine.evaluate, before the target is made',
  saxes: 'preloadGrading()',
  'node-sql-parser': 'preloadGrading()',
  '../llm/nunjucks.js': 'preloadGrading()',
  './tracing/collector.js': 'engine.ts startTracing(), a traced run only, before the target is made',
  './tracing/receiver.js': 'startTracing(), with the collector (the OTLP decoder comes with it)',
  '@pydantic/genai-prices':
    'targets/pricing.ts loadPriceList(), called by engine.evaluate before the target is made when the target is a model API (openai, provider, promptfoo)',
  './github.js': 'baseline/sources.ts, for `evalgate baseline pull`, a command that runs no code under test',
  './gitlab.js': 'baseline/sources.ts, for `evalgate baseline pull` from GitLab, a command that runs no code under test',
  '@actions/artifact': 'main.ts calls artifactClient() before evaluating',
  'badge-maker': 'main.ts calls loadBadgeMaker() before evaluating when it will draw a badge; the CLI badge command runs no code under test'
}

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name)
    if (statSync(file).isDirectory()) yield* sources(file)
    else if (file.endsWith('.ts')) yield file
  }
}

describe('modules imported on demand', () => {
  it('are each loaded before any code under test runs', () => {
    const found = new Map<string, string[]>()
    for (const file of sources('src')) {
      // code, not comments: a value import(), not a type (`import('x').T`, `typeof import('x')`)
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '')
      for (const m of code.matchAll(/(typeof\s+)?\bimport\(\s*['"]([^'"]+)['"]\s*\)(\.[A-Z])?/g)) {
        if (m[1] || m[3]) continue
        found.set(m[2]!, [...(found.get(m[2]!) ?? []), file])
      }
    }
    const unexplained = [...found.keys()].filter((specifier) => !(specifier in LOADED_IN_TIME))
    expect(unexplained).toEqual([])
    // and nothing listed here that is no longer imported on demand
    expect(Object.keys(LOADED_IN_TIME).filter((specifier) => !found.has(specifier))).toEqual([])
  })
})
