/**
 * One string for each text that recurs from case to case — a tool's name, the
 * reason a passing check gives — so that a record of 100,000 cases holds it
 * once rather than 100,000 times. Bounded: a full table starts again.
 */
export function interner(max: number): (text: string) => string {
  const known = new Map<string, string>()
  return (text) => {
    const seen = known.get(text)
    if (seen !== undefined) return seen
    if (known.size >= max) known.clear()
    known.set(text, text)
    return text
  }
}
