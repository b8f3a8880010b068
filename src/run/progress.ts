/**
 * Progress on long runs: a line redrawn in place on a terminal, a plain line
 * every few seconds elsewhere (Actions logs), nothing with --quiet.
 */
import type { CaseResult } from '../types.js'

export interface ProgressStream {
  write(text: string): unknown
  isTTY?: boolean
}

export interface Progress {
  onCase(result: CaseResult): void
  finish(): void
}

/** The time left, whole seconds, as `45s`, `16m30s` or `2h05m` (compact: it ends a progress line). */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds))
  if (s < 60) return `${s}s`
  const pad = (n: number) => String(n).padStart(2, '0')
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`
  return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`
}

/** The ETA assumes the rate so far (cases finished per second since the start) holds for the rest. */
export function formatProgress(done: number, total: number, passed: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (done / elapsedMs) * 1000 : 0
  const eta = rate > 0 && done < total ? formatEta((total - done) / rate) : null
  const pct = done ? ((passed / done) * 100).toFixed(1) : '0.0'
  // slow targets (a case every few seconds) still show a rate that is not 0.0
  const rateText = rate >= 10 ? rate.toFixed(0) : rate >= 1 ? rate.toFixed(1) : rate.toFixed(2)
  return `evalgate: ${done}/${total} cases, ${pct}% passed so far, ${rateText} cases/s${eta !== null ? `, ETA ${eta}` : ''}`
}

export function createProgress(total: number, stream: ProgressStream, options: { quiet?: boolean; intervalMs?: number; now?: () => number } = {}): Progress {
  const now = options.now ?? Date.now
  const started = now()
  const tty = stream.isTTY === true
  // a terminal is redrawn often; a log gets a line every few seconds
  const interval = options.intervalMs ?? (tty ? 100 : 5000)
  let done = 0
  let passed = 0
  let last = started
  let drawn = false
  const draw = () => {
    const line = formatProgress(done, total, passed, now() - started)
    stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`)
    drawn = true
  }
  return {
    onCase(result) {
      done++
      if (result.passed) passed++
      if (options.quiet) return
      const t = now()
      if (t - last >= interval) {
        last = t
        draw()
      }
    },
    finish() {
      if (options.quiet) return
      if (tty && drawn) stream.write('\r\x1b[2K')
    }
  }
}
