import { writeTextAtomic } from './json-writer.js'

/** Write a file whole or not at all: a reader never sees half a record. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await writeTextAtomic(file, [content])
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
