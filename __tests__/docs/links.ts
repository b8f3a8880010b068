/**
 * Links between the docs: every relative link goes to a file that exists,
 * and every #anchor to a heading of that page, as GitHub makes its anchors.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence
    const heading = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const text = heading[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
    const base = text
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

/** The relative links of a markdown file (outside code), with their lines. */
export function linksOf(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = []
  let fence = false
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence
    if (fence) return
    const prose = line.replace(/`[^`]*`/g, '')
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      links.push({ line: i + 1, target })
    }
  })
  return links
}

/** Links from `file` (relative to root) that lead nowhere. */
export function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8')
  const broken: string[] = []
  for (const { line, target } of linksOf(text)) {
    const [where, anchor] = target.split('#') as [string, string | undefined]
    const to = where === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(where))
    if (!existsSync(to)) {
      broken.push(`${file}:${line}: ${target}: no such file`)
      continue
    }
    if (anchor !== undefined && to.endsWith('.md') && !anchorsOf(readFileSync(to, 'utf8')).has(anchor))
      broken.push(`${file}:${line}: ${target}: ${path.relative(root, to)} has no heading with the anchor #${anchor}`)
  }
  return broken
}
