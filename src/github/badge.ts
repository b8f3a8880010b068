/**
 * The pass-rate badge: its text, its colour band and a flat SVG (shields.io
 * look). Pure; the action writes the outputs and the file.
 */

export type BadgeColor = 'brightgreen' | 'green' | 'yellowgreen' | 'yellow' | 'orange' | 'red' | 'lightgrey'

const HEX: Record<BadgeColor, string> = {
  brightgreen: '#4c1',
  green: '#97ca00',
  yellowgreen: '#a4a61d',
  yellow: '#dfb317',
  orange: '#fe7d37',
  red: '#e05d44',
  lightgrey: '#9f9f9f'
}

/** "92.5%", "100%"; "n/a" when nothing ran. */
export function badgeMessage(passRate: number, total: number): string {
  if (total === 0) return 'n/a'
  const percent = Math.round(passRate * 1000) / 10
  return `${Number.isInteger(percent) ? percent.toFixed(0) : percent.toFixed(1)}%`
}

/** Colour bands of the pass rate, lower bounds inclusive. */
const BANDS: Array<[number, BadgeColor]> = [
  [0.95, 'brightgreen'],
  [0.9, 'green'],
  [0.8, 'yellowgreen'],
  [0.7, 'yellow'],
  [0.5, 'orange'],
  [0, 'red']
]

export function badgeColor(passRate: number, total: number): BadgeColor {
  if (total === 0 || !Number.isFinite(passRate)) return 'lightgrey'
  return BANDS.find(([min]) => passRate >= min)?.[1] ?? 'red'
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Rough width of 11px Verdana: good enough for short labels. */
function textWidth(text: string): number {
  return Math.round([...text].reduce((w, c) => w + (/[ilI.:,;|!'1]/.test(c) ? 3.5 : /[mwMW%@]/.test(c) ? 10 : 7), 0)) + 10
}

export function badgeSvg(label: string, message: string, color: BadgeColor): string {
  const lw = textWidth(label)
  const mw = textWidth(message)
  const w = lw + mw
  const l = escapeXml(label)
  const m = escapeXml(message)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${l}: ${m}">
<title>${l}: ${m}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${mw}" height="20" fill="${HEX[color]}"/><rect width="${w}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${lw / 2}" y="15" fill="#010101" fill-opacity=".3">${l}</text><text x="${lw / 2}" y="14">${l}</text>
<text x="${lw + mw / 2}" y="15" fill="#010101" fill-opacity=".3">${m}</text><text x="${lw + mw / 2}" y="14">${m}</text>
</g>
</svg>
`
}
