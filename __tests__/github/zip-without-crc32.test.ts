// The zip reader on a Node without zlib.crc32 (before 20.15 / 22.2, still allowed by
// engines >= 20): the CRC is still checked, by the table-driven fallback.
import { describe, expect, it, jest } from '@jest/globals'
import * as realZlib from 'node:zlib'

jest.unstable_mockModule('node:zlib', () => {
  const { crc32: _absent, ...rest } = realZlib
  return { ...rest, default: { ...rest } }
})

const { listZip, zipEntryChunks } = await import('../../src/github/zip.js')
const { zipOf } = await import('../__fixtures__/github-server.js')
const zlib = await import('node:zlib')

async function read(zip: Buffer, entry: Parameters<typeof zipEntryChunks>[1]): Promise<string> {
  const pieces: Buffer[] = []
  for await (const piece of zipEntryChunks(zip, entry, 1 << 20)) pieces.push(piece)
  return Buffer.concat(pieces).toString()
}

describe('zip reader without zlib.crc32', () => {
  it('runs where zlib.crc32 is missing', () => {
    expect(typeof (zlib.default as { crc32?: unknown }).crc32).toBe('undefined')
  })

  it('reads a sound entry and refuses one whose CRC is wrong', async () => {
    const zip = await zipOf({ 'run.json': 'a record, '.repeat(1000) })
    const [entry] = listZip(zip)
    expect(await read(zip, entry!)).toBe('a record, '.repeat(1000))
    await expect(read(zip, { ...entry!, crc: (entry!.crc ^ 1) >>> 0 })).rejects.toThrow(/CRC mismatch/)
  })
})
