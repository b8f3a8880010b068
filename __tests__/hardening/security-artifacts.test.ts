/**
 * Baseline artifacts are a stranger's bytes: downloaded only into a fresh
 * temp folder (removed after), never extracted, and refused whole when an
 * entry could escape that folder. Adds to ../github/zip.test.ts (which covers
 * "../", absolute names, zip bombs, CRC)
 * and ../github/baseline.test.ts (forks, pull requests, other branches and
 * tags are never the baseline; corrupt, truncated or other-schema records are
 * a baseline error): the entry kinds it lacks,
 * and where the download lands.
 */
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { isSafeEntryName, listZip, ZipError } from '../../src/github/zip.js'
import { zipOf } from '../__fixtures__/github-server.js'
import { caseResult, record, sha, tempDir, useFakeGitHub } from '../github/helpers.js'

interface Entry {
  name: string | Buffer
  data?: Buffer
  flags?: number
  /** high byte: the host system (3 = unix) */
  madeBy?: number
  /** unix mode, kept in the high half of the external attributes */
  mode?: number
  size?: number
}

/** A stored (uncompressed) zip written by hand, so that any field can lie. */
function handZip(entries: Entry[], options: { count?: number; centralOffset?: number } = {}): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const e of entries) {
    const name = Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name)
    const data = e.data ?? Buffer.from('{}')
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(e.flags ?? 0, 6)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(e.size ?? data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE((e.madeBy ?? 3) << 8, 4)
    central.writeUInt16LE(e.flags ?? 0, 8)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(e.size ?? data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(options.count ?? entries.length, 8)
  end.writeUInt16LE(options.count ?? entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(options.centralOffset ?? offset, 16)
  return Buffer.concat([...locals, directory, end])
}

describe('zip entries that could land outside the folder, or be something else than a file, refuse the archive', () => {
  it.each([
    ['a parent step after a folder', 'a/../../run.json', /would escape/],
    ['a dot-slash parent', './../run.json', /would escape/],
    ['an absolute path', '/tmp/run.json', /would escape/],
    ['a Windows drive', 'C:/run.json', /would escape/],
    ['a Windows drive with backslashes', 'C:\\run.json', /would escape/],
    ['a backslash parent', '..\\run.json', /would escape/],
    ['a NUL byte', 'run.json\0../../x', /would escape/],
    ['an empty name', '', /would escape/]
  ])('%s (%j)', (_label, name, message) => {
    expect(() => listZip(handZip([{ name }, { name: 'ok.json' }]))).toThrow(message)
  })

  it('a symbolic link, even with a harmless name', () => {
    expect(() => listZip(handZip([{ name: 'run.json', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]))).toThrow(/is a symbolic link/)
  })

  it('an encrypted entry', () => {
    expect(() => listZip(handZip([{ name: 'run.json', flags: 1 }]))).toThrow(/is encrypted/)
  })

  it('a zip64 entry', () => {
    expect(() => listZip(handZip([{ name: 'run.json', size: 0xffffffff }]))).toThrow(/zip64/)
  })

  it('a directory that claims more entries than it holds, or lies outside the archive', () => {
    expect(() => listZip(handZip([{ name: 'run.json' }], { count: 5 }))).toThrow(ZipError)
    expect(() => listZip(handZip([{ name: 'run.json' }], { centralOffset: 1 << 20 }))).toThrow(/outside the archive/)
  })

  it('names that stay inside are read', () => {
    expect(listZip(handZip([{ name: 'run.json' }, { name: 'dir/report.md' }])).map((e) => e.name)).toEqual(['run.json', 'dir/report.md'])
    expect(isSafeEntryName('a/..b/run.json')).toBe(true)
  })
})

describe('the baseline download', () => {
  const gh = useFakeGitHub()

  /** The real artifact client, recording where each download was asked to go and what was there. */
  function recordingClient() {
    const real = new gh.DefaultArtifactClient()
    const downloads: { path: string; emptyBefore: boolean; skipDecompress: boolean | undefined }[] = []
    const client = {
      downloadArtifact: (async (id, options) => {
        const where = options!.path!
        downloads.push({ path: where, emptyBefore: readdirSync(where).length === 0, skipDecompress: options?.skipDecompress })
        return real.downloadArtifact(id, options)
      }) as typeof real.downloadArtifact
    }
    return { client, downloads }
  }

  function query(client: ReturnType<typeof recordingClient>['client'], temp: string) {
    return {
      octokit: gh.context.createOctokit('t0ken', { apiUrl: gh.server.url }),
      client,
      token: 't0ken',
      owner: gh.server.owner,
      repo: gh.server.repo,
      repository: gh.server.repository,
      tempDir: temp,
      workflow: 'evals.yml',
      branch: 'main',
      artifactName: 'evalgate-demo',
      baseSha: null,
      currentRunId: null
    }
  }

  it('goes into a fresh, empty folder of its own, is not extracted, and the folder is removed after', async () => {
    const temp = tempDir()
    const bad = gh.server.addRun({ head_sha: sha(1) })
    gh.server.addArtifact(bad.id, 'evalgate-demo', await zipOf({ 'run.json': JSON.stringify(record([caseResult('a', true)])) }))
    const { client, downloads } = recordingClient()
    const first = await gh.baseline.findBaseline(query(client, temp))
    const second = await gh.baseline.findBaseline(query(client, temp))
    expect([first, second].map((found) => found.status === 'found' && found.record.cases.map((c) => c.id))).toEqual([['a'], ['a']])
    expect(downloads).toHaveLength(2)
    for (const d of downloads) {
      expect(path.dirname(d.path)).toBe(temp)
      expect(d.emptyBefore).toBe(true)
      expect(d.skipDecompress).toBe(true)
      expect(existsSync(d.path)).toBe(false)
    }
    expect(downloads[0]!.path).not.toBe(downloads[1]!.path)
    expect(readdirSync(temp)).toEqual([])
  })

  it.each([
    ['a symlink named run.json', () => handZip([{ name: 'run.json', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]), /is a symbolic link/],
    ['an entry escaping with backslashes', () => handZip([{ name: '..\\..\\run.json' }, { name: 'run.json' }]), /would escape/],
    [
      'a record nested 100,000 levels deep',
      () =>
        zipOf({ 'run.json': JSON.stringify(record([caseResult('a', true, { input: 'DEEP' })])).replace('"DEEP"', '['.repeat(100_000) + ']'.repeat(100_000)) }),
      /nested more than 256 levels deep/
    ],
    [
      'a record holding a case twice',
      () => zipOf({ 'run.json': JSON.stringify(record([caseResult('a', true), caseResult('a', false)])) }),
      /duplicate case key "a"/
    ]
  ])('refuses %s: a baseline error with the reason, nothing written outside its folder', async (_label, bytes, message) => {
    const temp = tempDir()
    const run = gh.server.addRun({ head_sha: sha(2) })
    gh.server.addArtifact(run.id, 'evalgate-demo', await bytes())
    const { client } = recordingClient()
    const result = await gh.baseline.findBaseline(query(client, temp))
    expect(result).toMatchObject({ status: 'error', reason: expect.stringMatching(message) })
    expect(readdirSync(temp)).toEqual([])
    expect(readdirSync(path.dirname(temp)).filter((f) => f === 'run.json')).toEqual([])
  })
})
