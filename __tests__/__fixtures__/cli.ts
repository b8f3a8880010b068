import { writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { main, type CliIO } from '../../src/cli.js'
import { tempDir } from './temp.js'

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Run the CLI in-process with captured streams. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = {}, extra: Partial<CliIO> = {}): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const io: CliIO = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    ...extra
  }
  const code = await main(argv, io)
  return { code, stdout, stderr }
}

/** A temp folder with the given files (relative path → content), removed after the test file. */
export function tempProject(files: Record<string, string>): string {
  const dir = tempDir('evalgate-test-')
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
  return dir
}
