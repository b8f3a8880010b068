/**
 * zod's output for plain data it accepts, without running zod: every line of a
 * JSONL dataset is a case to validate, and zod's object parser allocates a
 * result and an issue list for every key of the schema, given or not (at
 * 100,000 cases of three assertions, half a gigabyte of garbage). Read from the
 * schema itself, for the kinds cases are made of (strict objects, optional,
 * string, number, boolean, enum, unknown, arrays, unions, records); a schema
 * with anything else (defaults, refinements, transforms, formats) is left to
 * zod whole. A value the reader does not vouch for — invalid, or outside what
 * it knows zod's answer for — goes to zod, which decides and explains.
 */
import type { z } from 'zod'

/** The reader's answer when zod must decide. */
export const ZOD_DECIDES: unique symbol = Symbol('zod decides')

type Read = (value: unknown) => unknown

interface Reader {
  read: Read
  /** whether ZOD_DECIDES means zod rejects the value: a union may then try its next option */
  exact: boolean
}

/** The definition fields read here; anything else about a node makes it unsupported. */
interface NodeDef {
  type: string
  checks?: { _zod: { def: CheckDef } }[]
  coerce?: boolean
  innerType?: z.core.$ZodType
  element?: z.core.$ZodType
  options?: z.core.$ZodType[]
  shape?: Record<string, z.core.$ZodType>
  catchall?: z.core.$ZodType
  keyType?: z.core.$ZodType
  valueType?: z.core.$ZodType
}

interface CheckDef {
  check: string
  minimum?: number
  maximum?: number
  value?: number
  inclusive?: boolean
  format?: string
}

const readers = new WeakMap<z.core.$ZodType, Reader | null>()

/** The reader of a schema, made once; null when zod must parse every value of it. */
export function plainReader(schema: z.core.$ZodType): Reader | null {
  let reader = readers.get(schema)
  if (reader === undefined) {
    reader = compile(schema)
    readers.set(schema, reader)
  }
  return reader
}

const defOf = (node: z.core.$ZodType) => node._zod.def as unknown as NodeDef

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/** The nodes being compiled: a schema that contains itself is left to zod. */
const compiling = new Set<z.core.$ZodType>()

function compile(node: z.core.$ZodType): Reader | null {
  if (compiling.has(node)) return null
  compiling.add(node)
  try {
    return compileNode(node)
  } finally {
    compiling.delete(node)
  }
}

function compileNode(node: z.core.$ZodType): Reader | null {
  const def = defOf(node)
  if (def.coerce) return null
  const checks = (def.checks ?? []).map((c) => c._zod.def)
  switch (def.type) {
    case 'string': {
      const length = lengthTest(checks)
      return length && { exact: true, read: (v) => (typeof v === 'string' && length(v.length) ? v : ZOD_DECIDES) }
    }
    case 'number': {
      const test = numberTest(checks)
      return test && { exact: true, read: (v) => (typeof v === 'number' && Number.isFinite(v) && test(v) ? v : ZOD_DECIDES) }
    }
    case 'boolean':
      return checks.length ? null : { exact: true, read: (v) => (typeof v === 'boolean' ? v : ZOD_DECIDES) }
    case 'unknown':
      return checks.length ? null : { exact: true, read: (v) => v }
    case 'enum': {
      const values = node._zod.values
      return checks.length || !values ? null : { exact: true, read: (v) => (values.has(v as never) ? v : ZOD_DECIDES) }
    }
    case 'optional': {
      const inner = def.innerType && compile(def.innerType)
      if (!inner || checks.length || def.innerType!._zod.optin === 'defaulted') return null
      return { exact: inner.exact, read: (v) => (v === undefined ? undefined : inner.read(v)) }
    }
    case 'array':
      return arrayReader(def, checks)
    case 'union':
      return unionReader(def, checks)
    case 'object':
      return objectReader(def, checks)
    case 'record':
      return recordReader(def, checks)
    default:
      return null
  }
}

/** The test of a length for min_length/max_length checks, null for any other check. */
function lengthTest(checks: CheckDef[]): ((n: number) => boolean) | null {
  let min = 0
  let max = Infinity
  for (const c of checks) {
    if (c.check === 'min_length' && typeof c.minimum === 'number') min = Math.max(min, c.minimum)
    else if (c.check === 'max_length' && typeof c.maximum === 'number') max = Math.min(max, c.maximum)
    else return null
  }
  return (n) => n >= min && n <= max
}

