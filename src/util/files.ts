import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'

/** Write a file whole or not at all: a reader never sees half a record. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, content)
  await rename(tmp, file)
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
