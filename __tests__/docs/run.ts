/**
 * Running the shell blocks marked `<!-- docs-test: run … -->` as a reader
 * would, with this checkout's build standing in for the install: in a fresh
 * project folder where evalgate is installed as npm lays out the package
 * (node_modules/evalgate: package.json, dist, schema, action.yml), with `npm`
 * and `npx` shims that answer an install of evalgate and run `npx evalgate` /
 * `npx github:evalgate/evalgate` with that build (nothing is fetched); every
 * other command is the real one. Blocks of one `session` share their folder,
 * in document order.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { tempDir } from '../__fixtures__/temp.js'

export interface RunDirective {
  exit: number
  /** 'project': a fresh folder with evalgate installed; 'examples': one with a copy of examples/ */
  place: 'project' | 'examples'
  session: string | null
}

/** `run[, exit N][, in examples][, session NAME]`; null when the directive does not say run. */
export function runDirective(directive: string): RunDirective | null {
  const parts = directive.split(',').map((p) => p.trim())
  if (parts[0] !== 'run') return null
  const found: RunDirective = { exit: 0, place: 'project', session: null }
  for (const part of parts.slice(1)) {
    let m: RegExpExecArray | null
    if ((m = /^exit (\d+)$/.exec(part))) found.exit = Number(m[1])
    else if (part === 'in examples') found.place = 'examples'
    else if ((m = /^session ([\w-]+)$/.exec(part))) found.session = m[1]!
    else throw new Error(`docs-test directive "${directive}": cannot read "${part}" (run[, exit N][, in examples][, session NAME])`)
  }
  return found
}

const REPO = path.resolve('.')

const NPM = `#!/bin/sh
# docs test: installing evalgate is this checkout's build, already in place
case " $* " in
  *" ci "*|*" install "*|*" i "*)
    case "$*" in *evalgate*|ci*) echo "(docs test: evalgate is installed from this checkout)"; exit 0;; esac;;
esac
exec "$REAL_NPM" "$@"
`

const NPX = `#!/bin/sh
# docs test: npx evalgate and npx github:evalgate/evalgate run this checkout's build; nothing is fetched
while [ "\${1#-}" != "$1" ]; do shift; done
case "$1" in
  evalgate|github:evalgate/evalgate|github:evalgate/evalgate#*) shift; exec node "$EVALGATE_CLI" "$@";;
esac
echo "docs test: npx $1 would fetch a package; only evalgate runs here" >&2
exit 127
`

export interface Place {
  dir: string
  env: NodeJS.ProcessEnv
}

/** A fresh folder to run blocks in, and the environment they run with. */
export function makePlace(kind: RunDirective['place']): Place {
  const dir = tempDir('evalgate-docs-')
  const bin = path.join(dir, '.docs-bin')
  mkdirSync(bin)
  let cli: string
  if (kind === 'project') {
    const into = path.join(dir, 'node_modules', 'evalgate')
    mkdirSync(into, { recursive: true })
    for (const entry of ['package.json', 'dist', 'schema', 'action.yml']) cpSync(path.join(REPO, entry), path.join(into, entry), { recursive: true })
    mkdirSync(path.join(dir, 'node_modules', '.bin'))
    symlinkSync('../evalgate/dist/cli/index.js', path.join(dir, 'node_modules', '.bin', 'evalgate'))
    cli = path.join(into, 'dist', 'cli', 'index.js')
  } else {
    cpSync(path.join(REPO, 'examples'), path.join(dir, 'examples'), { recursive: true })
    cli = path.join(REPO, 'dist', 'cli', 'index.js')
  }
  writeFileSync(path.join(bin, 'npm'), NPM)
  writeFileSync(path.join(bin, 'npx'), NPX)
  chmodSync(path.join(bin, 'npm'), 0o755)
  chmodSync(path.join(bin, 'npx'), 0o755)
  const realNpm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim()
  const env: NodeJS.ProcessEnv = {
    PATH: [bin, path.join(dir, 'node_modules', '.bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: dir,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    EVALGATE_CLI: cli,
    REAL_NPM: realNpm
  }
  return { dir, env }
}

export interface BlockRun {
  code: number | null
  output: string
}

/** Run the block with bash -e in the place; its output is stdout and stderr together. */
export function runBlock(script: string, place: Place): BlockRun {
  const res = spawnSync('bash', ['-e', '-c', script], {
    cwd: place.dir,
    env: place.env,
    encoding: 'utf8',
    // a guard against a block that hangs, not a bound on speed
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024
  })
  return { code: res.status, output: `${res.stdout ?? ''}${res.stderr ?? ''}${res.error ? `\n${String(res.error)}` : ''}` }
}