/** The test of a number for bounds and integers, null for any other check. */
function numberTest(checks: CheckDef[]): ((n: number) => boolean) | null {
  const tests: ((n: number) => boolean)[] = []
  for (const c of checks) {
    const bound = c.value
    if (c.check === 'greater_than' && typeof bound === 'number') tests.push(c.inclusive ? (n) => n >= bound : (n) => n > bound)
    else if (c.check === 'less_than' && typeof bound === 'number') tests.push(c.inclusive ? (n) => n <= bound : (n) => n < bound)
    else if (c.check === 'number_format' && c.format === 'safeint') tests.push(Number.isSafeInteger)
    else return null
  }
  return (n) => tests.every((t) => t(n))
}

function arrayReader(def: NodeDef, checks: CheckDef[]): Reader | null {
  const element = def.element && compile(def.element)
  const length = lengthTest(checks)
  // an element that may be undefined has rules of its own for the array's tail in zod
  if (!element || !length || def.element!._zod.optin !== undefined || defOf(def.element!).type === 'unknown') return null
  return {
    exact: element.exact,
    read(v) {
      if (!Array.isArray(v) || !length(v.length)) return ZOD_DECIDES
      const out: unknown[] = new Array(v.length)
      for (let i = 0; i < v.length; i++) {
        const item = element.read(v[i])
        if (item === ZOD_DECIDES) return ZOD_DECIDES
        out[i] = item
      }
      return out
    }
  }
}

/** zod's union: the first option that accepts the value. */
function unionReader(def: NodeDef, checks: CheckDef[]): Reader | null {
  if (checks.length || !def.options?.length) return null
  const options = def.options.map(compile)
  if (options.some((o) => o === null)) return null
  const readers = options as Reader[]
  return {
    exact: readers.every((o) => o.exact),
    read(v) {
      for (const option of readers) {
        const out = option.read(v)
        if (out !== ZOD_DECIDES) return out
        // unsure whether this option accepts it: only zod knows which option wins
        if (!option.exact) return ZOD_DECIDES
      }
      return ZOD_DECIDES
    }
  }
}

/** A strict object: its keys in the schema's order, absent optional keys left out, an unknown key left to zod. */
function objectReader(def: NodeDef, checks: CheckDef[]): Reader | null {
  if (checks.length || !def.shape || !def.catchall || defOf(def.catchall).type !== 'never') return null
  const fields: { key: string; read: Read; optional: boolean }[] = []
  for (const [key, child] of Object.entries(def.shape)) {
    const reader = compile(child)
    const { optin, optout } = child._zod
    if (!reader || key === '__proto__' || optin === 'defaulted' || (optin !== undefined && optout !== 'optional')) return null
    fields.push({ key, read: reader.read, optional: optin === 'optional' })
  }
  const known = new Set(fields.map((f) => f.key))
  return {
    exact: false,
    read(v) {
      if (!isPlainRecord(v)) return ZOD_DECIDES
      for (const key in v) if (!known.has(key)) return ZOD_DECIDES
      const out: Record<string, unknown> = {}
      for (const field of fields) {
        if (!Object.hasOwn(v, field.key)) {
          // inherited (zod reads it too) or absent and required: zod's to answer
          if (field.key in v || !field.optional) return ZOD_DECIDES
          continue
        }
        const value = field.read(v[field.key])
        if (value === ZOD_DECIDES) return ZOD_DECIDES
        out[field.key] = value
      }
      return out
    }
  }
}

/** A record of string keys: a copy, keys in their order. */
function recordReader(def: NodeDef, checks: CheckDef[]): Reader | null {
  if (checks.length || !def.keyType || !def.valueType) return null
  const keyDef = defOf(def.keyType)
  const value = compile(def.valueType)
  if (keyDef.type !== 'string' || keyDef.checks?.length || keyDef.coerce || !value) return null
  return {
    exact: false,
    read(v) {
      // zod's own notion of a plain object looks at `constructor`; symbol and hidden keys it reads too
      if (!isPlainRecord(v) || Object.hasOwn(v, 'constructor')) return ZOD_DECIDES
      const keys = Object.keys(v)
      if (Reflect.ownKeys(v).length !== keys.length) return ZOD_DECIDES
      const out: Record<string, unknown> = {}
      for (const key of keys) {
        if (key === '__proto__') return ZOD_DECIDES
        const item = value.read(v[key])
        if (item === ZOD_DECIDES) return ZOD_DECIDES
        out[key] = item
      }
      return out
    }
  }
}
