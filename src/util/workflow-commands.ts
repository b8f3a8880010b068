/**
 * Keeping the Actions runner from acting on workflow commands (`::add-mask::`,
 * `::error::`, `::set-output`, `::stop-commands::`, `##[…]`) inside text
 * evalgate prints but does not control: model output, judge reasons, errors
 * quoting them. The runner's own switch does it: after a line
 * `::stop-commands::<token>` it acts on no command until a line `::<token>::`,
 * and the token is random, so the text cannot end the pause itself. One
 * mechanism for the action's log and for the CLI's streams.
 */
import { randomUUID } from 'node:crypto'

/** The two lines of one pause: the first stops command processing, the second resumes it. */
export interface CommandPause {
  stop: string
  resume: string
}

export function commandPause(): CommandPause {
  const token = randomUUID().replace(/-/g, '')
  return { stop: `::stop-commands::${token}`, resume: `::${token}::` }
}

/** Write `text` (through `write`, one call per line written) so that no command in it is acted on. */
export function writeUntrusted(write: (line: string) => void, text: string): void {
  const pause = commandPause()
  write(pause.stop)
  try {
    write(text)
  } finally {
    write(pause.resume)
  }
}

export interface TextStream {
  write(text: string): unknown
  isTTY?: boolean
}

interface ConsoleIO {
  stdout: TextStream
  stderr: TextStream
  /** where `exit` is listened for, so that a process ending abruptly still resumes commands */
  process?: Pick<NodeJS.Process, 'on' | 'off'>
}

/**
 * The streams of `io`, paused for as long as the command runs: before the
 * first text on each stream comes the stop line (each stream's own, since the
 * runner reads the two pipes separately), and `resume()` ends the pause on
 * the stream written last, after everything else. Writes after that are
 * paused one by one. Later steps of the job get the runner back as it was.
 */
export function pauseWorkflowCommands<IO extends ConsoleIO>(io: IO): { io: IO; resume(): void } {
  const pause = commandPause()
  let resumed = false
  let last: Guarded | undefined

  class Guarded implements TextStream {
    private started = false
    /** whether the stream's text so far ends a line: the resume line must begin one */
    atLineStart = true
    constructor(readonly inner: TextStream) {}
    get isTTY() {
      return this.inner.isTTY
    }
    write(text: string): unknown {
      if (text === '') return this.inner.write(text)
      if (resumed) {
        const line = this.atLineStart ? '' : '\n'
        this.atLineStart = true
        return this.inner.write(`${line}${framed(text)}`)
      }
      if (!this.started) {
        this.started = true
        this.inner.write(`${pause.stop}\n`)
      }
      last = this
      this.atLineStart = text.endsWith('\n')
      return this.inner.write(text)
    }
  }
  const framed = (text: string) => {
    const once = commandPause()
    return `${once.stop}\n${text}${text.endsWith('\n') ? '' : '\n'}${once.resume}\n`
  }

  const stdout = new Guarded(io.stdout)
  const stderr = new Guarded(io.stderr)
  const resume = () => {
    if (resumed) return
    resumed = true
    io.process?.off('exit', resume)
    if (last) last.inner.write(`${last.atLineStart ? '' : '\n'}${pause.resume}\n`)
  }
  io.process?.on('exit', resume)
  return { io: { ...io, stdout, stderr }, resume }
}
