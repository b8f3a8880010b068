/**
 * Splits a `target.command` string into argv the way a POSIX shell splits words
 * (quotes and backslashes), without being a shell: nothing is expanded or run.
 * `${VAR}` is left in place for expandVars; globs, `~` and `$VAR` stay literal.
 */
import { ConfigError } from '../errors.js'

/**
 * Unquoted characters that only mean something to a shell (pipes, redirects,
 * command lists, substitution). They are refused rather than passed on as
 * arguments, so `node a.js | tee log` fails loudly instead of running oddly.
 */
const SHELL_OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '`'])

/** Inside double quotes a backslash escapes only these (POSIX); elsewhere it stays. */
const DOUBLE_QUOTE_ESCAPABLE = new Set(['$', '`', '"', '\\', '\n'])

const WHITESPACE = new Set([' ', '\t', '\n', '\r'])

export function splitArgv(command: string, where = 'target.command'): string[] {
  const words: string[] = []
  // null between words; '' is a real (empty) word once a quote has opened one
  let word: string | null = null
  let i = 0
  const fail = (what: string): never => {
    throw new ConfigError(`${where}: ${what} in ${JSON.stringify(command)}`, undefined, where)
  }
  while (i < command.length) {
    const ch = command[i]
    if (WHITESPACE.has(ch)) {
      if (word !== null) words.push(word)
      word = null
      i++
    } else if (ch === "'") {
      const end = command.indexOf("'", i + 1)
      if (end === -1) fail(`unterminated single quote at position ${i}`)
      word = (word ?? '') + command.slice(i + 1, end)
      i = end + 1
    } else if (ch === '"') {
      const [text, next] = readDoubleQuoted(command, i + 1, fail)
      word = (word ?? '') + text
      i = next
    } else if (ch === '\\') {
      if (i + 1 >= command.length) fail('lone backslash at the end')
      // backslash-newline is a line continuation: both vanish
      if (command[i + 1] !== '\n') word = (word ?? '') + command[i + 1]
      i += 2
    } else if (SHELL_OPERATORS.has(ch)) {
      fail(`unquoted ${JSON.stringify(ch)} at position ${i} (evalgate never runs a shell; quote it, or use ["sh", "-c", "…"] if you need one)`)
    } else {
      word = (word ?? '') + ch
      i++
    }
  }
  if (word !== null) words.push(word)
  return words
}

/** Reads a double-quoted span starting after its opening quote; returns the text and the index after the closing quote. */
function readDoubleQuoted(command: string, start: number, fail: (what: string) => never): [string, number] {
  let text = ''
  let i = start
  while (i < command.length) {
    const ch = command[i]
    if (ch === '"') return [text, i + 1]
    if (ch === '\\' && i + 1 < command.length && DOUBLE_QUOTE_ESCAPABLE.has(command[i + 1])) {
      if (command[i + 1] !== '\n') text += command[i + 1]
      i += 2
    } else {
      text += ch
      i++
    }
  }
  return fail(`unterminated double quote at position ${start - 1}`)
}
