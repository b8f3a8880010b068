/**
 * Typed errors. Modules throw these; only cli.ts and main.ts turn them into
 * exit codes and messages (2 for the user's input, 3 for our own bugs).
 */

/** Bad config, dataset or usage: the user can fix it. Exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError'
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
  return String(err)
}
