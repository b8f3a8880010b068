/**
 * is-sql and contains-sql (src/assertions/sql.ts): dialects, the implicit-alias
 * rule, the allow-lists, fenced blocks, and the config messages, word for word.
 */
import { describe, expect, it } from '@jest/globals'
import { validateAssertion } from '../../src/assertions/index.js'
import type { Assertion } from '../../src/types.js'
import { grade } from './helpers.js'

const isSql = (output: string, value?: unknown) => grade({ type: 'is-sql', ...(value === undefined ? {} : { value }) } as Assertion, output)
const containsSql = (output: string, value?: unknown) => grade({ type: 'contains-sql', ...(value === undefined ? {} : { value }) } as Assertion, output)
const aliasReason = (alias: string, output: string) =>
  `expected output to be valid MySQL ("${alias}" reads as an alias without AS; a missing comma?), got: ${JSON.stringify(output)}`

describe('is-sql', () => {
  it('passes valid SQL of the default dialect, MySQL', async () => {
    expect(await isSql('SELECT name AS nickname FROM users')).toEqual({ type: 'is-sql', passed: true, score: 1, reason: 'output is valid MySQL' })
  })

  it('fails a blank output as empty', async () => {
    expect(await isSql(' \n ')).toMatchObject({ passed: false, score: 0, reason: 'expected output to be valid MySQL (the output is empty), got: " \\n "' })
  })

  it('parses in the dialect asked for', async () => {
    const ilike = "SELECT name FROM users WHERE name ILIKE 'a%'"
    expect((await isSql(ilike, { databaseType: 'PostgreSQL' })).reason).toBe('output is valid PostgreSQL')
    expect((await isSql(ilike)).reason).toMatch(/^expected output to be valid MySQL \(not valid MySQL: Expected /)
  })

  it("keeps the first 160 characters of the parser's message", async () => {
    const output = '```sql\nSELECT 1\n```'
    const { default: sqlParser } = await import('node-sql-parser')
    let message = ''
    try {
      new sqlParser.Parser().astify(output, { database: 'MySQL' })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message.length).toBeGreaterThan(160)
    // is-sql reads the whole output: it does not look inside fences
    expect((await isSql(output)).reason).toBe(`expected output to be valid MySQL (not valid MySQL: ${message.slice(0, 160)}), got: ${JSON.stringify(output)}`)
  })

  it('passes statements without select columns, and select columns that are not column names', async () => {
    expect((await isSql('UPDATE users SET id = 1')).passed).toBe(true)
    expect((await isSql('INSERT INTO t (a, b) VALUES (1, 2)')).passed).toBe(true)
    expect((await isSql('SELECT COUNT(*) total FROM users')).passed).toBe(true)
    expect((await isSql('SELECT * FROM users')).passed).toBe(true)
  })

  it('fails a column aliased without AS, in any statement of several', async () => {
    const output = 'SELECT 1; SELECT name nickname FROM users'
    expect((await isSql(output)).reason).toBe(aliasReason('nickname', output))
  })

  it("does not take MySQL's SELECT modifiers for aliases, in either case", async () => {
    expect((await isSql('SELECT DISTINCT SQL_NO_CACHE name FROM users')).passed).toBe(true)
    expect((await isSql('select distinct sql_calc_found_rows name from users')).passed).toBe(true)
  })

  it('finds AS before the alias however the alias is quoted or spaced', async () => {
    expect((await isSql('SELECT name as   nick FROM users')).passed).toBe(true)
    expect((await isSql('SELECT name AS `nick` FROM users')).passed).toBe(true)
    expect((await isSql("SELECT name AS 'nick' FROM users")).passed).toBe(true)
    expect((await isSql('SELECT name AS "nick" FROM users')).passed).toBe(true)
    expect((await isSql('SELECT name AS [nick] FROM users', { databaseType: 'TransactSQL' })).reason).toBe('output is valid TransactSQL')
  })

  it('reads an alias with regex characters in it literally', async () => {
    expect((await isSql('SELECT name AS "a+b" FROM users')).passed).toBe(true)
    expect((await isSql('SELECT name AS "a(b" FROM users')).passed).toBe(true)
  })

  it('needs the AS for this alias, not another one, nor "as" inside a word', async () => {
    const other = 'SELECT id AS x, name nickname FROM users'
    expect((await isSql(other)).reason).toBe(aliasReason('nickname', other))
    const prefix = 'SELECT name AS nickname, email nick FROM users'
    expect((await isSql(prefix)).reason).toBe(aliasReason('nick', prefix))
    const inWord = 'SELECT has nick FROM t'
    expect((await isSql(inWord)).reason).toBe(aliasReason('nick', inWord))
  })

  it('reports the implicit alias before the allow-lists', async () => {
    const output = 'SELECT name nick FROM orders'
    expect((await isSql(output, { allowedTables: ['select::null::users'] })).reason).toBe(aliasReason('nick', output))
  })
})

describe('allow-lists', () => {
  it('passes SQL that touches only the allowed tables, and names the authority that is missing', async () => {
    const tables = { allowedTables: ['select::null::users'] }
    expect((await isSql('SELECT name FROM users', tables)).passed).toBe(true)
    expect((await isSql('SELECT name FROM orders', tables)).reason).toBe(
      "expected output to be valid MySQL (not allowed: authority = 'select::null::orders' is required in table whiteList to execute SQL = 'SELECT name FROM orders'), got: \"SELECT name FROM orders\""
    )
  })

  it('lets a column allowed with its table be named with or without the table', async () => {
    const columns = { allowedColumns: ['select::users::name'] }
    expect((await isSql('SELECT name FROM users', columns)).passed).toBe(true)
    expect((await isSql('SELECT users.name FROM users', columns)).passed).toBe(true)
    expect((await isSql('SELECT email FROM users', columns)).reason).toBe(
      "expected output to be valid MySQL (not allowed: authority = 'select::null::email' is required in column whiteList to execute SQL = 'SELECT email FROM users'), got: \"SELECT email FROM users\""
    )
  })

  it('checks the tables first, then the columns', async () => {
    expect((await isSql('SELECT name FROM users', { allowedTables: ['select::null::orders'], allowedColumns: ['select::null::id'] })).reason).toContain(
      "not allowed: authority = 'select::null::users' is required in table whiteList"
    )
    expect((await isSql('SELECT name FROM users', { allowedTables: ['select::null::users'], allowedColumns: ['select::null::id'] })).reason).toContain(
      "not allowed: authority = 'select::null::name' is required in column whiteList"
    )
  })
})

describe('contains-sql', () => {
  it('passes an answer that is all SQL', async () => {
    expect(await containsSql('SELECT 1')).toMatchObject({ passed: true, reason: 'output contains valid MySQL' })
  })

  it('reads the fenced blocks of an answer, not its prose', async () => {
    expect((await containsSql('Here:\n```sql\nSELECT 1\n```\nDone.')).reason).toBe('output contains valid MySQL')
    expect((await containsSql('Here:\n  ```sql\n  SELECT 1\n  ```\nDone.')).passed).toBe(true)
    expect((await containsSql('Here:\n```\nSELECT 1\n```   \nDone.')).passed).toBe(true)
    expect((await containsSql('Here:\n```mysql query\nSELECT 1\nFROM dual\n```\nDone.')).passed).toBe(true)
  })

  it('a fence opens and closes only on a line of its own, as in Markdown', async () => {
    // each of these has no fenced block, so the whole answer is read, and it is not SQL
    expect((await containsSql('Here: ```sql\nSELECT 1\n```')).passed).toBe(false)
    expect((await containsSql('```sql\nSELECT 1```\n')).passed).toBe(false)
    expect((await containsSql('```sql\nSELECT 1\n``` and that is all')).passed).toBe(false)
    // the fence that closes is the first one alone on its line
    expect((await containsSql('```sql\nSELECT 1 ```\n```')).passed).toBe(false)
  })

  it('passes when any block is valid, the first or a later one', async () => {
    expect((await containsSql('Try:\n```sql\nSELECT 1\n```\nnot:\n```sql\nSELEC 1\n```')).passed).toBe(true)
    expect((await containsSql('Try:\n```sql\nSELEC 1\n```\nor:\n```sql\nSELECT 1\n```')).passed).toBe(true)
  })

  it('fails when no block is valid, with the last problem found', async () => {
    const syntaxLast = 'Try:\n```sql\nSELECT name nick FROM users\n```\n```sql\nSELEC 1\n```'
    expect((await containsSql(syntaxLast)).reason).toMatch(/^expected output to contain valid MySQL \(not valid MySQL: Expected /)
    const aliasLast = 'Try:\n```sql\nSELEC 1\n```\n```sql\nSELECT name nick FROM users\n```'
    expect((await containsSql(aliasLast)).reason).toBe(
      `expected output to contain valid MySQL ("nick" reads as an alias without AS; a missing comma?), got: ${JSON.stringify(aliasLast)}`
    )
    expect((await containsSql('there is no query here')).passed).toBe(false)
  })
})

describe('config messages', () => {
  const usage = 'is-sql `value` is optional: {databaseType: PostgreSQL, allowedTables: ["select::null::users"], allowedColumns: [...]}'

  it('accepts no value, or the three options', () => {
    expect(validateAssertion({ type: 'is-sql' })).toBeUndefined()
    expect(validateAssertion({ type: 'is-sql', value: null })).toBeUndefined()
    expect(validateAssertion({ type: 'contains-sql', value: { databaseType: 'MySQL', allowedTables: ['a'], allowedColumns: ['b'] } })).toBeUndefined()
  })

  it('names what is wrong with the value', () => {
    expect(validateAssertion({ type: 'is-sql', value: 'PostgreSQL' })).toBe(`${usage}, got the string "PostgreSQL"`)
    expect(validateAssertion({ type: 'is-sql', value: ['PostgreSQL'] })).toBe(`${usage}, got a list`)
    expect(validateAssertion({ type: 'is-sql', value: { databaseType: 'MySQL', database: 'x' } })).toBe(`${usage}; "database" is not one of its keys`)
    expect(validateAssertion({ type: 'is-sql', value: { databaseType: 5 } })).toBe('is-sql `databaseType` must be a name such as MySQL or PostgreSQL')
    expect(validateAssertion({ type: 'is-sql', value: { allowedTables: 'users' } })).toBe('is-sql `allowedTables` must be a list of strings')
    expect(validateAssertion({ type: 'contains-sql', value: { allowedColumns: ['a', 1] } })).toBe('contains-sql `allowedColumns` must be a list of strings')
  })
})
