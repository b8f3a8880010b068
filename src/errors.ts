/**
 * Typed errors. Modules throw these; only cli.ts and main.ts turn them into
 * exit codes and messages (2 for the user's input, 3 for our own bugs).
 */

/** Bad config, dataset or usage: the user can fix it. Exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  /** the separate problems the message reports, one line each (a schema's issues), when there are several */
  problems?: string[]
  constructor(
    message: string,
    readonly file?: string,
    readonly where?: string
  ) {
    super(message)
  }
}

/** A run record that cannot be read or is of another schema. Exit code 2. */
export class RecordError extends ConfigError {
  override name = 'RecordError'
}

/** Bad command-line or action usage. Exit code 2. */
export class UsageError extends ConfigError {
  override name = 'UsageError'
}

/** The target failed for one trial: recorded on the case, never stops the run. */
export class TargetError extends Error {
  override name = 'TargetError'
}

export function isUserError(err: unknown): err is ConfigError {
  return err instanceof ConfigError
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  // an error of another realm (a vm context, a worker's) is no instance of this one's Error
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message
  return String(err)
}

/** A ConfigError that does not say which file it is about, said of `file`; any other error unchanged. */
export function inFile(err: unknown, file: string): unknown {
  if (!(err instanceof ConfigError) || err.file !== undefined) return err
  const Kind = err.constructor as typeof ConfigError
  const said = new Kind(`${file}: ${err.message}`, file, err.where)
  if (err.problems) said.problems = err.problems.map((line) => `${file}: ${line}`)
  return said
}

/** Runs `make`; its ConfigErrors (thrown or rejected) that name no file are said of `file`. */
export function attributeTo<T>(file: string, make: () => T): T {
  try {
    const made = make()
    return (made instanceof Promise ? made.catch((err: unknown) => Promise.reject(inFile(err, file))) : made) as T
  } catch (err) {
    throw inFile(err, file)
  }
}
