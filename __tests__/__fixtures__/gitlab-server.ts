/**
 * A fake GitLab on 127.0.0.1 speaking the REST API v4 as its documentation
 * describes it, for the endpoints `evalgate gitlab` uses:
 *
 * - `GET /user`; `GET /projects/:id` (`default_branch`)
 * - `GET /projects/:id/repository/tags/:tag_name`
 * - `GET /projects/:id/repository/files/:file_path/raw?ref=` (the path URL-encoded)
 * - `GET /projects/:id/repository/commits/:sha` (`committed_date`)
 * - `GET /projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path?job=` — the
 *   latest *successful* pipeline of the ref; 404 when that pipeline lacks the
 *   job or the file; a 302 to object storage, which refuses a request that
 *   carries a GitLab token
 * - `GET /projects/:id/jobs?scope[]=success` (newest first) and
 *   `GET /projects/:id/jobs/:job_id/artifacts/*artifact_path`
 * - `GET|POST /projects/:id/merge_requests/:iid/notes`, `PUT …/notes/:note_id`
 *
 * Offset pagination as GitLab sends it: `page`/`per_page` (default 20, at most
 * 100) and the headers X-Page, X-Per-Page, X-Total, X-Total-Pages,
 * X-Next-Page (empty on the last page), X-Prev-Page and Link. Tokens in
 * PRIVATE-TOKEN (a user's) or JOB-TOKEN (artifacts only); anything else is
 * 401 `{"message":"401 Unauthorized"}`. Every request is logged with its
 * headers; any route can be made to fail.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeUser {
  id: number
  username: string
}

export interface FakeJob {
  id: number
  name: string
  status: 'success' | 'failed'
  /** artifact path → content; null: the job kept no artifacts */
  artifacts: Map<string, string> | null
}

export interface FakePipeline {
  id: number
  projectId: string
  ref: string
  tag: boolean
  sha: string
  status: 'success' | 'failed' | 'running'
  jobs: FakeJob[]
}

export interface FakeNote {
  id: number
  body: string
  author: FakeUser
  system: boolean
  created_at: string
  updated_at: string
}

export interface GitLabRequest {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
}

interface Project {
  id: string
  path: string
  defaultBranch: string
  tags: Set<string>
  /** ref → file path → text */
  files: Map<string, Map<string, string>>
  /** sha → committed_date */
  commits: Map<string, string>
}

/** A route's name, for making it fail: see `fail`. */
export type Route = 'user' | 'project' | 'tag' | 'file' | 'commit' | 'artifact-by-ref' | 'jobs' | 'artifact-by-job' | 'notes' | 'note-write' | 'storage'

export class GitLabServer {
  url = ''
  requests: GitLabRequest[] = []
  pipelines: FakePipeline[] = []
  notes = new Map<string, FakeNote[]>()
  /** PRIVATE-TOKEN value → its user */
  users = new Map<string, FakeUser>()
  jobToken = 'job-token-1'
  /** route → status it answers instead (repeats: how many times; Infinity: always) */
  private failures = new Map<Route, { status: number | 'hang'; times: number }>()
  private projects = new Map<string, Project>()
  private server: Server | null = null
  private nextId = 100
  private hanging: ServerResponse[] = []

  get apiUrl(): string {
    return `${this.url}/api/v4`
  }

