/**
 * Problems in the config and dataset, found in one pass rather than one per run: three broken dataset lines
 * are three lines of one message, not three runs to find them.
 */
import { ConfigError, inFile } from '../errors.js'

/** How many problems one message lists; reading stops once that many are found. */
export const MAX_PROBLEMS = 20

/** Thrown once MAX_PROBLEMS are found: reading stops there, and no collector adds it to itself again. */
class ProblemLimit extends ConfigError {
  override name = 'ConfigError'
}

export class Problems {
  private readonly errors: ConfigError[] = []
  private readonly lines: string[] = []

  /** @param file names the errors that name no file (a dataset pattern that matches nothing is the config's) */
  constructor(private readonly file?: string) {}

  get count(): number {
    return this.lines.length
  }

  /** Keep a user error and go on; any other error is rethrown, and so is the report once MAX_PROBLEMS are kept. */
  add(err: unknown): void {
    if (err instanceof ProblemLimit || !(err instanceof ConfigError)) throw err
    const error = (this.file === undefined ? err : inFile(err, this.file)) as ConfigError
    this.errors.push(error)
    this.lines.push(...problemLines(error))
    if (this.lines.length >= MAX_PROBLEMS) throw this.report(true)
  }

  /** `work`'s value, or undefined when it threw a user error (kept). */
  attempt<T>(work: () => T): T | undefined {
    try {
      return work()
    } catch (err) {
      this.add(err)
      return undefined
    }
  }

  async attemptAsync<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work()
    } catch (err) {
      this.add(err)
      return undefined
    }
  }

  /** Throw what was found, if anything: one problem as its own error, several as one message listing them. */
  throwIfAny(): void {
    if (this.lines.length > 0) throw this.report(false)
  }

  private report(stopped: boolean): ConfigError {
    if (!stopped && this.errors.length === 1) return this.errors[0]!
    const shown = this.lines.slice(0, MAX_PROBLEMS)
    const head = stopped
      ? `the first ${MAX_PROBLEMS} problems in the config and dataset (reading stopped there; fix these and run again):`
      : `${shown.length} problems in the config and dataset:`
    const body = shown.map((line) => `  - ${line.replace(/\n/g, '\n    ')}`).join('\n')
    const Kind = stopped ? ProblemLimit : ConfigError
    const error = new Kind(`${head}\n${body}`, this.errors[0]!.file)
    error.problems = shown
    return error
  }
}

/** The separate problems an error reports: a schema's issues one by one, else its message. */
function problemLines(err: ConfigError): string[] {
  return err.problems && err.problems.length > 0 ? err.problems : [err.message]
}
