/** Every string inside a JSON-like value passed through `f` (secrets masked out of a record or a report); the rest copied as it is. */
export function mapStrings<T>(value: T, f: (text: string) => string): T {
  if (typeof value === 'string') return f(value) as T
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T
  }
  return value
}
