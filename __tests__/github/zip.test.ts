import { crc32, deflateRawSync } from 'node:zlib'
import { describe, expect, it } from '@jest/globals'
import { isSafeEntryName, listZip, tableCrc32, zipEntryChunks, ZipError, type ZipEntry } from '../../src/github/zip.js'
import { zipOf } from '../__fixtures__/github-server.js'

/** Patch every occurrence of a same-length name: archiver refuses to write unsafe names itself. */
function rename(zip: Buffer, from: string, to: string): Buffer {
  const out = Buffer.from(zip)
  let at = out.indexOf(from)
  while (at !== -1) {
    out.write(to, at)
    at = out.indexOf(from, at + 1)
  }
  return out
}

/** All of an entry, read as the record reader reads it: a piece at a time. */
async function readZipEntry(zip: Buffer, entry: ZipEntry, maxBytes: number): Promise<Buffer> {
  const pieces: Buffer[] = []
  for await (const piece of zipEntryChunks(zip, entry, maxBytes)) pieces.push(piece)
  return Buffer.concat(pieces)
}

describe('isSafeEntryName', () => {
  it.each([
    ['run.json', true],
    ['dir/run.json', true],
    ['..json', true],
    ['../run.json', false],
    ['a/../../run.json', false],
    ['/etc/passwd', false],
    ['C:/x', false],
    ['a\\b', false],
    ['', false]
  ])('%s → %s', (name, safe) => {
    expect(isSafeEntryName(name)).toBe(safe)
  })
})