  id(): number {
    return this.nextId++
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => this.send(res, 500, { message: String((err as Error)?.stack ?? err) }))
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy()
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }

  reset(): void {
    for (const res of this.hanging) res.destroy()
    this.hanging = []
    this.requests = []
    this.pipelines = []
    this.notes.clear()
    this.users.clear()
    this.failures.clear()
    this.projects.clear()
  }

  addProject(id: string, path: string, defaultBranch = 'main'): Project {
    const project: Project = { id, path, defaultBranch, tags: new Set(), files: new Map(), commits: new Map() }
    this.projects.set(id, project)
    return project
  }

  project(id: string): Project {
    const p = this.projects.get(id)
    if (!p) throw new Error(`no fake project ${id}`)
    return p
  }

  addFile(projectId: string, ref: string, file: string, text: string): void {
    const project = this.project(projectId)
    if (!project.files.has(ref)) project.files.set(ref, new Map())
    project.files.get(ref)!.set(file, text)
  }

  addUser(token: string, user: FakeUser): void {
    this.users.set(token, user)
  }

  /** A pipeline of one or more jobs; the newest id is the latest. */
  addPipeline(p: Omit<FakePipeline, 'id' | 'tag' | 'status'> & { tag?: boolean; status?: FakePipeline['status'] }): FakePipeline {
    const pipeline: FakePipeline = { id: this.id(), tag: false, status: 'success', ...p }
    this.pipelines.push(pipeline)
    return pipeline
  }

  job(name: string, artifacts: Record<string, string> | null, status: FakeJob['status'] = 'success'): FakeJob {
    return { id: this.id(), name, status, artifacts: artifacts ? new Map(Object.entries(artifacts)) : null }
  }

  notesOf(projectId: string, iid: string): FakeNote[] {
    const key = `${projectId}!${iid}`
    if (!this.notes.has(key)) this.notes.set(key, [])
    return this.notes.get(key)!
  }

  addNote(projectId: string, iid: string, body: string, author: FakeUser, system = false): FakeNote {
    const now = new Date(Date.UTC(2026, 0, 1, 0, 0, this.nextId)).toISOString()
    const note = { id: this.id(), body, author, system, created_at: now, updated_at: now }
    this.notesOf(projectId, iid).push(note)
    return note
  }

  /** Make a route answer `status` (or never answer) instead, `times` times. */
  fail(route: Route, status: number | 'hang', times = Infinity): void {
    this.failures.set(route, { status, times })
  }

  requestsTo(pattern: RegExp): GitLabRequest[] {
    return this.requests.filter((r) => pattern.test(`${r.method} ${r.path}`))
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', ...headers })
    res.end(text)
  }

  /** True when the route was made to fail (and the answer sent). */
  private failed(route: Route, res: ServerResponse): boolean {
    const f = this.failures.get(route)
    if (!f || f.times <= 0) return false
    f.times--
    if (f.status === 'hang') {
      this.hanging.push(res)
      return true
    }
    const messages: Record<number, string> = {
      401: '401 Unauthorized',
      403: '403 Forbidden',
      404: '404 Not Found',
      500: '500 Internal Server Error',
      502: '502 Bad Gateway',
      503: '503 Service Unavailable'
    }
    this.send(res, f.status, { message: messages[f.status] ?? `${f.status}` })
    return true
  }

  /** One page of a list, with GitLab's pagination headers. */
  private page<T>(res: ServerResponse, req: GitLabRequest, items: T[]): void {
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 20) || 20))
    const totalPages = Math.max(1, Math.ceil(items.length / perPage))
    const page = Math.min(Math.max(1, Number(req.query.get('page') ?? 1) || 1), totalPages + 1)
    const slice = items.slice((page - 1) * perPage, page * perPage)
    const link = (p: number) => {
      const q = new URLSearchParams(req.query)
      q.set('page', String(p))
      q.set('per_page', String(perPage))
      return `<${this.url}${req.path}?${q}>`
    }
    const links = [
      ...(page > 1 ? [`${link(page - 1)}; rel="prev"`] : []),
      ...(page < totalPages ? [`${link(page + 1)}; rel="next"`] : []),
      `${link(1)}; rel="first"`,
      `${link(totalPages)}; rel="last"`
    ]
    this.send(res, 200, slice, {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-total': String(items.length),
      'x-total-pages': String(totalPages),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      link: links.join(', ')
    })
  }

  private async body(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString()
    return text ? (JSON.parse(text) as Record<string, unknown>) : {}
  }

  private noteJson(n: FakeNote, iid: string) {
    return {
      id: n.id,
      type: null,
      body: n.body,
      attachment: null,
      author: { id: n.author.id, username: n.author.username, name: n.author.username, state: 'active' },
      created_at: n.created_at,
      updated_at: n.updated_at,
      system: n.system,
      noteable_type: 'MergeRequest',
      noteable_iid: Number(iid),
      resolvable: false,
      confidential: false,
      internal: false
    }
  }

  private jobJson(j: FakeJob, p: FakePipeline) {
    return {
      id: j.id,
      status: j.status,
      stage: 'test',
      name: j.name,
      ref: p.ref,
      tag: p.tag,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, j.id % 60)).toISOString(),
      pipeline: { id: p.id, project_id: Number(p.projectId) || p.projectId, ref: p.ref, sha: p.sha, status: p.status },
      commit: { id: p.sha, short_id: p.sha.slice(0, 8) },
      artifacts: j.artifacts ? [{ file_type: 'archive', size: 1000, filename: 'artifacts.zip', file_format: 'zip' }] : [],
      artifacts_expire_at: null
    }
  }

  private artifact(res: ServerResponse, job: FakeJob | undefined, file: string): void {
    const text = job?.artifacts?.get(file)
    if (text === undefined) return this.send(res, 404, { message: '404 Not Found' })
    // artifacts are served from object storage: a redirect to a signed URL
    const key = Buffer.from(JSON.stringify({ job: job!.id, file })).toString('base64url')
    this.send(res, 302, '', { location: `${this.url}/storage/${key}?X-Amz-Signature=fake` })
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url)
    const method = req.method ?? 'GET'
    const logged: GitLabRequest = { method, path: url.pathname, query: url.searchParams, headers: req.headers }
    this.requests.push(logged)
    let m: RegExpExecArray | null

    if ((m = /^\/storage\/([^/]+)$/.exec(url.pathname))) {
      if (this.failed('storage', res)) return
      // a signed URL carries its own authority: a forwarded GitLab token is refused, as a bucket would
      if (req.headers['private-token'] || req.headers['job-token'] || req.headers.authorization)
        return this.send(res, 400, '<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>')
      const { job, file } = JSON.parse(Buffer.from(m[1]!, 'base64url').toString()) as { job: number; file: string }
      const text = this.pipelines
        .flatMap((p) => p.jobs)
        .find((j) => j.id === job)
        ?.artifacts?.get(file)
      return text === undefined ? this.send(res, 404, 'NoSuchKey') : this.send(res, 200, text)
    }
    if (!url.pathname.startsWith('/api/v4/')) return this.send(res, 404, { message: '404 Not Found' })
    const p = url.pathname.slice('/api/v4'.length)
    const privateToken = req.headers['private-token']
    const user = typeof privateToken === 'string' ? this.users.get(privateToken) : undefined
    const jobToken = req.headers['job-token'] === this.jobToken
    const unauthorized = () => this.send(res, 401, { message: '401 Unauthorized' })
    if (!user && !jobToken) return unauthorized()

    if (p === '/user' && method === 'GET') {
      if (this.failed('user', res)) return
      return user ? this.send(res, 200, { id: user.id, username: user.username, name: user.username, state: 'active' }) : unauthorized()
    }
    if (!(m = /^\/projects\/([^/]+)(\/.*)?$/.exec(p))) return this.send(res, 404, { message: '404 Not Found' })
    const project = this.projects.get(decodeURIComponent(m[1]!))
    if (!project) return this.send(res, 404, { message: '404 Project Not Found' })
    const rest = m[2] ?? ''

    // the job token reads artifacts only
    const artifactRoute = /^\/jobs\/(artifacts\/|\d+\/artifacts\/)/.test(rest)
    if (!user && !artifactRoute) return unauthorized()

    if (rest === '' && method === 'GET') {
      if (this.failed('project', res)) return
      return this.send(res, 200, { id: Number(project.id) || project.id, path_with_namespace: project.path, default_branch: project.defaultBranch })
    }
    if ((m = /^\/repository\/tags\/(.+)$/.exec(rest)) && method === 'GET') {
      if (this.failed('tag', res)) return
      const name = decodeURIComponent(m[1]!)
      return project.tags.has(name) ? this.send(res, 200, { name, target: 'f'.repeat(40) }) : this.send(res, 404, { message: '404 Tag Not Found' })
    }
    if ((m = /^\/repository\/files\/([^/]+)\/raw$/.exec(rest)) && method === 'GET') {
      if (this.failed('file', res)) return
      const file = decodeURIComponent(m[1]!)
      const ref = url.searchParams.get('ref') ?? project.defaultBranch
      const text = project.files.get(ref)?.get(file)
      return text === undefined ? this.send(res, 404, { message: '404 File Not Found' }) : this.send(res, 200, text)
    }
    if ((m = /^\/repository\/commits\/([^/]+)$/.exec(rest)) && method === 'GET') {
      if (this.failed('commit', res)) return
      const sha = decodeURIComponent(m[1]!)
      const date = project.commits.get(sha)
      if (!date) return this.send(res, 404, { message: '404 Commit Not Found' })
      return this.send(res, 200, { id: sha, short_id: sha.slice(0, 8), title: 'a commit', authored_date: date, committed_date: date, created_at: date })
    }
    if ((m = /^\/jobs\/artifacts\/([^/]+)\/raw\/(.+)$/.exec(rest)) && method === 'GET') {
      if (this.failed('artifact-by-ref', res)) return
      const ref = decodeURIComponent(m[1]!)
      const file = decodeURIComponent(m[2]!)
      const latest = this.pipelines.filter((x) => x.projectId === project.id && x.ref === ref && x.status === 'success').sort((a, b) => b.id - a.id)[0]
      return this.artifact(
        res,
        latest?.jobs.find((j) => j.name === url.searchParams.get('job') && j.status === 'success'),
        file
      )
    }
    if (rest === '/jobs' && method === 'GET') {
      if (this.failed('jobs', res)) return
      const scopes = url.searchParams.getAll('scope[]')
      const jobs = this.pipelines
        .filter((x) => x.projectId === project.id)
        .flatMap((x) => x.jobs.map((j) => ({ j, x })))
        .filter(({ j }) => !scopes.length || scopes.includes(j.status))
        .sort((a, b) => b.j.id - a.j.id)
        .map(({ j, x }) => this.jobJson(j, x))
      return this.page(res, logged, jobs)
    }
    if ((m = /^\/jobs\/(\d+)\/artifacts\/(.+)$/.exec(rest)) && method === 'GET') {
      if (this.failed('artifact-by-job', res)) return
      const job = this.pipelines
        .filter((x) => x.projectId === project.id)
        .flatMap((x) => x.jobs)
        .find((j) => j.id === Number(m![1]))
      return this.artifact(res, job, decodeURIComponent(m[2]!))
    }
    if ((m = /^\/merge_requests\/(\d+)\/notes$/.exec(rest))) {
      const iid = m[1]!
      if (method === 'GET') {
        if (this.failed('notes', res)) return
        const sorted = [...this.notesOf(project.id, iid)]
        if (url.searchParams.get('sort') !== 'asc') sorted.reverse()
        return this.page(
          res,
          logged,
          sorted.map((n) => this.noteJson(n, iid))
        )
      }
      if (method === 'POST') {
        if (this.failed('note-write', res)) return
        const { body } = await this.body(req)
        if (typeof body !== 'string' || !body) return this.send(res, 400, { message: { body: ["can't be blank"] } })
        return this.send(res, 201, this.noteJson(this.addNote(project.id, iid, body, user!), iid))
      }
    }
    if ((m = /^\/merge_requests\/(\d+)\/notes\/(\d+)$/.exec(rest)) && method === 'PUT') {
      if (this.failed('note-write', res)) return
      const note = this.notesOf(project.id, m[1]!).find((n) => n.id === Number(m![2]))
      if (!note) return this.send(res, 404, { message: '404 Not found' })
      if (note.author.id !== user!.id) return this.send(res, 403, { message: '403 Forbidden' })
      const { body } = await this.body(req)
      note.body = String(body)
      note.updated_at = new Date().toISOString()
      return this.send(res, 200, this.noteJson(note, m[1]!))
    }
    return this.send(res, 404, { message: `404 Not Found: ${method} ${p}` })
  }
}

export async function startGitLab(): Promise<GitLabServer> {
  return new GitLabServer().start()
}
