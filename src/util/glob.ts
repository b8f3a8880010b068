/**
 * promptfoo's glob of names (tool names, span names, argument keys): `*` any
 * run of characters, `?` one, everything else literal; the whole name,
 * ignoring case, as promptfoo matches them.
 */
export function globRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'is'
  )
}

const MAX_GLOBS = 1024
const compiled = new Map<string, RegExp>()

/** Whether `name` matches the glob, compiled once per glob (checks match on every trial). Bounded. */
export function matchesGlob(name: string, glob: string): boolean {
  let re = compiled.get(glob)
  if (!re) {
    re = globRegExp(glob)
    if (compiled.size >= MAX_GLOBS) compiled.clear()
    compiled.set(glob, re)
  }
  return re.test(name)
}