describe('listZip and zipEntryChunks', () => {
  it('read what archiver wrote', async () => {
    const text = JSON.stringify({ hello: 'world'.repeat(1000) })
    const zip = await zipOf({ 'run.json': text, 'report.md': '# hi' })
    const entries = listZip(zip)
    expect(entries.map((e) => e.name).sort()).toEqual(['report.md', 'run.json'])
    const entry = entries.find((e) => e.name === 'run.json')!
    expect((await readZipEntry(zip, entry, 1 << 20)).toString()).toBe(text)
  })

  it('hands a large entry over in pieces that join to its content', async () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `line ${i} ✓`).join('\n')
    const zip = await zipOf({ 'run.json': text })
    const pieces: Buffer[] = []
    for await (const piece of zipEntryChunks(zip, listZip(zip)[0]!, 1 << 20)) pieces.push(piece)
    expect(pieces.length).toBeGreaterThan(1)
    expect(Buffer.concat(pieces).toString()).toBe(text)
  })

  it('refuses an entry larger than allowed before inflating it', async () => {
    const zip = await zipOf({ 'run.json': 'x'.repeat(10_000) })
    const [entry] = listZip(zip)
    await expect(readZipEntry(zip, entry!, 1000)).rejects.toThrow(/10000 bytes, more than the 1000 allowed/)
  })

  it('refuses a zip bomb whose directory understates the size', async () => {
    const zip = await zipOf({ 'run.json': 'x'.repeat(100_000) })
    const [entry] = listZip(zip)
    await expect(readZipEntry(zip, { ...entry!, size: 10 }, 1000)).rejects.toThrow(/inflates past the 10 bytes its directory entry declares/)
  })

  it('stops inflating a bomb at its declared size, not at the limit', async () => {
    const zip = await zipOf({ 'run.json': Buffer.alloc(20 * 1024 * 1024) })
    const [entry] = listZip(zip)
    let inflated = 0
    const read = async () => {
      for await (const piece of zipEntryChunks(zip, { ...entry!, size: 1024 }, 64 * 1024 * 1024)) inflated += piece.length
    }
    await expect(read()).rejects.toThrow(/inflates past the 1024 bytes/)
    // one inflated piece past the claim at most (zlib hands them over 16 KiB at a time), not the 64 MB allowed
    expect(inflated).toBeLessThanOrEqual(64 * 1024)
  })

  it('detects corrupt data by its CRC', async () => {
    const zip = await zipOf({ 'run.json': 'stored text that will be altered' })
    const [entry] = listZip(zip)
    const data = Buffer.from(zip)
    // flip a byte inside the compressed data
    const start = entry!.offset + 30 + data.readUInt16LE(entry!.offset + 26) + data.readUInt16LE(entry!.offset + 28)
    data[start + 2] = data[start + 2]! ^ 0xff
    await expect(readZipEntry(data, entry!, 1 << 20)).rejects.toThrow(ZipError)
  })

  it.each([
    ['../x.json', 'xx/x.json', /would escape/],
    ['/abs.json', 'a/abs.json', /would escape/]
  ])('refuses the whole archive for an entry named %s', async (evil, safe, message) => {
    const zip = rename(await zipOf({ [safe]: '{}', 'run.json': '{}' }), safe, evil)
    expect(() => listZip(zip)).toThrow(message)
  })

  it.each([
    ['nothing', Buffer.alloc(0)],
    ['text', Buffer.from('{"schemaVersion":1}')],
    ['a truncated zip', Buffer.from('PK\x03\x04' + 'x'.repeat(100))]
  ])('says %s is not a zip', (_label, bytes) => {
    expect(() => listZip(bytes)).toThrow(/not a zip archive/)
  })

  it('reads a hand-made deflated entry, checking its CRC', async () => {
    const content = Buffer.from('hand made')
    const zip = (crc: number) => {
      const data = deflateRawSync(content)
      const name = Buffer.from('run.json')
      const local = Buffer.alloc(30)
      local.writeUInt32LE(0x04034b50, 0)
      local.writeUInt16LE(8, 8)
      local.writeUInt32LE(crc, 14)
      local.writeUInt32LE(data.length, 18)
      local.writeUInt32LE(content.length, 22)
      local.writeUInt16LE(name.length, 26)
      const central = Buffer.alloc(46)
      central.writeUInt32LE(0x02014b50, 0)
      central.writeUInt16LE(8, 10)
      central.writeUInt32LE(crc, 16)
      central.writeUInt32LE(data.length, 20)
      central.writeUInt32LE(content.length, 24)
      central.writeUInt16LE(name.length, 28)
      const end = Buffer.alloc(22)
      end.writeUInt32LE(0x06054b50, 0)
      end.writeUInt16LE(1, 8)
      end.writeUInt16LE(1, 10)
      end.writeUInt32LE(central.length + name.length, 12)
      end.writeUInt32LE(local.length + name.length + data.length, 16)
      return Buffer.concat([local, name, data, central, name, end])
    }
    const good = zip(crc32(content))
    expect((await readZipEntry(good, listZip(good)[0]!, 100)).toString()).toBe('hand made')
    const bad = zip((crc32(content) ^ 1) >>> 0)
    await expect(readZipEntry(bad, listZip(bad)[0]!, 100)).rejects.toThrow(/CRC mismatch/)
  })

  it('refuses a stored entry whose CRC does not match, though its size does', async () => {
    const zip = await zipOf({ 'run.json': 'x' })
    const [entry] = listZip(zip)
    await expect(readZipEntry(zip, { ...entry!, crc: (entry!.crc ^ 1) >>> 0 }, 100)).rejects.toThrow(/CRC mismatch/)
  })
})

describe('tableCrc32 (for Node without zlib.crc32)', () => {
  it('gives the check value of the zip CRC-32', () => {
    expect(tableCrc32(Buffer.from('123456789'))).toBe(0xcbf43926)
    expect(tableCrc32(Buffer.alloc(0))).toBe(0)
  })

  it('agrees with zlib.crc32, also continued piece by piece', () => {
    const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) & 0xff))
    expect(tableCrc32(data)).toBe(crc32(data))
    expect(tableCrc32(data.subarray(1234), tableCrc32(data.subarray(0, 1234)))).toBe(crc32(data))
  })
})
