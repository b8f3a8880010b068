// The merge-request note `evalgate gitlab` posts, rendered as GitLab shows
// it, screenshot by headless Chromium, to look at it as a reviewer would.
//
//   node scripts/render-gitlab-note.mjs [out-dir]      (default: ../gitlab-shots)
//
// The note is the quick start against its committed baseline (the built CLI,
// dist/cli/index.js, --report: the same report the note carries, under its
// hidden first line). No GitLab renderer is published on npm, so the markdown
// goes through Debian's cmark-gfm (GitLab's renderer is CommonMark + GFM too)
// with GitLab's treatment of what GFM lacks: `> [!caution]` alerts (GitLab
// 17.10 and later), drawn with GitLab's colours, and a page styled after its
// notes. Needs /usr/bin/cmark-gfm and /usr/bin/chromium.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, '..', 'gitlab-shots'))
mkdirSync(OUT, { recursive: true })
const work = mkdtempSync(path.join(tmpdir(), 'evalgate-gitlab-note-'))

const ALERT_COLOURS = { note: '#1f75cb', tip: '#108548', important: '#7b58cf', warning: '#ab6100', caution: '#dd2b0e' }

/** GitLab turns `> [!kind]` blockquotes into alerts; cmark-gfm leaves them blockquotes. */
function alerts(html) {
  return html.replace(/<blockquote>\n<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\n?([\s\S]*?)<\/blockquote>/gi, (_m, kind, rest) => {
    const k = kind.toLowerCase()
    return `<div class="markdown-alert markdown-alert-${k}"><p class="markdown-alert-title">${k[0].toUpperCase()}${k.slice(1)}</p>\n<p>${rest}</div>`
  })
}

const CSS = `
body { margin: 0; background: #fff; font-family: "GitLab Sans", -apple-system, "Segoe UI", Roboto, "Noto Sans", Ubuntu, sans-serif; font-size: 14px; line-height: 1.5; color: #333238; }
.note { width: 880px; margin: 16px auto; border: 1px solid #dcdcde; border-radius: 4px; }
.note-header { padding: 8px 16px; color: #737278; border-bottom: 1px solid #ececef; }
.note-header b { color: #333238; }
.md { padding: 12px 16px; }
h4 { font-size: 1em; margin: 20px 0 10px; font-weight: 600; }
p, ul, ol, table, pre, blockquote, details, .markdown-alert { margin: 0 0 12px; }
code { font-family: "GitLab Mono", Menlo, "DejaVu Sans Mono", monospace; font-size: 90%; background: #ececef; padding: 2px 4px; border-radius: 4px; }
pre { background: #fbfafd; border: 1px solid #ececef; padding: 8px 12px; border-radius: 4px; overflow: auto; } pre code { background: none; padding: 0; }
table { border-collapse: collapse; } th, td { border: 1px solid #dcdcde; padding: 8px 16px; } th { background: #fbfafd; }
blockquote { color: #535158; border-left: 3px solid #dcdcde; padding: 0 12px; }
.markdown-alert { border-left: 4px solid; padding: 8px 16px; } .markdown-alert > :last-child { margin-bottom: 0; }
.markdown-alert-title { font-weight: 600; margin-bottom: 4px; }
${Object.entries(ALERT_COLOURS)
  .map(([k, c]) => `.markdown-alert-${k} { border-color: ${c}; } .markdown-alert-${k} .markdown-alert-title { color: ${c}; }`)
  .join('\n')}
details summary { cursor: pointer; } sub { font-size: 75%; color: #737278; }
a { color: #1068bf; text-decoration: none; }
`

function chromium(args) {
  const profile = mkdtempSync(path.join(tmpdir(), 'evalgate-chromium-'))
  try {
    return execFileSync('/usr/bin/chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--user-data-dir=${profile}`, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore']
    })
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

try {
  const report = path.join(work, 'report.md')
  const quickstart = path.join(ROOT, 'examples/quickstart')
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'dist/cli/index.js'), 'run', '--baseline', 'baseline.json', '--report', report, '--quiet'], {
      cwd: quickstart,
      stdio: 'ignore'
    })
  } catch (err) {
    if (err.status !== 1) throw err
  }
  const note = `<!-- evalgate:gitlab:evals:quickstart --><!-- evalgate-verdict:fail -->\n${readFileSync(report, 'utf8')}`
  writeFileSync(path.join(OUT, 'note.md'), note)
  const body = execFileSync(
    '/usr/bin/cmark-gfm',
    ['--extension', 'table', '--extension', 'strikethrough', '--extension', 'autolink', '--extension', 'tagfilter', '--unsafe'],
    {
      input: note,
      encoding: 'utf8'
    }
  )
  for (const [name, html] of [
    ['note', alerts(body)],
    ['note-open', alerts(body).replaceAll('<details>', '<details open>')]
  ]) {
    const file = path.join(OUT, `${name}.html`)
    writeFileSync(
      file,
      `<!doctype html><meta charset="utf-8"><title>evalgate note</title><style>${CSS}</style>\n<div class="note"><div class="note-header"><b>evalgate bot</b> @project_4242_bot · commented</div><div class="md">${html}</div></div>`
    )
    chromium([`--screenshot=${path.join(OUT, `${name}.png`)}`, '--window-size=920,2400', pathToFileURL(file).href])
  }
  console.log(`wrote ${OUT}/note.md, note.png and note-open.png`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
