/** makeDir: mkdir -p that returns where Node's recursive mkdir spins (a dangling symlink, /proc). */
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from '@jest/globals'
import { makeDir } from '../../src/util/dirs.js'
import { tempDir } from '../__fixtures__/temp.js'

describe('makeDir', () => {
  it('makes every missing folder, and does nothing to folders that exist', async () => {
    const dir = tempDir()
    await makeDir(path.join(dir, 'a', 'b', 'c'))
    expect(statSync(path.join(dir, 'a', 'b', 'c')).isDirectory()).toBe(true)
    writeFileSync(path.join(dir, 'a', 'keep.txt'), 'x')
    await makeDir(path.join(dir, 'a', 'b'))
    expect(statSync(path.join(dir, 'a', 'keep.txt')).isFile()).toBe(true)
  })

  it('fails with the path under a dangling symlink, where recursive mkdir never returns', async () => {
    const dir = tempDir()
    symlinkSync(path.join(dir, 'gone'), path.join(dir, 'dangling'))
    await expect(makeDir(path.join(dir, 'dangling', 'out'))).rejects.toThrow(`ENOENT: no such file or directory, mkdir '${path.join(dir, 'dangling', 'out')}'`)
    // the folder asked for is itself the dangling symlink
    await expect(makeDir(path.join(dir, 'dangling'))).rejects.toThrow(`ENOENT: no such file or directory, stat '${path.join(dir, 'dangling')}'`)
  })

  it('fails where a file stands in the way', async () => {
    const dir = tempDir()
    writeFileSync(path.join(dir, 'file'), 'x')
    await expect(makeDir(path.join(dir, 'file', 'sub'))).rejects.toThrow(/ENOTDIR/)
  })

  it('makes folders that appear meanwhile without complaint', async () => {
    const dir = tempDir()
    mkdirSync(path.join(dir, 'x'))
    await Promise.all([makeDir(path.join(dir, 'x', 'y', 'z')), makeDir(path.join(dir, 'x', 'y', 'z'))])
    expect(statSync(path.join(dir, 'x', 'y', 'z')).isDirectory()).toBe(true)
  })
})
