// The merge-request note `evalgate gitlab` posts, rendered as GitLab shows
// it, screenshot by headless Chromium, to look at it as a reviewer would.
//
//   node scripts/render-gitlab-note.mjs [out-dir]      (default: ../gitlab-shots)
//
// The note is the one the built CLI (dist/cli/index.js) posts: `evalgate
// gitlab` runs in a merge-request job (GitLab's predefined variables) on a
// copy of the quick start against a stand-in for GitLab's REST API on
// 127.0.0.1 that serves the quick start's committed baseline as the default
// branch's artifact and keeps the note it is sent. No GitLab renderer is
// published on npm, so the markdown goes through Debian's cmark-gfm (GitLab's
// renderer is CommonMark + GFM too) with GitLab's treatment of what GFM
// lacks: `> [!caution]` alerts (GitLab 17.10 and later), drawn with GitLab's
// colours, and a page styled after its notes. Needs /usr/bin/cmark-gfm and
// /usr/bin/chromium.
import { execFile, execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
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

/**
 * Just enough of GitLab's REST API v4 for one merge-request job: the config at
 * the diff base, no tag named main, the baseline by ref, the diff base's date,
 * the token's user, and the merge request's notes (the posted one kept).
 */
function fakeGitLab(quickstart) {
  const baseline = readFileSync(path.join(quickstart, 'baseline.json'), 'utf8')
  const made = Date.parse(JSON.parse(baseline).createdAt)
  const notes = []
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1')
    const send = (status, body, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type })
      res.end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    if (req.headers['private-token'] !== 'glpat-render') return send(401, { message: '401 Unauthorized' })
    const p = url.pathname.replace(/^\/api\/v4/, '')
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      if (p === '/user') return send(200, { id: 4242, username: 'project_4242_bot' })
      if (p === '/projects/7/repository/files/evalgate.yml/raw') return send(200, readFileSync(path.join(quickstart, 'evalgate.yml'), 'utf8'), 'text/plain')
      if (p.startsWith('/projects/7/repository/commits/')) return send(200, { committed_date: new Date(made + 5 * 86_400_000).toISOString() })
      if (p === '/projects/7/jobs/artifacts/main/raw/evalgate-run.json') return send(200, baseline, 'application/octet-stream')
      if (p === '/projects/7/merge_requests/12/notes' && req.method === 'GET') {
        res.setHeader('x-next-page', '')
        return send(200, notes)
      }
      if (p === '/projects/7/merge_requests/12/notes' && req.method === 'POST') {
        const note = { id: notes.length + 1, body: JSON.parse(body).body, author: { id: 4242 }, system: false }
        notes.push(note)
        return send(201, note)
      }
      send(404, { message: '404 Not Found' })
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, notes, url: `http://127.0.0.1:${server.address().port}` })))
}

const gitlab = await fakeGitLab(path.join(ROOT, 'examples/quickstart'))
try {
  const project = path.join(work, 'bot')
  cpSync(path.join(ROOT, 'examples/quickstart'), project, { recursive: true, filter: (file) => !file.endsWith('baseline.json') })
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITLAB_CI: 'true',
    CI: 'true',
    CI_SERVER_URL: gitlab.url,
    CI_API_V4_URL: `${gitlab.url}/api/v4`,
    CI_PROJECT_ID: '7',
    CI_PROJECT_PATH: 'acme/bot',
    CI_PROJECT_URL: `${gitlab.url}/acme/bot`,
    CI_PROJECT_DIR: project,
    CI_DEFAULT_BRANCH: 'main',
    CI_JOB_NAME: 'evals',
    CI_JOB_ID: '5151',
    CI_PIPELINE_ID: '1042',
    CI_PIPELINE_URL: `${gitlab.url}/acme/bot/-/pipelines/1042`,
    CI_COMMIT_SHA: '3e2983e0c1d2b3a4f5e6d7c8b9a0f1e2d3c4b5a6',
    CI_COMMIT_REF_NAME: 'refund-wording',
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_MERGE_REQUEST_IID: '12',
    CI_MERGE_REQUEST_PROJECT_ID: '7',
    CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '7',
    CI_MERGE_REQUEST_DIFF_BASE_SHA: '3f2c1a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39',
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    EVALGATE_GITLAB_TOKEN: 'glpat-render'
  }
  // the gate fails (exit 1): what the note is about
  const code = await new Promise((resolve) =>
    execFile(process.execPath, [path.join(ROOT, 'dist/cli/index.js'), 'gitlab', '--quiet'], { cwd: project, env }, (err) => resolve(err ? err.code : 0))
  )
  if (code !== 1 || gitlab.notes.length !== 1) throw new Error(`evalgate gitlab exited ${code} and posted ${gitlab.notes.length} notes (expected 1 and 1)`)
  const note = gitlab.notes[0].body
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
  gitlab.server.close()
  rmSync(work, { recursive: true, force: true })
}
