// node scripts/measure-infra.mjs [--libs DIR] [--cases 100000] [--runs 5] [--only size,zip,hostile,diff]
// The hand-written zip reader (src/github/zip.ts) and Myers diff
// (src/report/diff.ts) against the libraries they stand in for, yauzl and
// diff (jsdiff): bundle size added, speed on the inputs evalgate meets, and
// what each does with hostile input. The libraries are installed into a
// temporary folder with `npm install --prefix` (or taken from --libs), never
// into the project. The figures are written down at the top of each file.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import zlib from 'node:zlib'
import { importFixture } from './fixture.mjs'

const { values } = parseArgs({
  options: {
    libs: { type: 'string' },
    cases: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '5' },
    // some of: size, zip, hostile, diff
    only: { type: 'string', default: 'size,zip,hostile,diff' }
  }
})
const VERSIONS = { yauzl: '3.4.0', diff: '9.0.0' }
const CASES = Number(values.cases)
const RUNS = Number(values.runs)
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
// what download.ts allows a run record to inflate to
const MAX_RECORD_BYTES = 128 * 1024 * 1024

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

/** Median wall time of `fn` over `runs` runs, in ms. */
async function time(fn, runs = RUNS) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await fn()
    times.push(performance.now() - t)
  }
  return median(times)
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`
const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`
const ms = (t) => `${t.toFixed(t < 10 ? 2 : 0)} ms`

// ---------------------------------------------------------------- bundle size

/** The bytes ncc (as scripts/build.mjs runs it) emits for an entry importing `source`, minified or not, and gzipped. */
function nccSize(name, source) {
  const dir = path.join(scratch, name)
  const entry = path.join(scratch, `${name}.mjs`)
  writeFileSync(entry, source)
  const sizes = {}
  for (const minify of [false, true]) {
    const out = path.join(dir, minify ? 'min' : 'plain')
    const args = ['build', entry, '-o', out, '--quiet', '--target', 'es2022', ...(minify ? ['-m'] : [])]
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/@vercel/ncc/dist/ncc/cli.js'), ...args], { stdio: 'ignore' })
    // an ESM entry comes out as index.mjs
    const file = path.join(out, 'index.mjs')
    sizes[minify ? 'min' : 'plain'] = statSync(file).size
    if (!minify) sizes.gzip = zlib.gzipSync(readFileSync(file)).length
  }
  return sizes
}

function bundleSizes(libs) {
  const cache = path.join(ROOT, 'node_modules/.cache/evalgate-scripts')
  const lib = (p) => JSON.stringify(path.join(libs, 'node_modules', p))
  const rows = [
    ['zip: ours (src/github/zip.ts)', `export * from ${JSON.stringify(path.join(cache, 'zip.mjs'))}`],
    ['zip: yauzl (+ pend)', `import yauzl from ${lib('yauzl/index.js')}\nexport default yauzl`],
    ['diff: ours (src/report/diff.ts)', `export * from ${JSON.stringify(path.join(cache, 'diff.mjs'))}`],
    ['diff: jsdiff, diffArrays only', `export { diffArrays } from ${lib('diff/libesm/index.js')}`],
    ['diff: jsdiff, whole package', `export * from ${lib('diff/libesm/index.js')}`]
  ]
  console.log('bundle size (one ncc bundle; the action, CLI and library are three)')
  console.log('| code | ncc | ncc -m | gzip |\n| --- | --- | --- | --- |')
  for (const [label, source] of rows) {
    const s = nccSize(label.replace(/\W+/g, '-'), source)
    console.log(`| ${label} | ${kb(s.plain)} | ${kb(s.min)} | ${kb(s.gzip)} |`)
  }
  console.log()
}

// ---------------------------------------------------------------- zip

/** A run record of `n` cases shaped like the runner's: ids, outputs of a sentence or two, two assertions. */
function runRecord(n) {
  const cases = []
  for (let i = 0; i < n; i++) {
    const id = `case-${String(i).padStart(6, '0')}`
    const passed = i % 13 !== 0
    cases.push({
      id,
      name: `question ${i} about topic ${i % 97}`,
      tags: i % 3 ? ['smoke'] : ['smoke', 'billing'],
      fingerprint: `sha256:${(i * 2654435761).toString(16).padStart(16, '0')}${id}`,
      input: `What is the answer to question number ${i} in the billing FAQ, in one sentence?`,
      passed,
      passFraction: passed ? 1 : 0,
      output: passed
        ? `The answer to question ${i} is that refunds are processed within ${i % 30} business days of the request.`
        : `I am not sure about question ${i}; please contact support.`,
      error: null,
      score: null,
      durationMs: 200 + (i % 800),
      assertions: [
        { type: 'contains', passed, score: passed ? 1 : 0, reason: passed ? 'output contains "refund"' : `expected output to contain "refund"` },
        { type: 'latency', passed: true, score: 1, reason: `${200 + (i % 800)} ms ≤ 5000 ms` }
      ]
    })
  }
  return JSON.stringify({ version: 1, complete: true, summary: { total: n }, cases })
}

