/** A process run to its end without blocking this one: its exit status, output and wall time. Shared by the scripts. */
import { spawn } from 'node:child_process'

export function runProcess(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr, wallMs: performance.now() - t0 }))
  })
}
