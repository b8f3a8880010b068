/**
 * Reading one file out of a downloaded artifact zip, in memory. Artifacts of
 * other runs are untrusted (a fork's run can upload anything), so nothing is
 * extracted to disk: entries whose names would escape a folder, symlinks,
 * encrypted or zip64 entries and oversized contents make the whole archive
 * unreadable, and every entry read is checked against its CRC.
 *
 * Kept rather than yauzl, for what yauzl leaves to its caller (yauzl 3.4.0,
 * Node 20.20, 2026-12-02, `node scripts/measure-infra.mjs`): it never checks
 * the CRC (a corrupted run.json reads as good), hands over a symbolic link and
 * a 200 MB entry like any other, and adds 26.5 KB to a minified bundle (this
 * file: 3.8 KB; 56 and 9 KB unminified, as ncc bundles dist/). Both refuse
 * `..`, absolute and backslash names and truncated archives, and stop a bomb
 * that understates its size within 16 KB. Speed decides nothing: a
 * 100,000-case baseline (run.json 54.5 MB, zipped 3.1 MB) reads in 1.1–1.4 s
 * here and 1.2–2.3 s with yauzl plus a CRC check (two runs, medians of 5 and
 * 7, on a loaded 2-core machine).
 */
import { Readable } from 'node:stream'
import zlib from 'node:zlib'

export class ZipError extends Error {
  override name = 'ZipError'
}

export interface ZipEntry {
  name: string
  method: number
  flags: number
  crc: number
  compressedSize: number
  size: number
  offset: number
  symlink: boolean
}

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50
const STORED = 0
const DEFLATED = 8

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (the zip one, reflected 0xEDB88320), continued from `crc`: for Node before 20.15/22.2, which lack zlib.crc32. */
export function tableCrc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

/** The check is never skipped: engines says Node >= 20, and zlib.crc32 came only with 20.15. */
const crc32: (data: Uint8Array, crc: number) => number = typeof zlib.crc32 === 'function' ? zlib.crc32 : tableCrc32

/** A name that, extracted, would stay inside the folder it is extracted to. */
export function isSafeEntryName(name: string): boolean {
  if (name === '' || name.includes('\\') || name.includes('\0')) return false
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return false
  return !name.split('/').some((part) => part === '..')
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // the record is 22 bytes plus a comment of up to 65535
  const stop = Math.max(0, zip.length - 22 - 0xffff)
  for (let i = zip.length - 22; i >= stop; i--) {
    if (zip.readUInt32LE(i) === EOCD) return i
  }
  throw new ZipError('not a zip archive (no end of central directory)')
}

export function listZip(zip: Buffer): ZipEntry[] {
  if (zip.length < 22) throw new ZipError('not a zip archive (too short)')
  const end = findEndOfCentralDirectory(zip)
  const count = zip.readUInt16LE(end + 10)
  const size = zip.readUInt32LE(end + 12)
  const start = zip.readUInt32LE(end + 16)
  if (count === 0xffff || start === 0xffffffff || size === 0xffffffff) throw new ZipError('zip64 archives are not supported')
  if (start + size > end) throw new ZipError('the central directory lies outside the archive')
  const entries: ZipEntry[] = []
  let at = start
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== CENTRAL) throw new ZipError(`entry ${i}: bad central directory header`)
    const madeBy = zip.readUInt16LE(at + 4) >> 8
    const flags = zip.readUInt16LE(at + 8)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const mode = zip.readUInt32LE(at + 38) >>> 16
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1')
    const entry: ZipEntry = {
      name,
      method: zip.readUInt16LE(at + 10),
      flags,
      crc: zip.readUInt32LE(at + 16),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      offset: zip.readUInt32LE(at + 42),
      // unix hosts keep the file mode in the high half of the external attributes
      symlink: madeBy === 3 && (mode & 0o170000) === 0o120000
    }
    if (!isSafeEntryName(name)) throw new ZipError(`entry "${name.slice(0, 100)}" would escape the folder it is extracted to`)
    if (entry.symlink) throw new ZipError(`entry "${name}" is a symbolic link`)
    if (flags & 1) throw new ZipError(`entry "${name}" is encrypted`)
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.offset === 0xffffffff)
      throw new ZipError(`entry "${name}" is zip64, not supported`)
    entries.push(entry)
    at += 46 + nameLength + extraLength + commentLength
  }
  return entries
}

/**
 * The bytes of one entry a piece at a time, at most `maxBytes` of them in all,
 * checked against the directory's size and CRC once all are read: a 64 MB
 * record is never one buffer.
 */
export async function* zipEntryChunks(zip: Buffer, entry: ZipEntry, maxBytes: number): AsyncGenerator<Buffer> {
  if (entry.size > maxBytes) throw new ZipError(`"${entry.name}" is ${entry.size} bytes, more than the ${maxBytes} allowed`)
  const at = entry.offset
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) throw new ZipError(`"${entry.name}": bad local header`)
  const dataStart = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28)
  const dataEnd = dataStart + entry.compressedSize
  if (dataEnd > zip.length) throw new ZipError(`"${entry.name}": data runs past the end of the archive`)
  const raw = zip.subarray(dataStart, dataEnd)
  if (entry.method !== STORED && entry.method !== DEFLATED) throw new ZipError(`"${entry.name}": compression method ${entry.method} is not supported`)
  const pieces = entry.method === STORED ? [raw] : Readable.from([raw]).pipe(zlib.createInflateRaw())
  let size = 0
  let crc = 0
  try {
    for await (const piece of pieces as AsyncIterable<Buffer>) {
      size += piece.length
      // the directory may lie about the size (a zip bomb): inflating stops as soon as it passes the declared
      // size, itself within maxBytes, rather than at maxBytes (measured: 128 MB inflated for a 1 KB claim)
      if (size > entry.size) throw new ZipError(`"${entry.name}" inflates past the ${entry.size} bytes its directory entry declares`)
      crc = crc32(piece, crc)
      yield piece
    }
  } catch (err) {
    if (err instanceof ZipError) throw err
    throw new ZipError(`"${entry.name}": cannot inflate (${(err as Error).message})`)
  } finally {
    if (pieces instanceof Readable) pieces.destroy()
  }
  if (size !== entry.size) throw new ZipError(`"${entry.name}": ${size} bytes, the directory says ${entry.size}`)
  if (crc >>> 0 !== entry.crc >>> 0) throw new ZipError(`"${entry.name}": CRC mismatch (corrupt archive)`)
}