async function zipOf(files) {
  // archiver, as @actions/artifact builds its uploads (zlib level 6)
  const archiver = createRequire(path.join(ROOT, 'package.json'))('archiver')
  const archive = archiver('zip', { zlib: { level: 6 } })
  const chunks = []
  archive.on('data', (c) => chunks.push(c))
  const done = new Promise((resolve, reject) => {
    archive.on('end', resolve)
    archive.on('error', reject)
  })
  for (const [name, content] of Object.entries(files)) archive.append(content, { name })
  await archive.finalize()
  await done
  return Buffer.concat(chunks)
}

/** Ours: the entry's bytes counted, the CRC and size checked at the end (as download.ts reads run.json). */
async function readOurs(zip, bytes, name = 'run.json', maxBytes = MAX_RECORD_BYTES) {
  let read = 0
  try {
    const entry = zip.listZip(bytes).find((e) => e.name === name)
    if (!entry) return { outcome: `no "${name}" entry`, read }
    for await (const piece of zip.zipEntryChunks(bytes, entry, maxBytes)) read += piece.length
    return { outcome: 'read', read }
  } catch (err) {
    return { outcome: `rejected: ${err.message}`, read }
  }
}

/** yauzl with its defaults (validateEntrySizes on), optionally adding the CRC check it does not make. */
function readYauzl(yauzl, bytes, { name = 'run.json', crc = false } = {}) {
  return new Promise((resolve) => {
    let read = 0
    const done = (outcome) => resolve({ outcome, read })
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zipfile) => {
      if (err) return done(`rejected: ${err.message}`)
      zipfile.on('error', (e) => done(`rejected: ${e.message}`))
      zipfile.on('end', () => done(`no "${name}" entry`))
      zipfile.on('entry', (entry) => {
        if (entry.fileName !== name) return zipfile.readEntry()
        zipfile.openReadStream(entry, (e, stream) => {
          if (e) return done(`rejected: ${e.message}`)
          let sum = 0
          stream.on('data', (piece) => {
            read += piece.length
            if (crc) sum = zlib.crc32(piece, sum)
          })
          stream.on('error', (e2) => done(`rejected: ${e2.message}`))
          stream.on('end', () => done(crc && sum >>> 0 !== entry.crc32 ? 'rejected: CRC mismatch (our check)' : 'read'))
        })
      })
      zipfile.readEntry()
    })
  })
}

async function zipSpeed(zip, yauzl) {
  const json = runRecord(CASES)
  const bytes = await zipOf({ 'run.json': json })
  console.log(
    `zip: a ${CASES.toLocaleString('en')}-case baseline artifact (run.json ${mb(json.length)}, zipped ${mb(bytes.length)}), run.json read whole; median of ${RUNS}`
  )
  const check = [await readOurs(zip, bytes), await readYauzl(yauzl, bytes), await readYauzl(yauzl, bytes, { crc: true })]
  if (!check.every((r) => r.outcome === 'read' && r.read === Buffer.byteLength(json)))
    throw new Error(`a reader misread the artifact: ${JSON.stringify(check)}`)
  // alternated, so neither gets the warmer machine
  const t = { ours: [], yauzl: [], yauzlCrc: [] }
  for (let i = 0; i < RUNS; i++) {
    t.ours.push(await time(() => readOurs(zip, bytes), 1))
    t.yauzl.push(await time(() => readYauzl(yauzl, bytes), 1))
    t.yauzlCrc.push(await time(() => readYauzl(yauzl, bytes, { crc: true }), 1))
  }
  console.log('| reader | time |\n| --- | --- |')
  console.log(`| ours (list, inflate, size + CRC checked) | ${ms(median(t.ours))} |`)
  console.log(`| yauzl.fromBuffer (no CRC check) | ${ms(median(t.yauzl))} |`)
  console.log(`| yauzl.fromBuffer + zlib.crc32 by the caller | ${ms(median(t.yauzlCrc))} |\n`)
}

