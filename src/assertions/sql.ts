/**
 * is-sql and contains-sql: the output parses as SQL of a dialect
 * (node-sql-parser; MySQL unless `value.databaseType` says otherwise), and
 * touches only `allowedTables` / `allowedColumns` when those are given
 * (node-sql-parser's authority strings, "select::null::users").
 */
import type { Assertion } from '../types.js'
import { claim, ruled } from './outcome.js'
import type { AssertionHandler, CheckOutcome } from './types.js'
import { kindOf } from './values.js'

interface SqlOptions {
  databaseType: string
  allowedTables?: string[]
  allowedColumns?: string[]
}

type SqlParser = import('node-sql-parser').Parser

let parser: Promise<SqlParser> | undefined

/** Loaded on first use: the parser holds every dialect's grammar, megabytes that most runs never need. */
export function sqlParser(): Promise<SqlParser> {
  parser ??= import('node-sql-parser').then((m) => new m.default.Parser())
  return parser
}

const KEYS = new Set(['databaseType', 'allowedTables', 'allowedColumns'])

function optionsOf(value: unknown): SqlOptions {
  const v = (value ?? {}) as Partial<SqlOptions>
  return { databaseType: v.databaseType ?? 'MySQL', allowedTables: v.allowedTables, allowedColumns: v.allowedColumns }
}

function optionsProblem(a: Assertion): string | undefined {
  const v = a.value
  if (v === undefined || v === null) return undefined
  const usage = `${a.type} \`value\` is optional: {databaseType: PostgreSQL, allowedTables: ["select::null::users"], allowedColumns: [...]}`
  if (typeof v !== 'object' || Array.isArray(v)) return `${usage}, got ${kindOf(v)}`
  const unknown = Object.keys(v).find((k) => !KEYS.has(k))
  if (unknown !== undefined) return `${usage}; "${unknown}" is not one of its keys`
  const o = v as Record<string, unknown>
  if (o.databaseType !== undefined && typeof o.databaseType !== 'string') return `${a.type} \`databaseType\` must be a name such as MySQL or PostgreSQL`
  for (const key of ['allowedTables', 'allowedColumns']) {
    const list = o[key]
    if (list !== undefined && !(Array.isArray(list) && list.every((x) => typeof x === 'string'))) return `${a.type} \`${key}\` must be a list of strings`
  }
  return undefined
}

/** MySQL's SELECT modifiers, which node-sql-parser reads as a column after DISTINCT (`SELECT DISTINCT SQL_NO_CACHE name`). */
const SELECT_MODIFIERS = new Set([
  'high_priority',
  'straight_join',
  'sql_small_result',
  'sql_big_result',
  'sql_buffer_result',
  'sql_no_cache',
  'sql_cache',
  'sql_calc_found_rows'
])

/**
 * A select column aliased without AS (`SELECT first_name last_name`) is valid
 * SQL, but in a model's answer it is almost always a missing comma; promptfoo
 * fails it too. Write `AS` to mean an alias.
 */
function implicitAlias(ast: unknown, sql: string): string | undefined {
  for (const statement of Array.isArray(ast) ? ast : [ast]) {
    const columns = (statement as { columns?: unknown }).columns
    if (!Array.isArray(columns)) continue
    for (const c of columns as Array<{ as?: unknown; expr?: { type?: string; column?: unknown } }>) {
      if (typeof c.as !== 'string' || c.expr?.type !== 'column_ref') continue
      if (typeof c.expr.column === 'string' && SELECT_MODIFIERS.has(c.expr.column.toLowerCase())) continue
      const alias = c.as.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      if (!new RegExp(String.raw`\bas\s+[\x60"'\[]?${alias}\b`, 'i').test(sql)) return `"${c.as}" reads as an alias without AS; a missing comma?`
    }
  }
  return undefined
}

/** Why `sql` is not valid SQL of the dialect, or breaks the allow-lists; undefined when it is fine. */
async function sqlProblem(sql: string, o: SqlOptions): Promise<string | undefined> {
  if (sql.trim() === '') return 'the output is empty'
  const p = await sqlParser()
  const opt = { database: o.databaseType }
  let ast: unknown
  try {
    ast = p.astify(sql, opt)
  } catch (err) {
    return `not valid ${o.databaseType}: ${(err as Error).message.slice(0, 160)}`
  }
  const alias = implicitAlias(ast, sql)
  if (alias) return alias
  // node-sql-parser names an unqualified column's table "null": "update::users::id" also allows `UPDATE users SET id = 1`
  const columns = o.allowedColumns?.flatMap((c) => [c, c.replace(/^([^:]+)::[^:]+::/, '$1::null::')])
  for (const [type, list] of [
    ['table', o.allowedTables],
    ['column', columns]
  ] as const) {
    if (!list) continue
    try {
      p.whiteListCheck(sql, list, { ...opt, type })
    } catch (err) {
      return `not allowed: ${(err as Error).message}`
    }
  }
  return undefined
}

/** The SQL in an answer: its fenced code blocks if it has any, else all of it. */
function sqlCandidates(output: string): string[] {
  const blocks = [...output.matchAll(/^[ \t]*```[^\n`]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map((m) => m[1]!)
  return blocks.length ? blocks : [output]
}

function sqlHandler(contains: boolean): AssertionHandler {
  return {
    negatable: true,
    validate: optionsProblem,
    async run(a, { output }, negated): Promise<CheckOutcome> {
      const o = optionsOf(a.value)
      const what = contains ? claim('contain', `valid ${o.databaseType}`) : claim('be', `valid ${o.databaseType}`)
      let problem: string | undefined = 'no SQL found'
      for (const sql of contains ? sqlCandidates(output) : [output]) {
        problem = await sqlProblem(sql, o)
        if (problem === undefined) break
      }
      return ruled(problem === undefined, negated, output, what, problem)
    }
  }
}

export const sqlAssertions: Record<string, AssertionHandler> = { 'is-sql': sqlHandler(false), 'contains-sql': sqlHandler(true) }