/** A zip written field by field, so that each field can lie. */
function craftZip(entries) {
  const locals = []
  const centrals = []
  let offset = 0
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8')
    const method = e.method ?? 8
    const data = method === 8 ? zlib.deflateRawSync(e.data) : e.data
    const crc = e.crc ?? zlib.crc32(e.data)
    const size = e.size ?? e.data.length
    // the local header's fields from "version needed" on stand again in the central one, 2 bytes later
    const common = (header, at) => {
      header.writeUInt16LE(20, at)
      header.writeUInt16LE(0x800, at + 2)
      header.writeUInt16LE(method, at + 4)
      header.writeUInt32LE(crc, at + 10)
      header.writeUInt32LE(data.length, at + 14)
      header.writeUInt32LE(size, at + 18)
      header.writeUInt16LE(name.length, at + 22)
    }
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    common(local, 4)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(((e.madeBy ?? 3) << 8) | 20, 4)
    common(central, 6)
    central.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += 30 + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

async function zipHostile(zip, yauzl) {
  const record = Buffer.from('{"version":1,"cases":[]}')
  const zeros = Buffer.alloc(200 * 1024 * 1024)
  const cases = [
    ['path traversal: "../../run.json"', craftZip([{ name: '../../run.json', data: record }]), '../../run.json'],
    ['absolute name: "/tmp/run.json"', craftZip([{ name: '/tmp/run.json', data: record }]), '/tmp/run.json'],
    ['backslash traversal: "..\\\\run.json"', craftZip([{ name: '..\\run.json', data: record }]), '..\\run.json'],
    ['symbolic link named run.json', craftZip([{ name: 'run.json', data: Buffer.from('/etc/passwd'), mode: 0o120777 }])],
    ['CRC that does not match', craftZip([{ name: 'run.json', data: record, crc: 0x12345678 }])],
    ['bomb: 200 MB of zeros declared as 1 KB', craftZip([{ name: 'run.json', data: zeros, size: 1024 }])],
    ['huge entry: 200 MB declared and real', craftZip([{ name: 'run.json', data: zeros }])],
    ['truncated archive (last 100 bytes cut)', (await zipOf({ 'run.json': runRecord(1000) })).subarray(0, -100)]
  ]
  console.log(`hostile input (run.json read as download.ts reads it: at most ${MAX_RECORD_BYTES / 1048576} MB)`)
  console.log('| archive | ours | yauzl (defaults) |\n| --- | --- | --- |')
  for (const [label, bytes, name] of cases) {
    const a = await readOurs(zip, bytes, name)
    const b = await readYauzl(yauzl, bytes, { name })
    const show = (r) => `${r.outcome.slice(0, 110)}${r.read ? ` (${r.read < 1048576 ? `${r.read} bytes` : mb(r.read)} inflated)` : ''}`
    console.log(`| ${label} | ${show(a)} | ${show(b)} |`)
  }
  console.log()
}

// ---------------------------------------------------------------- diff

/** Edits from jsdiff's change objects, in the shape diffSequences returns. */
function editsOf(changes, a, b) {
  if (changes === undefined) return [...a.map((item) => ({ op: 'delete', item })), ...b.map((item) => ({ op: 'insert', item }))]
  return changes.flatMap((c) => c.value.map((item) => ({ op: c.added ? 'insert' : c.removed ? 'delete' : 'equal', item })))
}

/** The report's lineDiff with jsdiff's diffArrays in place of ours: same tokens, same pairing, same bound on edits. */
function jsdiffLineDiff(jsdiff, maxEdits, before, after) {
  const seq = (a, b) => editsOf(jsdiff.diffArrays(a, b, { maxEditLength: maxEdits }), a, b)
  const words = (t) => t.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? []
  const lines = (t) => t.replace(/\r\n?/g, '\n').split('\n')
  const result = seq(lines(before), lines(after)).map((e) => ({ op: e.op, text: e.item }))
  for (let i = 0; i < result.length;) {
    if (result[i].op !== 'delete') {
      i++
      continue
    }
    let d = 0
    while (result[i + d]?.op === 'delete') d++
    let n = 0
    while (result[i + d + n]?.op === 'insert') n++
    if (d === n) for (let j = 0; j < d; j++) result[i + j].words = seq(words(result[i + j].text), words(result[i + d + j].text)).length
    i += d + n
  }
  return result
}

/** A seeded stream of words, so every run diffs the same texts. */
function prose(seed, chars, width = 70) {
  const vocabulary = 'the refund is processed within business days of request customer account billing invoice plan annual monthly support team'.split(' ')
  let x = seed
  const next = () => (x = (x * 1103515245 + 12345) >>> 0) % vocabulary.length
  const lines = []
  let line = ''
  let total = 0
  while (total < chars) {
    const word = vocabulary[next()]
    line += (line ? ' ' : '') + word
    if (line.length >= width) {
      lines.push(`${line}.`)
      total += line.length + 2
      line = ''
    }
  }
  return lines
}

/** `lines` with every `every`th line edited: a word changed, and now and then a line inserted or removed. */
function edited(lines, every) {
  const out = []
  lines.forEach((l, i) => {
    if (i % every !== every - 1) return out.push(l)
    if (i % (3 * every) === every - 1) return out.push(l, 'An added sentence about the billing plan.')
    if (i % (3 * every) === 2 * every - 1) return undefined
    out.push(l.replace(/\b\w+\b/, 'CHANGED'))
  })
  return out
}

function diffSpeed(ours, jsdiff) {
  const small = prose(1, 2 * 1024)
  const large = prose(2, 50 * 1024)
  const json = JSON.stringify(Array.from({ length: 700 }, (_, i) => ({ id: i, label: `item ${i}`, ok: i % 3 === 0 })))
  const inputs = [
    ['2 KB answer, 3 lines edited', small.join('\n'), edited(small, 10).join('\n')],
    ['50 KB answer, 1 line in 20 edited', large.join('\n'), edited(large, 20).join('\n')],
    ['pathological: two unrelated 50 KB texts', large.join('\n'), prose(3, 50 * 1024).join('\n')],
    [
      'pathological: 50 KB one-line JSON, 1 value in 7 changed',
      json,
      json.replace(/"ok":(true|false)/g, (m, v, at) => (at % 7 < 3 ? `"ok":${v !== 'true'}` : m))
    ]
  ]
  console.log(`diff: the HTML report's lineDiff (lines, then words of paired lines), bound ${ours.MAX_EDITS} edits; median of ${RUNS * 4}`)
  console.log('| input | ours | jsdiff diffArrays | same edits |\n| --- | --- | --- | --- |')
  for (const [label, before, after] of inputs) {
    const a = ours.lineDiff(before, after)
    const b = jsdiffLineDiff(jsdiff, ours.MAX_EDITS, before, after)
    // both minimal within the bound: the same number of changed lines (ties may pick other lines)
    const changedLines = (d) => d.filter((l) => l.op !== 'equal').length
    const same = changedLines(a) === changedLines(b) ? 'yes' : `no (${changedLines(a)} vs ${changedLines(b)} lines)`
    // alternated, so that both meet the same load on a shared machine
    const t = { ours: [], lib: [] }
    for (let i = 0; i < RUNS * 4; i++) {
      t.ours.push(timeSync(() => ours.lineDiff(before, after)))
      t.lib.push(timeSync(() => jsdiffLineDiff(jsdiff, ours.MAX_EDITS, before, after)))
    }
    console.log(`| ${label} | ${ms(median(t.ours))} | ${ms(median(t.lib))} | ${same} |`)
  }
  console.log()
}

function timeSync(fn) {
  const t = performance.now()
  fn()
  return performance.now() - t
}

// ---------------------------------------------------------------- run

const libs = values.libs ?? mkdtempSync(path.join(tmpdir(), 'evalgate-infra-'))
const scratch = mkdtempSync(path.join(tmpdir(), 'evalgate-infra-build-'))
try {
  if (!values.libs) {
    writeFileSync(path.join(libs, 'package.json'), '{"private": true}\n')
    const specs = Object.entries(VERSIONS).map(([name, version]) => `${name}@${version}`)
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', libs, ...specs], { stdio: 'ignore' })
  }
  const require = createRequire(path.join(libs, 'package.json'))
  const yauzl = require('yauzl')
  const jsdiff = await import(pathToFileURL(require.resolve('diff')).href)
  const ours = { zip: await importFixture('src/github/zip.ts'), diff: await importFixture('src/report/diff.ts') }

  console.log(`node ${process.version}; yauzl ${VERSIONS.yauzl}, diff ${VERSIONS.diff}; ${new Date().toISOString().slice(0, 10)}\n`)
  const only = new Set(values.only.split(','))
  if (only.has('size')) bundleSizes(libs)
  if (only.has('zip')) await zipSpeed(ours.zip, yauzl)
  if (only.has('hostile')) await zipHostile(ours.zip, yauzl)
  if (only.has('diff')) diffSpeed(ours.diff, jsdiff)
} finally {
  if (!values.libs) rmSync(libs, { recursive: true, force: true })
  rmSync(scratch, { recursive: true, force: true })
}
